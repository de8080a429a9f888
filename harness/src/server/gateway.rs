//! The Web Fragments gateway, as the `web-fragments` package's gateway middleware behaves
//! (`reference/web-fragments.md` §3): `/fragments/<app>/[rest]` answers the hidden realm iframe
//! (`Sec-Fetch-Dest: iframe`) with the reframed stub, and the client's content fetch (with
//! `X-Web-Fragment-Id`) with `pages/apps/<app>.html` renamed to `wf-*`. The stub gets the runtime,
//! playing Wippy's `proxy-fragment.js`; the content does not (its scripts run in that realm).

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;

use super::html::{fill_origins, inject_runtime, prefix_html_head_body, Inject};
use super::{ok, safe_join, serve_file, status, Shared, Site};

/// The stub title `reframed()` insists on.
pub const STUB: &str = "<!doctype html><html><head><title>Web Fragments: reframed</title></head><body></body></html>";

pub async fn respond(shared: &Shared, site: Site, rest: &str, query: Option<&str>, headers: &HeaderMap) -> Response {
    let (app, sub) = rest.split_once('/').unwrap_or((rest, ""));
    if app.is_empty() || app.contains("..") {
        return status(StatusCode::BAD_REQUEST, "fragment name required");
    }
    // Sub-resources of a fragment (scripts, styles) come from pages/apps/.
    if !sub.is_empty() {
        return match safe_join(&shared.pages.join("apps"), sub) {
            Some(file) => serve_file(shared, site, &file, Inject::No).await,
            None => status(StatusCode::BAD_REQUEST, "path not allowed"),
        };
    }
    let dest = headers.get("sec-fetch-dest").and_then(|v| v.to_str().ok()).unwrap_or("");
    let fragment_id = headers.get("x-web-fragment-id").is_some();
    if dest == "iframe" && !fragment_id {
        return ok("text/html; charset=utf-8", inject_runtime(STUB, Inject::Runtime).into_bytes());
    }
    let Some(file) = safe_join(&shared.pages.join("apps"), &format!("{app}.html")) else {
        return status(StatusCode::BAD_REQUEST, "path not allowed");
    };
    if !fragment_id {
        // A plain navigation to a fragment URL shows the app as an ordinary page.
        let opt_out = query.is_some_and(|q| q.split('&').any(|kv| kv == "attention=off"));
        return serve_file(shared, site, &file, Inject::unless(opt_out)).await;
    }
    match tokio::fs::read_to_string(&file).await {
        Ok(text) => {
            let text = fill_origins(&text, &shared.host_origin, &shared.child_origin);
            ok("text/html; charset=utf-8", prefix_html_head_body(&text).into_bytes())
        }
        Err(_) => status(StatusCode::NOT_FOUND, "no such fragment"),
    }
}
