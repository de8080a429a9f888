//! QA's applications served elsewhere (a layout file's `{"kind": "page", "url": "http://..."}`)
//! mounted as Web Fragments: the gateway proxies the upstream application, as the real gateway's
//! fragment `endpoint` does (`reference/web-fragments.md` §3; Wippy proxies a page's subpaths to its
//! `base_url`). `/qa-url/<layout name>/<panel id>/<path>` and `/fragments/qa-url/...` answer with
//! `<the url's directory><path>` fetched from the upstream server, its status and content type kept,
//! so the application's documents, scripts and styles load under the Host's origin. Plain `http:`
//! only: the harness has no TLS client. Nothing outside the url's directory on its server is fetched
//! (the route's path rule, [`check_path`]); an upstream that fails is an HTTP error status
//! (502, 504), never a hang ([`UPSTREAM_TIMEOUT`]).
//!
//! A url page's `routes` (path prefixes, as a fragment's `routePatterns`) are the paths at the Host
//! origin that belong to it: a Host request under one is proxied to the url's server at the same
//! path ([`routed`]), so what the application names from its server's root (`/assets/x.js`) loads.

use std::time::Duration;

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, Empty, Limited};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;

use super::html::{inject_runtime, Inject};
use super::{status, Shared};

/// How long one upstream fetch (connect, answer and body) may take before it is answered 504.
pub const UPSTREAM_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest upstream body passed on (a larger one is answered 502).
pub const BODY_LIMIT: usize = 64 << 20;

/// What an upstream server answered.
pub struct Fetched {
    pub status: StatusCode,
    content_type: Option<HeaderValue>,
    /// A redirect's target, already mapped to the route ([`route_location`]).
    location: Option<HeaderValue>,
    pub body: Bytes,
}

impl Fetched {
    /// Whether the answer is an HTML document (by its content type).
    pub fn is_html(&self) -> bool {
        self.content_type
            .as_ref()
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("text/html"))
    }

    /// The answer as it came, an HTML document with the runtime as its first script when `inject`.
    pub fn into_response(self, inject: Inject) -> Response {
        if self.is_html() && inject == Inject::Runtime {
            let text = inject_runtime(&String::from_utf8_lossy(&self.body), inject);
            return self.respond_with(text);
        }
        let body = self.body.clone();
        self.respond_with(body)
    }

    /// The answer's status and headers with `body`.
    pub fn respond_with(&self, body: impl Into<Bytes>) -> Response {
        let mut r = Response::new(Body::from(body.into()));
        *r.status_mut() = self.status;
        if let Some(t) = &self.content_type {
            r.headers_mut().insert(header::CONTENT_TYPE, t.clone());
        }
        if let Some(l) = &self.location {
            r.headers_mut().insert(header::LOCATION, l.clone());
        }
        r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        r
    }
}

/// Why a route's path is refused (answered 400).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathRefusal {
    /// A `.` or `..` segment, also percent-encoded: it would leave the url's directory.
    DotSegment,
    /// An empty segment (`//`, a leading `/`): a network-path or absolute-path reference.
    EmptySegment,
    /// A first segment with a `:`: an absolute URL (`http:...`).
    Scheme,
    /// A `\` or an encoded `/` or `\`, which some servers read as a separator.
    Separator,
}

impl PathRefusal {
    pub fn reason(self) -> &'static str {
        match self {
            PathRefusal::DotSegment => "a `.` or `..` segment would leave the url's directory",
            PathRefusal::EmptySegment => "an empty segment (`//`) is not a path inside the url's directory",
            PathRefusal::Scheme => "an absolute URL is not a path inside the url's directory",
            PathRefusal::Separator => "a `\\` or an encoded separator is not a path inside the url's directory",
        }
    }
}

/// The route's path rule: `path` (what follows `<layout name>/<panel id>/`) must be a relative path
/// inside the url's directory: plain segments, a trailing `/` allowed.
pub fn check_path(path: &str) -> Result<(), PathRefusal> {
    let segments: Vec<&str> = path.split('/').collect();
    for (i, raw) in segments.iter().enumerate() {
        let decoded = percent_encoding::percent_decode_str(raw).decode_utf8_lossy();
        if decoded == "." || decoded == ".." {
            return Err(PathRefusal::DotSegment);
        }
        if raw.is_empty() && i + 1 < segments.len() {
            return Err(PathRefusal::EmptySegment);
        }
        if decoded.contains(['/', '\\']) {
            return Err(PathRefusal::Separator);
        }
        if i == 0 && raw.contains(':') {
            return Err(PathRefusal::Scheme);
        }
    }
    Ok(())
}

/// An `http:` URL's authority (`host:port`) and directory (its path up to the last `/`), or None
/// for any other URL.
pub fn directory_of(url: &str) -> Option<(String, String)> {
    let url = url.split('#').next().unwrap_or(url);
    let uri: Uri = url.parse().ok()?;
    if !uri.scheme_str().is_some_and(|s| s.eq_ignore_ascii_case("http")) {
        return None;
    }
    let authority = uri.authority()?;
    if authority.as_str().contains('@') {
        return None;
    }
    let host_port = match authority.port_u16() {
        Some(_) => authority.as_str().to_string(),
        None => format!("{}:80", authority.as_str()),
    };
    let path = uri.path();
    let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
    Some((host_port, if dir.is_empty() { "/".to_string() } else { dir.to_string() }))
}

/// Why a url page over `https:` (or another scheme) is not proxied.
const NOT_HTTP: &str = "the panel's url is not an http: URL (the gateway has no TLS client)";

/// The upstream request one route names.
struct Upstream {
    authority: String,
    dir: String,
    path_and_query: String,
}

/// `rest` is `<layout name>/<panel id>/<path>`: the served layout's panel's url, its directory and
/// `path` under it (with `query`). `Err` is the status to answer instead.
fn upstream(shared: &Shared, rest: &str, query: Option<&str>) -> Result<Upstream, (StatusCode, &'static str)> {
    let mut parts = rest.splitn(3, '/');
    let (Some(name), Some(panel), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
        return Err((StatusCode::NOT_FOUND, "a route is /qa-url/<layout name>/<panel id>/<path>"));
    };
    check_path(path).map_err(|r| (StatusCode::BAD_REQUEST, r.reason()))?;
    let panel = percent_encoding::percent_decode_str(panel).decode_utf8_lossy();
    let json = shared.layouts.lock().ok().and_then(|l| l.get(name).cloned());
    let Some(json) = json else {
        return Err((StatusCode::NOT_FOUND, "no such layout"));
    };
    let value: serde_json::Value = serde_json::from_str(&json).unwrap_or_default();
    let Some(url) = value.pointer("/layout/panels").and_then(|p| p.get(panel.as_ref())).and_then(|p| p["url"].as_str())
    else {
        return Err((StatusCode::NOT_FOUND, "no page panel of that layout names a url"));
    };
    let Some((authority, dir)) = directory_of(url) else {
        return Err((StatusCode::BAD_REQUEST, NOT_HTTP));
    };
    let mut path_and_query = format!("{dir}{path}");
    if let Some(q) = query {
        path_and_query.push('?');
        path_and_query.push_str(q);
    }
    Ok(Upstream { authority, dir, path_and_query })
}

/// Fetches what the route `rest` (`<layout name>/<panel id>/<path>`) names from its upstream
/// server. `route` is the route's own prefix (`/qa-url/<layout name>/<panel id>/`, or under
/// `/fragments/`), which a redirect inside the url's directory is mapped to. `Err` is the response
/// to give instead (400, 404, 502, 504).
pub async fn fetch(
    shared: &Shared,
    rest: &str,
    query: Option<&str>,
    headers: &HeaderMap,
    route: &str,
) -> Result<Fetched, Response> {
    let up = upstream(shared, rest, query).map_err(|(code, why)| status(code, why))?;
    fetch_upstream(&up, headers, route).await
}

/// Fetches `up`, an upstream that fails answered as 502 or 504.
async fn fetch_upstream(up: &Upstream, headers: &HeaderMap, route: &str) -> Result<Fetched, Response> {
    match tokio::time::timeout(UPSTREAM_TIMEOUT, get(up, headers.get(header::ACCEPT), route)).await {
        Ok(Ok(f)) => Ok(f),
        Ok(Err(why)) => {
            tracing::warn!("upstream http://{}{}: {why}", up.authority, up.path_and_query);
            Err((StatusCode::BAD_GATEWAY, format!("the upstream server does not answer: {why}")).into_response())
        }
        Err(_) => Err(status(StatusCode::GATEWAY_TIMEOUT, "the upstream server did not answer in time")),
    }
}

/// One GET over a fresh HTTP/1.1 connection (hyper's client), the body read whole.
async fn get(up: &Upstream, accept: Option<&HeaderValue>, route: &str) -> Result<Fetched, String> {
    let stream = tokio::net::TcpStream::connect(up.authority.as_str()).await.map_err(|e| e.to_string())?;
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| e.to_string())?;
    let driver = tokio::spawn(async move {
        let _ = conn.await;
    });
    let host = up.authority.strip_suffix(":80").unwrap_or(&up.authority);
    let mut req = hyper::Request::get(up.path_and_query.as_str())
        .header(header::HOST, host)
        .header(header::USER_AGENT, "attention-harness gateway");
    if let Some(a) = accept {
        req = req.header(header::ACCEPT, a);
    }
    let req = req.body(Empty::<Bytes>::new()).map_err(|e| e.to_string())?;
    let res = sender.send_request(req).await.map_err(|e| e.to_string());
    let res = match res {
        Ok(r) => r,
        Err(e) => {
            driver.abort();
            return Err(e);
        }
    };
    let status = res.status();
    let content_type = res.headers().get(header::CONTENT_TYPE).cloned();
    let location = match res.headers().get(header::LOCATION).and_then(|v| v.to_str().ok()) {
        Some(l) if status.is_redirection() => match route_location(l, &up.authority, &up.dir, route) {
            Some(mapped) => HeaderValue::from_str(&mapped).ok(),
            None => {
                driver.abort();
                return Err(format!("it redirects to {l}, outside the url's directory"));
            }
        },
        _ => None,
    };
    let body = Limited::new(res.into_body(), BODY_LIMIT).collect().await;
    driver.abort();
    let body = body.map_err(|e| e.to_string())?.to_bytes();
    Ok(Fetched { status, content_type, location, body })
}

/// A redirect's `Location` as the browser must see it: a relative reference as it is (it resolves
/// against the route as against the upstream URL); an absolute path or URL inside the url's
/// directory mapped under `route`; None for one that leads anywhere else.
fn route_location(location: &str, authority: &str, dir: &str, route: &str) -> Option<String> {
    let host = authority.strip_suffix(":80").unwrap_or(authority);
    let path = if let Some(rest) = location.strip_prefix("http://") {
        let (auth, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        if !(auth.eq_ignore_ascii_case(authority) || auth.eq_ignore_ascii_case(host)) {
            return None;
        }
        path
    } else if location.starts_with("//") || location.contains("://") {
        return None;
    } else if location.starts_with('/') {
        location
    } else {
        return Some(location.to_string());
    };
    path.strip_prefix(dir).map(|inside| format!("{route}{inside}"))
}

/// `/qa-url/<layout name>/<panel id>/<path>`: the upstream's answer, HTML with the runtime first
/// (the application's own iframes, as documents).
pub async fn respond(shared: &Shared, rest: &str, query: Option<&str>, headers: &HeaderMap) -> Response {
    match fetch(shared, rest, query, headers, &route_of("/qa-url/", rest)).await {
        Ok(f) => f.into_response(Inject::Runtime),
        Err(r) => r,
    }
}

/// One path prefix a url page routes: requests under it are its server's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The served layout's name.
    pub layout: String,
    pub prefix: String,
    /// The page's url (its server's origin is what is asked).
    pub url: String,
}

/// The `routes` of every url page of the layout declaration `json` served as `layout` (checked
/// before it is served: pages/host/declaration.js); anything else there is ignored.
pub fn routes_of(layout: &str, json: &str) -> Vec<Route> {
    let value: serde_json::Value = serde_json::from_str(json).unwrap_or_default();
    let Some(panels) = value.pointer("/layout/panels").and_then(|p| p.as_object()) else {
        return Vec::new();
    };
    let mut routes = Vec::new();
    for panel in panels.values() {
        let (Some(url), Some(prefixes)) = (panel["url"].as_str(), panel["routes"].as_array()) else {
            continue;
        };
        for prefix in prefixes.iter().filter_map(|p| p.as_str()) {
            if prefix.len() > 1 && prefix.starts_with('/') && prefix.ends_with('/') {
                routes.push(Route { layout: layout.to_string(), prefix: prefix.to_string(), url: url.to_string() });
            }
        }
    }
    routes
}

/// The answer to a proxied request (`/qa-url/`, `/fragments/qa-url/`, a url page's routes) that is
/// not a GET or HEAD: the proxy asks its upstream with GET only, so another method is refused, never
/// passed on as a GET (a form's POST must not reach the application as a GET without its body).
pub fn method_refused() -> Response {
    let mut r = status(StatusCode::METHOD_NOT_ALLOWED, "the gateway proxies a url page for GET and HEAD only");
    r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
    r
}

/// A Host request whose `path` is under a served url page's route (the layout served last that
/// routes it): its server's answer at the same path (the query passed on), HTML with the runtime
/// first, the route's path rule and upstream failures as for `/qa-url/`; a request that is not a GET
/// or HEAD (`get` false) is [`method_refused`]. None when no route has it.
pub async fn routed(
    shared: &Shared,
    path: &str,
    query: Option<&str>,
    headers: &HeaderMap,
    get: bool,
) -> Option<Response> {
    let url = {
        let routes = shared.routes.lock().ok()?;
        routes.iter().rev().find(|r| path.starts_with(&r.prefix))?.url.clone()
    };
    if !get {
        return Some(method_refused());
    }
    if let Err(why) = check_path(&path[1..]) {
        return Some(status(StatusCode::BAD_REQUEST, why.reason()));
    }
    let Some((authority, _)) = directory_of(&url) else {
        return Some(status(StatusCode::BAD_REQUEST, NOT_HTTP));
    };
    let path_and_query = match query {
        Some(q) => format!("{path}?{q}"),
        None => path.to_string(),
    };
    let up = Upstream { authority, dir: "/".to_string(), path_and_query };
    Some(match fetch_upstream(&up, headers, "/").await {
        Ok(f) => f.into_response(Inject::Runtime),
        Err(r) => r,
    })
}

/// The route prefix (`<prefix><layout name>/<panel id>/`) of `rest`.
pub fn route_of(prefix: &str, rest: &str) -> String {
    let mut parts = rest.splitn(3, '/');
    let name = parts.next().unwrap_or("");
    let panel = parts.next().unwrap_or("");
    format!("{prefix}{name}/{panel}/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_route_path_stays_inside_the_urls_directory() {
        for ok in ["", "index.html", "signup/", "a/b.js", "help.html", "x%20y.css", "a/b/", "file.v2.js"] {
            assert_eq!(check_path(ok), Ok(()), "{ok:?}");
        }
        let refused = [
            ("..", PathRefusal::DotSegment),
            ("a/../b", PathRefusal::DotSegment),
            ("a/./b", PathRefusal::DotSegment),
            ("%2e%2e/secret", PathRefusal::DotSegment),
            ("a/%2E%2e", PathRefusal::DotSegment),
            ("/etc/passwd", PathRefusal::EmptySegment),
            ("//evil.example/x", PathRefusal::EmptySegment),
            ("a//b", PathRefusal::EmptySegment),
            ("http://evil.example/x", PathRefusal::Scheme),
            ("http:x", PathRefusal::Scheme),
            ("a%2f..%2fb", PathRefusal::Separator),
            ("a\\b", PathRefusal::Separator),
            ("a%5Cb", PathRefusal::Separator),
        ];
        for (path, why) in refused {
            assert_eq!(check_path(path), Err(why), "{path:?}");
        }
    }

    #[test]
    fn the_directory_of_an_http_url_and_no_other() {
        assert_eq!(directory_of("http://localhost:5173/signup/"), Some(("localhost:5173".into(), "/signup/".into())));
        assert_eq!(
            directory_of("http://localhost:5173/signup/index.html?x=1#top"),
            Some(("localhost:5173".into(), "/signup/".into()))
        );
        assert_eq!(directory_of("http://example.test"), Some(("example.test:80".into(), "/".into())));
        assert_eq!(directory_of("HTTP://[::1]:8080/a"), Some(("[::1]:8080".into(), "/".into())));
        assert_eq!(directory_of("https://localhost:5173/"), None);
        assert_eq!(directory_of("http://u:p@localhost/"), None);
        assert_eq!(directory_of("localhost:5173/"), None);
    }

    #[test]
    fn a_redirect_is_followed_under_the_route_only_inside_the_urls_directory() {
        let map = |l| route_location(l, "localhost:5173", "/app/", "/qa-url/n/p/");
        assert_eq!(map("next.html").as_deref(), Some("next.html"));
        assert_eq!(map("/app/login/").as_deref(), Some("/qa-url/n/p/login/"));
        assert_eq!(map("http://localhost:5173/app/x").as_deref(), Some("/qa-url/n/p/x"));
        assert_eq!(map("/other/"), None);
        assert_eq!(map("http://evil.example/app/"), None);
        assert_eq!(map("//evil.example/app/"), None);
        assert_eq!(map("https://localhost:5173/app/"), None);
    }
}
