//! The page `audit --url` opens, checked before a browser starts: an `http` or `https` URL with a
//! host, and that host reachable (its name resolves and a TCP connection to its port opens) within
//! [`REACH_TIMEOUT`], so a typo or a server that is down is a usage error in under a second.

use std::time::Duration;

use tokio::net::TcpStream;

use crate::report::text;

/// How long resolving the host and opening a connection to it may take, together.
pub const REACH_TIMEOUT: Duration = Duration::from_millis(800);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    #[error("--url “{url}” is not an http(s) URL (audit opens http:// and https:// pages only)")]
    Scheme { url: String },
    #[error("--url “{url}” has no host")]
    NoHost { url: String },
    #[error("--url “{url}” has a port that is not a number from 1 to 65535: “{port}”")]
    Port { url: String, port: String },
    #[error("cannot reach --url {url}: {reason}")]
    Unreachable { url: String, reason: String },
}

/// A checked page URL: the URL as given, its host and its port (the scheme's default when none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageUrl {
    pub url: String,
    pub host: String,
    pub port: u16,
}

impl PageUrl {
    /// Checks the form of `url` (scheme, host, port); nothing is contacted.
    pub fn parse(url: &str) -> Result<PageUrl, UrlError> {
        let lower = url.to_ascii_lowercase();
        let (rest, default_port) = if lower.starts_with("http://") {
            (&url["http://".len()..], 80)
        } else if lower.starts_with("https://") {
            (&url["https://".len()..], 443)
        } else {
            return Err(UrlError::Scheme { url: url.to_string() });
        };
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let (host, port) = if let Some(v6) = hostport.strip_prefix('[') {
            let (h, after) = v6.split_once(']').ok_or_else(|| UrlError::NoHost { url: url.to_string() })?;
            (h.to_string(), after.strip_prefix(':'))
        } else {
            match hostport.split_once(':') {
                Some((h, p)) => (h.to_string(), Some(p)),
                None => (hostport.to_string(), None),
            }
        };
        if host.is_empty() {
            return Err(UrlError::NoHost { url: url.to_string() });
        }
        let port = match port {
            None | Some("") => default_port,
            Some(p) => match p.parse::<u16>() {
                Ok(n) if n > 0 => n,
                _ => return Err(UrlError::Port { url: url.to_string(), port: p.to_string() }),
            },
        };
        Ok(PageUrl { url: url.to_string(), host, port })
    }

    /// Resolves the host and opens a TCP connection to one of its addresses (each tried in turn),
    /// all within [`REACH_TIMEOUT`]. The browser is on this machine, so this is what it will meet.
    pub async fn check_reachable(&self) -> Result<(), UrlError> {
        let unreachable = |reason: String| UrlError::Unreachable { url: self.url.clone(), reason };
        let attempt = async {
            let addrs: Vec<_> = tokio::net::lookup_host((self.host.as_str(), self.port))
                .await
                .map_err(|e| unreachable(format!("the host {} does not resolve ({e})", text::quote(&self.host))))?
                .collect();
            let mut last = format!("the host {} has no address", text::quote(&self.host));
            for a in addrs {
                match TcpStream::connect(a).await {
                    Ok(_) => return Ok(()),
                    Err(e) => last = format!("nothing accepts connections on {a} ({e})"),
                }
            }
            Err(unreachable(last))
        };
        match tokio::time::timeout(REACH_TIMEOUT, attempt).await {
            Ok(r) => r,
            Err(_) => Err(unreachable(format!(
                "no connection to {}:{} within {}",
                self.host,
                self.port,
                text::duration(REACH_TIMEOUT)
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_http_or_https_url_gives_its_host_and_port() {
        let u = PageUrl::parse("http://127.0.0.1:8080/apps/x.html?a=1").unwrap();
        assert_eq!((u.host.as_str(), u.port), ("127.0.0.1", 8080));
        let u = PageUrl::parse("HTTPS://user:pw@example.org/path").unwrap();
        assert_eq!((u.host.as_str(), u.port), ("example.org", 443));
        let u = PageUrl::parse("http://[::1]:9/").unwrap();
        assert_eq!((u.host.as_str(), u.port), ("::1", 9));
        assert_eq!(PageUrl::parse("http://localhost").unwrap().port, 80);
    }

    #[test]
    fn other_schemes_a_missing_host_and_a_bad_port_are_refused() {
        for bad in ["file:///etc/passwd", "ftp://example.org/", "example.org", "javascript:alert(1)", "about:blank"] {
            assert!(matches!(PageUrl::parse(bad), Err(UrlError::Scheme { .. })), "{bad}");
        }
        assert!(matches!(PageUrl::parse("http:///x"), Err(UrlError::NoHost { .. })));
        assert!(matches!(PageUrl::parse("http://h:0/"), Err(UrlError::Port { .. })));
        assert!(matches!(PageUrl::parse("http://h:65536/"), Err(UrlError::Port { .. })));
        assert!(matches!(PageUrl::parse("http://h:8o/"), Err(UrlError::Port { .. })));
        assert_eq!(PageUrl::parse("http://h:65535/").unwrap().port, 65535);
    }
}
