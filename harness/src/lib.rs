//! attention-harness: drives Chromium through the reference Host and checks what the Attention
//! runtime reports against the contract (`../shared/spec`) and against Chromium's own ground truth.

pub mod attention;
pub mod contract;
