//! Typed model of what the Attention runtime reports: snapshot, path, candidate, omission, envelope.
