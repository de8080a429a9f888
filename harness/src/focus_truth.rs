//! Chromium's truth about keyboard focus, beside the runtime's `focus()`: which frame has focus
//! (`document.hasFocus()` in every frame, out-of-process ones included) and, inside it, the element
//! that really has focus, followed through open AND closed shadow roots with CDP (`DOM.describeNode`
//! with `pierce` finds the shadow root, `ShadowRoot.activeElement` on that root object says what is
//! focused inside it). The runtime's own API is never used here.

use chromiumoxide::cdp::browser_protocol::dom::DescribeNodeParams;
use chromiumoxide::cdp::browser_protocol::page::GetFrameTreeParams;
use chromiumoxide::cdp::js_protocol::runtime::RemoteObjectId;
use serde_json::Value;

use crate::cdp::Session;
use crate::frames::{FrameSessions, HostError};
use crate::oracle::BoxRect;

/// The element that has focus, as Chromium says.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Focused {
    /// `data-landmark` of the element, if any.
    pub landmark: Option<String>,
    /// Its local name.
    pub tag: String,
    /// `type` attribute (inputs), lower case.
    pub input_type: String,
    /// `autocomplete`, `name` and `id`, for the spec's credential-like rule.
    pub autocomplete: String,
    pub name: String,
    pub id: String,
    /// Inside `[data-wippy-composer]` (the chat composer, its upload list and previews).
    pub in_composer: bool,
    /// Inside `data-wippy-attention="exclude"`.
    pub in_excluded: bool,
    /// Border box in Host-viewport CSS px (Chromium's box model, composed through the frame owner).
    pub rect: BoxRect,
    /// The URL of the frame whose document holds it.
    pub frame_url: String,
}

/// As a message names it: `<input type=password> “signup-password” at 10,20 300x40 (in the
/// composer)`.
impl std::fmt::Display for Focused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<{}", self.tag)?;
        if !self.input_type.is_empty() {
            write!(f, " type={}", self.input_type)?;
        }
        write!(f, ">")?;
        if let Some(l) = &self.landmark {
            write!(f, " \u{201c}{l}\u{201d}")?;
        }
        write!(f, " at {}", self.rect)?;
        match (self.in_composer, self.in_excluded) {
            (true, true) => write!(f, " (in the composer, excluded)"),
            (true, false) => write!(f, " (in the composer)"),
            (false, true) => write!(f, " (excluded)"),
            (false, false) => Ok(()),
        }
    }
}

impl Focused {
    /// The spec's sensitive controls ("Password, hidden, file, one-time-code, payment-card,
    /// credential-like, and similarly named editable controls"), decided from the element's own
    /// attributes, independently of the runtime.
    pub fn is_sensitive(&self) -> bool {
        let editable = matches!(self.tag.as_str(), "input" | "textarea" | "select");
        if !editable {
            return false;
        }
        if self.tag == "input" && matches!(self.input_type.as_str(), "password" | "hidden" | "file") {
            return true;
        }
        let ac = self.autocomplete.to_ascii_lowercase();
        if ac.contains("one-time-code") || ac.contains("password") || ac.starts_with("cc-") || ac.contains(" cc-") {
            return true;
        }
        let named = format!("{} {}", self.name, self.id).to_ascii_lowercase();
        [
            "password",
            "passwd",
            "otp",
            "one-time",
            "card-number",
            "cardnumber",
            "cvv",
            "cvc",
            "secret",
            "token",
            "api-key",
            "apikey",
            "pin",
            "ssn",
        ]
        .iter()
        .any(|w| {
            named
                .split(|c: char| !c.is_ascii_alphanumeric() && c != '-')
                .any(|part| part == *w || part.contains(w) && w.len() > 3)
        })
    }

    /// What the spec says the runtime must report for this focus: a meaningful focus, a transfer
    /// into the conversation controls (keep the last meaningful focus), or an invalidation.
    pub fn expectation(&self) -> FocusRule {
        if self.is_sensitive() {
            FocusRule::Clears
        } else if self.in_composer {
            FocusRule::Keeps
        } else if self.in_excluded {
            FocusRule::Clears
        } else {
            FocusRule::Reports
        }
    }
}

/// What a focus change must do to the runtime's current focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FocusRule {
    /// The focused element becomes the current focus.
    Reports,
    /// The last meaningful focus (and its timestamp) stays.
    Keeps,
    /// No current focus.
    Clears,
}

/// One frame of the opened Host, as CDP addresses it.
struct FrameAt {
    session: Session,
    context: Option<i64>,
    url: String,
    /// Offset of the frame's viewport in the Host viewport (out-of-process frames only; the box
    /// model of in-process frames is already in Host coordinates).
    owner_frame_id: Option<String>,
}

/// Chromium's focus on a Host page's frame sessions.
impl FrameSessions {
    /// The element that has keyboard focus, or `None` when no frame of this page has focus (the
    /// window lost focus, or focus is on the document itself).
    pub async fn focused_truth(&self) -> Result<Option<Focused>, HostError> {
        for frame in self.frames_for_truth().await? {
            let reply = frame
                .session
                .evaluate_handle("document.hasFocus() ? document.activeElement : null", frame.context)
                .await?;
            let Some(mut object) = reply.pointer("/result/objectId").and_then(Value::as_str).map(str::to_string) else {
                continue;
            };
            // Follow shadow roots (open, closed, and the Web Fragment's own) down to the element.
            let mut owner_is_frame = false;
            for _ in 0..32 {
                let describe = DescribeNodeParams {
                    object_id: Some(RemoteObjectId::new(object.as_str())),
                    depth: Some(1),
                    pierce: Some(true),
                    ..Default::default()
                };
                // The node as JSON, as the oracle's DOM walks read it (`cdp/dom.rs`).
                let node = frame.session.send(&describe).await?;
                let node = &node["node"];
                let local = node["localName"].as_str().unwrap_or_default();
                if local == "iframe" || local == "frame" {
                    owner_is_frame = true;
                    break;
                }
                let root = node["shadowRoots"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|r| r["shadowRootType"].as_str() != Some("user-agent"))
                    .and_then(|r| r["backendNodeId"].as_i64());
                let Some(root) = root else { break };
                let Some(root_obj) = frame.session.resolve_node(root).await? else { break };
                let inner = frame
                    .session
                    .call_function_on(&root_obj, "function () { return this.activeElement; }", false)
                    .await?;
                match inner.pointer("/result/objectId").and_then(Value::as_str) {
                    Some(o) => object = o.to_string(),
                    None => break,
                }
            }
            if owner_is_frame {
                continue; // focus is inside that child frame, which is visited too
            }
            let facts = frame
                .session
                .call_function_on(
                    &object,
                    "function () {
                        const a = (n) => (this.getAttribute(n) || '');
                        let composer = false, excluded = false;
                        for (let n = this; n; n = n.parentNode || n.host) {
                            if (n.nodeType !== 1) continue;
                            if (n.hasAttribute('data-wippy-composer')) composer = true;
                            if ((n.getAttribute('data-wippy-attention') || '').trim().toLowerCase() === 'exclude') excluded = true;
                        }
                        return { landmark: this.getAttribute('data-landmark'), tag: this.localName, input_type: a('type').toLowerCase(),
                                 autocomplete: a('autocomplete'), name: a('name'), id: a('id'), in_composer: composer, in_excluded: excluded,
                                 is_body: this === document.body || this === document.documentElement };
                    }",
                    true,
                )
                .await?;
            let facts = facts.pointer("/result/value").cloned().unwrap_or(Value::Null);
            if facts["is_body"] == true {
                continue; // the document itself has focus, no element
            }
            let model = frame.session.box_model_of_object(&object).await?;
            let mut rect = crate::oracle::rect_of_quad(&model.border);
            if let Some(fid) = &frame.owner_frame_id {
                let (dx, dy) = self.frame_offset(fid).await?;
                rect.x += dx;
                rect.y += dy;
            }
            let s = |k: &str| facts[k].as_str().unwrap_or_default().to_string();
            return Ok(Some(Focused {
                landmark: facts["landmark"].as_str().map(str::to_string),
                tag: s("tag"),
                input_type: s("input_type"),
                autocomplete: s("autocomplete"),
                name: s("name"),
                id: s("id"),
                in_composer: facts["in_composer"] == true,
                in_excluded: facts["in_excluded"] == true,
                rect,
                frame_url: frame.url,
            }));
        }
        Ok(None)
    }

    /// Every frame of the page: out-of-process frames by their own session (the page's frame tree
    /// does not list them), in-process frames (srcdoc, fragment realms) by their main-world
    /// context, then the top. A frame whose focused element is a frame owner is skipped, so the
    /// order only has to put children before the top.
    async fn frames_for_truth(&self) -> Result<Vec<FrameAt>, HostError> {
        let mut out: Vec<FrameAt> = self
            .child_targets()
            .into_iter()
            .map(|c| FrameAt {
                session: Session { cdp: self.cdp.clone(), id: c.session_id },
                context: None,
                url: c.url,
                owner_frame_id: Some(c.target_id),
            })
            .collect();
        let tree = self.page.send(&GetFrameTreeParams::default()).await?;
        let mut frames = Vec::new();
        crate::frames::flatten_frames(&tree["frameTree"], &mut frames);
        for f in frames.iter().skip(1).rev() {
            let id = f["id"].as_str().unwrap_or_default();
            if let Some(c) = self.tracked.lock().ok().and_then(|t| t.contexts.get(id).copied()) {
                out.push(FrameAt {
                    session: self.page.clone(),
                    context: Some(c),
                    url: f["url"].as_str().unwrap_or_default().to_string(),
                    owner_frame_id: None,
                });
            }
        }
        let top_url = frames.first().and_then(|f| f["url"].as_str()).unwrap_or_default().to_string();
        out.push(FrameAt { session: self.page.clone(), context: None, url: top_url, owner_frame_id: None });
        Ok(out)
    }

    /// Where an out-of-process frame's viewport sits in the Host viewport (its owner's content box).
    async fn frame_offset(&self, frame_id: &str) -> Result<(f64, f64), HostError> {
        let owner_id = self.page.frame_owner(frame_id).await?;
        let model = self.page.box_model(owner_id).await?;
        let r = crate::oracle::rect_of_quad(&model.content);
        Ok((r.x, r.y))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn control(tag: &str, ty: &str, ac: &str, name: &str) -> Focused {
        Focused {
            landmark: None,
            tag: tag.into(),
            input_type: ty.into(),
            autocomplete: ac.into(),
            name: name.into(),
            id: String::new(),
            in_composer: false,
            in_excluded: false,
            rect: BoxRect { x: 0.0, y: 0.0, width: 1.0, height: 1.0 },
            frame_url: String::new(),
        }
    }

    #[test]
    fn sensitive_controls_by_type_autocomplete_and_name() {
        assert!(control("input", "password", "", "").is_sensitive());
        assert!(control("input", "file", "", "").is_sensitive());
        assert!(control("input", "text", "one-time-code", "").is_sensitive());
        assert!(control("input", "text", "cc-number", "").is_sensitive());
        assert!(control("input", "text", "", "api-token").is_sensitive());
        assert!(!control("input", "text", "", "city").is_sensitive());
        assert!(!control("button", "button", "", "password").is_sensitive(), "only editable controls");
        let mut composer = control("textarea", "", "", "message");
        composer.in_composer = true;
        assert_eq!(composer.expectation(), FocusRule::Keeps);
        assert_eq!(control("button", "", "", "").expectation(), FocusRule::Reports);
    }
}
