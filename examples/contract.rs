//! Run the contract subcommands before the lead wires them into `main.rs`:
//! `cargo run --example contract -- validate fixtures/contract/spec-v1-envelope.json`.

use attention_harness::contract::cli::{run, ContractCommand};
use clap::Parser;

#[derive(Parser)]
#[command(name = "contract", about = "Wippy Attention Context contract tools")]
struct Args {
    #[command(subcommand)]
    cmd: ContractCommand,
}

fn main() {
    std::process::exit(run(&Args::parse().cmd));
}
