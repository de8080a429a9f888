//! The Web Fragments gateway, as the `web-fragments` package's gateway middleware behaves
//! (`reference/web-fragments.md` §3): `/fragments/<app>/[rest]` answers the hidden realm iframe
//! (`Sec-Fetch-Dest: iframe`) with the reframed stub, and the client's content fetch (with
//! `X-Web-Fragment-Id`) with `pages/apps/<app>.html` renamed to `wf-*`. The stub gets the runtime,
//! playing Wippy's `proxy-fragment.js`; the content does not (its scripts run in that realm).
//! `/fragments/qa/<layout name>/<path>` does the same for QA's application pages (server/qa_apps.rs),
//! `/fragments/qa-component/<layout name>/?panel=<id>` for a component panel's document
//! (server/qa_component.rs), and `/fragments/qa-url/<layout name>/<panel id>/<path>` for an
//! application served elsewhere, proxied from its upstream server (server/qa_url.rs).

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
    let dest = headers.get("sec-fetch-dest").and_then(|v| v.to_str().ok()).unwrap_or("");
    let fragment_id = headers.get("x-web-fragment-id").is_some();
    if app == "qa-component" {
        // A component panel's generated document (server/qa_component.rs): the stub for the realm
        // iframe, the document for the content fetch and for a plain navigation (with the runtime).
        if dest == "iframe" && !fragment_id {
            return ok("text/html; charset=utf-8", inject_runtime(STUB, Inject::Runtime).into_bytes());
        }
        return match super::qa_component::document(shared, sub, query) {
            Ok(doc) if fragment_id => ok("text/html; charset=utf-8", prefix_html_head_body(&doc).into_bytes()),
            Ok(doc) => ok("text/html; charset=utf-8", inject_runtime(&doc, Inject::Runtime).into_bytes()),
            Err((code, why)) => status(code, why),
        };
    }
    if app == "qa" {
        // QA's application pages, `/fragments/qa/<layout name>/<path>` (server/qa_apps.rs): the
        // stub for the realm iframe, the page renamed for the content fetch, any other file as it is.
        if dest == "iframe" && !fragment_id {
            return ok("text/html; charset=utf-8", inject_runtime(STUB, Inject::Runtime).into_bytes());
        }
        let file = match super::qa_apps::resolve(shared, sub) {
            Ok(f) => f,
            Err((code, why)) => return status(code, why),
        };
        let html = matches!(file.extension().and_then(|e| e.to_str()), Some("html" | "htm"));
        if !(fragment_id && html) {
            return super::qa_apps::serve(&file, Inject::unless(!html)).await;
        }
        return match tokio::fs::read_to_string(&file).await {
            Ok(text) => ok("text/html; charset=utf-8", qa_content(rest, &text).into_bytes()),
            Err(_) => status(StatusCode::NOT_FOUND, "no such fragment"),
        };
    }
    if app == "qa-url" {
        // QA's applications served elsewhere, `/fragments/qa-url/<layout name>/<panel id>/<path>`
        // (server/qa_url.rs): the stub for the realm iframe, the upstream's document renamed for
        // the content fetch, any other answer as the upstream gave it.
        if dest == "iframe" && !fragment_id {
            return ok("text/html; charset=utf-8", inject_runtime(STUB, Inject::Runtime).into_bytes());
        }
        let fetched = match super::qa_url::fetch(
            shared,
            sub,
            query,
            headers,
            &super::qa_url::route_of("/fragments/qa-url/", sub),
        )
        .await
        {
            Ok(f) => f,
            Err(r) => return r,
        };
        if !(fragment_id && fetched.is_html() && fetched.status.is_success()) {
            return fetched.into_response(Inject::Runtime);
        }
        let text = qa_content(rest, &String::from_utf8_lossy(&fetched.body));
        return fetched.respond_with(text);
    }
    // Sub-resources of a fragment (scripts, styles) come from pages/apps/.
    if !sub.is_empty() {
        return match safe_join(&shared.pages.join("apps"), sub) {
            Some(file) => serve_file(shared, site, &file, Inject::No).await,
            None => status(StatusCode::BAD_REQUEST, "path not allowed"),
        };
    }
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

/// A QA application's document as fragment content, `rest` its route under `/fragments/`
/// (`qa/<layout name>/<path>` or `qa-url/<layout name>/<panel id>/<path>`). The content lands in the
/// Host document, whose URL its relative `src`/`href` would resolve against: they are made absolute
/// under the document's own route without `/fragments/` (`/qa/...`, `/qa-url/...`), so its styles
/// and scripts load as they are and its own iframes as documents with the runtime, not as the stub.
fn qa_content(rest: &str, text: &str) -> String {
    let dir = rest.rsplit_once('/').map_or("", |(d, _)| d);
    prefix_html_head_body(&absolute_urls(text, &format!("/{dir}/")))
}

/// `src="x"` / `href="x"` attributes with a relative URL (no scheme, not `/`, `#`, `?`) rewritten
/// to `base` + URL.
fn absolute_urls(text: &str, base: &str) -> String {
    static ATTR: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = ATTR.get_or_init(|| {
        regex::Regex::new(r#"(?i)(\s(?:src|href)\s*=\s*)(["'])([^"'#?/][^"']*)(["'])"#).expect("a valid pattern")
    });
    re.replace_all(text, |c: &regex::Captures| {
        let url = &c[3];
        let scheme = url.split_once(':').is_some_and(|(s, _)| {
            !s.is_empty() && s.chars().all(|ch| ch.is_ascii_alphanumeric() || "+-.".contains(ch))
        });
        if scheme {
            c[0].to_string()
        } else {
            format!("{}{}{base}{url}{}", &c[1], &c[2], &c[4])
        }
    })
    .into_owned()
}

#[cfg(test)]
mod tests {
    use super::absolute_urls;

    #[test]
    fn relative_urls_of_fragment_content_resolve_under_its_route() {
        let html = r##"<link href="app.css"><script src='x/y.js'></script><a href="#a"></a><img src="/abs.png"><a href="https://e.org/">"##;
        assert_eq!(
            absolute_urls(html, "/qa/n/app/"),
            r##"<link href="/qa/n/app/app.css"><script src='/qa/n/app/x/y.js'></script><a href="#a"></a><img src="/abs.png"><a href="https://e.org/">"##
        );
    }
}
