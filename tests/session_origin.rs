//! The bearer token stays on the Host site (issue 25, item 7): the Host pages, which carry the
//! token, are served by the Host site only (the child site, where the cross-origin apps live,
//! answers 404 and never fills a token into a document), and the WebSocket join refuses every
//! `Origin` but the Host site's, whatever token it presents. The browser side, a hostile child page
//! trying exactly this, is `session_hostile_child.rs`.

use crate::session_support;

use session_support::*;

async fn join_status(server: &attention_harness::server::Server, origin: Option<&str>) -> Result<(), u16> {
    let url = format!(
        "{}/api/v1/ws/join?token={}",
        server.host_origin().replace("http://", "ws://"),
        server.session().token()
    );
    let req = match origin {
        Some(o) => ws_request(&url, o),
        None => {
            use tokio_tungstenite::tungstenite::client::IntoClientRequest;
            url.as_str().into_client_request().unwrap()
        }
    };
    match tokio::time::timeout(TIMEOUT, tokio_tungstenite::connect_async(req))
        .await
        .expect("the handshake ends in time")
    {
        Ok(_) => Ok(()),
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => Err(resp.status().as_u16()),
        Err(e) => panic!("handshake failed without an HTTP answer: {e}"),
    }
}

#[tokio::test]
async fn the_websocket_join_admits_the_host_origin_only_whatever_the_token() {
    let server = server().await;
    let child = server.child_origin().to_string();
    let before = counts(&server);
    for origin in [Some(child.as_str()), None, Some("null"), Some("http://127.0.0.1:1"), Some("http://evil.example")] {
        assert_eq!(join_status(&server, origin).await, Err(403), "Origin {origin:?} with the user's token");
    }
    assert_eq!(counts(&server), before, "a refused join creates no session");
    assert_eq!(join_status(&server, Some(server.host_origin())).await, Ok(()), "the Host site's own origin joins");
}

#[tokio::test]
async fn the_host_pages_and_the_token_are_served_by_the_host_site_only() {
    let server = server().await;
    let token = server.session().token().to_string();
    let host = server.host_origin().trim_start_matches("http://").to_string();
    let child = server.child_addr().to_string();
    for path in ["/host/managed.html", "/host/compat.html"] {
        let r = http_at(&host, None, "GET", path, None, &[], b"").await;
        assert_eq!(r.status, 200, "the Host site serves {path}");
        assert!(String::from_utf8_lossy(&r.body).contains(&token), "the Host page {path} carries the token");
    }
    for path in ["/", "/host/managed.html", "/host/compat.html", "/host/index.html", "/host/", "/host"] {
        let r = http_at(&child, None, "GET", path, None, &[], b"").await;
        assert_eq!(r.status, 404, "the child site must not serve the Host page {path}");
        assert!(!String::from_utf8_lossy(&r.body).contains(&token), "{path}: no token on the child site");
    }
    // The child site still serves its apps, without a token in them.
    let r = http_at(&child, None, "GET", "/apps/plain.html", None, &[], b"").await;
    assert_eq!(r.status, 200);
    assert!(!String::from_utf8_lossy(&r.body).contains(&token));
}
