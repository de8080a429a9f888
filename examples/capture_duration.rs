//! Benchmark: `capture.duration_ms` of boundary snapshots per layout x engine, as the runtime
//! measures it. Prints min / median / p90 / max; asserts nothing (speed is measured, not tested).
//!
//! `cargo run --example capture_duration -- [snapshots per cell, default 30]`

use attention_harness::checks::sampling::boundary_point;
use attention_harness::checks::snapshot_at;
use attention_harness::{Engine, Harness, Layout};

fn main() -> anyhow::Result<()> {
    let n: usize = std::env::args().nth(1).map(|a| a.parse()).transpose()?.unwrap_or(30).max(1);
    let h = Harness::global();
    let result = h.block_on(async {
        println!("{:<8} {:<8} {:>5} {:>8} {:>8} {:>8} {:>8}", "layout", "engine", "n", "min", "median", "p90", "max");
        for layout in Layout::ALL {
            for engine in Engine::ALL {
                let host = h.open(layout, engine).await?;
                let (x, y, _, _) = boundary_point(&host).await?;
                snapshot_at(&host, x, y).await?; // the first snapshot after load warms the realms up
                let mut ms = Vec::with_capacity(n);
                for _ in 0..n {
                    let snap = host.snapshot().await?;
                    ms.push(snap["capture"]["duration_ms"].as_f64().unwrap_or(f64::NAN));
                }
                host.close().await;
                ms.sort_by(f64::total_cmp);
                let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
                println!("{:<8} {:<8} {:>5} {:>8.1} {:>8.1} {:>8.1} {:>8.1}", layout.name(), engine.name(), n, ms[0], at(0.5), at(0.9), ms[ms.len() - 1]);
            }
        }
        anyhow::Ok(())
    });
    h.shutdown();
    result
}
