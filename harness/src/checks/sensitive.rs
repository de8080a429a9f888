//! Every sensitive control kind the spec names, end to end (spec "Privacy and security": password,
//! hidden, file, one-time-code, payment-card, credential-like and similarly named editable controls
//! are excluded automatically; `exclude` / `redact`; "Editable values are unavailable").
//!
//! The sensitive corpus (`apps/corpus-sensitive.html`, `?corpus=sensitive&mount=...`) holds each kind
//! in the light DOM and inside a closed shadow root. The controls are enumerated with Chromium's own
//! `DOM.querySelectorAll` (one selector per kind, written here from the spec's words, run in every
//! tree root CDP's pierced DOM gives, closed roots included), never through the runtime. Each is
//! pointed at and focused with trusted input (Chromium's box model says where, its focused element
//! confirms the focus), a unique canary is typed into it with trusted keys (file inputs get a
//! canary-named file, the payment select has a canary option chosen), its content is read back
//! from the page (the canary is really there), its text is selected with a trusted Ctrl+A, and then:
//! the runtime clears its focus, makes no candidate of it (redact: keeps the box without any text),
//! replaces the selection with the matching `selection-*` omission, and no `CANARY-` reaches a
//! snapshot, an envelope or `focus()`. At the end, with the composer's automatic context on and the
//! pointer on the controls, one message goes to the Session, and every output captured from outside
//! ([`super::outputs`]: relay messages between realms, network frames, the console of every frame,
//! the Session's stored rows and its SQLite file, failure artifacts) is scanned: no canary anywhere.

use std::collections::BTreeMap;

use anyhow::{anyhow, bail, ensure, Context};
use serde_json::Value;

use crate::attention::Snapshot;

use super::outputs::{files_under, find_canary, Output, OutputCapture};
use super::privacy::{sampled_inside, CANARY};
use super::{candidate_at, require_valid_payload, wait_for, Poll, POINTER_TIMEOUT, RECT_TOLERANCE};
use crate::cdp::Session;
use crate::host::Host;
use crate::input::{key_event, Key};
use crate::oracle::{BoxRect, Located};
use crate::report::text;
use chromiumoxide::cdp::browser_protocol::accessibility::GetPartialAxTreeParams;
use chromiumoxide::cdp::browser_protocol::dom::{
    BackendNodeId, DescribeNodeParams, NodeId, QuerySelectorAllParams, SetFileInputFilesParams,
};
use chromiumoxide::cdp::browser_protocol::input::DispatchKeyEventType;
use chromiumoxide::cdp::browser_protocol::page::SetInterceptFileChooserDialogParams;

/// What the spec requires of a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Never a candidate, never text; focus on it clears; a selection in it is `selection-excluded`.
    Excluded,
    /// Geometry kept without text (`redacted`); a selection in it is `selection-redacted`.
    Redacted,
    /// The control group: a candidate, but its editable value never leaves (`selection-unavailable`).
    Ordinary,
}

/// The kinds, as the spec names them, with a selector Chromium evaluates.
pub const KINDS: [(&str, &str, Rule); 10] = [
    ("password", "input[type=password i]", Rule::Excluded),
    ("hidden", "input[type=hidden i]", Rule::Excluded),
    ("file", "input[type=file i]", Rule::Excluded),
    ("one-time-code", "[autocomplete~=one-time-code i]", Rule::Excluded),
    ("payment-card", "[autocomplete^=cc- i]", Rule::Excluded),
    ("credential-like", ":is(input, textarea, select):is([name*=token i], [name*=secret i])", Rule::Excluded),
    (
        "similarly-named-editable",
        "[contenteditable]:not([contenteditable=false i]):not([data-wippy-attention]):is([aria-label*=passphrase i], [id^=pin- i])",
        Rule::Excluded,
    ),
    ("exclude-marker", "[data-wippy-attention=exclude i]", Rule::Excluded),
    ("redact-marker", "[data-wippy-attention=redact i]", Rule::Redacted),
    ("ordinary", "input[name=city], [contenteditable][aria-label=Notes]", Rule::Ordinary),
];

/// One control as Chromium enumerated it.
#[derive(Debug, Clone)]
struct Control {
    kind: &'static str,
    rule: Rule,
    /// "light" or "closed" (inside the closed shadow root).
    tree: &'static str,
    at: Located,
    tag: String,
    input_type: String,
    rect: BoxRect,
    ax_focusable: bool,
    ax_editable: Option<String>,
}

impl Control {
    fn typeable(&self) -> bool {
        match self.tag.as_str() {
            "input" => !matches!(self.input_type.as_str(), "file" | "hidden"),
            "select" => false,
            _ => true,
        }
    }
}

/// The test body: see the module comment. Returns figures (controls per kind, outputs scanned).
pub async fn sensitive_controls_leave_no_trace(host: &Host) -> anyhow::Result<String> {
    wait_for(host, "the sensitive corpus reporting data-app-ready", std::time::Duration::from_secs(20), || async {
        Ok(match host.frames().locate_attr("data-app-ready", "true").await? {
            Some(_) => Poll::Ready(()),
            None => Poll::Pending("no data-app-ready yet".into()),
        })
    })
    .await?;
    let capture = OutputCapture::install(host).await?;
    for s in sessions(host) {
        // A click on a file input opens no dialog; Chromium reports the chooser instead.
        // Best effort: a frame whose Page domain refuses it has no dialog in a headless browser either.
        let _ = s.execute(&SetInterceptFileChooserDialogParams::new(true)).await;
    }
    let controls = enumerate(host).await?;
    let mut per_kind: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for c in &controls {
        *per_kind.entry((c.kind, c.tree)).or_default() += 1;
    }
    for (kind, _, _) in KINDS {
        for tree in ["light", "closed"] {
            ensure!(
                per_kind.get(&(kind, tree)).copied().unwrap_or(0) >= 1,
                "Chromium finds no {kind} control in the {tree} tree of the corpus"
            );
        }
    }

    let mut checked = 0;
    for tree in ["light", "closed"] {
        let city = controls
            .iter()
            .find(|c| c.tree == tree && c.rule == Rule::Ordinary && c.tag == "input")
            .context("no ordinary text input in the tree")?
            .clone();
        for (i, c) in controls.iter().filter(|c| c.tree == tree).enumerate() {
            if c.input_type == "hidden" {
                ensure!(!c.ax_focusable, "Chromium says the hidden input is focusable");
                continue; // not rendered: it can be neither pointed at nor focused; the scans cover its value
            }
            ensure!(
                c.ax_focusable,
                "Chromium's accessibility tree says the {} {} control is not focusable",
                c.tree,
                c.kind
            );
            if c.tag != "input" && c.tag != "textarea" && c.tag != "select" {
                ensure!(
                    c.ax_editable.is_some(),
                    "Chromium does not treat the {} {} <{}> as editable",
                    c.tree,
                    c.kind,
                    c.tag
                );
            }
            drive(host, c, &city, i)
                .await
                .with_context(|| format!("the {} {} control <{}> at {}", c.tree, c.kind, c.tag, c.rect))?;
            checked += 1;
        }
    }

    // One message to the Session with the pointer on the light password control.
    let stored = send_with_context(host, &controls).await?;
    // A Web Fragment's realm reaches the Host without messages: one snapshot at the srcdoc child
    // (present in every Host) makes relay traffic, so the capture is proved to work in every cell.
    let (lx, ly) = host.landmark_rect("closed-shadow-leaf").await?.center();
    super::snapshot_at(host, lx, ly).await?;
    let mut outputs = capture.collect().await?;
    let relayed = outputs.iter().filter(|o| o.source.starts_with("postMessage")).count();
    let frames_sent = outputs.iter().filter(|o| o.source == "Network.webSocketFrameSent").count();
    ensure!(relayed > 0, "no relay message was captured between the realms: the scan would prove nothing");
    ensure!(
        outputs.iter().any(|o| o.source == "Network.webSocketFrameSent"
            && o.text.contains("session_message")
            && o.text.contains("context_attachments")),
        "the composer's session_message with its context was not captured on the socket"
    );
    let session = super::session::session_of(host)?;
    outputs.push(Output { source: "the Session's stored messages".into(), text: stored });
    let db = session.db_path().to_path_buf();
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let p = std::path::PathBuf::from(format!("{}{suffix}", db.display()));
        if let Ok(bytes) = std::fs::read(&p) {
            outputs
                .push(Output { source: p.display().to_string(), text: String::from_utf8_lossy(&bytes).into_owned() });
        }
    }
    outputs.extend(host.console().into_iter().map(|line| Output { source: "console".into(), text: line }));
    let folder =
        crate::report::write_artifacts(&format!("{}-canary-scan", crate::report::current_test_name()), host).await;
    let artifacts = files_under(&folder)?;
    let _ = std::fs::remove_dir_all(&folder);
    ensure!(artifacts.iter().any(|a| a.source.ends_with("snapshot.json")), "no failure artifacts were written to scan");
    outputs.extend(artifacts);
    if let Some((canary, source, excerpt)) = find_canary(&[CANARY.to_string()], &outputs) {
        bail!("a canary ({canary}) left the realms in {source}: ...{excerpt}...");
    }
    let kinds: Vec<String> = per_kind.iter().map(|((k, t), n)| format!("{k}/{t}:{n}")).collect();
    Ok(format!(
        "{checked} controls pointed at, focused, typed into and selected ({}); {} outputs scanned ({relayed} relay messages from {} frames, {frames_sent} socket frames sent): no canary",
        kinds.join(" "),
        outputs.len(),
        capture.frames()
    ))
}

fn sessions(host: &Host) -> Vec<Session> {
    host.frames().sessions()
}

/// The corpus's controls, enumerated by Chromium: every tree root of every session (documents of
/// in-process frames, open and closed shadow roots) queried with each kind's selector, scoped to the
/// corpus's light column or to the closed root hosted by the corpus.
async fn enumerate(host: &Host) -> anyhow::Result<Vec<Control>> {
    let mut out: Vec<Control> = Vec::new();
    for session in sessions(host) {
        let root = session.pierced_document().await?;
        let mut roots = Vec::new();
        tree_roots(&root, &mut roots);
        for (node_id, closed) in roots {
            for (kind, selector, rule) in KINDS {
                let sel = if closed {
                    selector.to_string()
                } else {
                    format!("[data-landmark=sensitive-light] :is({selector})")
                };
                let found = session.execute(&QuerySelectorAllParams::new(NodeId::new(node_id), sel)).await?;
                for id in found.node_ids {
                    let describe = DescribeNodeParams { node_id: Some(id), ..Default::default() };
                    let desc = session.send(&describe).await?;
                    let node = &desc["node"];
                    let backend = node["backendNodeId"].as_i64().context("a node without backendNodeId")?;
                    if out.iter().any(|c| c.at.session.id == session.id && c.at.backend_node_id == backend) {
                        bail!("one control matches two kinds ({kind} and another): the enumeration is ambiguous");
                    }
                    let attrs = node["attributes"].as_array().cloned().unwrap_or_default();
                    let attr = |n: &str| {
                        attrs
                            .chunks(2)
                            .find(|p| p[0] == n)
                            .and_then(|p| p.get(1))
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_lowercase()
                    };
                    let at = Located { session: session.clone(), backend_node_id: backend, inner_frames: Vec::new() };
                    let tag = node["localName"].as_str().unwrap_or_default().to_string();
                    let input_type = attr("type");
                    let rect = if input_type == "hidden" {
                        BoxRect { x: 0.0, y: 0.0, width: 0.0, height: 0.0 }
                    } else {
                        host.frames().node_rect(&at).await?
                    };
                    let partial = GetPartialAxTreeParams {
                        backend_node_id: Some(BackendNodeId::new(backend)),
                        fetch_relatives: Some(false),
                        ..Default::default()
                    };
                    let ax = session.send(&partial).await?;
                    let axn = ax["nodes"]
                        .as_array()
                        .and_then(|n| n.iter().find(|n| n["backendDOMNodeId"].as_i64() == Some(backend)))
                        .cloned()
                        .unwrap_or(Value::Null);
                    let prop = |name: &str| {
                        axn["properties"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .find(|p| p["name"] == name)
                            .map(|p| p["value"]["value"].clone())
                    };
                    out.push(Control {
                        kind,
                        rule,
                        tree: if closed { "closed" } else { "light" },
                        at,
                        tag,
                        input_type,
                        rect,
                        ax_focusable: prop("focusable").and_then(|v| v.as_bool()).unwrap_or(false),
                        ax_editable: prop("editable").and_then(|v| v.as_str().map(str::to_string)),
                    });
                }
            }
        }
    }
    out.sort_by(|a, b| (a.tree, a.rect.y).partial_cmp(&(b.tree, b.rect.y)).unwrap_or(std::cmp::Ordering::Equal));
    Ok(out)
}

/// Every document and shadow root of a pierced DOM: `(nodeId, whether it is the closed root that
/// the corpus's `sensitive-closed-host` element hosts)`.
fn tree_roots(node: &Value, out: &mut Vec<(i64, bool)>) {
    let ty = node["nodeType"].as_i64().unwrap_or_default();
    if ty == 9 {
        if let Some(id) = node["nodeId"].as_i64() {
            out.push((id, false));
        }
    }
    let attrs = node["attributes"].as_array().cloned().unwrap_or_default();
    let hosts_vault = attrs
        .chunks(2)
        .any(|p| p[0] == "data-landmark" && p.get(1).and_then(Value::as_str) == Some("sensitive-closed-host"));
    for root in node["shadowRoots"].as_array().into_iter().flatten() {
        if let Some(id) = root["nodeId"].as_i64() {
            if root["shadowRootType"] != "user-agent" {
                out.push((id, hosts_vault && root["shadowRootType"] == "closed"));
            }
        }
        tree_roots(root, out);
    }
    for kid in node["children"].as_array().into_iter().flatten() {
        tree_roots(kid, out);
    }
    if let Some(doc) = node.get("contentDocument") {
        tree_roots(doc, out);
    }
}

/// A trusted Ctrl+A (select all) on whatever has focus.
async fn select_all(host: &Host) -> anyhow::Result<()> {
    const CTRL: i64 = 2;
    let k = Key::KEY_A;
    let page = host.frames().page();
    page.execute(&key_event(DispatchKeyEventType::RawKeyDown, k, CTRL)).await?;
    page.execute(&key_event(DispatchKeyEventType::KeyUp, k, CTRL)).await?;
    Ok(())
}

/// Calls `function` on the control's node in its page (ground truth from the page itself).
async fn on_node(c: &Control, function: &str) -> anyhow::Result<Value> {
    let object = c.at.session.resolve_node(c.at.backend_node_id).await?.context("the control cannot be resolved")?;
    let r = c.at.session.call_function_on(&object, function, true).await?;
    Ok(r.pointer("/result/value").cloned().unwrap_or(Value::Null))
}

async fn click_centre(host: &Host, r: &BoxRect) -> anyhow::Result<()> {
    let (x, y) = r.center();
    host.move_to_in_steps(x, y, 3).await?;
    host.click_at(x, y).await?;
    Ok(())
}

/// Chromium's focused element is `c` (its box).
async fn await_chromium_focus(host: &Host, c: &Control) -> anyhow::Result<()> {
    let what = format!("Chromium reporting focus on the {} control", c.kind);
    wait_for(host, &what, POINTER_TIMEOUT, || async move {
        let t = host.focused_truth().await?;
        Ok(match &t {
            Some(f) if f.rect.max_edge_delta(&c.rect) <= RECT_TOLERANCE => Poll::Ready(()),
            Some(f) => Poll::Pending(format!("<{}> at {}", f.tag, f.rect)),
            None => Poll::Pending("nothing".into()),
        })
    })
    .await
}

async fn runtime_focus_is(host: &Host, want_some: bool, why: &str) -> anyhow::Result<()> {
    wait_for(host, why, POINTER_TIMEOUT, || async {
        let f = host.focus().await?;
        Ok(if f.is_none() != want_some {
            Poll::Ready(())
        } else {
            Poll::Pending(format!("focus() = {}", f.map_or_else(|| "null".into(), |f| format!("event {}", f.event_id))))
        })
    })
    .await
}

/// One control: focus elsewhere first (so a cleared focus means something), point at and focus it,
/// put its canary in, select its content, then check what the runtime reports.
async fn drive(host: &Host, c: &Control, city: &Control, index: usize) -> anyhow::Result<()> {
    if c.at.backend_node_id != city.at.backend_node_id {
        click_centre(host, &city.rect).await?;
        await_chromium_focus(host, city).await?;
        runtime_focus_is(host, true, "the runtime reporting focus on the ordinary text input").await?;
    }
    click_centre(host, &c.rect).await?;
    if c.tag == "select" {
        host.press_key(Key::ESCAPE).await?; // closes the popup a click opens; focus stays
    }
    await_chromium_focus(host, c).await?;

    let short = c.kind.split('-').map(|w| w.chars().next().unwrap_or('x').to_ascii_uppercase()).collect::<String>();
    let tree = if c.tree == "light" { 'L' } else { 'S' };
    let canary = format!("{CANARY}TYPED-{short}{index}{tree}");
    let content = "function () {
        if (this.localName === 'select') return this.selectedOptions[0] ? this.selectedOptions[0].text : '';
        if (this.type === 'file') return this.files.length ? this.files[0].name : '';
        return typeof this.value === 'string' ? this.value : this.textContent;
    }";
    if c.typeable() {
        host.type_text(&canary).await?;
    } else if c.input_type == "file" {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/privacy-canary");
        std::fs::create_dir_all(&dir)?;
        let file = dir.join(format!("{canary}.txt"));
        std::fs::write(&file, format!("{canary}\n"))?;
        let mut files = SetFileInputFilesParams::new(vec![file.display().to_string()]);
        files.backend_node_id = Some(BackendNodeId::new(c.at.backend_node_id));
        c.at.session.execute(&files).await?;
    }
    let held = on_node(c, content).await?;
    ensure!(
        held.as_str().is_some_and(|s| s.contains(CANARY)),
        "the page does not hold a canary in the control (it holds {held}): the scan would prove nothing"
    );

    if c.rule == Rule::Excluded {
        runtime_focus_is(host, false, "the runtime clearing its focus on a sensitive control").await?;
    }

    let want_selection = if c.typeable() {
        select_all(host).await?;
        let selected = on_node(
            c,
            "function () {
                if (typeof this.selectionStart === 'number' && this.selectionStart !== null) return this.selectionEnd - this.selectionStart;
                // The tree root by parentNode (Web Fragments patch getRootNode): a closed root or the document.
                let root = this;
                while (root.parentNode) root = root.parentNode;
                const a = root.getSelection ? root.getSelection() : null;
                const b = window.getSelection();
                return Math.max(a ? a.toString().length : 0, b ? b.toString().length : 0);
            }",
        )
        .await?;
        ensure!(selected.as_u64().unwrap_or(0) > 0, "Ctrl+A selected nothing in the control (Chromium: {selected})");
        Some(match c.rule {
            Rule::Excluded => "selection-excluded",
            Rule::Redacted => "selection-redacted",
            Rule::Ordinary => "selection-unavailable",
        })
    } else {
        None
    };

    // One snapshot around the control once the runtime has the selection, checked for everything.
    let (x, y) = c.rect.center();
    let what = format!("a snapshot around the control with {}", want_selection.unwrap_or("its pointer"));
    let snap = wait_for(host, &what, POINTER_TIMEOUT, || async {
        let snap = host.snapshot().await?;
        let at = snap.pointer.as_ref().map(|p| (p.point.x, p.point.y));
        let omissions = reasons(&snap);
        let pointer_ok = at.is_some_and(|(px, py)| (px - x).abs() <= 1.0 && (py - y).abs() <= 1.0);
        let selection_ok = match want_selection {
            None => true,
            Some(reason) => {
                omissions.iter().any(|r| r == reason) && snap.selection.as_ref().is_none_or(|s| s.text.is_empty())
            }
        };
        Ok(if pointer_ok && selection_ok {
            Poll::Ready(snap)
        } else {
            Poll::Pending(format!(
                "pointer {}, omissions {}, selection {}",
                text::opt(at.map(|(px, py)| text::point(px, py))),
                text::list(&omissions),
                text::quote_opt(snap.selection.as_ref().map(|s| &s.text))
            ))
        })
    })
    .await?;
    require_valid_payload(snap.json())?;
    ensure!(sampled_inside(&snap, &c.rect), "no sample point fell on the control {}: the check proves nothing", c.rect);
    let omissions = reasons(&snap);
    let found = candidate_at(&snap, &c.rect);
    match c.rule {
        Rule::Excluded => {
            ensure!(
                found.is_none(),
                "an excluded control is a candidate: {}",
                found.map(text::json).unwrap_or_default()
            );
            ensure!(
                omissions.iter().any(|r| r == "excluded"),
                "no `excluded` omission (omissions {})",
                text::list(&omissions)
            );
            ensure!(
                snap.focus.is_none(),
                "the snapshot still has a focus: {}",
                text::opt(snap.focus.as_ref().map(text::json))
            );
        }
        Rule::Redacted => {
            let kept = found
                .ok_or_else(|| anyhow!("the redacted control keeps its geometry, but no candidate has its box"))?;
            let sm = &kept.summary;
            for (k, v) in [("name", &sm.name), ("text", &sm.text), ("value", &sm.value)] {
                ensure!(v.is_none(), "the redacted control's summary has {k}: {}", text::quote_opt(v.as_ref()));
            }
            ensure!(
                omissions.iter().any(|r| r == "redacted"),
                "no `redacted` omission (omissions {})",
                text::list(&omissions)
            );
        }
        Rule::Ordinary => {
            let kept =
                found.ok_or_else(|| anyhow!("the ordinary control is not a candidate: the realm was not sampled"))?;
            ensure!(
                kept.summary.value.is_none() && kept.summary.text.is_none(),
                "an editable value left: {}",
                text::json(&kept.summary)
            );
        }
    }
    let envelope = host.envelope(&snap).await?;
    let focus = host.focus().await?;
    // The scan reads the JSON the runtime returned, not a re-serialization of the model.
    let outs = [
        Output { source: "snapshot".into(), text: snap.json().to_string() },
        Output { source: "envelope".into(), text: envelope.json().to_string() },
        Output { source: "focus()".into(), text: focus.map_or_else(|| "null".into(), |f| f.json().to_string()) },
    ];
    if let Some((canary, source, excerpt)) = find_canary(&[CANARY.to_string()], &outs) {
        bail!("a canary ({canary}) reached the {source}: ...{excerpt}...");
    }
    Ok(())
}

fn reasons(snap: &Snapshot) -> Vec<String> {
    snap.omissions.iter().map(|o| o.reason.as_str().to_string()).collect()
}

/// Sends one message from the composer with automatic context on and the pointer on the light
/// password control; returns what the Session stored for the session, as JSON.
async fn send_with_context(host: &Host, controls: &[Control]) -> anyhow::Result<String> {
    use super::session::{
        compose, composer_ready, enter_and_settle, session_id, session_of, set_automatic_context, stored_for,
    };
    let session = session_of(host)?;
    let state = composer_ready(host).await?;
    let sid = session_id(&state)?;
    set_automatic_context(host, &sid, true).await?;
    compose(host, "is this private").await?;
    let pw =
        controls.iter().find(|c| c.tree == "light" && c.kind == "password").context("no light password control")?;
    let (x, y) = pw.rect.center();
    super::snapshot_at(host, x, y).await?;
    let row = enter_and_settle(host).await?;
    ensure!(row["delivery"] == "received", "the send was not received: {row}");
    let stored = stored_for(session, &sid, &row)?;
    ensure!(!stored.attachments.is_empty(), "the message was stored without its attachment: nothing to scan");
    Ok(serde_json::to_string(&session.messages(&sid)?)?)
}
