//! Live-workspace benchmark (a figure, not pass/fail): the time from a run
//! folder appearing under `tests/logs/` (written by this process as a runner
//! would) to its first event in a drawn frame, with the cockpit's workspace
//! watch running on a 10k-case workspace: watch, debounce, the incremental
//! read, the app's apply, the run's load and the frame (`common::live`, which
//! the scale bench's row 4 runs too). Median and max over 10 runs.
//!
//!     cargo run --release --example gen-workspace -- ws10k --cases 10000 --runs 50000
//!     TESTDECK_BENCH_WS=ws10k cargo bench --bench live
//!
//! Without TESTDECK_BENCH_WS a 10k-case workspace (one run each) is generated.

use common::ms;
use std::path::PathBuf;

// the live workspace in process, shared with the scale bench
#[allow(dead_code)]
mod common;

// the tests' fixture workspaces, not shipped in the library
#[allow(dead_code)]
#[path = "../tests/it/common/fixtures.rs"]
mod fixtures;

/// Runs measured.
const RUNS: usize = 10;

fn main() {
    let (root, _keep) = if let Some(p) = std::env::var_os("TESTDECK_BENCH_WS") {
        (PathBuf::from(p), None)
    } else {
        let d = tempfile::tempdir().expect("tmp");
        // 25 domains × 5 suites × 4 groups × 20 = 10 000 cases, one run each
        let domains = std::env::var("TESTDECK_BENCH_DOMAINS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(25);
        fixtures::generate(d.path(), domains, 20, 1);
        (d.path().to_path_buf(), Some(d))
    };
    let mut l = common::live::Loaded::new(&root, RUNS);
    println!("workspace: {} cases, {} runs", l.cases, l.runs);
    let f = common::live::first_events(&mut l, RUNS);
    println!("watch set up in {:.0} ms", ms(f.watch_setup));
    let all: Vec<String> = f.times.iter().map(|d| format!("{:.0}", ms(*d))).collect();
    println!(
        "run folder appears → its first event on screen: median {:.0} ms, max {:.0} ms (each: {} ms)",
        ms(f.times[f.times.len() / 2]),
        ms(f.times[f.times.len() - 1]),
        all.join(", ")
    );
}
