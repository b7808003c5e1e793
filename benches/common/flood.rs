//! The timeline flood: a tests-tree workspace of one case whose runner writes a
//! 2M-line (170 MB) timeline at once and stays until cancelled, the cockpit in
//! a pty following it, and how long the cockpit takes to quit mid-flood.

use super::pty::{Cockpit, Start};
use std::path::Path;
use std::time::{Duration, Instant};

/// Lines of the timeline flood, each 85 bytes with its newline (170 MB).
pub const FLOOD_LINES: u64 = 2_000_000;
pub const FLOOD_LINE: &str =
    r#"{"type":"step","name":"flood","status":"ok","message":"a line among many lines!"}"#;
pub const CASE: &str = "kb/backend/search/basic/kb-search-empty";
pub const RUN_DIR: &str = "tests/logs/kb/backend/search/basic/kb-search-empty/20260401-120000-000";

/// A tests-tree workspace with one case, whose runner (`runner.sh`) writes the
/// 2M-line timeline of one run at once, says so, and stays until cancelled.
pub fn timeline_workspace() -> tempfile::TempDir {
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

/// The cockpit in a 140×40 pty on `root`, as the flood bench runs it.
pub fn open(exe: &Path, root: &Path) -> Cockpit {
    Cockpit::open(exe, root, Start::new(40, 140))
}

/// Select the flood's case through the finder.
pub fn select_case(t: &mut Cockpit) {
    t.wait("Tests", Duration::from_secs(30));
    t.send("/");
    t.send("'kb-search-empty");
    t.wait("❯ 'kb-search-empty", Duration::from_secs(30));
    t.send("\r");
}

/// Poll the peak RSS of `pid` until `done` says so (or 900 s); the peak in MB
/// and whether `done` came.
pub fn peak_until(pid: u32, mut done: impl FnMut() -> bool) -> (u64, bool) {
    let start = Instant::now();
    let mut peak = 0;
    loop {
        if let Some(kb) = super::vm_hwm_kb(Some(pid)) {
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

/// The quit keys mid-flood, 100 ms apart, then how long the cockpit took to
/// end after the last key it was typed before it ended, in seconds; `None`:
/// not within 300 s.
pub fn quit_latency(t: &mut Cockpit, keys: &[&str]) -> Option<f64> {
    let mut pressed = None;
    for k in keys {
        if t.ended() {
            break;
        }
        t.press(k);
        pressed = Some(Instant::now());
        let next = Instant::now() + Duration::from_millis(100);
        while Instant::now() < next && !t.ended() {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    let pressed = pressed?;
    while !t.ended() {
        if pressed.elapsed() > Duration::from_secs(300) {
            return None;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    Some(pressed.elapsed().as_secs_f64())
}

/// A quit in the middle of a launch's flood.
pub struct MidFloodQuit {
    /// Seconds from the keys to the end (`None`: not within 300 s).
    pub latency: Option<f64>,
    /// Peak RSS before the quit, in MB.
    pub peak_mb: u64,
}

/// The cockpit launches the flood's runner (`r` on the case) and `q` `y` come
/// `after` it.
pub fn launch_then_quit(exe: &Path, after: Duration) -> MidFloodQuit {
    let ws = timeline_workspace();
    let mut t = open(exe, ws.path());
    select_case(&mut t);
    t.send("r");
    let pid = t.pid();
    std::thread::sleep(after);
    let (peak, _) = peak_until(pid, || true);
    let latency = quit_latency(&mut t, &["q", "y"]);
    MidFloodQuit {
        latency,
        peak_mb: peak,
    }
}
