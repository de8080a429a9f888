//! attention-harness: drives Chromium through the reference Host and checks what the Attention
//! runtime reports against the contract (`../shared/spec`) and against Chromium's own ground truth.

pub mod agent;
pub mod attention;
pub mod audit;
pub mod browser;
pub mod capture;
pub mod cdp;
pub mod checks;
pub mod contract;
pub mod css_landmark;
pub mod focus_truth;
pub mod frames;
pub mod golden;
pub mod harness;
pub mod host;
pub mod input;
pub mod inspect_cli;
pub mod json;
pub mod oracle;
pub mod qa;
pub mod remote;
pub mod report;
pub mod scenario;
pub mod server;
pub mod stdout;
pub mod trace;

pub use frames::FrameSessions;
pub use harness::{run_document, run_host, run_host_opts, run_shared_host, Harness, HarnessError};
pub use host::{
    ComponentFailure, Corpus, Declaration, Engine, Extra, Frame, Geometry, Host, HostError, HostOptions, Layout, Mount,
};
