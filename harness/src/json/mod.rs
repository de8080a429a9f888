//! JSON exactly as the Session reads and writes it, below both the typed model (`attention`, which
//! seals and verifies envelopes with it) and the Session's contract (`contract`, which re-exports
//! these modules as part of its surface): the strict reader that decodes numbers as the Session's
//! runtime does ([`strict`]), canonical JSON and the hashes over it ([`canonical`]), and how the
//! Session's Lua code sees a decoded value ([`lua`]). Imports nothing of the crate.

pub mod canonical;
pub mod lua;
pub mod strict;
