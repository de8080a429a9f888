//! Helpers for the Session tests: a server with its own database, a minimal HTTP/1.1 client (one
//! request per connection) and a WebSocket client (tokio-tungstenite) for the Session socket.
#![allow(dead_code)]

use std::time::Duration;

use attention_harness::server::session::{Counts, SessionOptions};
use attention_harness::server::{default_pages_dir, Server};
use futures::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

pub const TIMEOUT: Duration = Duration::from_secs(10);

pub async fn server() -> Server {
    server_with(SessionOptions::default()).await
}

pub async fn server_with(options: SessionOptions) -> Server {
    Server::start_with(default_pages_dir(), options).await.expect("reference server starts")
}

#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("body is not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
    /// `error.code` of a Session error body.
    pub fn code(&self) -> String {
        self.json()["error"]["code"].as_str().unwrap_or("<none>").to_string()
    }
}

/// One HTTP/1.1 request to the Host site; `token` becomes `Authorization: Bearer`.
pub async fn http(
    server: &Server,
    method: &str,
    path: &str,
    token: Option<&str>,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Resp {
    let addr = server.host_origin().trim_start_matches("http://").to_string();
    http_at(&addr, None, method, path, token, headers, body).await
}

/// [`http`] to `addr` (`127.0.0.1:<port>`); with a `barrier`, the connection is opened first and
/// the request written only once every party reached the barrier, so racing requests really
/// overlap in the server.
pub async fn http_at(
    addr: &str,
    barrier: Option<&tokio::sync::Barrier>,
    method: &str,
    path: &str,
    token: Option<&str>,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Resp {
    let mut stream = TcpStream::connect(addr).await.expect("connect to the Host site");
    let mut req =
        format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
    if let Some(t) = token {
        req.push_str(&format!("Authorization: Bearer {t}\r\n"));
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    let mut whole = req.into_bytes();
    whole.extend_from_slice(body);
    if let Some(b) = barrier {
        tokio::time::timeout(TIMEOUT, b.wait()).await.expect("every racing request reached the barrier");
    }
    stream.write_all(&whole).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(TIMEOUT, stream.read_to_end(&mut raw)).await.expect("HTTP answer within the timeout").unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("HTTP head");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.split("\r\n");
    let status: u16 = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> =
        lines.filter_map(|l| l.split_once(':')).map(|(k, v)| (k.trim().to_string(), v.trim().to_string())).collect();
    let mut body = raw[split + 4..].to_vec();
    if headers.iter().any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked")) {
        body = dechunk(&body);
    }
    Resp { status, headers, body }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = b.windows(2).position(|w| w == b"\r\n") {
        let n = usize::from_str_radix(String::from_utf8_lossy(&b[..eol]).trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + n]);
        b = &b[eol + 2 + n + 2..];
    }
    out
}

pub type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

/// Joins the Session socket; returns the socket and the welcome frame.
pub async fn join(server: &Server, session_id: Option<&str>) -> (Ws, Value) {
    let mut url = format!(
        "{}/api/v1/ws/join?token={}",
        server.host_origin().replace("http://", "ws://"),
        server.session().token()
    );
    if let Some(id) = session_id {
        url.push_str(&format!("&session_id={id}"));
    }
    let (mut ws, _) = tokio_tungstenite::connect_async(ws_request(&url, server.host_origin()))
        .await
        .expect("the Session socket opens");
    let welcome = next_json(&mut ws).await;
    assert_eq!(welcome["type"], "welcome", "first frame is the welcome: {welcome}");
    (ws, welcome)
}

/// A WebSocket handshake request to `url` with `Origin: origin` (what a browser sends: the Session
/// admits only the Host site's origin).
pub fn ws_request(url: &str, origin: &str) -> tokio_tungstenite::tungstenite::handshake::client::Request {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = url.into_client_request().expect("a WebSocket URL");
    req.headers_mut().insert("origin", origin.parse().expect("an origin header value"));
    req
}

/// The next text frame as JSON.
pub async fn next_json(ws: &mut Ws) -> Value {
    loop {
        let msg = tokio::time::timeout(TIMEOUT, ws.next())
            .await
            .expect("a frame within the timeout")
            .expect("socket open")
            .expect("frame");
        if let Message::Text(t) = msg {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

/// Sends a command frame exactly as given and returns the answer.
pub async fn send_raw(ws: &mut Ws, frame: &str) -> Value {
    ws.send(Message::Text(frame.to_string().into())).await.unwrap();
    next_json(ws).await
}

pub async fn send(ws: &mut Ws, command: &Value) -> Value {
    send_raw(ws, &serde_json::to_string(command).unwrap()).await
}

pub fn counts(server: &Server) -> Counts {
    server.session().counts().expect("database readable")
}

/// A valid `wippy.attention` v1 envelope (the spec's fixture payload) with this attachment id.
pub fn envelope(attachment_id: &str) -> Value {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/contract/spec-v1-payload.json"))
        .unwrap();
    let payload: Value = serde_json::from_str(&text).unwrap();
    let env = attention_harness::attention::Envelope::seal(
        attachment_id,
        "wippy.attention",
        1,
        "2026-09-04T12:00:00.000Z",
        &payload,
    )
    .unwrap();
    serde_json::to_value(env).unwrap()
}

/// A `session_message` command.
pub fn message(request_id: &str, text: &str, data_extra: Value) -> Value {
    let mut data = serde_json::json!({"text": text});
    if let Value::Object(m) = data_extra {
        for (k, v) in m {
            data[k] = v;
        }
    }
    serde_json::json!({"type": "session_message", "request_id": request_id, "data": data})
}

/// A real `w` x `h` PNG (it decodes), padded with a private ancillary chunk (which decoders skip)
/// to exactly `len` bytes when given.
pub fn real_png(w: u32, h: u32, len: Option<usize>) -> Vec<u8> {
    let img = image::RgbaImage::from_fn(w, h, |x, y| image::Rgba([(x % 256) as u8, (y % 256) as u8, 7, 255]));
    let mut out = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png).expect("PNG encodes");
    let Some(len) = len else { return out };
    // 12 bytes of chunk framing (length, type, CRC) around the padding.
    assert!(len >= out.len() + 12, "a {w}x{h} PNG is {} bytes, cannot pad it to {len}", out.len());
    let pad = vec![0u8; len - out.len() - 12];
    let mut chunk = b"prVt".to_vec();
    chunk.extend_from_slice(&pad);
    let mut framed = (pad.len() as u32).to_be_bytes().to_vec();
    framed.extend_from_slice(&chunk);
    framed.extend_from_slice(&crc32(&chunk).to_be_bytes());
    let iend = out.len() - 12;
    out.splice(iend..iend, framed);
    assert_eq!(out.len(), len);
    out
}

/// A real lossless `w` x `h` WebP.
pub fn real_webp(w: u32, h: u32) -> Vec<u8> {
    let img = image::RgbaImage::from_fn(w, h, |x, y| image::Rgba([(x % 256) as u8, (y % 256) as u8, 9, 255]));
    let mut out = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::WebP).expect("WebP encodes");
    out
}

/// CRC-32 (ISO-HDLC), as PNG chunks carry it.
fn crc32(bytes: &[u8]) -> u32 {
    let mut c = 0xffff_ffffu32;
    for &b in bytes {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 { 0xedb8_8320 ^ (c >> 1) } else { c >> 1 };
        }
    }
    !c
}

/// A real one-colour `w` x `h` PNG (small however large the image).
pub fn solid_png(w: u32, h: u32) -> Vec<u8> {
    let img = image::RgbaImage::from_pixel(w, h, image::Rgba([40, 80, 120, 255]));
    let mut out = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png).expect("PNG encodes");
    out
}
