//! Every test that needs no shared browser, as one test binary: the contract module (canonical JSON,
//! codecs, projection, validation, parity with the Session, goldens), the reference Session's HTTP and
//! WebSocket surfaces and UI-action broker and the runtime bundle's freshness.
//! `cargo test --test contract session_ws::` runs one file.

mod contract_support;
mod session_support;

#[path = "contract_canonical.rs"]
mod contract_canonical;
#[path = "contract_cli.rs"]
mod contract_cli;
#[path = "contract_codec.rs"]
mod contract_codec;
#[path = "contract_codec_parity.rs"]
mod contract_codec_parity;
#[path = "contract_delivery.rs"]
mod contract_delivery;
#[path = "contract_parity.rs"]
mod contract_parity;
#[path = "contract_projection.rs"]
mod contract_projection;
#[path = "contract_validate.rs"]
mod contract_validate;
#[path = "goldens.rs"]
mod goldens;
#[path = "goldens_v4.rs"]
mod goldens_v4;
#[path = "nextest_partition.rs"]
mod nextest_partition;
#[path = "runtime_bundle.rs"]
mod runtime_bundle;
#[path = "session_crash.rs"]
mod session_crash;
#[path = "session_http.rs"]
mod session_http;
#[path = "session_origin.rs"]
mod session_origin;
#[path = "session_races.rs"]
mod session_races;
#[path = "session_reads.rs"]
mod session_reads;
#[path = "session_ui_actions.rs"]
mod session_ui_actions;
#[path = "session_ws.rs"]
mod session_ws;
