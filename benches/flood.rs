//! Flood benchmark (figures, not pass/fail): a readonly catalog case writing
//! 300 MB to stdout (`yes | head -c 300000000`), run by `testdeck run` and
//! launched from the TUI in a real pseudo-terminal: wall time and peak RSS of
//! each, and how long the TUI takes to quit when `q` comes mid-flood. Then a
//! 2M-line timeline (170 MB) written while the TUI follows it, by a launched
//! tests-tree runner and by another process while the run is browsed: peak RSS,
//! the time until its last line is on screen, and the quit latency mid-flood.
//!
//!     cargo build --release && cargo bench --bench flood

use common::flood::{
    self, FLOOD_LINE, FLOOD_LINES, RUN_DIR, peak_until, quit_latency, timeline_workspace,
};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

// the cockpit in a pty and the timeline flood, shared with the scale bench
#[allow(dead_code)]
mod common;

const BYTES: u64 = 300_000_000;

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

fn finished(root: &Path) -> bool {
    testdeck_exec::record::list_records(root)
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
        if let Some(kb) = common::vm_hwm_kb(Some(child.id())) {
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
    let mut t = flood::open(exe, ws.path());
    t.wait("Catalog", Duration::from_secs(30));
    t.send("2");
    std::thread::sleep(Duration::from_millis(500));
    let pid = t.pid();
    let start = Instant::now();
    t.send("r");
    let mut peak = 0;
    let mut quit_at = None;
    loop {
        if let Some(kb) = common::vm_hwm_kb(Some(pid)) {
            peak = peak.max(kb);
        }
        if quit_mid && quit_at.is_none() && start.elapsed() >= Duration::from_secs(2) {
            t.send("q");
            t.send("y");
            quit_at = Some(Instant::now());
        }
        if t.ended() {
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
        t.send("q");
        while !t.ended() && q.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(10));
        }
        if !t.ended() {
            if let Ok(p) = t.screen.lock() {
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
}

/// A launched runner writes the 2M-line timeline while the TUI follows the launch.
fn timeline_launch(exe: &Path, quit_mid: bool) {
    if quit_mid {
        let q = flood::launch_then_quit(exe, Duration::from_secs(1));
        println!(
            "TUI, launch writing a {FLOOD_LINES}-line timeline, q + y 1 s in: ended {} after the last key, peak RSS {} MB",
            q.latency
                .map_or_else(|| "never (300 s)".to_owned(), |s| format!("{s:.3} s")),
            q.peak_mb
        );
        return;
    }
    let ws = timeline_workspace();
    let mut t = flood::open(exe, ws.path());
    flood::select_case(&mut t);
    let start = Instant::now();
    t.send("r");
    let pid = t.pid();
    let screen = t.screen.clone();
    let (peak, seen) = peak_until(pid, || {
        screen
            .lock()
            .is_ok_and(|p| p.screen().contents().contains("flood-end"))
    });
    let wall = start.elapsed();
    let lat = quit_latency(&mut t, &["q", "y"]);
    println!(
        "TUI, launch writing a {FLOOD_LINES}-line timeline: last line on screen {}, peak RSS {peak} MB; q + y then took {}",
        if seen {
            format!("{:.1} s after r", wall.as_secs_f64())
        } else {
            "never (900 s)".to_owned()
        },
        lat.map_or_else(|| "never (300 s)".to_owned(), |s| format!("{s:.3} s")),
    );
}

/// Another process writes the 2M-line timeline of a run the TUI is browsing
/// (in progress, followed).
fn timeline_follow(exe: &Path, quit_mid: bool) {
    let ws = timeline_workspace();
    let run = ws.path().join(RUN_DIR);
    std::fs::create_dir_all(&run).expect("mkdir");
    let timeline = run.join("timeline.jsonl");
    std::fs::write(&timeline, "{\"type\":\"step\",\"name\":\"flood-begins\"}\n").expect("write");
    let mut t = flood::open(exe, ws.path());
    flood::select_case(&mut t);
    t.wait("flood-begins", Duration::from_secs(30));
    let start = Instant::now();
    let mut writer = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "yes '{FLOOD_LINE}' | head -n {FLOOD_LINES} >> '{}' && printf '{{\"type\":\"step\",\"name\":\"flood-end\"}}\\n' >> '{}'",
            timeline.display(),
            timeline.display()
        ))
        .spawn()
        .expect("writer");
    let pid = t.pid();
    if quit_mid {
        std::thread::sleep(Duration::from_secs(1));
        let lat = quit_latency(&mut t, &["q"]);
        let (peak, _) = peak_until(pid, || true);
        let _ = writer.wait();
        println!(
            "TUI following a run whose timeline gets {FLOOD_LINES} lines, q 1 s in: ended {} after the key, peak RSS {peak} MB",
            lat.map_or_else(|| "never (300 s)".to_owned(), |s| format!("{s:.3} s")),
        );
        return;
    }
    let screen = t.screen.clone();
    let (peak, seen) = peak_until(pid, || {
        screen
            .lock()
            .is_ok_and(|p| p.screen().contents().contains("flood-end"))
    });
    let wall = start.elapsed();
    let _ = writer.wait();
    let lat = quit_latency(&mut t, &["q"]);
    println!(
        "TUI following a run whose timeline gets {FLOOD_LINES} lines: last line on screen {}, peak RSS {peak} MB; q then took {}",
        if seen {
            format!("{:.1} s after the writer started", wall.as_secs_f64())
        } else {
            "never (900 s)".to_owned()
        },
        lat.map_or_else(|| "never (300 s)".to_owned(), |s| format!("{s:.3} s")),
    );
}

fn main() {
    let exe = common::exe();
    if !exe.is_file() {
        println!("flood: the testdeck binary is not built (cargo bench builds it)");
        return;
    }
    // `cargo bench --bench flood -- timeline`: only the timeline floods
    let only_timeline = std::env::args().any(|a| a == "timeline");
    if !only_timeline {
        run_cli(exe);
        tui(exe, false);
        tui(exe, true);
    }
    timeline_launch(exe, false);
    timeline_launch(exe, true);
    timeline_follow(exe, false);
    timeline_follow(exe, true);
}
