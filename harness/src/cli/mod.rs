//! The bodies of the QA commands (issue 22), kept out of main.rs: `replay` and
//! `record --scenario`.

pub mod replay;
