//! One pass over the files (issue 17): the walk takes entry types from the
//! listings and resolves no path in user space, `validate` opens each file about
//! once and makes no `readlink` (counted by strace when it is installed), its
//! contract checks of the one pass are the per-run checks, `list --json` streams
//! the very bytes of the whole-document rendering, and the progress line shows
//! only on a terminal.

// the example's own source: its `main` is unused here
use crate::common;
use crate::gen_workspace;

use assert_cmd::Command;
use gen_workspace::{Options, generate};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use testdeck_core::workspace::{Workspace, contract, read, validate, walk};

/// The binary, without a progress delay the developer's environment may set.
fn testdeck() -> Command {
    let mut c = Command::new(common::cli::bin());
    c.env_remove("TESTDECK_PROGRESS_AFTER_MS");
    c
}

/// A generated workspace of `cases` / `runs` (with a catalog) in a tempdir.
fn generated(cases: usize, runs: usize) -> (tempfile::TempDir, PathBuf) {
    let tmp = crate::common::fs::scratch_dir();
    let out = tmp.path().join("ws");
    generate(&Options {
        out: out.clone(),
        cases,
        runs,
        catalog: 12,
        seed: 11,
    })
    .expect("generate");
    (tmp, out)
}

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo")
}

/// Regular files under `dir`, links not followed.
fn regular_files(dir: &Path) -> usize {
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("ls").flatten() {
            let t = e.file_type().expect("type");
            if t.is_dir() {
                stack.push(e.path());
            } else if t.is_file() {
                n += 1;
            }
        }
    }
    n
}

#[test]
fn the_walk_takes_types_from_the_listing_and_resolves_no_path() {
    let (_tmp, ws) = generated(60, 300);
    let (types, resolved) = (walk::type_lookups(), read::resolved_in_user_space());
    let mut contract = Vec::new();
    let loaded = Workspace::load_with(&ws, Some(&mut contract)).expect("load");
    let problems = validate::validate_with(&loaded, contract);
    assert_eq!(loaded.logs.runs.len(), 300);
    assert!(!problems.is_empty(), "the generated catalog has warnings");
    assert_eq!(walk::type_lookups(), types, "a stat for an entry's type");
    assert_eq!(
        read::resolved_in_user_space(),
        resolved,
        "a path resolved in user space (readlink per component)"
    );
    // the counter is real: a path not spelled under its folder is resolved in
    // user space (and still refused when it leaves it)
    std::fs::write(ws.join("probe.toml"), "x = 1\n").expect("write");
    let odd = ws.join("tests/..");
    let bytes = read::read(&ws.join("probe.toml"), Some(&odd), read::Kind::Config);
    assert_eq!(bytes.expect("read").as_slice(), b"x = 1\n");
    assert_eq!(read::resolved_in_user_space(), resolved + 1);
}

#[test]
fn the_one_pass_contract_checks_are_the_per_run_checks() {
    let (_tmp, ws) = generated(40, 400);
    let hostile = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut roots = vec![demo(), ws];
    // every fixture workspace that has run folders
    if let Ok(rd) = std::fs::read_dir(&hostile) {
        for e in rd.flatten() {
            if e.path().join("tests/logs").is_dir() {
                roots.push(e.path());
            }
        }
    }
    for root in roots {
        let mut one_pass = Vec::new();
        let loaded = Workspace::load_with(&root, Some(&mut one_pass)).expect("load");
        let again = contract::check_runs(&loaded);
        let (mut a, mut b) = (one_pass.clone(), again);
        testdeck_core::problem::sort(&mut a);
        testdeck_core::problem::sort(&mut b);
        assert_eq!(a, b, "{}", root.display());
        assert_eq!(
            validate::validate_with(&loaded, one_pass),
            validate::validate(&loaded),
            "{}",
            root.display()
        );
    }
}

/// `(calls, syscall)` rows of `strace -c` output.
fn strace_counts(text: &str) -> Vec<(u64, String)> {
    text.lines()
        .filter_map(|l| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            // % time, seconds, usecs/call, calls, [errors], syscall
            let name = (*cols.last()?).to_owned();
            let calls = cols.get(3)?.parse().ok()?;
            (name != "total").then_some((calls, name))
        })
        .collect()
}

#[test]
fn validate_opens_each_file_about_once_and_reads_no_link() {
    let has_strace = std::process::Command::new("strace")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_strace {
        eprintln!("SKIP: strace is not installed: the syscall count is not checked");
        return;
    }
    let (tmp, ws) = generated(200, 2000);
    let files = regular_files(&ws);
    let log = tmp.path().join("strace.txt");
    let out = std::process::Command::new("strace")
        .args(["-f", "-c", "-o"])
        .arg(&log)
        .args(["-e", "trace=readlink,readlinkat,openat,open,openat2"])
        .arg(env!("CARGO_BIN_EXE_testdeck"))
        .arg("--root")
        .arg(&ws)
        .arg("validate")
        .env_remove("TESTDECK_PROGRESS_AFTER_MS")
        .output()
        .expect("strace");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(" errors, "), "{stdout}");
    let text = std::fs::read_to_string(&log).expect("strace log");
    let counts = strace_counts(&text);
    let calls = |names: &[&str]| -> u64 {
        counts
            .iter()
            .filter(|(_, n)| names.contains(&n.as_str()))
            .map(|(c, _)| c)
            .sum()
    };
    assert!(calls(&["openat", "openat2", "open"]) > 0, "{text}");
    // the only readlinks are the one resolution of the root itself (the
    // cancelled-runs record is keyed by it): none for any entry under it
    let root_parts = ws.canonicalize().expect("root").components().count() as u64;
    let readlinks = calls(&["readlink", "readlinkat"]);
    assert!(readlinks < root_parts, "{readlinks} readlinks\n{text}");
    let opens = calls(&["openat", "openat2", "open"]);
    let per_file = opens as f64 / files as f64;
    eprintln!("{opens} opens for {files} files: {per_file:.3} per file");
    assert!(per_file <= 1.05, "{per_file:.3} opens per file\n{text}");
}

/// The whole-document rendering `list --json` wrote before it streamed.
fn whole_document(ws: &Workspace, source: Option<&str>) -> String {
    let mut cases = Vec::new();
    if source != Some("catalog") {
        cases.extend(testdeck_cli::list::tests_cases(ws));
    }
    if source != Some("tests") {
        cases.extend(testdeck_cli::list::catalog_cases(ws));
    }
    let text = testdeck_core::sanitize::to_json(&serde_json::json!({ "cases": cases }), true)
        .expect("json");
    format!("{text}\n")
}

#[test]
fn list_json_streams_the_bytes_of_the_whole_document() {
    let (_tmp, ws) = generated(80, 400);
    let empty = crate::common::fs::scratch_dir();
    std::fs::create_dir_all(empty.path().join("tests")).expect("mkdir");
    for root in [demo(), ws, empty.path().to_path_buf()] {
        let loaded = Workspace::load(&root).expect("load");
        for source in [None, Some("tests"), Some("catalog")] {
            let mut cmd = testdeck();
            cmd.arg("--root").arg(&root).args(["list", "--json"]);
            if let Some(s) = source {
                cmd.args(["--source", s]);
            }
            let out = cmd.output().expect("list");
            assert!(out.status.success());
            let got = String::from_utf8(out.stdout).expect("utf8");
            let want = whole_document(&loaded, source);
            let parsed: serde_json::Value = serde_json::from_str(&got).expect("valid JSON");
            let expected: serde_json::Value = serde_json::from_str(&want).expect("json");
            assert_eq!(parsed, expected, "{} {source:?}", root.display());
            assert_eq!(
                got,
                want,
                "{} {source:?}: not byte-identical",
                root.display()
            );
        }
    }
}

#[test]
fn progress_shows_on_a_terminal_and_is_cleared_never_in_json_or_a_pipe() {
    let (_tmp, ws) = generated(60, 600);
    let run_in_pty = |args: &[&str]| -> (String, Vec<u8>) {
        let mut cmd = portable_pty::CommandBuilder::new(env!("CARGO_BIN_EXE_testdeck"));
        cmd.arg("--root");
        cmd.arg(&ws);
        for a in args {
            cmd.arg(a);
        }
        cmd.env("TESTDECK_PROGRESS_AFTER_MS", "0");
        cmd.env_remove("NO_COLOR");
        let mut s = common::Session::spawn(cmd, 24, 100);
        let start = Instant::now();
        while s.child.try_wait().expect("wait").is_none() {
            assert!(start.elapsed() < Duration::from_secs(120), "did not end");
            std::thread::sleep(Duration::from_millis(50));
        }
        // the reader thread drains what is left
        std::thread::sleep(Duration::from_millis(300));
        let screen = s.screen().screen().contents();
        let bytes = s.bytes.lock().expect("lock").clone();
        (screen, bytes)
    };
    let (screen, bytes) = run_in_pty(&["validate"]);
    let raw = String::from_utf8_lossy(&bytes);
    assert!(raw.contains("validating"), "no progress line: {raw:?}");
    assert!(screen.contains(" errors, "), "{screen}");
    assert!(!screen.contains("validating"), "not cleared:\n{screen}");

    let (_, bytes) = run_in_pty(&["validate", "--json"]);
    let raw = String::from_utf8_lossy(&bytes);
    assert!(raw.contains("\"problems\""), "{raw:?}");
    assert!(!raw.contains("validating"), "progress in --json: {raw:?}");

    // piped: nothing on stderr, nothing extra on stdout
    let out = testdeck()
        .arg("--root")
        .arg(&ws)
        .arg("validate")
        .env("TESTDECK_PROGRESS_AFTER_MS", "0")
        .output()
        .expect("validate");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("validating"));
}
