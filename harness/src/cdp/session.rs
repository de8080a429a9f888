//! A flattened CDP session (a page, or an out-of-process iframe): commands carry its `sessionId`.

use std::time::Duration;

use chromiumoxide::cdp::js_protocol::runtime::{
    CallFunctionOnParams, EvaluateParams, ExecutionContextId, RemoteObjectId,
};
use chromiumoxide::types::Command;
use serde_json::Value;

use super::{Cdp, CdpError};

/// A CDP target session reached through the browser connection.
#[derive(Clone)]
pub struct Session {
    pub cdp: Cdp,
    pub id: String,
}

/// A JavaScript exception or a rejected promise from `Runtime.evaluate`.
#[derive(Debug, Clone, thiserror::Error)]
pub enum EvalError {
    #[error(transparent)]
    Cdp(#[from] CdpError),
    #[error("page script threw: {0}")]
    Thrown(String),
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Session({})", self.id)
    }
}

impl Session {
    /// A raw command by name, for what has no (working) typed command.
    pub async fn call(&self, method: &str, params: Value) -> Result<Value, CdpError> {
        self.cdp.call(method, Some(&self.id), params).await
    }

    /// Sends a typed command; the reply as JSON (for replies whose type does not deserialize).
    pub async fn send<C: Command>(&self, cmd: &C) -> Result<Value, CdpError> {
        self.cdp.send(Some(&self.id), cmd).await
    }

    /// Sends a typed command and deserializes its typed response.
    pub async fn execute<C: Command>(&self, cmd: &C) -> Result<C::Response, CdpError> {
        self.cdp.execute(Some(&self.id), cmd).await
    }

    /// `Runtime.callFunctionOn` with `this` the remote object `object_id`; the reply as JSON (its
    /// `result` is a remote object, whose type and subtype may be newer than the generated enums).
    pub async fn call_function_on(
        &self,
        object_id: &str,
        declaration: &str,
        return_by_value: bool,
    ) -> Result<Value, CdpError> {
        let mut params = CallFunctionOnParams::new(declaration);
        params.object_id = Some(RemoteObjectId::new(object_id));
        params.return_by_value = Some(return_by_value);
        self.send(&params).await
    }

    /// `Runtime.evaluate` of `expression` in `context_id` (the session's default context when
    /// `None`), the result left in the page as a remote object; the reply as JSON.
    pub async fn evaluate_handle(&self, expression: &str, context_id: Option<i64>) -> Result<Value, CdpError> {
        let mut params = EvaluateParams::new(expression);
        params.return_by_value = Some(false);
        params.context_id = context_id.map(ExecutionContextId::new);
        self.send(&params).await
    }

    /// Evaluates `expression` (awaiting a promise) and returns its JSON value.
    pub async fn eval(&self, expression: &str) -> Result<Value, EvalError> {
        self.eval_in(expression, None, super::COMMAND_TIMEOUT).await
    }

    /// Evaluates in a given execution context (a same-process frame's main world), with a timeout.
    pub async fn eval_in(
        &self,
        expression: &str,
        context_id: Option<i64>,
        timeout: Duration,
    ) -> Result<Value, EvalError> {
        let mut params = EvaluateParams::new(expression);
        params.await_promise = Some(true);
        params.return_by_value = Some(true);
        params.context_id = context_id.map(ExecutionContextId::new);
        // The reply as JSON: a remote object's type and subtype may be newer than the generated enums.
        let reply = self.cdp.send_with_timeout(Some(&self.id), &params, timeout).await?;
        if let Some(details) = reply.get("exceptionDetails") {
            let text = details
                .pointer("/exception/description")
                .and_then(Value::as_str)
                .or_else(|| details.get("text").and_then(Value::as_str))
                .unwrap_or("unknown exception");
            return Err(EvalError::Thrown(text.to_string()));
        }
        Ok(reply.pointer("/result/value").cloned().unwrap_or(Value::Null))
    }
}
