//! Everything that leaves a realm, captured from outside the runtime, for the privacy canary scan
//! (spec "Privacy and security"; issue 11: "a canary scan over every output the harness sees").
//!
//! - Relay messages between realms: a `message` listener in an isolated world of every frame
//!   (`Page.createIsolatedWorld`, one per frame of every CDP session, out-of-process frames included)
//!   records each `postMessage` that frame receives, serialized in that world. The runtime's own
//!   world is untouched: no global, no wrapper, no listener it could see, nothing stops propagation.
//!   (The runtime posts to windows only; it transfers no `MessagePort`.)
//! - What the page sends over the network: `Network.webSocketFrameSent` / `...Received` (the
//!   composer's Session socket) and the bodies of requests (`Network.requestWillBeSent`), in every
//!   session.
//! - The console of every frame ([`Host::console`]), the Session's stored rows and its SQLite file,
//!   failure artifacts: read by [`scan`] callers.

use std::sync::{Arc, Mutex};

use anyhow::{ensure, Context};
use serde_json::Value;
use tokio::task::JoinHandle;

use crate::cdp::Session;
use crate::host::Host;
use chromiumoxide::cdp::browser_protocol::{network, page};

/// The isolated world's name (what `Page.createIsolatedWorld` creates in each frame).
const WORLD: &str = "attention-harness-output-capture";

/// Installed in each isolated world: records what the frame's window receives by `postMessage`.
const LISTEN: &str = "(() => {
  if (!window.__capturedMessages) {
    window.__capturedMessages = [];
    window.addEventListener('message', (e) => {
      let data;
      try { data = JSON.stringify(e.data); } catch (_) { data = String(e.data); }
      window.__capturedMessages.push({ origin: String(e.origin), data: String(data) });
    }, true);
  }
  return true;
})()";

/// A capture running on an opened Host; [`OutputCapture::collect`] reads it back.
pub struct OutputCapture {
    worlds: Vec<(Session, i64, String)>,
    network: Arc<Mutex<Vec<(String, String)>>>,
    task: JoinHandle<()>,
}

impl Drop for OutputCapture {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// One captured output: where it came from and its text.
#[derive(Debug, Clone)]
pub struct Output {
    pub source: String,
    pub text: String,
}

impl OutputCapture {
    /// Starts capturing in every frame the Host has now (call after it is ready).
    pub async fn install(host: &Host) -> anyhow::Result<OutputCapture> {
        let network = Arc::new(Mutex::new(Vec::new()));
        let mut events = host.frames().cdp().events();
        let sink = network.clone();
        let task = tokio::spawn(async move {
            loop {
                let ev = match events.recv().await {
                    Ok(ev) => ev,
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(_) => return,
                };
                let text = match ev.method.as_str() {
                    "Network.webSocketFrameSent" | "Network.webSocketFrameReceived" => {
                        ev.params.pointer("/response/payloadData").and_then(Value::as_str).map(str::to_string)
                    }
                    "Network.requestWillBeSent" => {
                        let r = &ev.params["request"];
                        Some(format!(
                            "{} {}",
                            r["url"].as_str().unwrap_or_default(),
                            r["postData"].as_str().unwrap_or_default()
                        ))
                    }
                    _ => None,
                };
                if let (Some(text), Ok(mut v)) = (text, sink.lock()) {
                    v.push((ev.method.clone(), text));
                }
            }
        });
        let mut worlds = Vec::new();
        for session in host.frames().sessions() {
            session.execute(&network::EnableParams::default()).await?;
            let tree = session.send(&page::GetFrameTreeParams::default()).await?;
            let mut frames = Vec::new();
            crate::frames::flatten_frames(&tree["frameTree"], &mut frames);
            for f in frames {
                let id = f["id"].as_str().unwrap_or_default();
                let url = f["url"].as_str().unwrap_or_default().to_string();
                // A frame of another process listed in this tree has no world here: its own session installs it.
                let mut world = page::CreateIsolatedWorldParams::new(page::FrameId::new(id));
                world.world_name = Some(WORLD.into());
                let Ok(made) = session.execute(&world).await else { continue };
                let ctx = *made.execution_context_id.inner();
                if session.eval_in(LISTEN, Some(ctx), crate::cdp::COMMAND_TIMEOUT).await.is_ok() {
                    worlds.push((session.clone(), ctx, url));
                }
            }
        }
        ensure!(worlds.len() >= 2, "the message capture reached only {} frame(s)", worlds.len());
        Ok(OutputCapture { worlds, network, task })
    }

    /// How many frames listen.
    pub fn frames(&self) -> usize {
        self.worlds.len()
    }

    /// Every relay message and network payload captured so far.
    pub async fn collect(&self) -> anyhow::Result<Vec<Output>> {
        let mut out = Vec::new();
        for (session, ctx, url) in &self.worlds {
            let got = session
                .eval_in("JSON.stringify(window.__capturedMessages || [])", Some(*ctx), crate::cdp::COMMAND_TIMEOUT)
                .await
                .with_context(|| format!("reading the captured messages of {url}"))?;
            let list: Vec<Value> = serde_json::from_str(got.as_str().unwrap_or("[]"))?;
            for m in list {
                out.push(Output {
                    source: format!("postMessage to {url} from {}", m["origin"].as_str().unwrap_or("?")),
                    text: m["data"].as_str().unwrap_or_default().to_string(),
                });
            }
        }
        for (method, text) in self.network.lock().map(|v| v.clone()).unwrap_or_default() {
            out.push(Output { source: method, text });
        }
        Ok(out)
    }
}

/// The first output that contains any of `canaries`, as `(canary, source, excerpt)`.
pub fn find_canary<'a>(
    canaries: &[String],
    outputs: impl IntoIterator<Item = &'a Output>,
) -> Option<(String, String, String)> {
    for o in outputs {
        for c in canaries {
            if let Some(i) = o.text.find(c.as_str()) {
                let start = o.text[..i].char_indices().rev().nth(40).map(|(j, _)| j).unwrap_or(0);
                let end = (i + c.len() + 40).min(o.text.len());
                let end = (end..=o.text.len()).find(|&e| o.text.is_char_boundary(e)).unwrap_or(o.text.len());
                return Some((c.clone(), o.source.clone(), o.text[start..end].to_string()));
            }
        }
    }
    None
}

/// Every byte of the files under `dir` (recursively), one output per file, binary files as lossy text.
pub fn files_under(dir: &std::path::Path) -> anyhow::Result<Vec<Output>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).with_context(|| format!("reading {}", d.display()))? {
            let p = entry?.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let bytes = std::fs::read(&p)?;
                out.push(Output {
                    source: p.display().to_string(),
                    text: String::from_utf8_lossy(&bytes).into_owned(),
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_canary_names_the_source_and_an_excerpt_and_misses_nothing_else() {
        let outs = vec![
            Output { source: "a".into(), text: "nothing here".into() },
            Output { source: "b".into(), text: "x".repeat(60) + "CANARY-TYPED-PW-L" + "é" },
        ];
        let canaries = vec!["CANARY-TYPED-PW-L".to_string()];
        let (c, src, excerpt) = find_canary(&canaries, &outs).unwrap();
        assert_eq!((c.as_str(), src.as_str()), ("CANARY-TYPED-PW-L", "b"));
        assert!(excerpt.contains("CANARY-TYPED-PW-L"));
        assert!(find_canary(&canaries, &outs[..1]).is_none());
    }
}
