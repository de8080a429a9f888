//! A separate web server for tests of applications the harness does not serve (a layout file's
//! `{"kind": "page", "url": ...}`): std::net, one thread per connection, GET of the files of one
//! folder (a folder's `index.html` for its path), nothing outside it, never the runtime. It stands
//! for QA's own dev server: the harness's server plays no part in what it answers. Like a dev server
//! (Vite's default), it allows any origin to read what it serves, so a component panel's document
//! can import a module from it.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A running server; it serves until the test process ends.
pub struct AppServer {
    pub port: u16,
    /// Every request it answered, oldest first: its path and its User-Agent.
    log: Arc<Mutex<Vec<(String, String)>>>,
}

impl AppServer {
    /// Serves `folder` on a port the OS chooses, on 127.0.0.1.
    pub fn start(folder: &Path) -> AppServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the application server");
        let port = listener.local_addr().unwrap().port();
        let folder = std::fs::canonicalize(folder).unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let logged = log.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let folder = folder.clone();
                let log = logged.clone();
                std::thread::spawn(move || {
                    let _ = answer(stream, &folder, &log);
                });
            }
        });
        AppServer { port, log }
    }

    /// The requests answered so far: (path with query, User-Agent).
    pub fn requests(&self) -> Vec<(String, String)> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// `http://localhost:<port>/`: the site the harness's child pages are on (not the Host's
    /// 127.0.0.1), so Chromium runs it out of process, and an origin of its own.
    pub fn url(&self) -> String {
        format!("http://localhost:{}/", self.port)
    }
}

fn answer(stream: std::net::TcpStream, folder: &Path, log: &Mutex<Vec<(String, String)>>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    // The request's headers, up to the blank line.
    let mut header = String::new();
    let mut agent = String::new();
    while reader.read_line(&mut header)? > 2 {
        if let Some((name, value)) = header.split_once(':') {
            if name.eq_ignore_ascii_case("user-agent") {
                agent = value.trim().to_string();
            }
        }
        header.clear();
    }
    if let Ok(mut l) = log.lock() {
        l.push((line.split_whitespace().nth(1).unwrap_or("").to_string(), agent));
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").split(['?', '#']).next().unwrap_or("/").to_string();
    let (status, kind, body) = match file_of(folder, &path) {
        Some(file) => (200, content_type(&file), std::fs::read(&file)?),
        None => (404, "text/plain", b"not found".to_vec()),
    };
    let mut out = stream;
    write!(
        out,
        "HTTP/1.1 {status} {}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\
         Access-Control-Allow-Origin: *\r\nConnection: close\r\n\r\n",
        if status == 200 { "OK" } else { "Not Found" },
        body.len()
    )?;
    out.write_all(&body)
}

/// The file `path` names inside `folder` (its real path inside it), or None.
fn file_of(folder: &Path, path: &str) -> Option<PathBuf> {
    let rel = path.trim_start_matches('/');
    if rel.split('/').any(|p| p == ".." || p.contains('\\') || p.contains('%')) {
        return None;
    }
    let mut file = std::fs::canonicalize(folder.join(rel)).ok()?;
    if file.is_dir() {
        file = std::fs::canonicalize(file.join("index.html")).ok()?;
    }
    (file.starts_with(folder) && file.is_file()).then_some(file)
}

fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        _ => "application/octet-stream",
    }
}
