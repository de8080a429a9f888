//! No stale runtime bundle: the server builds `pages/runtime/dist/attention.js` from the ES modules
//! under `pages/runtime/src/` when it starts, and a source edited while it runs is in the very next
//! `/runtime/attention.js` it serves, without a manual build step. Runs on a copy of the runtime
//! sources in a scratch pages folder under target/ (node_modules linked to the real one).

use std::path::{Path, PathBuf};
use std::time::Duration;

use attention_harness::server::runtime_bundle::{bundle_path, corpus_bundle_path};
use attention_harness::server::Server;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn repo_pages() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("pages")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A pages folder with a copy of the runtime sources and build files, and no bundle yet.
fn scratch_pages(name: &str) -> PathBuf {
    let real = repo_pages();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("runtime-bundle").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("runtime")).unwrap();
    copy_dir(&real.join("runtime/src"), &dir.join("runtime/src"));
    std::fs::create_dir_all(dir.join("corpora")).unwrap();
    for f in ["runtime/build.mjs", "runtime/package.json", "package.json", "package-lock.json", "corpora/material.js"] {
        std::fs::copy(real.join(f), dir.join(f)).unwrap();
    }
    std::os::unix::fs::symlink(real.join("node_modules"), dir.join("node_modules")).unwrap();
    dir
}

/// Makes the bundle unambiguously older than an edit made just now, whatever the file system's
/// time resolution (the bundle is dated 10 s back).
fn age_bundle(pages: &Path) {
    age(&bundle_path(pages));
}

fn age(bundle: &Path) {
    let built = std::fs::metadata(bundle).unwrap().modified().unwrap();
    std::fs::File::options().write(true).open(bundle).unwrap().set_modified(built - Duration::from_secs(10)).unwrap();
}

/// GET a path from the Host site; returns (status line, body).
async fn get(server: &Server, path: &str) -> (String, String) {
    let addr = server.host_origin().trim_start_matches("http://").to_string();
    let mut stream = TcpStream::connect(&addr).await.unwrap();
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut raw))
        .await
        .expect("the server did not answer within 30 s")
        .unwrap();
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, body) = text.split_once("\r\n\r\n").expect("an HTTP response");
    (head.lines().next().unwrap_or("").to_string(), body.to_string())
}

#[tokio::test]
async fn a_runtime_source_edited_while_the_server_runs_is_in_the_next_served_script() {
    let pages = scratch_pages("edit-picked-up");
    assert!(!bundle_path(&pages).exists());

    let server = Server::start(pages.clone()).await.expect("the server builds the bundle at start");
    assert!(bundle_path(&pages).is_file(), "Server::start built {}", bundle_path(&pages).display());
    let (status, first) = get(&server, "/runtime/attention.js").await;
    assert!(status.contains("200"), "{status}");
    assert!(
        first.contains("wippy.attention.v1") && first.contains("__wippyAttentionRuntime"),
        "the served script is the runtime bundle"
    );
    assert!(!first.contains("edit-marker-"), "no marker before the edit");

    // Edit a source the way a developer would: a new statement in the entry module.
    let main = pages.join("runtime/src/main.js");
    let src = std::fs::read_to_string(&main).unwrap();
    let marker = format!("edit-marker-{}", std::process::id());
    let edited = src
        .replace("if (!existing) install();", &format!("W.__wippyEditMarker = '{marker}';\nif (!existing) install();"));
    assert_ne!(edited, src, "main.js still ends with the install call");
    std::fs::write(&main, edited).unwrap();
    age_bundle(&pages);

    let (status, second) = get(&server, "/runtime/attention.js").await;
    assert!(status.contains("200"), "{status}");
    assert!(second.contains(&marker), "the script served after the edit carries the edit");

    // A broken source is reported with esbuild's message, not served stale.
    std::fs::write(pages.join("runtime/src/main.js"), "import './missing-module.js';\n").unwrap();
    age_bundle(&pages);
    let (status, body) = get(&server, "/runtime/attention.js").await;
    assert!(status.contains("500"), "{status}");
    assert!(body.contains("missing-module.js"), "{body}");
}

#[tokio::test]
async fn a_server_whose_runtime_does_not_build_fails_to_start_with_esbuilds_message() {
    let pages = scratch_pages("broken-at-start");
    std::fs::write(pages.join("runtime/src/main.js"), "export const = ;\n").unwrap();
    let err = Server::start(pages).await.err().expect("a runtime that does not build is a setup error");
    let text = err.to_string();
    assert!(text.contains("building the Attention runtime failed") && text.contains("main.js"), "{text}");
}

#[tokio::test]
async fn a_corpus_entry_edited_while_the_server_runs_is_in_the_next_served_corpus_bundle() {
    let pages = scratch_pages("corpus-edit-picked-up");
    let server = Server::start(pages.clone()).await.expect("the server builds both bundles at start");
    assert!(corpus_bundle_path(&pages).is_file(), "Server::start built {}", corpus_bundle_path(&pages).display());
    let (status, first) = get(&server, "/corpora/dist/material.js").await;
    assert!(status.contains("200"), "{status}");
    assert!(first.contains("md-filled-button"), "the served corpus bundle defines Material Web's elements");

    let entry = pages.join("corpora/material.js");
    let marker = format!("corpus-edit-marker-{}", std::process::id());
    let mut src = std::fs::read_to_string(&entry).unwrap();
    src.push_str(&format!("globalThis.__corpusEditMarker = '{marker}';\n"));
    std::fs::write(&entry, src).unwrap();
    age(&corpus_bundle_path(&pages));

    let (status, second) = get(&server, "/corpora/dist/material.js").await;
    assert!(status.contains("200"), "{status}");
    assert!(second.contains(&marker), "the corpus bundle served after the edit carries the edit");
}
