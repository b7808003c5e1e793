//! The generated workspaces the scale and suite benches measure: `Nk` cases
//! with 5 runs a case, written by the generator of `cargo run --example
//! gen-workspace` (seed 42: every run measures the same bytes), kept in
//! `TESTDECK_BENCH_WS/<size>` and reused, or in a temporary folder deleted
//! after; the run folders a bench writes into one are named `2099…` and
//! removed again.

use std::path::{Path, PathBuf};
use std::time::Instant;

// the generator of `cargo run --example gen-workspace`, one home
#[allow(dead_code)]
#[path = "../../examples/gen-workspace.rs"]
mod generator;

/// Runs generated per case (the 10k cases / 50k runs).
pub const RUNS_PER_CASE: usize = 5;
/// Free space a generated workspace must leave on its filesystem.
pub const KEEP_FREE: u64 = 20 << 30;
/// Disk a generated case takes with its runs, about (measured: 10k cases,
/// 242k files, 1.1 GB).
pub const BYTES_PER_CASE: u64 = 150 << 10;
/// The first characters of the runIds the benches write (a date no generated
/// run has): what [`remove_bench_runs`] takes away.
pub const BENCH_RUN_PREFIX: &str = "2099";

/// `10k` → 10 000; `1234` → 1 234.
pub fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim().to_ascii_lowercase();
    match s.strip_suffix('k') {
        Some(k) => k.parse::<usize>().ok().map(|k| k * 1000),
        None => s.parse().ok(),
    }
}

fn free_bytes(path: &Path) -> Option<u64> {
    let st = rustix::fs::statvfs(path).ok()?;
    Some(st.f_bavail * st.f_frsize)
}

/// Regular files under `dir`, from the directory entries' types.
pub fn count_files(dir: &Path) -> u64 {
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(e.path()),
                Ok(t) if t.is_file() => n += 1,
                _ => {}
            }
        }
    }
    n
}

/// A workspace of `cases` cases (`label` names its folder): reused or
/// generated; with the temporary folder that holds it when it is to be
/// deleted. `None` (said) when generating it would leave less than
/// [`KEEP_FREE`] on its filesystem.
pub fn workspace(cases: usize, label: &str) -> Option<(PathBuf, Option<tempfile::TempDir>)> {
    let (dir, tmp) = if let Some(base) = std::env::var_os("TESTDECK_BENCH_WS") {
        (PathBuf::from(base).join(label), None)
    } else {
        let t = tempfile::tempdir().ok()?;
        (t.path().join("ws"), Some(t))
    };
    if dir.join("tests").is_dir() {
        println!("reusing the {label} workspace");
        return Some((dir.canonicalize().unwrap_or(dir), tmp));
    }
    let parent = dir.parent().unwrap_or(&dir).to_path_buf();
    std::fs::create_dir_all(&parent).ok()?;
    let need = cases as u64 * BYTES_PER_CASE;
    let free = free_bytes(&parent).unwrap_or(0);
    if free < need + KEEP_FREE {
        println!(
            "{label}: skipped, generating needs about {:.1} GB and only {:.1} GB are free (20 GB are kept free)",
            need as f64 / f64::from(1u32 << 30),
            free as f64 / f64::from(1u32 << 30)
        );
        return None;
    }
    let t = Instant::now();
    let s = match generator::generate(&generator::Options {
        out: dir.clone(),
        cases,
        runs: cases * RUNS_PER_CASE,
        catalog: 0,
        seed: 42,
    }) {
        Ok(s) => s,
        Err(e) => {
            println!("{label}: cannot generate the workspace: {e}");
            return None;
        }
    };
    println!(
        "generated {label}: {} cases, {} runs, {} files in {:.1} s",
        s.cases,
        s.runs,
        s.files,
        t.elapsed().as_secs_f64()
    );
    Some((dir.canonicalize().unwrap_or(dir), tmp))
}

/// Remove the run folders named [`BENCH_RUN_PREFIX`]`…` in these case folders
/// (what an earlier, interrupted bench left); how many went.
pub fn remove_bench_runs<'a>(case_dirs: impl IntoIterator<Item = &'a Path>) -> usize {
    let mut n = 0;
    for d in case_dirs {
        let Ok(rd) = std::fs::read_dir(d) else {
            continue;
        };
        for e in rd.flatten() {
            if e.file_name()
                .to_string_lossy()
                .starts_with(BENCH_RUN_PREFIX)
                && std::fs::remove_dir_all(e.path()).is_ok()
            {
                n += 1;
            }
        }
    }
    n
}

/// A bench's runId: [`BENCH_RUN_PREFIX`]`0101-HHmmss-000` from a number (below 86 400).
pub fn bench_run_id(i: usize) -> String {
    format!(
        "{BENCH_RUN_PREFIX}0101-{:02}{:02}{:02}-000",
        i / 3600 % 24,
        i / 60 % 60,
        i % 60
    )
}
