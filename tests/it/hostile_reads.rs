//! Hostile files against the one bounded reader: FIFOs, devices, sparse giants,
//! `${VAR}` fan-out and symlinks out of the workspace. Each command runs under a
//! watchdog (a deadline and a peak-memory cap, read from /proc) and must end
//! with a located problem instead of hanging or taking the machine.

#![cfg(target_os = "linux")]

use crate::common;
use common::cli::bin;
use common::procs::peak_kib;

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Generous for a loaded machine; the fixed commands answer in well under a second.
const DEADLINE: Duration = Duration::from_secs(20);
/// Peak resident memory a command may reach.
const PEAK_KB: u64 = 300 * 1024;

struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn all(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }
}

/// Run testdeck with a deadline and a memory cap: killed and failed on overrun.
fn bounded(root: &Path, args: &[&str]) -> Ran {
    let mut child = common::cli::at(root)
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let pid = child.id();
    let drain = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut b = Vec::new();
            let _ = r.read_to_end(&mut b);
            String::from_utf8_lossy(&b).into_owned()
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("stdout")));
    let err = drain(Box::new(child.stderr.take().expect("stderr")));
    let start = Instant::now();
    let mut peak = 0;
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        peak = peak.max(peak_kib(pid).unwrap_or(0));
        let over = if peak > PEAK_KB {
            Some(format!("peak memory {peak} kB over {PEAK_KB} kB"))
        } else if start.elapsed() > DEADLINE {
            Some(format!("still running after {DEADLINE:?} (hangs)"))
        } else {
            None
        };
        if let Some(why) = over {
            let _ = child.kill();
            let _ = child.wait();
            panic!("testdeck {args:?}: {why}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let ran = Ran {
        code: status.code(),
        stdout: out.join().expect("stdout"),
        stderr: err.join().expect("stderr"),
    };
    assert_ne!(
        ran.code,
        Some(101),
        "testdeck {args:?} panicked: {}",
        ran.all()
    );
    assert!(
        ran.code.is_some(),
        "testdeck {args:?} died by a signal: {}",
        ran.all()
    );
    ran
}

fn mkfifo(p: &Path) {
    let _ = std::fs::remove_file(p);
    let ok = Command::new("mkfifo").arg(p).status().expect("mkfifo");
    assert!(ok.success());
}

fn demo() -> (tempfile::TempDir, PathBuf) {
    let tmp = crate::common::fs::scratch_dir();
    let root = tmp.path().join("demo");
    let out = Command::new(bin())
        .args(["demo", "--copy-to"])
        .arg(&root)
        .output()
        .expect("copy demo");
    assert!(out.status.success(), "{out:?}");
    (tmp, root)
}

/// The first `len` run folders (relative to the root) of the demo's logs, sorted.
fn run_folders(root: &Path) -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).expect("ls").flatten() {
            let p = e.path();
            if p.join("meta.json").is_file() {
                out.push(p);
            } else if p.is_dir() {
                walk(&p, out);
            }
        }
    }
    let mut all = Vec::new();
    walk(&root.join("tests/logs"), &mut all);
    all.sort();
    all.iter()
        .map(|p| {
            p.strip_prefix(root)
                .expect("inside")
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

/// A located problem: a line naming `file` and `rule`.
fn located(text: &str, file: &str, rule: &str) -> bool {
    text.lines().any(|l| l.contains(file) && l.contains(rule))
}

#[test]
fn a_sparse_giant_testdeck_toml_is_refused() {
    let (_tmp, root) = demo();
    let f = std::fs::File::create(root.join("testdeck.toml")).expect("create");
    f.set_len(1 << 30).expect("sparse 1 GiB");
    let r = bounded(&root, &["validate"]);
    assert!(
        located(&r.all(), "testdeck.toml", "config-too-large"),
        "{}",
        r.all()
    );
}

#[test]
fn a_fifo_as_testdeck_toml_plan_or_report_is_a_problem_not_a_hang() {
    let (_tmp, root) = demo();
    mkfifo(&root.join("testdeck.toml"));
    mkfifo(&root.join("doc/test-plan/evil.md"));
    mkfifo(&root.join("tests/report/ai/report.md"));
    let runs = run_folders(&root);
    let meta = format!("{}/meta.json", runs[0]);
    mkfifo(&root.join(&meta));
    let r = bounded(&root, &["validate"]);
    let all = r.all();
    for file in [
        "testdeck.toml",
        "doc/test-plan/evil.md",
        "tests/report/ai/report.md",
        meta.as_str(),
    ] {
        assert!(located(&all, file, "not-a-regular-file"), "{file}: {all}");
    }
    // `diff` reads the run folder directly: the FIFO meta.json is refused too
    let r = bounded(&root, &["diff", "--force", &runs[0], &runs[1]]);
    assert!(
        located(&r.all(), &meta, "not-a-regular-file"),
        "{}",
        r.all()
    );
}

#[test]
fn a_fifo_or_device_as_the_tail_path_is_refused() {
    let (tmp, _root) = demo();
    let fifo = tmp.path().join("timeline.jsonl");
    mkfifo(&fifo);
    let shown = fifo.to_str().expect("utf-8");
    for args in [
        vec!["tail", shown],
        vec!["tail", "--json", "--from-start", shown],
        vec!["tail", "/dev/zero"],
    ] {
        let r = bounded(tmp.path(), &args);
        assert_eq!(r.code, Some(2), "{args:?}: {}", r.all());
        assert!(
            r.stderr.contains("not-a-regular-file"),
            "{args:?}: {}",
            r.all()
        );
    }
}

#[test]
fn a_huge_run_record_is_refused() {
    let (_tmp, root) = demo();
    let f = std::fs::File::create(root.join(".pouch/tester/runs/20991231T000000Z-big-aaaaaa.yaml"))
        .expect("create");
    f.set_len(1_500_000_000).expect("sparse 1.5 GB");
    let r = bounded(&root, &["runs", "--json"]);
    assert!(r.stdout.contains("run-record-too-large"), "{}", r.all());
    // the real record is still listed
    assert!(
        r.stdout.contains("20261126T091502Z-smoke-4be21c"),
        "{}",
        r.all()
    );
}

#[test]
fn var_fan_out_is_bounded_and_located() {
    let (_tmp, root) = demo();
    let cat = root.join(".pouch/tester/catalog.yaml");
    let text = std::fs::read_to_string(&cat).expect("catalog");
    // 1 KiB doubled ten times is 1 MiB; 1500 vars of it would be 1.5 GB
    let mut vars = String::from("vars:\n  V0: \"");
    vars.push_str(&"x".repeat(1024));
    vars.push_str("\"\n");
    for i in 1..=10 {
        let _ = writeln!(vars, "  V{i}: \"${{V{p}}}${{V{p}}}\"", p = i - 1);
    }
    for i in 0..1500 {
        let _ = writeln!(vars, "  FAN{i}: \"${{V10}}\"");
    }
    let text = text.replacen("vars:\n", &vars, 1);
    std::fs::write(&cat, text).expect("write");
    let r = bounded(&root, &["validate"]);
    assert!(
        located(
            &r.all(),
            ".pouch/tester/catalog.yaml:",
            "var-budget-exceeded"
        ),
        "{}",
        &r.all()[..r.all().len().min(4000)]
    );
}

#[test]
fn diff_does_not_follow_run_files_linked_out_of_the_run_folder() {
    let (tmp, root) = demo();
    let runs = run_folders(&root);
    let (a, b) = (&runs[0], &runs[1]);
    // an outside run: its meta and timeline name a secret
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&outside).expect("mkdir");
    std::fs::write(
        outside.join("meta.json"),
        r#"{"schemaVersion":4,"runId":"OUTSIDE-SECRET","caseId":"OUTSIDE-SECRET","status":"failed"}"#,
    )
    .expect("meta");
    std::fs::write(
        outside.join("timeline.jsonl"),
        "{\"ts\":\"2026-01-01T00:00:00Z\",\"type\":\"step\",\"name\":\"OUTSIDE-SECRET\",\"status\":\"failed\"}\n",
    )
    .expect("timeline");
    for f in ["meta.json", "timeline.jsonl"] {
        let p = root.join(a).join(f);
        std::fs::remove_file(&p).expect("rm");
        std::os::unix::fs::symlink(outside.join(f), &p).expect("ln");
    }
    let r = bounded(&root, &["diff", "--force", "--json", a, b]);
    assert!(!r.all().contains("OUTSIDE-SECRET"), "{}", r.all());
    assert!(r.all().contains("symlink-not-followed"), "{}", r.all());
    // a link to a device is refused the same way, at once
    let p = root.join(a).join("meta.json");
    std::fs::remove_file(&p).expect("rm");
    std::os::unix::fs::symlink("/dev/zero", &p).expect("ln");
    let r = bounded(&root, &["diff", "--force", a, b]);
    assert!(r.all().contains("symlink-not-followed"), "{}", r.all());
}

#[test]
fn runs_and_run_failed_do_not_follow_records_linked_out_of_the_workspace() {
    let (tmp, root) = demo();
    // no failure of its own: no logs, and the only record moves outside
    std::fs::remove_dir_all(root.join("tests/logs")).expect("rm logs");
    let runs = root.join(".pouch/tester/runs");
    let record = runs.join("20261126T091502Z-smoke-4be21c.yaml");
    let outside = tmp.path().join("20261126T091502Z-smoke-4be21c.yaml");
    std::fs::rename(&record, &outside).expect("move out");
    std::os::unix::fs::symlink(&outside, runs.join("20991231T000000Z-linked-bbbbbb.yaml"))
        .expect("ln");
    let r = bounded(&root, &["runs", "--json"]);
    assert!(r.stdout.contains("symlink-not-followed"), "{}", r.all());
    assert!(!r.stdout.contains("\"passed\""), "{}", r.all());
    // the outside record says TC-CLI-004 failed: nothing may rerun because of it
    let r = bounded(&root, &["run", "--failed", "--json"]);
    assert!(!r.stdout.contains("case-start"), "{}", r.all());
    assert!(!r.stdout.contains("TC-CLI-004"), "{}", r.all());
}

/// Kills a process by its id when dropped (a failed check leaves nothing running).
struct KillOnDrop(u32);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        // only on a failed check: after a clean quit the id may be reused
        if !std::thread::panicking() {
            return;
        }
        let _ = Command::new("kill")
            .args(["-9", &self.0.to_string()])
            .status();
    }
}

/// The TUI's live, runtime-events and artifacts panes on a run whose files link
/// out of its folder (to `/dev/zero` and to an outside timeline): the cockpit
/// stays small and responsive, shows no outside text, and lists the refusals.
#[test]
fn tui_panes_do_not_follow_run_files_linked_out() {
    let ws = crate::common::fs::scratch_dir();
    common::fixtures::write_fixture(ws.path(), false);
    let case = ws
        .path()
        .join("tests/logs/ai/e2e/chat/scenario/chat-send-message");
    let mut runs: Vec<PathBuf> = std::fs::read_dir(&case)
        .expect("ls")
        .flatten()
        .map(|e| e.path())
        .collect();
    runs.sort();
    let run = runs.last().expect("a run").clone();
    let outside = crate::common::fs::scratch_dir();
    let secret = outside.path().join("timeline.jsonl");
    std::fs::write(
        &secret,
        "{\"ts\":\"2026-01-01T00:00:00Z\",\"type\":\"step\",\"name\":\"OUTSIDE-SECRET\",\"status\":\"failed\"}\n",
    )
    .expect("secret");
    for (f, target) in [
        ("timeline.jsonl", secret.as_path()),
        ("runtime-events.jsonl", Path::new("/dev/zero")),
        ("artifacts.json", Path::new("/dev/zero")),
    ] {
        let _ = std::fs::remove_file(run.join(f));
        std::os::unix::fs::symlink(target, run.join(f)).expect("ln");
    }
    let cfg = crate::common::fs::scratch_dir();
    let mut s = common::Session::start(ws.path(), cfg.path());
    let pid = s.child.process_id().expect("pid");
    // a failed check must not leave the cockpit running
    let _guard = KillOnDrop(pid);
    let start = Instant::now();
    let watch = |s: &common::Session, what: &str| {
        while !s.screen().screen().contents().contains(what) {
            let peak = peak_kib(pid).unwrap_or(0);
            assert!(
                peak <= PEAK_KB,
                "TUI peak memory {peak} kB over {PEAK_KB} kB"
            );
            assert!(
                start.elapsed() < Duration::from_secs(40),
                "timed out waiting for {what}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    watch(&s, "Tests · 6");
    s.send("/");
    s.send("chat");
    watch(&s, "❯ chat");
    s.send("\r");
    watch(&s, "✗ chat-send-message");
    s.send("p");
    watch(&s, "symlink-not-followed");
    let contents = s.screen().screen().contents();
    assert!(contents.contains("runtime-events.jsonl"), "{contents}");
    s.send("\x1b");
    // the runtime-events pane, then back
    s.send("v");
    s.send("v");
    let peak = peak_kib(pid).unwrap_or(0);
    assert!(
        peak <= PEAK_KB,
        "TUI peak memory {peak} kB over {PEAK_KB} kB"
    );
    let (_, bytes) = s.quit();
    assert!(
        !String::from_utf8_lossy(&bytes).contains("OUTSIDE-SECRET"),
        "the outside timeline was shown"
    );
}
