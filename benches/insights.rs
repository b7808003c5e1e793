//! Benchmark (figures, never pass/fail): `insights --json` beside `stats --json`
//! on generated workspaces of 10k and 30k cases (5 runs a case). Both make the
//! same pass over the history; insights adds the figures' lists and the change
//! times of every case's files (no git here: the generated workspace is no
//! checkout, so the change times are the files' modification times).
//!
//!     cargo bench --bench insights
//!
//! `INSIGHTS_SIZES` (default `10k,30k`) chooses the sizes; `TESTDECK_BENCH_WS=DIR`
//! keeps the workspaces in `DIR/<size>` and reuses them.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

// the generated workspaces (the scale bench's) and the median, one home
#[allow(dead_code)]
mod common;

use common::median;

const REPS: usize = 5;

fn time(root: &Path, args: &[&str]) -> (Duration, usize) {
    let exe = common::exe();
    let mut v = Vec::new();
    let mut bytes = 0;
    // one warm-up run: the page cache holds the workspace for both commands
    for i in 0..=REPS {
        let t = Instant::now();
        let out = Command::new(exe)
            .args(args)
            .arg("--root")
            .arg(root)
            .stderr(Stdio::null())
            .output()
            .unwrap();
        let el = t.elapsed();
        assert!(out.status.success(), "{args:?}");
        bytes = out.stdout.len();
        if i > 0 {
            v.push(el);
        }
    }
    (median(v), bytes)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let sizes = std::env::var("INSIGHTS_SIZES").unwrap_or_else(|_| "10k,30k".to_owned());
    let mut rows = Vec::new();
    for label in sizes.split(',') {
        let Some(cases) = common::ws::parse_size(label) else {
            continue;
        };
        let Some((dir, _tmp)) = common::ws::workspace(cases, label.trim()) else {
            continue;
        };
        let (stats, stats_b) = time(&dir, &["stats", "--json"]);
        let (ins, ins_b) = time(&dir, &["insights", "--json"]);
        let (ins_all, _) = time(&dir, &["insights", "--json", "--top", "1000000"]);
        println!(
            "{label}: stats --json {:.0} ms ({stats_b} B), insights --json {:.0} ms ({ins_b} B, {:.2}x), every entry {:.0} ms",
            stats.as_secs_f64() * 1e3,
            ins.as_secs_f64() * 1e3,
            ins.as_secs_f64() / stats.as_secs_f64(),
            ins_all.as_secs_f64() * 1e3,
        );
        rows.push((label.to_owned(), stats, ins, ins_all));
    }
    println!(
        "\n| cases (5 runs each) | `stats --json` | `insights --json` | ratio | `insights --json --top 1000000` |"
    );
    println!("| --- | --- | --- | --- | --- |");
    for (label, s, i, a) in rows {
        println!(
            "| {label} | {:.0} ms | {:.0} ms | {:.2}x | {:.0} ms |",
            s.as_secs_f64() * 1e3,
            i.as_secs_f64() * 1e3,
            i.as_secs_f64() / s.as_secs_f64(),
            a.as_secs_f64() * 1e3
        );
    }
}
