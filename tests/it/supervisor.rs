//! The process supervisor (issue 12, findings 2, 3, 4, 8, 9): whatever a case or
//! the tests runner does — `setsid`, double fork, its own group, ignoring SIGTERM
//! and SIGHUP — nothing of it survives the end of the case, `testdeck run`'s
//! SIGTERM or SIGKILL, or the TUI's `x`, `q`, SIGTERM and SIGKILL; a case has no
//! terminal; a flood stays bounded and its timeout holds; an out-of-range timeout
//! is located by validate and never runs. Real `sh` processes, real signals, the
//! built binary, real pseudo-terminals.

use crate::common;
use common::Session;

use portable_pty::CommandBuilder;
use serde_json::Value;
use std::fmt::Write as _;
use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Processes that leave the case: `setsid`, a double fork with `setsid`, a child
/// ignoring SIGTERM and SIGHUP, one in a new session ignoring them that loops,
/// one in a job-control group, and (with `SUP_ENVI`) one with a cleared
/// environment in a new session. Each runs `sleep $SUP_N`.
const ESCAPERS: &str = r#"N=$SUP_N
setsid sh -c "sleep $N; : esc1" &
( setsid sh -c "sleep $N; : esc2" & ) &
sh -c "trap '' TERM HUP; sleep $N; : esc3" &
( trap '' TERM HUP; exec setsid sh -c "trap '' TERM HUP; while :; do sleep $N; done" ) &
( set -m 2>/dev/null; sh -c "sleep $N; : esc5" & ) &
if [ -n "$SUP_ENVI" ]; then env -i setsid sh -c "sleep $N; : esc6" & fi
"#;

/// Inside a case: whether /dev/tty opens, and an OSC 52 (clipboard) sequence
/// written to it, which must never reach the person's terminal.
const TTY_PROBE: &str = r"if sh -c ': </dev/tty' 2>/dev/null; then echo TTY-OPEN; else echo NO-TTY; fi
printf '\033]52;c;U1VQLU9TQzUy\007' > /dev/tty 2>/dev/null
printf '\033]0;SUP-TITLE\007' > /dev/tty 2>/dev/null
";

fn case(id: &str, title: &str, run: &str, timeout: Option<&str>) -> String {
    let mut s = format!(
        "  - id: {id}\n    category: SUP\n    title: {title}\n    what: w\n    lifecycle: active\n    tag: smoke\n    risk: readonly\n    driver: script\n    how:\n      run: |\n"
    );
    for l in run.lines() {
        let _ = writeln!(s, "        {l}");
    }
    if let Some(t) = timeout {
        let _ = writeln!(s, "      timeout: {t}");
    }
    s.push_str("    expected:\n      - kind: script-exit\n        value: 0\n");
    s
}

/// A workspace with the catalog cases below and one tests-tree case whose runner
/// leaves escapers, probes /dev/tty into `tty.txt` and waits.
fn workspace(extra: &str) -> tempfile::TempDir {
    let dir = crate::common::fs::scratch_dir();
    let root = dir.path();
    let t = root.join(".pouch/tester");
    std::fs::create_dir_all(t.join("cases")).expect("mkdir");
    std::fs::write(
        t.join("catalog.yaml"),
        "categories:\n  - id: SUP\n    title: Supervisor\n    status_probe: false\nrisks: [readonly, mutating, destructive]\ndefault_max_risk: readonly\nid_pattern: \"TC-[A-Z]+-[0-9]{3}\"\n",
    )
    .expect("catalog");
    let mut cases = String::from("category: SUP\ncases:\n");
    cases.push_str(&case(
        "TC-SUP-001",
        "Leaves escapers and ends",
        &format!("{ESCAPERS}sleep 1\necho done"),
        None,
    ));
    cases.push_str(&case(
        "TC-SUP-002",
        "Leaves escapers and waits",
        &format!("{ESCAPERS}echo ready > ready.txt\nsleep 300"),
        None,
    ));
    cases.push_str(&case("TC-SUP-003", "Tries the terminal", TTY_PROBE, None));
    cases.push_str(&case(
        "TC-SUP-004",
        "Floods 200 MB",
        "yes | head -c 200000000",
        Some("600"),
    ));
    cases.push_str(&case("TC-SUP-005", "Floods forever", "yes", Some("2")));
    cases.push_str(extra);
    std::fs::write(t.join("cases/sup.yaml"), cases).expect("cases");
    let p = root.join("tests/ai/backend/sup/case-a.test.ts");
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(&p, "// case\n").expect("write");
    std::fs::write(
        root.join("runner.sh"),
        format!("{TTY_PROBE}{ESCAPERS}echo ready > ready.txt\nsleep 300\n")
            .replace("echo NO-TTY;", "echo NO-TTY > tty.txt;")
            .replace("echo TTY-OPEN;", "echo TTY-OPEN > tty.txt;"),
    )
    .expect("runner");
    std::fs::write(
        root.join("testdeck.toml"),
        "[runner]\ncommand = [\"sh\", \"runner.sh\"]\n",
    )
    .expect("toml");
    dir
}

fn marker() -> String {
    (5000 + fastrand::u32(..4000)).to_string()
}

fn testdeck(root: &Path, n: &str, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_testdeck"));
    c.arg("--root")
        .arg(root)
        .args(args)
        .current_dir(root)
        .env("SUP_N", n)
        .env_remove("HOST");
    c
}

/// Living processes (not zombies) whose command line holds `sleep N`.
fn escapers(n: &str) -> Vec<u32> {
    let want = format!("sleep {n}");
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").expect("proc").flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(cmd) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let cmd: Vec<u8> = cmd.iter().map(|&b| if b == 0 { b' ' } else { b }).collect();
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit_once(')')
            .is_some_and(|(_, r)| r.trim_start().starts_with('Z'));
        if !zombie && String::from_utf8_lossy(&cmd).contains(&want) {
            out.push(pid);
        }
    }
    out
}

/// Wait until at least `count` escapers run.
fn wait_escapers(n: &str, count: usize) -> Vec<u32> {
    let start = Instant::now();
    loop {
        let found = escapers(n);
        if found.len() >= count {
            return found;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "escapers never started: {found:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Assert that no escaper is left within a generous deadline (the SIGKILL
/// comes 3 s after SIGTERM), killing any so a failure leaves nothing behind.
fn assert_none_left(n: &str, what: &str) {
    let start = Instant::now();
    let mut left = escapers(n);
    while !left.is_empty() && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
        left = escapers(n);
    }
    for p in &left {
        let _ = Command::new("kill").arg("-9").arg(p.to_string()).status();
    }
    assert!(left.is_empty(), "{what}: survivors {left:?}");
}

fn wait_file(p: &Path) {
    let start = Instant::now();
    while !p.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{} never appeared",
            p.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn wait_exit(child: &mut Child) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().expect("wait") {
            return s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "testdeck did not end"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn no_escaper_survives_the_end_of_a_case() {
    let ws = workspace("");
    let n = marker();
    let out = testdeck(ws.path(), &n, &["run", "TC-SUP-001"])
        .env("SUP_ENVI", "1")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_none_left(&n, "after the case ended");
}

fn signalled_run(sig: &str) {
    let ws = workspace("");
    let n = marker();
    let mut child = testdeck(ws.path(), &n, &["run", "TC-SUP-002"])
        .env("SUP_ENVI", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    wait_file(&ws.path().join("ready.txt"));
    wait_escapers(&n, 6);
    // the one with a cleared environment is known by ancestry: let testdeck look
    std::thread::sleep(Duration::from_secs(1));
    let ok = Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(child.id().to_string())
        .status()
        .expect("kill")
        .success();
    assert!(ok);
    let status = wait_exit(&mut child);
    if sig == "TERM" {
        assert_eq!(status.code(), Some(1), "a cancelled run is not a success");
    }
    assert_none_left(&n, &format!("after SIG{sig} of testdeck run"));
}

#[test]
fn no_escaper_survives_sigterm_of_run() {
    signalled_run("TERM");
}

#[test]
fn no_escaper_survives_sigkill_of_run() {
    signalled_run("KILL");
}

/// `cmd` in a real pseudo-terminal: what it wrote to the terminal, once it ended.
fn in_pty(cmd: CommandBuilder) -> String {
    let mut s = Session::spawn(cmd, 40, 200);
    let start = Instant::now();
    while s.child.try_wait().expect("wait").is_none() {
        assert!(start.elapsed() < Duration::from_secs(60), "did not end");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    let b = s.bytes.lock().expect("lock").clone();
    String::from_utf8_lossy(&b).into_owned()
}

#[test]
fn a_case_run_from_a_terminal_cannot_open_or_write_it() {
    let ws = workspace("");
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_testdeck"));
    cmd.arg("--root");
    cmd.arg(ws.path());
    cmd.arg("run");
    cmd.arg("TC-SUP-003");
    cmd.cwd(ws.path());
    let screen = in_pty(cmd);
    // the case's own lines (the command is shown before it runs)
    assert!(screen.contains("TC-SUP-003: NO-TTY"), "{screen}");
    assert!(!screen.contains("TC-SUP-003: TTY-OPEN"), "{screen}");
    assert!(!screen.contains("\x1b]52;"), "OSC 52 reached the terminal");
    assert!(
        !screen.contains("\x1b]0;SUP-TITLE"),
        "a title reached the terminal"
    );
}

/// Peak resident memory (VmHWM, in kB) of `pid`, polled until it ends.
fn peak_rss_kb(child: &mut Child) -> (u64, std::process::ExitStatus) {
    let mut peak = 0;
    let start = Instant::now();
    loop {
        if let Some(kb) = common::procs::peak_kib(child.id()) {
            peak = peak.max(kb);
        }
        if let Some(st) = child.try_wait().expect("wait") {
            return (peak, st);
        }
        assert!(
            start.elapsed() < Duration::from_secs(590),
            "the flood never ended"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn record(root: &Path) -> Value {
    let records = testdeck_exec::record::list_records(root);
    let (_, rec) = records.first().expect("a record");
    serde_json::to_value(rec.as_ref().expect("record")).expect("json")
}

/// `testdeck run --json ID` in a fresh workspace, its peak RSS bounded and its exit
/// status `code`: the workspace and the record's result.
fn flood_run(id: &str, code: i32) -> (tempfile::TempDir, Value) {
    let ws = workspace("");
    let mut child = testdeck(ws.path(), "0", &["run", "--json", id])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let (kb, status) = peak_rss_kb(&mut child);
    assert!(kb < 300 * 1024, "peak RSS {kb} kB");
    assert_eq!(status.code(), Some(code));
    let r = record(ws.path())["results"][0].clone();
    (ws, r)
}

#[test]
fn a_flood_stays_bounded_and_a_timeout_holds_while_it_floods() {
    let (ws, r) = flood_run("TC-SUP-004", 0);
    let root = ws.path();
    assert_eq!(r["verdict"], "pass", "{r}");
    let log = root.join(r["log"].as_str().expect("log"));
    let meta = std::fs::metadata(&log).expect("log");
    assert!(meta.len() >= 200_000_000, "the log has the whole output");
    let mut f = std::fs::File::open(&log).expect("log");
    f.seek(SeekFrom::End(-200)).expect("seek");
    let mut end = String::new();
    f.read_to_string(&mut end).expect("read");
    assert!(
        end.contains("[testdeck] output continues in the case log"),
        "{end}"
    );
    // an endless flood with a timeout of 2 s
    let (_ws, r) = flood_run("TC-SUP-005", 1);
    assert_eq!(r["verdict"], "fail", "{r}");
    assert_eq!(r["reason"], "timeout", "{r}");
    let out = r["output"].as_array().expect("output");
    assert!(
        out.last()
            .and_then(Value::as_str)
            .is_some_and(|l| l.starts_with("[testdeck] output continues")),
        "{out:?}"
    );
}

#[test]
fn a_timeout_out_of_range_is_located_and_never_runs() {
    let ws = workspace(&case(
        "TC-SUP-006",
        "Waits for ever",
        "echo ran > ran.txt",
        Some("9223372036854775807"),
    ));
    let root = ws.path();
    let out = testdeck(root, "0", &["validate"])
        .output()
        .expect("validate");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{text}");
    let line = text
        .lines()
        .find(|l| l.contains("timeout-out-of-range"))
        .unwrap_or_else(|| panic!("{text}"));
    // located at the number: file:line:col
    assert!(line.contains("sup.yaml:"), "{line}");
    assert!(line.contains("24 h"), "{line}");
    let out = testdeck(root, "0", &["run", "TC-SUP-006"])
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!root.join("ran.txt").exists());
}

#[test]
fn the_guardian_leaves_no_file_in_the_temp_folder() {
    let ws = workspace("");
    let tmp = crate::common::fs::scratch_dir();
    // a planted file where the old guardian wrote its list: never touched
    let planted = tmp.path().join("planted");
    std::fs::write(&planted, "keep").expect("plant");
    let n = marker();
    let out = testdeck(ws.path(), &n, &["run", "TC-SUP-001"])
        .env("TMPDIR", tmp.path())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let names: Vec<String> = std::fs::read_dir(tmp.path())
        .expect("tmp")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["planted"]);
    assert_eq!(std::fs::read_to_string(&planted).expect("planted"), "keep");
}

#[test]
fn the_guardian_signals_only_what_it_was_given() {
    use testdeck_exec::guard::Guardian;
    let sleeper = |env: Option<&str>| {
        let mut c = Command::new("sleep");
        c.arg("300");
        if let Some(t) = env {
            c.env("TESTDECK_CASE_TOKEN", t);
        }
        std::os::unix::process::CommandExt::process_group(&mut c, 0);
        c.spawn().expect("sleep")
    };
    let alive = |c: &mut Child| c.try_wait().expect("wait").is_none();
    // a group it was not given properly, and group 0 (its own): ignored
    let mut g = sleeper(None);
    let token = format!("{:032x}", fastrand::u128(..));
    let mut t = sleeper(Some(&token));
    let mut guard = Guardian::start().expect("guardian");
    for l in [
        "+g0".to_owned(),
        format!("+g0{}", g.id()),
        format!("+g{}x", g.id()),
        format!("+g-{}", g.id()),
        format!("+g {}", g.id()),
        "+t../x".to_owned(),
        // its pid with another start time: a reused pid is never signalled
        format!("+p{token}:{}:1", g.id()),
        format!("+t{token}"),
    ] {
        assert!(guard.send(&l));
    }
    guard.finish();
    let start = Instant::now();
    while alive(&mut t) && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    // the guardian lived on past "+g0" to sweep the token
    assert!(!alive(&mut t), "the process with the token survived");
    assert!(alive(&mut g), "a group it was not given was signalled");
    // given properly, then released: not signalled
    let mut guard = Guardian::start().expect("guardian");
    guard.send(&format!("+g{}", g.id()));
    guard.send(&format!("-g{}", g.id()));
    guard.finish();
    std::thread::sleep(Duration::from_millis(300));
    assert!(alive(&mut g), "a released group was signalled");
    // given: killed
    let mut guard = Guardian::start().expect("guardian");
    guard.send(&format!("+g{}", g.id()));
    guard.finish();
    let start = Instant::now();
    while alive(&mut g) && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!alive(&mut g));
    // a pid with its start time: killed, unless its token was released first
    let start_of = |pid: u32| -> String {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
        let (_, rest) = stat.rsplit_once(')').expect("stat");
        rest.split_whitespace().nth(19).expect("start").to_owned()
    };
    let mut kept = sleeper(None);
    let mut gone = sleeper(None);
    let mut guard = Guardian::start().expect("guardian");
    guard.send(&format!("+pab:{}:{}", kept.id(), start_of(kept.id())));
    guard.send("-tab");
    guard.send(&format!("+pcd:{}:{}", gone.id(), start_of(gone.id())));
    guard.finish();
    let start = Instant::now();
    while alive(&mut gone) && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!alive(&mut gone), "a pid it was given survived");
    assert!(alive(&mut kept), "a released pid was signalled");
    for mut c in [g, t, kept, gone] {
        let _ = c.kill();
        let _ = c.wait();
    }
}

// ---- the TUI in a real pseudo-terminal ----

fn tui(how: &str) {
    let ws = workspace("");
    let root = ws.path();
    let cfg = crate::common::fs::scratch_dir();
    let n = marker();
    let mut s = Session::start_with(root, cfg.path(), &[("SUP_N", &n)]);
    let pid = s.child.process_id().expect("pid");
    s.wait_text("Tests · 1");
    s.send("r");
    wait_file(&root.join("ready.txt"));
    wait_escapers(&n, 5);
    match how {
        "x" => {
            s.send("x");
            assert_none_left(&n, "after x");
            s.send("q");
            s.send("y");
        }
        "q" => {
            s.send("q");
            s.wait_text("Quit and end them?");
            s.send("y");
            let start = Instant::now();
            while s.child.try_wait().expect("wait").is_none() {
                assert!(start.elapsed() < Duration::from_secs(30), "did not quit");
                std::thread::sleep(Duration::from_millis(50));
            }
            assert_none_left(&n, "after q");
        }
        sig => {
            let ok = Command::new("kill")
                .arg(format!("-{sig}"))
                .arg(pid.to_string())
                .status()
                .expect("kill")
                .success();
            assert!(ok);
            let start = Instant::now();
            while s.child.try_wait().expect("wait").is_none() {
                assert!(start.elapsed() < Duration::from_secs(30), "did not end");
                std::thread::sleep(Duration::from_millis(50));
            }
            assert_none_left(&n, &format!("after SIG{sig} of the TUI"));
        }
    }
    let tty = std::fs::read_to_string(root.join("tty.txt")).expect("tty.txt");
    assert_eq!(tty.trim(), "NO-TTY");
    let bytes = s.bytes.lock().expect("lock").clone();
    let text = String::from_utf8_lossy(&bytes);
    assert!(!text.contains("\x1b]52;"), "OSC 52 reached the terminal");
    assert!(
        !text.contains("\x1b]0;SUP-TITLE"),
        "a title reached the terminal"
    );
}

#[test]
fn tui_cancel_leaves_nothing_behind() {
    tui("x");
}

#[test]
fn tui_quit_leaves_nothing_behind() {
    tui("q");
}

#[test]
fn tui_sigterm_leaves_nothing_behind() {
    tui("TERM");
}

#[test]
fn tui_sigkill_leaves_nothing_behind() {
    tui("KILL");
}
