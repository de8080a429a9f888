//! The capture provider: the embedder's part of "Optional visual capture" (the page never makes
//! pixels). It is a CDP binding, `window.__wippyCaptureProvider(json)`, installed in the Host page's
//! session and answered only for calls from the top frame's main world (the Host realm), through
//! `window.__wippyCaptureAnswer(id, answer)`.
//!
//! For each request `{id, format, clip, target, approved}` (clip and approved rect in Host-viewport
//! CSS px, target the approved `action_ref`) it:
//! 1. refuses a format it was not configured to make (`unavailable`: never renamed PNG bytes);
//! 2. answers a configured refusal (`ProviderConfig::refusal`: the user or the OS refused screen
//!    capture, a `NotAllowedError`, which the Host maps to `denied`);
//! 3. revalidates the target against Chromium's own geometry (`geometry.rs`: the element Chromium's
//!    hit test finds at the approved rect's centre, or an ancestor, has the approved rect as its
//!    border box, composed through every frame) and against a fresh runtime snapshot at that centre:
//!    same Host instance, the target sampled there (not only known from an earlier event), leaf
//!    mount_id / generation, path_digest, a rect within 0.5 px of the approved one, and a leaf
//!    element whose tag is one Chromium found at the approved rect (else `stale`);
//! 4. takes a clip screenshot of the device pixels the clip covers (`Page.captureScreenshot` at the
//!    page's `devicePixelRatio`); when they exceed §7's dimension limits the clip's `scale` is the
//!    largest uniform scale <= 1 that fits them (`limits::fit_scale`: 2560x1440 becomes 2048x1152);
//! 5. paints an opaque fill over every sensitive, excluded, redacted and composer element inside the
//!    clip, found in Chromium's own DOM of every frame (`privacy.rs`), scaled like the image and
//!    rounded outward (`limits::scale_outward`);
//! 6. encodes PNG or lossless WebP within §7's byte limit (`encode.rs`);
//! 7. revalidates the target again, both ways (the final frame must still match the approved rect).
//!
//! Every request leaves a [`CaptureRecord`] (tests compare the image with a fresh screenshot outside
//! the redactions it names).

use std::sync::{Arc, Mutex};

use base64::Engine as _;
use chromiumoxide::cdp::browser_protocol::page::{CaptureScreenshotFormat, CaptureScreenshotParams, Viewport};
use serde::Deserialize;
use serde_json::{json, Value};

use super::encode::{encode, paint_redactions, Format};
use super::geometry::{elements_at, AtApproved};
use super::limits::{check_dimensions, covering_pixels, fit_scale, scale_outward, CssRect, PixelRect};
use super::privacy::{collect, Reason};
use crate::frames::{Frame, FrameSessions};
use crate::oracle::{border_quad, BoxRect, Located};

/// The binding's name in the Host realm.
pub const BINDING: &str = "__wippyCaptureProvider";
/// How far the target may be from the approved rect (CSS px), the overlay's own tolerance.
pub const MOVE_TOLERANCE: f64 = 0.5;

/// How the embedder refuses a capture before it reads any pixel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Refusal {
    /// The user or the operating system refused screen capture (a browser's `getDisplayMedia` or
    /// the OS permission prompt throws a `NotAllowedError`): the provider answers `{status: "error",
    /// error_name: "NotAllowedError"}` and the Host maps it to `denied` (e2e-suite.md test 13).
    NotAllowed,
}

/// The record status of a capture refused with [`Refusal::NotAllowed`].
pub const NOT_ALLOWED: &str = "not-allowed";

/// What the provider can do; tests narrow it (a PNG-only provider, a refusal) or add a hook.
#[derive(Debug, Clone)]
pub struct ProviderConfig {
    pub formats: Vec<Format>,
    /// Refuse every request like this (until set back to `None`).
    pub refusal: Option<Refusal>,
    /// Test hook: JavaScript evaluated once in a frame of the page, after approval and before the
    /// provider revalidates (what the page does between approval and capture, e.g. move the target).
    pub before_capture: Option<(Frame, String)>,
}

impl Default for ProviderConfig {
    fn default() -> Self {
        ProviderConfig { formats: vec![Format::Png, Format::WebP], refusal: None, before_capture: None }
    }
}

/// One covered element inside a capture, in image pixels.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Redaction {
    pub reason: Reason,
    pub rect: PixelRect,
}

/// What one request ended with.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CaptureRecord {
    pub id: u64,
    /// `ok`, `stale`, `unavailable`, `not-allowed` ([`NOT_ALLOWED`]) or `error`.
    pub status: String,
    pub reason: Option<String>,
    pub format: Option<Format>,
    pub device_scale_factor: f64,
    /// The device pixels of the Host viewport the image shows.
    pub clip: Option<PixelRect>,
    /// The uniform scale the clip was captured at (1, or less when it exceeds §7's limits).
    pub scale: f64,
    pub redactions: Vec<Redaction>,
    #[serde(skip)]
    pub bytes: Vec<u8>,
}

/// The provider of one Host page. Dropping it stops it.
pub struct CaptureProvider {
    config: Arc<Mutex<ProviderConfig>>,
    records: Arc<Mutex<Vec<CaptureRecord>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for CaptureProvider {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl CaptureProvider {
    /// Starts answering the binding of the page `frames` reach; `top_frame_id` is the page's main
    /// frame, `device_scale_factor` what the page is emulated at.
    pub(crate) fn start(frames: FrameSessions, top_frame_id: String, device_scale_factor: f64) -> CaptureProvider {
        let config = Arc::new(Mutex::new(ProviderConfig::default()));
        let records = Arc::new(Mutex::new(Vec::new()));
        let view = Arc::new(frames);
        let (c, r) = (config.clone(), records.clone());
        let task = tokio::spawn(async move {
            let mut events = view.cdp().events();
            loop {
                let ev = match events.recv().await {
                    Ok(ev) => ev,
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(_) => return,
                };
                if ev.method != "Runtime.bindingCalled"
                    || ev.session_id.as_deref() != Some(view.page().id.as_str())
                    || ev.params["name"] != BINDING
                {
                    continue;
                }
                // Only the Host realm (the top frame's main world) may ask for pixels.
                let context = ev.params["executionContextId"].as_i64();
                let top = view.main_context(&top_frame_id);
                if context.is_none() || context != top {
                    continue;
                }
                let (view, c, r, payload) =
                    (view.clone(), c.clone(), r.clone(), ev.params["payload"].as_str().unwrap_or_default().to_string());
                tokio::spawn(async move {
                    let hook = c.lock().ok().and_then(|mut c| c.before_capture.take());
                    let (formats, refusal) = c.lock().map(|c| (c.formats.clone(), c.refusal)).unwrap_or_default();
                    let (id, answer, record) =
                        serve(&view, device_scale_factor, &payload, &formats, refusal, hook).await;
                    if let Ok(mut r) = r.lock() {
                        r.push(record);
                    }
                    let expr = format!("window.__wippyCaptureAnswer && window.__wippyCaptureAnswer({id}, {answer})");
                    let _ = view.page().eval_in(&expr, context, crate::cdp::COMMAND_TIMEOUT).await;
                });
            }
        });
        CaptureProvider { config, records, task }
    }

    /// Changes what the provider does from the next request on.
    pub fn configure(&self, f: impl FnOnce(&mut ProviderConfig)) {
        if let Ok(mut c) = self.config.lock() {
            f(&mut c);
        }
    }

    /// Every request served so far, oldest first.
    pub fn records(&self) -> Vec<CaptureRecord> {
        self.records.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

#[derive(Deserialize)]
struct Request {
    id: u64,
    format: String,
    clip: CssRect,
    target: Value,
    approved: CssRect,
}

/// Serves one request: (request id, answer JSON, record).
async fn serve(
    host: &FrameSessions,
    device_scale_factor: f64,
    payload: &str,
    formats: &[Format],
    refusal: Option<Refusal>,
    hook: Option<(Frame, String)>,
) -> (u64, Value, CaptureRecord) {
    let mut record = CaptureRecord {
        id: 0,
        status: "error".into(),
        reason: None,
        format: None,
        device_scale_factor,
        clip: None,
        scale: 1.0,
        redactions: Vec::new(),
        bytes: Vec::new(),
    };
    let req: Request = match serde_json::from_str(payload) {
        Ok(r) => r,
        Err(e) => {
            record.reason = Some(format!("malformed capture request: {e}"));
            let id = serde_json::from_str::<Value>(payload).ok().and_then(|v| v["id"].as_u64()).unwrap_or(0);
            return (id, json!({"status": "error", "reason": record.reason}), record);
        }
    };
    record.id = req.id;
    let outcome = capture(host, &req, formats, refusal, hook, &mut record).await;
    let answer = match outcome {
        Ok(answer) => {
            record.status = "ok".into();
            answer
        }
        Err((status, reason)) => {
            record.status = status.to_string();
            record.reason = Some(reason.clone());
            if status == NOT_ALLOWED {
                // What the embedder's screen capture throws; the Host decides what it means.
                json!({"status": "error", "error_name": "NotAllowedError", "reason": reason})
            } else {
                json!({"status": status, "reason": reason})
            }
        }
    };
    (req.id, answer, record)
}

/// Why a request ends without an image: (status, reason).
type Refused = (&'static str, String);

async fn capture(
    host: &FrameSessions,
    req: &Request,
    formats: &[Format],
    refusal: Option<Refusal>,
    hook: Option<(Frame, String)>,
    record: &mut CaptureRecord,
) -> Result<Value, Refused> {
    let format = Format::parse(&req.format)
        .filter(|f| formats.contains(f))
        .ok_or_else(|| ("unavailable", format!("this capture provider cannot encode {}", req.format)))?;
    record.format = Some(format);
    if let Some(Refusal::NotAllowed) = refusal {
        return Err((NOT_ALLOWED, "screen capture was not allowed by the user or the operating system".into()));
    }
    if let Some((frame, js)) = hook {
        host.eval_in_frame(&frame, &js).await.map_err(|e| ("error", format!("before_capture hook failed: {e}")))?;
    }
    let first = check_target(host, &req.target, &req.approved).await?;
    let page = host
        .page()
        .eval("({dpr: window.devicePixelRatio, w: window.innerWidth, h: window.innerHeight})")
        .await
        .map_err(|e| ("error", format!("cannot read the viewport: {e}")))?;
    let dpr = page["dpr"].as_f64().unwrap_or(1.0);
    record.device_scale_factor = dpr;
    let viewport =
        CssRect { x: 0.0, y: 0.0, width: page["w"].as_f64().unwrap_or(0.0), height: page["h"].as_f64().unwrap_or(0.0) };
    let px = covering_pixels(&req.clip, dpr).intersect(&covering_pixels(&viewport, dpr));
    if px.is_empty() {
        return Err(("error", "the approved area is outside the viewport".into()));
    }
    record.clip = Some(px);
    let fit = fit_scale(px.width(), px.height());
    record.scale = fit.scale;
    let clip = Viewport {
        x: px.x0 as f64 / dpr,
        y: px.y0 as f64 / dpr,
        width: px.width() as f64 / dpr,
        height: px.height() as f64 / dpr,
        scale: fit.scale,
    };
    let screenshot = CaptureScreenshotParams {
        format: Some(CaptureScreenshotFormat::Png),
        clip: Some(clip),
        from_surface: Some(true),
        capture_beyond_viewport: Some(false),
        ..Default::default()
    };
    let shot = host.page().execute(&screenshot).await.map_err(|e| ("error", format!("screenshot failed: {e}")))?;
    let png = base64::engine::general_purpose::STANDARD
        .decode(AsRef::<str>::as_ref(&shot.data))
        .map_err(|e| ("error", format!("screenshot is not base64: {e}")))?;
    let mut img = image::load_from_memory_with_format(&png, image::ImageFormat::Png)
        .map_err(|e| ("error", format!("screenshot does not decode: {e}")))?
        .to_rgba8();
    if (img.width(), img.height()) != (fit.width, fit.height) {
        return Err((
            "error",
            format!(
                "screenshot is {}x{} px, the clip covers {}x{} at scale {}",
                img.width(),
                img.height(),
                fit.width,
                fit.height,
                fit.scale
            ),
        ));
    }
    check_dimensions(img.width(), img.height()).map_err(|e| ("error", e.to_string()))?;
    let covered = privacy_rects(host).await.map_err(|e| ("error", format!("cannot read the page's privacy: {e}")))?;
    for (reason, r) in covered {
        let p = covering_pixels(&CssRect { x: r.x, y: r.y, width: r.width, height: r.height }, dpr);
        let local = PixelRect { x0: p.x0 - px.x0, y0: p.y0 - px.y0, x1: p.x1 - px.x0, y1: p.y1 - px.y0 };
        let inside = scale_outward(&local, fit.scale, img.width(), img.height());
        if !inside.is_empty() {
            record.redactions.push(Redaction { reason, rect: inside });
        }
    }
    let rects: Vec<PixelRect> = record.redactions.iter().map(|r| r.rect).collect();
    let applied = paint_redactions(&mut img, &rects);
    let bytes = encode(&img, format).map_err(|e| ("error", e.to_string()))?;
    // The final frame must still match the approved target rect.
    check_target(host, &req.target, &req.approved).await?;
    record.bytes = bytes.clone();
    Ok(json!({
        "status": "ok", "mime_type": format.mime(), "extension": format.extension(),
        "data": base64::engine::general_purpose::STANDARD.encode(&bytes), "byte_size": bytes.len(),
        "sha256": crate::contract::sha256_prefixed(&bytes), "pixel_width": img.width(), "pixel_height": img.height(),
        "redactions_applied": applied, "snapshot_id": first["snapshot_id"], "candidate_ids": [req.target["target_id"]],
    }))
}

/// The approved target is still where it was approved, by Chromium's geometry first (the runtime
/// is what is under test and may be wrong), then by a fresh runtime snapshot (identity), and the
/// two agree on the element. Returns the runtime's answer (its `snapshot_id`).
async fn check_target(host: &FrameSessions, target: &Value, approved: &CssRect) -> Result<Value, Refused> {
    let tags = match elements_at(host, approved, MOVE_TOLERANCE)
        .await
        .map_err(|e| ("error", format!("cannot read Chromium's geometry: {e}")))?
    {
        AtApproved::Found(tags) => tags,
        AtApproved::Missing { nearest } => {
            let at = format!("({}, {}, {} x {})", approved.x, approved.y, approved.width, approved.height);
            let hit = match nearest {
                Some((tag, r)) => {
                    format!("the element hit there is <{tag}> at ({}, {}, {} x {})", r.x, r.y, r.width, r.height)
                }
                None => "nothing is hit there".to_string(),
            };
            return Err(("stale", format!("target moved from the approved rect: in Chromium's box model no element has the approved rect {at}; {hit}")));
        }
    };
    let now = revalidate(host, target, approved).await?;
    let tag = now["tag"].as_str().unwrap_or_default();
    if !tags.iter().any(|t| t == tag) {
        return Err((
            "stale",
            format!(
                "the runtime's target <{tag}> is not the element Chromium has at the approved rect ({})",
                tags.join(", ")
            ),
        ));
    }
    Ok(now)
}

/// A fresh runtime snapshot at the approved rect's centre must sample the target there, unchanged.
/// A candidate only known from an earlier event keeps that event's geometry, so it proves nothing.
async fn revalidate(host: &FrameSessions, target: &Value, approved: &CssRect) -> Result<Value, Refused> {
    let stale = |r: &str| ("stale", r.to_string());
    let (x, y) = (approved.x + approved.width / 2.0, approved.y + approved.height / 2.0);
    let target_id = serde_json::to_string(&target["target_id"]).unwrap_or_default();
    let expr = format!(
        "(async () => {{ const s = await window.wippyAttention.snapshot({{point: {{x: {x}, y: {y}}}, radius_css_px: 0, step_css_px: 1}});
           const points = new Set(((s.capture && s.capture.points) || []).map((p) => p.point_id));
           const c = (s.candidates || []).find((c) => c.target_id === {target_id} && (c.sample_point_ids || []).some((id) => points.has(id)));
           const leaf = c && Array.isArray(c.path) ? c.path[c.path.length - 1] : null;
           return {{host: window.wippyAttention.host_instance_id, snapshot_id: s.snapshot_id, ref: c ? c.action_ref || null : null, tag: leaf ? leaf.tag_name || null : null}}; }})()"
    );
    let now = host.page().eval(&expr).await.map_err(|e| ("error", format!("revalidation failed: {e}")))?;
    if now["host"] != target["host_instance_id"] {
        return Err(stale("Host instance changed"));
    }
    let r = &now["ref"];
    if r.is_null() {
        return Err(stale("target is gone: a fresh snapshot does not sample it at the approved rect"));
    }
    if r["mount_id"] != target["mount_id"] || r["generation"] != target["generation"] {
        return Err(stale("target was remounted"));
    }
    if r["path_digest"] != target["path_digest"] {
        return Err(stale("target path changed"));
    }
    let moved = ["x", "y", "width", "height"]
        .iter()
        .zip([approved.x, approved.y, approved.width, approved.height])
        .any(|(k, a)| r["rect"][*k].as_f64().is_none_or(|v| (v - a).abs() > MOVE_TOLERANCE));
    if moved {
        return Err(stale("target moved from the approved rect"));
    }
    Ok(now)
}

/// Every covered element of every frame, as its visible border box in Host-viewport CSS px.
async fn privacy_rects(host: &FrameSessions) -> Result<Vec<(Reason, BoxRect)>, crate::frames::HostError> {
    let mut out = Vec::new();
    for session in host.sessions() {
        let root = session.pierced_document().await?;
        let mut found = Vec::new();
        collect(&root, &mut Vec::new(), &mut found);
        for (reason, backend_node_id, inner_frames) in found {
            // Elements without a box (display: none, hidden inputs) show nothing.
            let Some(q) = border_quad(&session, backend_node_id).await else { continue };
            let at = Located { session: session.clone(), backend_node_id, inner_frames };
            let chain = host.chain_of(&at).await?;
            let r = chain.clip(&BoxRect::from_quad(&chain.to_host.map_quad(&q)));
            if r.width > 0.0 && r.height > 0.0 {
                out.push((reason, r));
            }
        }
    }
    Ok(out)
}
