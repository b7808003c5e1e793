//! Faults while running (issue 6): SIGTERM, SIGHUP and SIGINT sent to the TUI
//! while a tests-tree case runs end the runner and its children and leave the
//! terminal restored. The built binary in a real pseudo-terminal (portable-pty),
//! its screen read back through vt100.

use crate::common;
use common::Session;
use common::procs::alive;

use std::path::Path;
use std::time::{Duration, Instant};

/// Living processes working in `dir` (their current folder or command line is
/// in it): the runner and whatever it started.
fn processes_in(dir: &Path) -> Vec<u32> {
    let dir = dir.to_string_lossy().into_owned();
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for e in entries.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let cwd = std::fs::read_link(e.path().join("cwd"))
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        let cmdline = std::fs::read(e.path().join("cmdline"))
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        if (cwd.starts_with(&dir) || cmdline.contains(&dir)) && alive(pid) {
            found.push(pid);
        }
    }
    found
}

fn signal(pid: u32, sig: &str) {
    let ok = std::process::Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(pid.to_string())
        .status()
        .expect("kill")
        .success();
    assert!(ok, "kill -{sig} {pid}");
}

fn signal_ends_children_and_restores_terminal(sig: &str) {
    let ws = crate::common::fs::scratch_dir();
    let demo = ws.path().join("demo");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_testdeck"))
        .args(["demo", "--copy-to"])
        .arg(&demo)
        .output()
        .expect("demo");
    assert!(out.status.success(), "{out:?}");
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start_with(&demo, cfg.path(), &[("DEMO_RUNNER_PACE", "0.5")]);
    let pid = s.child.process_id().expect("pid");
    s.wait_text("Tests · 21");
    s.find("'terminal-basic-command");
    s.send("r");
    s.wait_text("run/start");
    // the runner and its children are at work in the demo folder
    let start = Instant::now();
    let mut before = processes_in(&demo);
    while before.is_empty() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
        before = processes_in(&demo);
    }
    assert!(!before.is_empty(), "no runner process found");
    signal(pid, sig);
    // testdeck ends
    let start = Instant::now();
    loop {
        if s.child.try_wait().expect("wait").is_some() {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "testdeck did not end on SIG{sig}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // and nothing it started survives it
    let start = Instant::now();
    let mut left = processes_in(&demo);
    while !left.is_empty() && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
        left = processes_in(&demo);
    }
    for p in &left {
        let _ = std::process::Command::new("kill")
            .arg("-9")
            .arg(p.to_string())
            .status();
    }
    assert!(
        left.is_empty(),
        "SIG{sig}: left running {left:?} (of {before:?})"
    );
    // the terminal is restored: the alternate screen left, the cursor shown
    std::thread::sleep(Duration::from_millis(200));
    let bytes = s.bytes.lock().expect("lock").clone();
    let tail = &bytes[bytes.len().saturating_sub(256)..];
    let has = |seq: &[u8]| tail.windows(seq.len()).any(|w| w == seq);
    assert!(
        has(b"\x1b[?1049l"),
        "SIG{sig}: alternate screen not left: {tail:?}"
    );
    assert!(has(b"\x1b[?25h"), "SIG{sig}: cursor not shown: {tail:?}");
    let p = s.screen();
    assert!(!p.screen().alternate_screen(), "SIG{sig}");
    assert!(!p.screen().hide_cursor(), "SIG{sig}");
}

#[test]
fn sigterm_ends_children_and_restores_terminal() {
    signal_ends_children_and_restores_terminal("TERM");
}

#[test]
fn sighup_ends_children_and_restores_terminal() {
    signal_ends_children_and_restores_terminal("HUP");
}

#[test]
fn sigint_ends_children_and_restores_terminal() {
    signal_ends_children_and_restores_terminal("INT");
}
