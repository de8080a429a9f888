//! The `attention-harness` command line: verify, snapshot, record, serve, contract.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use attention_harness::server::{default_pages_dir, Server};

#[derive(Parser)]
#[command(name = "attention-harness", version, about = "Drives Chromium through the reference Host and checks the Attention runtime")]
struct Cli {
    /// The pages folder (reference Host, apps, runtime). Default: $ATTENTION_PAGES, else the repository's pages/.
    #[arg(long, global = true)]
    pages: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the reference Host and print its URLs, for a person to open in a browser.
    Serve,
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt().with_env_filter(tracing_subscriber::EnvFilter::from_default_env()).with_writer(std::io::stderr).init();
    let cli = Cli::parse();
    let pages = cli.pages.unwrap_or_else(default_pages_dir);
    match cli.command {
        Command::Serve => serve(pages).await,
    }
}

async fn serve(pages: PathBuf) -> ExitCode {
    let server = match Server::start(pages).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    println!("Host site:  {}", server.host_origin());
    println!("Child site: {}", server.child_origin());
    for layout in ["managed", "compat"] {
        for engine in ["iframe", "fragment"] {
            println!("  {layout:8} {engine:9} {}", server.host_url(&format!("/host/{layout}.html?engine={engine}")));
        }
    }
    println!("Press Ctrl-C to stop.");
    let _ = tokio::signal::ctrl_c().await;
    ExitCode::SUCCESS
}
