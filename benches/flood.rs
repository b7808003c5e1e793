//! Flood benchmark (figures, not pass/fail): a readonly catalog case writing
//! 300 MB to stdout (`yes | head -c 300000000`), run by `testdeck run` and
//! launched from the TUI in a real pseudo-terminal: wall time and peak RSS of
//! each, and how long the TUI takes to quit when `q` comes mid-flood.
//!
//!     cargo build --release && cargo bench --bench flood

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BYTES: u64 = 300_000_000;

fn exe() -> Option<PathBuf> {
    // target/release/deps/flood-HASH → target/release/testdeck
    let p = std::env::current_exe().ok()?;
    Some(p.parent()?.parent()?.join("testdeck")).filter(|e| e.is_file())
}

fn workspace() -> tempfile::TempDir {
    let d = tempfile::tempdir().expect("tmp");
    let t = d.path().join(".pouch/tester");
    std::fs::create_dir_all(t.join("cases")).expect("mkdir");
    std::fs::write(
        t.join("catalog.yaml"),
        "categories:\n  - id: FLD\n    title: Flood\n    status_probe: false\nrisks: [readonly]\ndefault_max_risk: readonly\nid_pattern: \"TC-[A-Z]+-[0-9]{3}\"\n",
    )
    .expect("catalog");
    std::fs::write(
        t.join("cases/flood.yaml"),
        format!(
            "category: FLD\ncases:\n  - id: TC-FLD-001\n    category: FLD\n    title: Floods\n    what: w\n    lifecycle: active\n    tag: smoke\n    risk: readonly\n    driver: script\n    how:\n      run: yes | head -c {BYTES}\n      timeout: 3600\n    expected:\n      - kind: script-exit\n        value: 0\n"
        ),
    )
    .expect("cases");
    d
}

fn hwm_kb(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

fn finished(root: &Path) -> bool {
    testdeck::exec::record::list_records(root)
        .first()
        .and_then(|(_, r)| r.as_ref().ok())
        .is_some_and(|r| r.finished_at.is_some())
}

fn run_cli(exe: &Path) {
    let ws = workspace();
    let start = Instant::now();
    let mut child = Command::new(exe)
        .arg("--root")
        .arg(ws.path())
        .args(["run", "TC-FLD-001"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run");
    let mut peak = 0;
    let status = loop {
        if let Some(kb) = hwm_kb(child.id()) {
            peak = peak.max(kb);
        }
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    println!(
        "testdeck run, {} MB to stdout: {:.1} s, peak RSS {} MB, exit {status}",
        BYTES / 1_000_000,
        start.elapsed().as_secs_f64(),
        peak / 1024
    );
}

/// The TUI in a pty: `2` (catalog), `r`; then either wait for the end of the
/// case (`quit_mid = false`) or press `q`, `y` two seconds in.
fn tui(exe: &Path, quit_mid: bool) {
    let ws = workspace();
    let cfg = tempfile::tempdir().expect("cfg");
    let pty = native_pty_system()
        .openpty(PtySize {
            rows: 40,
            cols: 140,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("pty");
    let mut cmd = CommandBuilder::new(exe);
    cmd.arg("--root");
    cmd.arg(ws.path());
    cmd.env("TERM", "xterm-256color");
    cmd.env("XDG_CONFIG_HOME", cfg.path());
    let mut child = pty.slave.spawn_command(cmd).expect("spawn");
    drop(pty.slave);
    let mut reader = pty.master.try_clone_reader().expect("reader");
    let screen = std::sync::Arc::new(std::sync::Mutex::new(vt100::Parser::new(40, 140, 0)));
    let s2 = screen.clone();
    std::thread::spawn(move || {
        let mut b = vec![0u8; 65536];
        while let Ok(n) = std::io::Read::read(&mut reader, &mut b) {
            if n == 0 {
                break;
            }
            if let Ok(mut p) = s2.lock() {
                p.process(&b[..n]);
            }
        }
    });
    let mut w = pty.master.take_writer().expect("writer");
    let mut send = |s: &str| {
        let _ = w.write_all(s.as_bytes());
        let _ = w.flush();
        std::thread::sleep(Duration::from_millis(100));
    };
    let shows = |t: &str| {
        screen
            .lock()
            .is_ok_and(|p| p.screen().contents().contains(t))
    };
    let start = Instant::now();
    while !shows("Catalog") && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    send("2");
    std::thread::sleep(Duration::from_millis(500));
    let pid = child.process_id().unwrap_or(0);
    let start = Instant::now();
    send("r");
    let mut peak = 0;
    let mut quit_at = None;
    loop {
        if let Some(kb) = hwm_kb(pid) {
            peak = peak.max(kb);
        }
        if quit_mid && quit_at.is_none() && start.elapsed() >= Duration::from_secs(2) {
            send("q");
            send("y");
            quit_at = Some(Instant::now());
        }
        if child.try_wait().ok().flatten().is_some() {
            break;
        }
        if !quit_mid && finished(ws.path()) {
            break;
        }
        if start.elapsed() > Duration::from_secs(900) {
            println!("TUI flood: gave up after 900 s");
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    if quit_mid {
        println!(
            "TUI, q + y 2 s into the flood: ended {:.2} s after the keys (~0.2 s of it typing), peak RSS {} MB",
            quit_at.map_or(0.0, |t| t.elapsed().as_secs_f64()),
            peak / 1024
        );
    } else {
        let wall = start.elapsed();
        let q = Instant::now();
        send("q");
        while child.try_wait().ok().flatten().is_none() && q.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(10));
        }
        if child.try_wait().ok().flatten().is_none() {
            if let Ok(p) = screen.lock() {
                println!("{}", p.screen().contents());
            }
        }
        println!(
            "TUI, {} MB to stdout: {:.1} s to the end of the case, peak RSS {} MB, q then took {:.2} s",
            BYTES / 1_000_000,
            wall.as_secs_f64(),
            peak / 1024,
            q.elapsed().as_secs_f64()
        );
    }
    let _ = child.kill();
    let _ = child.wait();
}

use std::io::Write as _;

fn main() {
    let Some(exe) = exe() else {
        println!(
            "flood: the testdeck binary is not built next to the bench (cargo build --release)"
        );
        return;
    };
    run_cli(&exe);
    tui(&exe, false);
    tui(&exe, true);
}
