//! Chromium's own timing of the runtime's event listeners, for `bench observer` (issue 13: "the
//! observer's cost per trusted pointermove in the Host realm and in a child realm"). The page's
//! clock cannot measure it (`performance.now()` is coarsened to 100 µs in these pages), so the
//! browser records a performance trace: `Tracing.start` with the `devtools.timeline` category on
//! the browser connection (every renderer, out-of-process iframes included), the events streamed
//! by `Tracing.dataCollected`, `Tracing.end`, then `Tracing.tracingComplete`.
//!
//! What Chromium 156 emits there (checked on this machine's Debian build): an `EventDispatch`
//! complete event (`ph: "X"`, `args.data.type`) per dispatched DOM event, and inside it one
//! `FunctionCall` complete event per listener invoked, with the listener's `args.data.url`
//! (script), `args.data.frame` (frame id), `dur` (wall µs) and `tdur` (thread CPU µs). Every
//! runtime listener is the bundle's `wrap` function, so a pointermove costs the runtime the sum of
//! the `FunctionCall`s of `/runtime/attention.js` nested in that dispatch (the observation and the
//! selection listeners). A `message` event (a child's observation relayed to its parent) gets no
//! `EventDispatch`: its listener's `FunctionCall` is a top-level event of the renderer's thread.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::Value;
use tokio::task::JoinHandle;

use crate::cdp::{Cdp, CdpError};
use chromiumoxide::cdp::browser_protocol::tracing::{
    EndParams, StartParams, StartTransferMode, TraceConfig, TraceConfigRecordMode,
};

/// The path the reference server serves the runtime bundle at, in every realm.
pub const RUNTIME_SCRIPT: &str = crate::server::RUNTIME_PATH;

/// How long Chromium may take to flush the trace after `Tracing.end`.
pub const FLUSH_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error(transparent)]
    Cdp(#[from] CdpError),
    #[error("trace events were lost: {0}")]
    Lost(String),
    #[error("no Tracing.tracingComplete within {} ms after Tracing.end", .0.as_millis())]
    Timeout(Duration),
}

/// A trace being recorded; [`Recording::stop`] ends it and returns what Chromium collected.
pub struct Recording {
    cdp: Cdp,
    collector: JoinHandle<Result<Vec<Value>, TraceError>>,
}

/// Starts a `devtools.timeline` trace of the whole browser.
pub async fn start(cdp: &Cdp) -> Result<Recording, TraceError> {
    // Subscribed before Tracing.start, so no batch can be missed.
    let mut events = cdp.events();
    let collector = tokio::spawn(async move {
        let mut all = Vec::new();
        loop {
            match events.recv().await {
                Ok(ev) if ev.session_id.is_none() && ev.method == "Tracing.dataCollected" => {
                    all.extend(ev.params["value"].as_array().into_iter().flatten().cloned());
                }
                Ok(ev) if ev.session_id.is_none() && ev.method == "Tracing.tracingComplete" => {
                    if ev.params["dataLossOccurred"].as_bool() == Some(true) {
                        return Err(TraceError::Lost("Chromium's trace buffer overflowed (dataLossOccurred)".into()));
                    }
                    return Ok(all);
                }
                Ok(_) => {}
                Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                    return Err(TraceError::Lost(format!("the CDP event reader lagged by {n} events")));
                }
                Err(_) => return Err(TraceError::Lost("the DevTools connection closed while tracing".into())),
            }
        }
    });
    let trace_config = TraceConfig {
        included_categories: Some(vec!["devtools.timeline".into()]),
        record_mode: Some(TraceConfigRecordMode::RecordAsMuchAsPossible),
        ..Default::default()
    };
    let start = StartParams {
        trace_config: Some(trace_config),
        transfer_mode: Some(StartTransferMode::ReportEvents),
        ..Default::default()
    };
    if let Err(e) = cdp.execute(None, &start).await {
        collector.abort();
        return Err(e.into());
    }
    Ok(Recording { cdp: cdp.clone(), collector })
}

impl Recording {
    /// Ends the trace and waits (at most [`FLUSH_TIMEOUT`]) for every event Chromium collected.
    pub async fn stop(self) -> Result<Trace, TraceError> {
        let Recording { cdp, mut collector } = self;
        if let Err(e) = cdp.execute(None, &EndParams::default()).await {
            collector.abort();
            return Err(e.into());
        }
        match tokio::time::timeout(FLUSH_TIMEOUT, &mut collector).await {
            Ok(Ok(result)) => Ok(Trace::new(result?)),
            Ok(Err(join)) => Err(TraceError::Lost(format!("the trace collector ended: {join}"))),
            Err(_) => {
                collector.abort();
                Err(TraceError::Timeout(FLUSH_TIMEOUT))
            }
        }
    }
}

/// Time a listener (or several) took, in microseconds, as the trace says.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cost {
    /// Wall time (`dur`).
    pub wall_us: f64,
    /// Time on the renderer's thread (`tdur`), without preemption by other processes.
    pub thread_us: f64,
}

/// A complete (`ph: "X"`) event on one thread.
#[derive(Debug, Clone)]
struct Span {
    name: String,
    ts: f64,
    dur: f64,
    tdur: f64,
    data: Value,
}

impl Span {
    fn end(&self) -> f64 {
        self.ts + self.dur
    }
    fn contains(&self, other: &Span) -> bool {
        self.ts <= other.ts && other.end() <= self.end()
    }
    fn is_call_of(&self, frame: &str, script: &str) -> bool {
        self.name == "FunctionCall"
            && self.data["frame"].as_str() == Some(frame)
            && self.data["url"].as_str().is_some_and(|u| url_path(u) == script)
    }
}

/// The path of an http(s) URL (no origin, no query).
fn url_path(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let path = rest.find('/').map_or("", |i| &rest[i..]);
    path.split(['?', '#']).next().unwrap_or(path)
}

/// A recorded trace: its complete events grouped by thread, in start order (a parent before the
/// events it contains).
pub struct Trace {
    threads: HashMap<(i64, i64), Vec<Span>>,
    /// How many events Chromium sent, of any kind.
    pub event_count: usize,
}

impl Trace {
    pub fn new(events: Vec<Value>) -> Trace {
        let event_count = events.len();
        let mut threads: HashMap<(i64, i64), Vec<Span>> = HashMap::new();
        for e in events {
            if e["ph"].as_str() != Some("X") {
                continue;
            }
            let (Some(pid), Some(tid), Some(ts), Some(name)) =
                (e["pid"].as_i64(), e["tid"].as_i64(), e["ts"].as_f64(), e["name"].as_str())
            else {
                continue;
            };
            let dur = e["dur"].as_f64().unwrap_or(0.0);
            let span = Span {
                name: name.to_string(),
                ts,
                dur,
                tdur: e["tdur"].as_f64().unwrap_or(dur),
                data: e["args"]["data"].clone(),
            };
            threads.entry((pid, tid)).or_default().push(span);
        }
        for spans in threads.values_mut() {
            // Longer first at equal start, so a parent precedes what it contains.
            spans.sort_by(|a, b| a.ts.total_cmp(&b.ts).then(b.dur.total_cmp(&a.dur)));
        }
        Trace { threads, event_count }
    }

    /// For each dispatch of a DOM event of `event_type` whose listeners include `script`'s in
    /// `frame`: the summed cost of `script`'s listener calls in it (the `FunctionCall`s directly
    /// inside the `EventDispatch`, in that frame). Dispatches where `script` ran no listener are
    /// not counted (nothing ties them to a frame).
    pub fn listener_costs(&self, event_type: &str, frame: &str, script: &str) -> Vec<Cost> {
        let mut out = Vec::new();
        for spans in self.threads.values() {
            for (i, d) in spans.iter().enumerate() {
                if d.name != "EventDispatch" || d.data["type"].as_str() != Some(event_type) {
                    continue;
                }
                let mut cost = Cost { wall_us: 0.0, thread_us: 0.0 };
                let mut calls = 0;
                let mut last_end = f64::NEG_INFINITY;
                for s in spans[i + 1..].iter().take_while(|s| s.ts <= d.end()) {
                    // Directly inside: not within an earlier call counted here (a nested dispatch's
                    // listeners belong to that dispatch).
                    if !d.contains(s) || s.ts < last_end {
                        continue;
                    }
                    if s.name == "FunctionCall" || s.name == "EventDispatch" {
                        last_end = s.end();
                    }
                    if s.is_call_of(frame, script) {
                        cost.wall_us += s.dur;
                        cost.thread_us += s.tdur;
                        calls += 1;
                    }
                }
                if calls > 0 {
                    out.push(cost);
                }
            }
        }
        out
    }

    /// The cost of each call of `script` in `frame` that no other trace event contains: listeners
    /// of events without an `EventDispatch`, such as `message` (timers, animation frames and
    /// dispatched events have an enclosing event and are not counted).
    pub fn top_level_calls(&self, frame: &str, script: &str) -> Vec<Cost> {
        let mut out = Vec::new();
        for spans in self.threads.values() {
            let mut last_end = f64::NEG_INFINITY;
            for s in spans {
                if s.ts < last_end {
                    continue;
                }
                last_end = s.end();
                if s.is_call_of(frame, script) {
                    out.push(Cost { wall_us: s.dur, thread_us: s.tdur });
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const RT: &str = "http://127.0.0.1:4000/runtime/attention.js";

    fn x(name: &str, ts: f64, dur: f64, data: Value) -> Value {
        json!({"ph": "X", "pid": 1, "tid": 1, "name": name, "cat": "devtools.timeline", "ts": ts, "dur": dur, "tdur": dur / 2.0, "args": {"data": data}})
    }
    fn call(ts: f64, dur: f64, url: &str, frame: &str) -> Value {
        x("FunctionCall", ts, dur, json!({"url": url, "frame": frame, "functionName": ""}))
    }
    fn dispatch(ts: f64, dur: f64, ty: &str) -> Value {
        x("EventDispatch", ts, dur, json!({"type": ty}))
    }

    #[test]
    fn a_dispatch_costs_the_sum_of_the_runtime_listeners_in_its_frame_and_nothing_else() {
        let trace = Trace::new(vec![
            dispatch(100.0, 50.0, "pointermove"),
            call(101.0, 20.0, RT, "F"),
            call(122.0, 4.0, RT, "F"),
            call(127.0, 10.0, "http://127.0.0.1:4000/apps/leaf-log.js", "F"),
            dispatch(151.0, 3.0, "mousemove"),
            call(151.5, 1.0, RT, "F"),
        ]);
        assert_eq!(
            trace.listener_costs("pointermove", "F", RUNTIME_SCRIPT),
            vec![Cost { wall_us: 24.0, thread_us: 12.0 }]
        );
        assert!(
            trace.listener_costs("pointermove", "G", RUNTIME_SCRIPT).is_empty(),
            "another frame's listeners are not ours"
        );
    }

    #[test]
    fn a_dispatch_without_the_runtime_is_not_counted() {
        let trace =
            Trace::new(vec![dispatch(100.0, 50.0, "pointermove"), call(101.0, 20.0, "http://x/host/host.js", "F")]);
        assert!(trace.listener_costs("pointermove", "F", RUNTIME_SCRIPT).is_empty());
    }

    #[test]
    fn a_nested_dispatch_keeps_its_own_listeners() {
        // A listener of the outer event dispatches another pointermove synchronously.
        let trace = Trace::new(vec![
            dispatch(0.0, 100.0, "pointermove"),
            call(1.0, 90.0, RT, "F"),
            dispatch(10.0, 30.0, "pointermove"),
            call(11.0, 20.0, RT, "F"),
        ]);
        let mut costs: Vec<f64> =
            trace.listener_costs("pointermove", "F", RUNTIME_SCRIPT).iter().map(|c| c.wall_us).collect();
        costs.sort_by(f64::total_cmp);
        assert_eq!(costs, vec![20.0, 90.0]);
    }

    #[test]
    fn a_query_string_on_the_script_url_still_names_the_runtime_but_another_path_does_not() {
        let trace = Trace::new(vec![
            dispatch(0.0, 10.0, "pointermove"),
            call(1.0, 2.0, "http://localhost:5/runtime/attention.js?v=3", "F"),
            dispatch(20.0, 10.0, "pointermove"),
            call(21.0, 2.0, "http://localhost:5/runtime/attention.js.map", "F"),
        ]);
        assert_eq!(trace.listener_costs("pointermove", "F", RUNTIME_SCRIPT).len(), 1);
    }

    #[test]
    fn top_level_calls_are_the_ones_no_event_contains() {
        let trace = Trace::new(vec![
            call(0.0, 7.0, RT, "F"),               // a message listener
            x("TimerFire", 10.0, 10.0, json!({})), // a timer's callback is not counted
            call(11.0, 5.0, RT, "F"),
            dispatch(30.0, 10.0, "pointermove"),
            call(31.0, 5.0, RT, "F"),
            call(50.0, 3.0, RT, "G"),                      // another frame
            call(60.0, 2.0, "http://x/host/host.js", "F"), // another script
        ]);
        assert_eq!(trace.top_level_calls("F", RUNTIME_SCRIPT), vec![Cost { wall_us: 7.0, thread_us: 3.5 }]);
    }

    #[test]
    fn threads_are_kept_apart_and_only_complete_events_count() {
        let mut other = call(5.0, 8.0, RT, "F");
        other["tid"] = json!(2);
        let mut begin = dispatch(0.0, 0.0, "pointermove");
        begin["ph"] = json!("B");
        let trace = Trace::new(vec![dispatch(0.0, 20.0, "pointermove"), other, begin]);
        assert!(trace.listener_costs("pointermove", "F", RUNTIME_SCRIPT).is_empty());
        assert_eq!(trace.top_level_calls("F", RUNTIME_SCRIPT).len(), 1);
        assert_eq!(trace.event_count, 3);
    }
}
