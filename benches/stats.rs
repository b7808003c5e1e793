//! Benchmark: `stats --json` on a generated 10k-case / ~50k-run workspace, against
//! reading every `meta.json` once with `find … -exec cat {} +`; and peak memory.
//!
//! `cargo bench --bench stats` (set `TESTDECK_BENCH_WS=DIR` to reuse a workspace;
//! `TESTDECK_BENCH_CASES` / `TESTDECK_BENCH_RUNS` to change its size).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[allow(dead_code)]
mod common;

use common::median;

fn time_cmd(cmd: &mut Command, reps: usize) -> Duration {
    let mut v = Vec::new();
    for _ in 0..reps {
        let t = Instant::now();
        let st = cmd.stdout(Stdio::null()).status().expect("spawn");
        assert!(st.success() || st.code() == Some(1), "{cmd:?} failed: {st}");
        v.push(t.elapsed());
    }
    median(v)
}

fn ensure_workspace() -> PathBuf {
    let cases: usize = std::env::var("TESTDECK_BENCH_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    let runs: usize = std::env::var("TESTDECK_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(50_000);
    let dir = std::env::var_os("TESTDECK_BENCH_WS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("target/bench-ws-{cases}-{runs}")),
        PathBuf::from,
    );
    if !dir.join("tests").is_dir() {
        eprintln!(
            "generating {cases} cases / {runs} runs in {} …",
            dir.display()
        );
        let st = Command::new(env!("CARGO"))
            .args([
                "run",
                "--release",
                "--quiet",
                "--example",
                "gen-workspace",
                "--",
            ])
            .arg(&dir)
            .args(["--cases", &cases.to_string(), "--runs", &runs.to_string()])
            .status()
            .expect("cargo run --example gen-workspace");
        assert!(st.success(), "generator failed");
    }
    dir
}

fn main() {
    // `cargo test --benches` passes --bench-less args; only run under `cargo bench`
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let ws = ensure_workspace();
    let exe = env!("CARGO_BIN_EXE_testdeck");
    let metas = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "find '{}/tests/logs' -name meta.json | wc -l",
            ws.display()
        ))
        .output()
        .expect("find");
    let n_meta = String::from_utf8_lossy(&metas.stdout).trim().to_owned();
    // warm the page cache for both sides
    time_cmd(
        Command::new("sh").arg("-c").arg(format!(
            "find '{}' -type f -exec cat {{}} + > /dev/null",
            ws.display()
        )),
        1,
    );
    let find = time_cmd(&mut common::meta_floor(&ws), 5);
    let stats = time_cmd(
        Command::new(exe)
            .args(["stats", "--json", "--root"])
            .arg(&ws),
        5,
    );
    let list = time_cmd(
        Command::new(exe)
            .args(["list", "--json", "--root"])
            .arg(&ws),
        3,
    );
    // peak memory of the same work in this process
    let before = common::vm_hwm_kb(None).unwrap_or(0);
    let t = Instant::now();
    let w = testdeck_core::Workspace::load(&ws).expect("load");
    let nodes = testdeck_core::workspace::stats::compute(
        &w.tests,
        &w.logs,
        &testdeck_core::workspace::stats::Window::default(),
    );
    let json = serde_json::to_string(&nodes).expect("json");
    let inproc = t.elapsed();
    let after = common::vm_hwm_kb(None).unwrap_or(0);
    println!(
        "workspace: {} cases, {} runs ({n_meta} meta.json), {} nodes, {} bytes of JSON",
        w.tests.cases.len(),
        w.logs.runs.len(),
        nodes.len(),
        json.len()
    );
    println!(
        "find -name meta.json -exec cat {{}} +   median {:>8.1} ms",
        find.as_secs_f64() * 1e3
    );
    println!(
        "testdeck stats --json                  median {:>8.1} ms  ({:.2}x of find+cat; target ≤ 2x)",
        stats.as_secs_f64() * 1e3,
        stats.as_secs_f64() / find.as_secs_f64()
    );
    println!(
        "testdeck list --json                   median {:>8.1} ms",
        list.as_secs_f64() * 1e3
    );
    println!(
        "in-process load+stats+json             {:>8.1} ms",
        inproc.as_secs_f64() * 1e3
    );
    println!(
        "peak RSS (VmHWM) {} MiB before, {} MiB after (target < 200 MB)",
        before / 1024,
        after / 1024
    );
}
