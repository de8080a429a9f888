//! Past one machine: where the browser and the reference server are, when they are not both this
//! process's loopback. A DevTools URL of a browser someone else runs (`--cdp-url`,
//! `ATTENTION_CDP_URL`), the address both server sites bind (`--bind`, `ATTENTION_BIND`) and the
//! origins pages use (`--public-origin` / `--public-child-origin`, `ATTENTION_PUBLIC_ORIGIN` /
//! `ATTENTION_PUBLIC_CHILD_ORIGIN`). Values are checked here, so a bad one is a clear error before
//! anything starts.

use std::net::IpAddr;

use axum::http::Uri;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RemoteError {
    #[error("--cdp-url “{0}” is not a DevTools WebSocket URL (expected ws://HOST:PORT/... or wss://...)")]
    CdpUrl(String),
    #[error("--bind “{0}” is not an IP address (for example 0.0.0.0 or 10.0.0.5)")]
    Bind(String),
    #[error("{flag} “{value}” is not an origin (expected http://HOST or http://HOST:PORT, no path)")]
    Origin { flag: &'static str, value: String },
    #[error(
        "--public-origin and --public-child-origin must name two different hosts (two sites, so child \
         frames stay cross-origin and out of process); got “{0}” for both"
    )]
    SameSite(String),
    #[error("--public-child-origin needs --public-origin (the Host site's origin) too")]
    ChildWithoutHost,
}

/// One public origin: scheme and host, and a port when the origin names one (else the port the
/// site's listener got).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicOrigin {
    pub scheme: String,
    pub host: String,
    pub port: Option<u16>,
}

impl PublicOrigin {
    pub fn parse(flag: &'static str, value: &str) -> Result<PublicOrigin, RemoteError> {
        let bad = || RemoteError::Origin { flag, value: value.to_string() };
        let uri: Uri = value.parse().map_err(|_| bad())?;
        let scheme = uri.scheme_str().filter(|s| *s == "http" || *s == "https").ok_or_else(bad)?;
        let auth = uri.authority().ok_or_else(bad)?;
        let path_ok = matches!(uri.path(), "" | "/") && uri.query().is_none();
        if !path_ok || auth.host().is_empty() || auth.as_str().contains('@') {
            return Err(bad());
        }
        Ok(PublicOrigin { scheme: scheme.to_string(), host: auth.host().to_string(), port: auth.port_u16() })
    }

    /// The origin pages use, with `listener_port` when the origin named none.
    pub fn with_port(&self, listener_port: u16) -> String {
        format!("{}://{}:{}", self.scheme, self.host, self.port.unwrap_or(listener_port))
    }
}

/// Where the two reference sites listen and what origins the pages use. The default is today's:
/// both on 127.0.0.1, the Host site `http://127.0.0.1:<a>`, the child site `http://localhost:<b>`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Net {
    pub bind: Option<IpAddr>,
    /// Host site and child site origins, both or neither.
    pub public: Option<(PublicOrigin, PublicOrigin)>,
}

/// The browser to drive and where the server is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Remote {
    /// A browser someone else runs; `None` launches one (and only then is one ever ended).
    pub cdp_url: Option<String>,
    pub net: Net,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

impl Remote {
    /// Checks flag values; a `None` falls back to its environment variable.
    pub fn parse(
        cdp_url: Option<&str>,
        bind: Option<&str>,
        public_origin: Option<&str>,
        public_child_origin: Option<&str>,
    ) -> Result<Remote, RemoteError> {
        let pick = |v: Option<&str>, var: &str| v.map(str::to_string).or_else(|| env(var));
        let cdp_url = pick(cdp_url, "ATTENTION_CDP_URL");
        let bind = pick(bind, "ATTENTION_BIND");
        let host = pick(public_origin, "ATTENTION_PUBLIC_ORIGIN");
        let child = pick(public_child_origin, "ATTENTION_PUBLIC_CHILD_ORIGIN");
        if let Some(u) = &cdp_url {
            let ok = u
                .parse::<Uri>()
                .ok()
                .filter(|uri| matches!(uri.scheme_str(), Some("ws" | "wss")))
                .and_then(|uri| uri.authority().map(|a| !a.host().is_empty()))
                .unwrap_or(false);
            if !ok {
                return Err(RemoteError::CdpUrl(u.clone()));
            }
        }
        let bind = match bind {
            Some(b) => Some(b.trim().parse::<IpAddr>().map_err(|_| RemoteError::Bind(b.clone()))?),
            None => None,
        };
        let public = match (host, child) {
            (None, None) => None,
            (None, Some(_)) => return Err(RemoteError::ChildWithoutHost),
            (Some(h), c) => {
                let h = PublicOrigin::parse("--public-origin", &h)?;
                let c = match c {
                    Some(c) => PublicOrigin::parse("--public-child-origin", &c)?,
                    // Same machine name, another port: cross-origin but the same site. Refused,
                    // so the child site stays a different site (out-of-process frames).
                    None => return Err(RemoteError::SameSite(h.host.clone())),
                };
                if c.host.eq_ignore_ascii_case(&h.host) {
                    return Err(RemoteError::SameSite(h.host));
                }
                Some((h, c))
            }
        };
        Ok(Remote { cdp_url, net: Net { bind, public } })
    }

    /// From the environment only (`cargo test`, [`crate::Harness::global`]).
    pub fn from_env() -> Result<Remote, RemoteError> {
        Remote::parse(None, None, None, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_are_refused_with_the_flag_named() {
        assert!(matches!(Remote::parse(Some("http://x:9222"), None, None, None), Err(RemoteError::CdpUrl(_))));
        assert!(matches!(Remote::parse(Some("ws://"), None, None, None), Err(RemoteError::CdpUrl(_))));
        assert!(matches!(Remote::parse(None, Some("nowhere"), None, None), Err(RemoteError::Bind(_))));
        assert!(matches!(
            Remote::parse(None, None, Some("http://a/x"), Some("http://b")),
            Err(RemoteError::Origin { flag: "--public-origin", .. })
        ));
        assert!(matches!(Remote::parse(None, None, Some("http://a"), None), Err(RemoteError::SameSite(_))));
        assert!(matches!(
            Remote::parse(None, None, Some("http://a"), Some("http://A:9")),
            Err(RemoteError::SameSite(_))
        ));
        assert!(matches!(Remote::parse(None, None, None, Some("http://b")), Err(RemoteError::ChildWithoutHost)));
    }

    #[test]
    fn good_values_parse_and_a_missing_port_is_the_listeners() {
        let r = Remote::parse(
            Some("ws://10.0.0.7:9222/devtools/browser/abc"),
            Some("0.0.0.0"),
            Some("http://10.0.0.5"),
            Some("http://runner.local:8081"),
        )
        .unwrap();
        assert_eq!(r.cdp_url.as_deref(), Some("ws://10.0.0.7:9222/devtools/browser/abc"));
        let (h, c) = r.net.public.unwrap();
        assert_eq!(h.with_port(4000), "http://10.0.0.5:4000");
        assert_eq!(c.with_port(4001), "http://runner.local:8081");
    }
}
