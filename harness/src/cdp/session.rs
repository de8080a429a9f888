//! A flattened CDP session (a page, or an out-of-process iframe): commands carry its `sessionId`.

use std::time::Duration;

use serde_json::{json, Value};

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
    pub async fn call(&self, method: &str, params: Value) -> Result<Value, CdpError> {
        self.cdp.call(method, Some(&self.id), params).await
    }

    pub async fn send<C: chromiumoxide::types::Command>(&self, cmd: &C) -> Result<Value, CdpError> {
        self.cdp.send(Some(&self.id), cmd).await
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
        let mut params = json!({"expression": expression, "awaitPromise": true, "returnByValue": true});
        if let Some(id) = context_id {
            params["contextId"] = json!(id);
        }
        let reply = self.cdp.call_with_timeout("Runtime.evaluate", Some(&self.id), params, timeout).await?;
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
