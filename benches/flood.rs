//! Flood benchmark (figures, not pass/fail): a readonly catalog case writing
//! 300 MB to stdout (`yes | head -c 300000000`), run by `testdeck run` and
//! launched from the TUI in a real pseudo-terminal: wall time and peak RSS of
//! each, and how long the TUI takes to quit when `q` comes mid-flood. Then a
//! 2M-line timeline (170 MB) written while the TUI follows it, by a launched
//! tests-tree runner and by another process while the run is browsed: peak RSS,
//! the time until its last line is on screen, and the quit latency mid-flood.
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
    let mut t = Tui::open(exe, ws.path());
    t.wait("Catalog", Duration::from_secs(30));
    t.send("2");
    std::thread::sleep(Duration::from_millis(500));
    let pid = t.pid();
    let start = Instant::now();
    t.send("r");
    let mut peak = 0;
    let mut quit_at = None;
    loop {
        if let Some(kb) = hwm_kb(pid) {
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

use std::io::Write as _;

/// Lines of the timeline flood, each 85 bytes with its newline (170 MB).
const FLOOD_LINES: u64 = 2_000_000;
const FLOOD_LINE: &str =
    r#"{"type":"step","name":"flood","status":"ok","message":"a line among many lines!"}"#;
const CASE: &str = "kb/backend/search/basic/kb-search-empty";
const RUN_DIR: &str = "tests/logs/kb/backend/search/basic/kb-search-empty/20260401-120000-000";

/// A tests-tree workspace with one case, whose runner (`runner.sh`) writes the
/// 2M-line timeline of one run at once, says so, and stays until cancelled.
fn timeline_workspace() -> tempfile::TempDir {
    let d = tempfile::tempdir().expect("tmp");
    let case = d.path().join(format!("tests/{CASE}.test.ts"));
    std::fs::create_dir_all(case.parent().expect("parent")).expect("mkdir");
    std::fs::write(&case, "// a case\n").expect("case");
    std::fs::write(
        d.path().join("testdeck.toml"),
        "[runner]\ncommand = [\"sh\", \"runner.sh\"]\n",
    )
    .expect("toml");
    std::fs::write(
        d.path().join("runner.sh"),
        format!(
            "d={RUN_DIR}\nmkdir -p $d\nyes '{FLOOD_LINE}' | head -n {FLOOD_LINES} > $d/timeline.jsonl\nprintf '{{\"type\":\"step\",\"name\":\"flood-end\"}}\\n' >> $d/timeline.jsonl\nsleep 3600\n"
        ),
    )
    .expect("runner");
    d
}

/// The TUI in a pty on `root`, its screen kept by a reader thread.
struct Tui {
    child: Box<dyn portable_pty::Child + Send + Sync>,
    screen: std::sync::Arc<std::sync::Mutex<vt100::Parser>>,
    writer: Box<dyn std::io::Write + Send>,
    _pty: Box<dyn portable_pty::MasterPty + Send>,
    _cfg: tempfile::TempDir,
}

impl Tui {
    fn open(exe: &Path, root: &Path) -> Tui {
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
        cmd.arg(root);
        cmd.env("TERM", "xterm-256color");
        cmd.env("XDG_CONFIG_HOME", cfg.path());
        cmd.env("TESTDECK_IMAGES", "halfblocks");
        let child = pty.slave.spawn_command(cmd).expect("spawn");
        drop(pty.slave);
        let screen = screen_of(&*pty.master);
        let writer = pty.master.take_writer().expect("writer");
        Tui {
            child,
            screen,
            writer,
            _pty: pty.master,
            _cfg: cfg,
        }
    }

    fn send(&mut self, s: &str) {
        let _ = self.writer.write_all(s.as_bytes());
        let _ = self.writer.flush();
        std::thread::sleep(Duration::from_millis(100));
    }

    fn shows(&self, t: &str) -> bool {
        self.screen
            .lock()
            .is_ok_and(|p| p.screen().contents().contains(t))
    }

    fn wait(&self, t: &str, limit: Duration) -> bool {
        let start = Instant::now();
        while !self.shows(t) {
            if start.elapsed() > limit {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        true
    }

    /// Select the case through the finder.
    fn select_case(&mut self) {
        self.wait("Tests", Duration::from_secs(30));
        self.send("/");
        self.send("'kb-search-empty");
        self.wait("❯ 'kb-search-empty", Duration::from_secs(30));
        self.send("\r");
    }

    fn pid(&self) -> u32 {
        self.child.process_id().unwrap_or(0)
    }

    fn ended(&mut self) -> bool {
        self.child.try_wait().ok().flatten().is_some()
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Poll the peak RSS of `pid` until `done` says so (or 900 s); the peak in MB
/// and whether `done` came.
fn peak_until(pid: u32, mut done: impl FnMut() -> bool) -> (u64, bool) {
    let start = Instant::now();
    let mut peak = 0;
    loop {
        if let Some(kb) = hwm_kb(pid) {
            peak = peak.max(kb);
        }
        if done() {
            return (peak / 1024, true);
        }
        if start.elapsed() > Duration::from_secs(900) {
            return (peak / 1024, false);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The quit keys mid-flood, then how long the TUI took to end (the typing's
/// own 100 ms per key taken off).
fn quit_latency(t: &mut Tui, keys: &[&str]) -> Option<f64> {
    let start = Instant::now();
    for k in keys {
        t.send(k);
    }
    let typing = 0.1 * keys.len() as f64;
    while !t.ended() {
        if start.elapsed() > Duration::from_secs(300) {
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    Some((start.elapsed().as_secs_f64() - typing).max(0.0))
}

/// A launched runner writes the 2M-line timeline while the TUI follows the launch.
fn timeline_launch(exe: &Path, quit_mid: bool) {
    let ws = timeline_workspace();
    let mut t = Tui::open(exe, ws.path());
    t.select_case();
    let start = Instant::now();
    t.send("r");
    let pid = t.pid();
    if quit_mid {
        std::thread::sleep(Duration::from_secs(1));
        let (peak, _) = peak_until(pid, || true);
        let lat = quit_latency(&mut t, &["q", "y"]);
        let (peak2, _) = peak_until(pid, || true);
        println!(
            "TUI, launch writing a {FLOOD_LINES}-line timeline, q + y 1 s in: ended {} after the keys, peak RSS {} MB",
            lat.map_or_else(|| "never (300 s)".to_owned(), |s| format!("{s:.3} s")),
            peak.max(peak2)
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
    let mut t = Tui::open(exe, ws.path());
    t.select_case();
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
    let Some(exe) = exe() else {
        println!(
            "flood: the testdeck binary is not built next to the bench (cargo build --release)"
        );
        return;
    };
    // `cargo bench --bench flood -- timeline`: only the timeline floods
    let only_timeline = std::env::args().any(|a| a == "timeline");
    if !only_timeline {
        run_cli(&exe);
        tui(&exe, false);
        tui(&exe, true);
    }
    timeline_launch(&exe, false);
    timeline_launch(&exe, true);
    timeline_follow(&exe, false);
    timeline_follow(&exe, true);
}

/// A 140x40 screen fed from the pty's master on a thread of its own.
fn screen_of(
    master: &dyn portable_pty::MasterPty,
) -> std::sync::Arc<std::sync::Mutex<vt100::Parser>> {
    let mut reader = master.try_clone_reader().expect("reader");
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
    screen
}
