//! The Session's attachment contract: canonical JSON, envelope and payload validation, v1-v4 codecs,
//! model projection and delivery choice, exactly as the Session and Framework implement them.
