//! QA's own application pages: a layout file's folder served at `/qa/<layout name>/<path>` on both
//! sites (the Host's iframes of `{"kind": "page", "src": ...}` panels), and through the Web Fragments
//! gateway. HTML documents get the runtime as their first script, as the reference apps do; every
//! other file is served as it is. Nothing outside the folder is served: a `..` or any other
//! non-plain component is refused, and a path whose symbolic links lead outside the folder is 404.

use std::path::PathBuf;

use axum::http::StatusCode;
use axum::response::Response;

use super::html::{inject_runtime, Inject};
use super::{mime_for, ok, safe_join, status, Shared};

/// The file `rest` (`<layout name>/<path>`) names inside its served folder, symbolic links
/// resolved; a folder means its `index.html`. `Err` is the status to answer instead.
pub fn resolve(shared: &Shared, rest: &str) -> Result<PathBuf, (StatusCode, &'static str)> {
    let (name, sub) = rest.split_once('/').unwrap_or((rest, ""));
    let folder = shared.folders.lock().ok().and_then(|f| f.get(name).cloned());
    let Some(folder) = folder else {
        return Err((StatusCode::NOT_FOUND, "no such layout folder"));
    };
    let Some(file) = safe_join(&folder, sub) else {
        return Err((StatusCode::BAD_REQUEST, "path not allowed"));
    };
    let file = if file.is_dir() { file.join("index.html") } else { file };
    match std::fs::canonicalize(&file) {
        Ok(real) if real.starts_with(&folder) => Ok(real),
        Ok(_) => {
            tracing::warn!("refused {}: it leads outside {}", file.display(), folder.display());
            Err((StatusCode::NOT_FOUND, "not found"))
        }
        Err(_) => Err((StatusCode::NOT_FOUND, "not found")),
    }
}

/// `/qa/<layout name>/<path>`: the file, HTML with the runtime first.
pub async fn respond(shared: &Shared, rest: &str) -> Response {
    match resolve(shared, rest) {
        Ok(file) => serve(&file, Inject::Runtime).await,
        Err((code, why)) => status(code, why),
    }
}

/// One file of a served folder, HTML with or without the runtime.
pub async fn serve(file: &std::path::Path, inject: Inject) -> Response {
    let Ok(bytes) = tokio::fs::read(file).await else {
        return status(StatusCode::NOT_FOUND, "not found");
    };
    let mime = mime_for(file);
    if mime.starts_with("text/html") {
        let text = inject_runtime(&String::from_utf8_lossy(&bytes), inject);
        return ok(mime, text.into_bytes());
    }
    ok(mime, bytes)
}
