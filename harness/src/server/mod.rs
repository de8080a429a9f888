//! The reference server: two loopback sites that serve `pages/`, inject the Attention runtime as
//! the first script of every HTML document, and play the Web Fragments gateway.
//!
//! The Host site is `http://127.0.0.1:<a>`; the child site is `http://localhost:<b>`, a different
//! *site*, so Chromium puts child iframes out of process as in production. Ports come from the OS.
//! For a browser on another machine both sites bind another address and the pages use public
//! origins on two different hosts ([`crate::remote::Net`]).
//! `/runtime/attention.js` is the esbuild bundle of `pages/runtime/src/`, rebuilt whenever a source
//! is newer (see [`runtime_bundle`]).

mod gateway;
mod html;
mod qa_apps;
mod qa_component;
mod qa_url;
pub mod runtime_bundle;
pub mod session;

pub use qa_url::UPSTREAM_TIMEOUT;

use std::net::SocketAddr;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// Which of the two sites answered a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Site {
    Host,
    Child,
}

/// One request as the server saw it: for tests that prove which path a document took
/// (for example that a fragment really came through the gateway).
#[derive(Debug, Clone, serde::Serialize)]
pub struct RequestRecord {
    pub site: Site,
    pub path: String,
    pub sec_fetch_dest: Option<String>,
    pub fragment_id: Option<String>,
    pub status: u16,
}

#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("pages folder {0} not found (expected the repository's pages/; pass --pages DIR)")]
    PagesMissing(PathBuf),
    #[error("web-fragments is not installed under {0} (run `npm ci` in pages/, or ci/setup)")]
    FragmentsMissing(PathBuf),
    #[error("cannot bind a port on {0}: {1}")]
    Bind(std::net::IpAddr, #[source] std::io::Error),
    #[error(transparent)]
    RuntimeBundle(#[from] runtime_bundle::BundleError),
    #[error(transparent)]
    Session(#[from] session::StoreError),
}

struct Shared {
    pages: PathBuf,
    host_origin: String,
    child_origin: String,
    /// The reference user's bearer token, filled into served HTML as `__SESSION_TOKEN__`.
    session_token: String,
    log: Mutex<Vec<RequestRecord>>,
    /// Managed layout declarations served at `/host/layouts/<name>.json` on the Host site, beside
    /// the shipped files (QA's `--layout-file`, [`Server::serve_layout`]).
    layouts: Mutex<std::collections::HashMap<String, Arc<str>>>,
    /// The folders of served layout files, canonical: their application pages are served at
    /// `/qa/<layout name>/` on both sites ([`Server::serve_folder`], [`qa_apps`]).
    folders: Mutex<std::collections::HashMap<String, PathBuf>>,
    /// The url pages' `routes` of the served layouts, oldest first: path prefixes at the Host origin
    /// proxied to their url's server ([`qa_url::routed`]).
    routes: Mutex<Vec<qa_url::Route>>,
}

/// A running reference server. Dropping it stops both sites.
pub struct Server {
    shared: Arc<Shared>,
    session: session::SessionService,
    tasks: Vec<JoinHandle<()>>,
}

/// The default pages folder: the repository's `pages/`, next to `Cargo.toml`.
pub fn default_pages_dir() -> PathBuf {
    std::env::var_os("ATTENTION_PAGES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("pages"))
}

impl Server {
    /// Binds both sites on OS-chosen loopback ports and starts serving `pages`.
    pub async fn start(pages: PathBuf) -> Result<Server, ServerError> {
        Server::start_with(pages, session::SessionOptions::default()).await
    }

    /// [`Server::start`] with the reference Session configured (database file, options).
    pub async fn start_with(pages: PathBuf, options: session::SessionOptions) -> Result<Server, ServerError> {
        Server::start_net(pages, options, &crate::remote::Net::default()).await
    }

    /// [`Server::start_with`] on `net`'s bind address, with `net`'s public origins in the pages
    /// (for a browser on another machine; [`crate::remote`]).
    pub async fn start_net(
        pages: PathBuf,
        options: session::SessionOptions,
        net: &crate::remote::Net,
    ) -> Result<Server, ServerError> {
        if !pages.join("runtime").is_dir() {
            return Err(ServerError::PagesMissing(pages));
        }
        let fragments = pages.join("node_modules/web-fragments/dist/elements.js");
        if !fragments.is_file() {
            return Err(ServerError::FragmentsMissing(fragments));
        }
        // Fail fast: a runtime that cannot be built is a setup error, not a failing page later.
        fresh_runtime_bundle(pages.clone()).await?;
        let ip = net.bind.unwrap_or(std::net::IpAddr::from([127, 0, 0, 1]));
        let bind =
            |ip| async move { TcpListener::bind(SocketAddr::new(ip, 0)).await.map_err(|e| ServerError::Bind(ip, e)) };
        let host = bind(ip).await?;
        let child = bind(ip).await?;
        let host_port = host.local_addr().map_err(|e| ServerError::Bind(ip, e))?.port();
        let child_port = child.local_addr().map_err(|e| ServerError::Bind(ip, e))?.port();
        let (host_origin, child_origin) = match &net.public {
            Some((h, c)) => (h.with_port(host_port), c.with_port(child_port)),
            None => (format!("http://127.0.0.1:{host_port}"), format!("http://localhost:{child_port}")),
        };
        let session = session::SessionService::start(options)?;
        // The only origin whose pages may join the Session socket (issue 25).
        session.set_host_origin(&host_origin);
        let shared = Arc::new(Shared {
            session_token: session.token().to_string(),
            pages,
            host_origin,
            child_origin,
            log: Mutex::new(Vec::new()),
            layouts: Mutex::new(std::collections::HashMap::new()),
            folders: Mutex::new(std::collections::HashMap::new()),
            routes: Mutex::new(Vec::new()),
        });
        let mut tasks = Vec::new();
        for (listener, site) in [(host, Site::Host), (child, Site::Child)] {
            let files = Router::new()
                .fallback(move |state: State<Arc<Shared>>, req: Request| serve(state, site, req))
                .with_state(shared.clone());
            // The Session lives on the Host site only.
            let app = if site == Site::Host { session.router().merge(files) } else { files };
            tasks.push(tokio::spawn(async move {
                if let Err(e) = axum::serve(listener, app).await {
                    tracing::error!("reference server stopped: {e}");
                }
            }));
        }
        Ok(Server { shared, session, tasks })
    }

    /// The reference Session: its token, and the typed read API over what it stored and answered.
    pub fn session(&self) -> &session::SessionService {
        &self.session
    }

    /// `http://127.0.0.1:<a>`
    pub fn host_origin(&self) -> &str {
        &self.shared.host_origin
    }

    /// `http://localhost:<b>`
    pub fn child_origin(&self) -> &str {
        &self.shared.child_origin
    }

    /// The address Chromium must resolve `localhost` to (the child site listens on IPv4 only).
    pub fn child_addr(&self) -> SocketAddr {
        let port = self.shared.child_origin.rsplit(':').next().and_then(|p| p.parse().ok()).unwrap_or(0);
        SocketAddr::from(([127, 0, 0, 1], port))
    }

    /// A URL on the Host site.
    pub fn host_url(&self, path: &str) -> String {
        format!("{}{}", self.shared.host_origin, path)
    }

    /// Serves `json` as the managed layout declaration `name` (`/host/managed.html?layout=<name>`
    /// loads it). A name of `pages/host/layouts/` is shadowed for as long as the server runs.
    /// Its url pages' `routes` are proxied from then on, in place of what `name` routed before; a
    /// prefix another layout routed before now belongs to this one.
    pub fn serve_layout(&self, name: &str, json: &str) {
        if let Ok(mut l) = self.shared.layouts.lock() {
            l.insert(name.to_string(), Arc::from(json));
        }
        let new = qa_url::routes_of(name, json);
        if let Ok(mut r) = self.shared.routes.lock() {
            r.retain(|old| old.layout != name && !new.iter().any(|n| n.prefix == old.prefix));
            r.extend(new);
        }
    }

    /// Serves `folder` (a layout file's folder, with the application pages it names) at
    /// `/qa/<name>/` on both sites, with the runtime injected into its HTML documents; nothing
    /// outside `folder` is served, through `..` or a symbolic link.
    pub fn serve_folder(&self, name: &str, folder: &Path) {
        let canonical = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
        if let Ok(mut f) = self.shared.folders.lock() {
            f.insert(name.to_string(), canonical);
        }
    }

    /// The Attention runtime bundle this server serves at [`RUNTIME_PATH`] (rebuilt first when a
    /// source is newer): what `audit` injects into every realm of a page that is not ours.
    pub async fn runtime_source(&self) -> Result<String, ServerError> {
        let bundle = fresh_runtime_bundle(self.shared.pages.clone()).await?;
        tokio::fs::read_to_string(&bundle).await.map_err(|source| {
            ServerError::RuntimeBundle(runtime_bundle::BundleError::Io { path: bundle.clone(), source })
        })
    }

    /// Every request served so far, oldest first.
    pub fn requests(&self) -> Vec<RequestRecord> {
        self.shared.log.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

async fn serve(State(shared): State<Arc<Shared>>, site: Site, req: Request) -> Response {
    let path = req.uri().path().to_string();
    let query = req.uri().query().map(str::to_string);
    let headers = req.headers().clone();
    let get = matches!(*req.method(), axum::http::Method::GET | axum::http::Method::HEAD);
    let response = respond(&shared, site, &path, query.as_deref(), &headers, get).await;
    let record = RequestRecord {
        site,
        path,
        sec_fetch_dest: header_str(&headers, "sec-fetch-dest"),
        fragment_id: header_str(&headers, "x-web-fragment-id"),
        status: response.status().as_u16(),
    };
    if let Ok(mut log) = shared.log.lock() {
        log.push(record);
    }
    response
}

fn header_str(headers: &HeaderMap, name: &str) -> Option<String> {
    headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_string)
}

/// Whether `path` is a Host page (`/`, `/host/…`): served by the Host site only. They carry the
/// user's bearer token, and the child site is where the cross-origin apps, the hostile one among
/// them, live: a child-origin page must not be able to fetch the token (issue 25).
fn is_host_page(path: &str) -> bool {
    path == "/" || path == "/host" || path.starts_with("/host/")
}

/// `get`: the request is a GET or HEAD (what the url proxy passes on).
async fn respond(
    shared: &Shared,
    site: Site,
    path: &str,
    query: Option<&str>,
    headers: &HeaderMap,
    get: bool,
) -> Response {
    if site == Site::Child && is_host_page(path) {
        return status(StatusCode::NOT_FOUND, "not found");
    }
    if let Some(name) = path.strip_prefix("/host/layouts/").and_then(|n| n.strip_suffix(".json")) {
        let served = shared.layouts.lock().ok().and_then(|l| l.get(name).cloned());
        if let Some(json) = served {
            return ok("application/json", json.as_bytes().to_vec());
        }
    }
    if let Some(rest) = path.strip_prefix("/qa/") {
        return qa_apps::respond(shared, rest).await;
    }
    if let Some(rest) = path.strip_prefix("/qa-url/") {
        if !get {
            return qa_url::method_refused();
        }
        return qa_url::respond(shared, rest, query, headers).await;
    }
    if let Some(rest) = path.strip_prefix("/qa-component/") {
        return match qa_component::document(shared, rest, query) {
            Ok(doc) => ok("text/html; charset=utf-8", html::inject_runtime(&doc, html::Inject::Runtime).into_bytes()),
            Err((code, why)) => status(code, why),
        };
    }
    if let Some(rest) = path.strip_prefix("/fragments/") {
        if !get && rest.starts_with("qa-url/") {
            return qa_url::method_refused();
        }
        return gateway::respond(shared, site, rest, query, headers).await;
    }
    if path == RUNTIME_PATH {
        // Stat-only unless a source changed since the last build: a long-running `serve` picks up edits.
        return match fresh_runtime_bundle(shared.pages.clone()).await {
            Ok(bundle) => serve_file(shared, site, &bundle, html::Inject::No).await,
            Err(e) => {
                tracing::error!("{e}");
                (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response()
            }
        };
    }
    if site == Site::Host {
        if let Some(routed) = qa_url::routed(shared, path, query, headers, get).await {
            return routed;
        }
    }
    if path.starts_with("/corpora/dist/") {
        // A corpus bundle built by the same step as the runtime: never served stale either.
        if let Err(e) = fresh_runtime_bundle(shared.pages.clone()).await {
            tracing::error!("{e}");
            return (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response();
        }
    }
    let file = if let Some(rest) = path.strip_prefix("/vendor/web-fragments/") {
        safe_join(&shared.pages.join("node_modules/web-fragments/dist"), rest)
    } else if let Some(rest) = path.strip_prefix("/vendor/shoelace/") {
        // Shoelace's self-contained ES module build (components, theme CSS, icon SVGs).
        safe_join(&shared.pages.join("node_modules/@shoelace-style/shoelace/cdn"), rest)
    } else if path == "/" {
        Some(shared.pages.join("host/index.html"))
    } else {
        safe_join(&shared.pages, path.trim_start_matches('/'))
    };
    let Some(file) = file else {
        return status(StatusCode::BAD_REQUEST, "path not allowed");
    };
    let opt_out = query.is_some_and(|q| q.split('&').any(|kv| kv == "attention=off"));
    serve_file(shared, site, &file, html::Inject::unless(opt_out)).await
}

/// The URL every document loads the runtime from (see [`html::RUNTIME_TAG`]).
pub const RUNTIME_PATH: &str = "/runtime/attention.js";

/// [`runtime_bundle::ensure_fresh`] off the async reactor (it stats files and may run Node).
async fn fresh_runtime_bundle(pages: PathBuf) -> Result<PathBuf, runtime_bundle::BundleError> {
    tokio::task::spawn_blocking(move || runtime_bundle::ensure_fresh(&pages)).await.unwrap_or_else(|e| {
        Err(runtime_bundle::BundleError::Io {
            path: PathBuf::from("runtime bundle task"),
            source: std::io::Error::other(e.to_string()),
        })
    })
}

/// Joins a URL path under `root`, refusing anything that could leave it.
fn safe_join(root: &Path, rel: &str) -> Option<PathBuf> {
    let rel = Path::new(rel);
    if rel.components().all(|c| matches!(c, Component::Normal(_))) {
        Some(root.join(rel))
    } else {
        None
    }
}

async fn serve_file(shared: &Shared, site: Site, file: &Path, inject: html::Inject) -> Response {
    let file = if file.is_dir() { file.join("index.html") } else { file.to_path_buf() };
    let bytes = match tokio::fs::read(&file).await {
        Ok(b) => b,
        Err(_) => return status(StatusCode::NOT_FOUND, "not found"),
    };
    let mime = mime_for(&file);
    if mime.starts_with("text/html") {
        let text = String::from_utf8_lossy(&bytes);
        let text = html::fill_origins(&text, &shared.host_origin, &shared.child_origin);
        // Only the Host site's documents get the token; the child site's never do.
        let token = if site == Site::Host { shared.session_token.as_str() } else { "" };
        let text = text.replace("__SESSION_TOKEN__", token);
        let text = html::inject_runtime(&text, inject);
        return ok(mime, text.into_bytes());
    }
    ok(mime, bytes)
}

fn ok(mime: &'static str, body: Vec<u8>) -> Response {
    let mut r = Response::new(Body::from(body));
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(mime));
    r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

fn status(code: StatusCode, msg: &'static str) -> Response {
    (code, msg).into_response()
}

fn mime_for(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" | "htm" => "text/html; charset=utf-8",
        "xhtml" => "application/xhtml+xml",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "map" => "application/json",
        _ => "application/octet-stream",
    }
}
