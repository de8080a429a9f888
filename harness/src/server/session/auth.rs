//! Bearer-token authentication of the reference users. The server makes one random token per
//! actor per run: the reference user (the Host page gets its token in a `<meta>`; `serve` prints
//! it), another user (for "belongs to someone else" answers) and a reader without write
//! permission (for `SESSION_FORBIDDEN`). HTTP requests send `Authorization: Bearer <token>`; the
//! WebSocket, which a browser cannot give headers, sends `?token=<token>` on `/api/v1/ws/join`.

use axum::http::HeaderMap;

/// Who is calling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor {
    User,
    Other,
    Reader,
}

impl Actor {
    pub fn name(self) -> &'static str {
        match self {
            Actor::User => "user:reference",
            Actor::Other => "user:other",
            Actor::Reader => "user:reader",
        }
    }
    /// `security.can("write", "session:<id>")`: the reader may not write.
    pub fn can_write(self) -> bool {
        self != Actor::Reader
    }
}

pub(crate) struct Users {
    tokens: [(Actor, String); 3],
}

impl Users {
    pub fn generate() -> Users {
        let token = || -> String {
            let mut s = String::new();
            for _ in 0..2 {
                s.extend(super::random_bytes().iter().map(|b| format!("{b:02x}")));
            }
            s
        };
        Users { tokens: [(Actor::User, token()), (Actor::Other, token()), (Actor::Reader, token())] }
    }

    pub fn token(&self, actor: Actor) -> &str {
        self.tokens.iter().find(|(a, _)| *a == actor).map(|(_, t)| t.as_str()).unwrap_or("")
    }

    /// The actor of `Authorization: Bearer <token>`, or of `query_token` when given.
    pub fn authenticate(&self, headers: &HeaderMap, query_token: Option<&str>) -> Option<Actor> {
        let presented = match query_token {
            Some(t) => t,
            None => headers.get("authorization")?.to_str().ok()?.strip_prefix("Bearer ")?,
        };
        // Every token has the same length; compare all bytes so timing says nothing.
        self.tokens
            .iter()
            .find(|(_, t)| {
                t.len() == presented.len()
                    && t.bytes().zip(presented.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
            })
            .map(|(a, _)| *a)
    }
}
