//! Faults while running (issue 6): testdeck itself SIGKILLed mid-run (no orphan
//! process survives it, the run record on disk is valid YAML with the finished
//! cases), the tests runner SIGKILLed mid-run (its half run shows as in progress,
//! the runs it ended stand), and a disk that refuses the record (error shown, the
//! previous record intact). Real `sh` processes, real signals, a real rlimit.

use crate::common;
use common::procs::alive;

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/faults")
        .join(name)
}

/// A workspace with the catalog cases of the fixtures and two tests-tree cases,
/// in two suites, run by the fault runner.
fn workspace() -> tempfile::TempDir {
    let dir = crate::common::fs::scratch_dir();
    let root = dir.path();
    let t = root.join(".pouch/tester");
    std::fs::create_dir_all(t.join("cases")).expect("mkdir");
    std::fs::copy(fixture("catalog.yaml"), t.join("catalog.yaml")).expect("catalog");
    std::fs::copy(fixture("main.yaml"), t.join("cases/main.yaml")).expect("cases");
    // two suites: one runner call for both
    for c in ["first/case-a", "next/case-b"] {
        let p = root.join(format!("tests/ai/backend/{c}.test.ts"));
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, "// case\n").expect("write");
    }
    let runner = fixture("runner.sh").display().to_string();
    std::fs::write(
        root.join("testdeck.toml"),
        format!(
            "[runner]\ncommand = [\"sh\", \"{}\"]\n",
            runner.replace('\\', "\\\\").replace('"', "\\\"")
        ),
    )
    .expect("toml");
    dir
}

fn testdeck(root: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_testdeck"));
    c.arg("--root").arg(root).args(args).current_dir(root);
    c
}

/// The pid written in `file`, waiting for it to appear.
fn pid_in(file: &Path) -> u32 {
    let start = Instant::now();
    loop {
        if let Some(pid) = std::fs::read_to_string(file)
            .ok()
            .and_then(|s| s.trim().parse().ok())
        {
            return pid;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{} never appeared",
            file.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Assert that every pid is gone within 5 s, then end any survivor so a failing
/// test leaves nothing behind.
fn assert_all_gone(pids: &[u32]) {
    let start = Instant::now();
    while pids.iter().any(|&p| alive(p)) && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left: Vec<u32> = pids.iter().copied().filter(|&p| alive(p)).collect();
    for &p in &left {
        let _ = Command::new("kill").arg("-9").arg(p.to_string()).status();
    }
    assert!(
        left.is_empty(),
        "orphans left after testdeck died: {left:?}"
    );
}

fn kill9(child: &mut Child) {
    child.kill().expect("SIGKILL testdeck");
    child.wait().expect("wait");
}

/// Read lines of `testdeck run --json` until `until` holds for one.
fn read_until(
    lines: &mut impl Iterator<Item = std::io::Result<String>>,
    until: impl Fn(&Value) -> bool,
) {
    for line in lines {
        let v: Value = serde_json::from_str(&line.expect("line")).expect("json");
        if until(&v) {
            return;
        }
    }
    panic!("testdeck ended before the awaited event");
}

#[test]
fn testdeck_killed_mid_catalog_run_leaves_no_orphan_and_a_valid_record() {
    let ws = workspace();
    let root = ws.path();
    let mut child = testdeck(
        root,
        &["run", "--json", "TC-MAIN-001", "TC-MAIN-002", "TC-MAIN-003"],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::null())
    .spawn()
    .expect("spawn");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    read_until(&mut lines, |v| {
        v["type"] == "case-start" && v["id"] == "TC-MAIN-003"
    });
    let leader = pid_in(&root.join("leader.pid"));
    let grandchild = pid_in(&root.join("grandchild.pid"));
    assert!(alive(leader) && alive(grandchild));
    kill9(&mut child);
    assert_all_gone(&[leader, grandchild]);
    // the record on disk is the version saved after the second case
    let records = testdeck_exec::record::list_records(root);
    assert_eq!(records.len(), 1, "{records:?}");
    let (path, rec) = &records[0];
    let rec = rec
        .as_ref()
        .unwrap_or_else(|p| panic!("{}: {p:?}", path.display()));
    let ids: Vec<&str> = rec.results.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["TC-MAIN-001", "TC-MAIN-002"]);
    assert!(rec.finished_at.is_none());
    // no temp file was left half written beside it
    let dir = path.parent().expect("runs");
    for e in std::fs::read_dir(dir).expect("runs dir") {
        let path = e.expect("entry").path();
        assert!(
            path.extension().is_none_or(|x| x != "tmp"),
            "left over: {}",
            path.display()
        );
    }
}

#[test]
fn testdeck_killed_mid_tests_run_leaves_no_orphan() {
    let ws = workspace();
    let root = ws.path();
    let mut child = testdeck(root, &["run", "--json", "ai/backend/first/case-a"])
        .env("FAULT_SLEEP", "100")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let runner = pid_in(&root.join("runner.case-a.pid"));
    let runner_child = pid_in(&root.join("runner-child.case-a.pid"));
    assert!(alive(runner) && alive(runner_child));
    kill9(&mut child);
    assert_all_gone(&[runner, runner_child]);
}

#[test]
fn a_runner_killed_mid_run_shows_in_progress_and_the_runs_it_ended_stand() {
    let ws = workspace();
    let root = ws.path();
    // two suites, one runner call (issue 40): it ends case-a's run, then dies
    // in case-b's
    let out = testdeck(
        root,
        &[
            "run",
            "--json",
            "ai/backend/first/case-a",
            "ai/backend/next/case-b",
        ],
    )
    .env("FAULT_DIE_CASE", "case-b")
    .stderr(Stdio::inherit())
    .output()
    .expect("run");
    let events = common::cli::json_lines(&out.stdout);
    // a failed case: exit 1, never a crash
    assert_eq!(out.status.code(), Some(1), "{events:#?}");
    let exits: Vec<&Value> = events
        .iter()
        .filter(|v| v["type"] == "runner-exit")
        .collect();
    assert_eq!(exits.len(), 1, "one runner for the launch: {events:#?}");
    // the killed runner is reported with both of its runs
    assert_eq!(exits[0]["signal"], 9, "{:#?}", exits[0]);
    assert!(exits[0]["exitCode"].is_null());
    let runs: Vec<&str> = exits[0]["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(runs.iter().any(|r| r.contains("/case-a/")), "{runs:?}");
    assert!(runs.iter().any(|r| r.contains("/case-b/")), "{runs:?}");
    let summary = events.last().expect("summary");
    assert_eq!(summary["type"], "summary");
    let results = summary["results"].as_array().expect("results");
    let verdict = |id: &str| {
        results
            .iter()
            .find(|r| r["id"] == id)
            .map(|r| r["verdict"].as_str().unwrap_or("").to_owned())
    };
    assert_eq!(
        verdict("ai/backend/first/case-a").as_deref(),
        Some("pass"),
        "{results:#?}"
    );
    let b = verdict("ai/backend/next/case-b");
    assert!(
        matches!(b.as_deref(), Some("fail" | "environment-fail")),
        "{results:#?}"
    );
    // the runner's own child died with it (the group is ended)
    assert_all_gone(&[
        pid_in(&root.join("runner-child.case-b.pid")),
        pid_in(&root.join("runner.case-b.pid")),
    ]);
    // its half run (a timeline, no meta.json) is listed as in progress
    let runs = testdeck(root, &["runs", "--json"]).output().expect("runs");
    assert!(runs.status.success());
    let text = String::from_utf8_lossy(&runs.stdout);
    let listed: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let flat = listed["runs"].as_array().expect("runs");
    let half = flat
        .iter()
        .find(|r| r["caseId"] == "case-b")
        .unwrap_or_else(|| panic!("case-b not listed: {text}"));
    let whole = flat
        .iter()
        .find(|r| r["caseId"] == "case-a")
        .unwrap_or_else(|| panic!("case-a not listed: {text}"));
    assert_eq!(half["status"], "in-progress", "{half:#}");
    assert_eq!(whole["status"], "passed", "{whole:#}");
}

/// Limit the files `testdeck run` may write to `bytes` (RLIMIT_FSIZE, the way a
/// full disk refuses a write) with SIGXFSZ ignored, so a write past it fails
/// with EFBIG instead of killing the process.
#[allow(unsafe_code)]
pub(crate) fn limit_file_size(cmd: &mut Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: runs in the forked child before exec; setrlimit(2) and signal(2)
    // are async-signal-safe, read only the local `lim`, and allocate nothing.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &raw const lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
}

#[test]
fn a_record_the_disk_refuses_keeps_its_previous_version_and_is_reported() {
    let ws = workspace();
    let root = ws.path();
    // a fourth case whose output makes the record far larger than the limit
    let big = "  - id: TC-MAIN-004\n    category: MAIN\n    title: Prints a lot\n    what: 20 lines of 60 000 bytes\n    lifecycle: active\n    tag: smoke\n    risk: readonly\n    driver: script\n    how:\n      run: for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do head -c 60000 /dev/zero | tr '\\\\0' x; echo; done\n    expected:\n      - kind: script-exit\n        value: 0\n";
    let cases = root.join(".pouch/tester/cases/main.yaml");
    let mut text = std::fs::read_to_string(&cases).expect("cases");
    text.push_str(big);
    std::fs::write(&cases, text).expect("write");
    let mut cmd = testdeck(root, &["run", "TC-MAIN-001", "TC-MAIN-002", "TC-MAIN-004"]);
    limit_file_size(&mut cmd, 256 * 1024);
    let out = cmd.output().expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code();
    assert_eq!(code, Some(1), "stdout:\n{stdout}\nstderr:\n{stderr}");
    let records = testdeck_exec::record::list_records(root);
    assert_eq!(records.len(), 1, "{records:?}");
    let (path, rec) = &records[0];
    let rel = path.strip_prefix(root).expect("rel").display().to_string();
    // the error names the record and the OS error
    let said = format!("testdeck: cannot write the run record {rel}: File too large");
    assert!(
        stderr.contains(&said) && stdout.contains("record environment-fail"),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    // the record is the version saved before the refused write
    let rec = rec
        .as_ref()
        .unwrap_or_else(|p| panic!("{}: {p:?}", path.display()));
    let ids: Vec<&str> = rec.results.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["TC-MAIN-001", "TC-MAIN-002"]);
    for e in std::fs::read_dir(path.parent().expect("runs")).expect("runs dir") {
        let path = e.expect("entry").path();
        assert!(
            path.extension().is_none_or(|x| x != "tmp"),
            "left over: {}",
            path.display()
        );
    }
}
