//! The bodies of the QA commands (issue 22), kept out of main.rs: `replay`,
//! `record --scenario` and `audit`.

pub mod audit;
pub mod replay;
