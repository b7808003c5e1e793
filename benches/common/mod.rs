//! What the benches share: the release binary, the in-process TUI (model and
//! frame on a test backend, the finder, fzf beside it), a follower child fed
//! bursts of lines of every shape, and a process's peak memory, CPU time and
//! inotify watches; in the modules, the generated workspaces ([`ws`]), the
//! cockpit in a pseudo-terminal ([`pty`]), a run appearing and ending under the
//! real watcher ([`live`]) and the timeline flood ([`flood`]).
#![allow(clippy::unwrap_used)]

pub mod flood;
pub mod live;
pub mod pty;
pub mod ws;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::io::{BufRead, BufReader, Write as _};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use testdeck_tui::action::Action;
use testdeck_tui::app::{App, Options};
use testdeck_tui::keymap::Keymap;
use testdeck_tui::theme::Theme;

/// The testdeck binary cargo built for the bench (release under `cargo bench`),
/// or the one `TESTDECK_BENCH_EXE` names (another build to compare).
pub fn exe() -> &'static Path {
    static EXE: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    EXE.get_or_init(|| {
        std::env::var_os("TESTDECK_BENCH_EXE").map_or_else(
            || std::path::PathBuf::from(env!("CARGO_BIN_EXE_testdeck")),
            std::path::PathBuf::from,
        )
    })
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The floor of reading the history: every `meta.json` under `tests/logs/`
/// read once, `find … -exec cat {} +`.
pub fn meta_floor(root: &Path) -> Command {
    let mut cmd = Command::new("find");
    cmd.arg(root.join("tests/logs"))
        .args(["-name", "meta.json", "-exec", "cat", "{}", "+"]);
    cmd
}

pub fn frame(app: &App, theme: &Theme, term: &mut Terminal<TestBackend>) {
    term.draw(|f| {
        testdeck_tui::view::draw(&app.snapshot(), theme, f);
    })
    .expect("draw");
}

/// Peak RSS (VmHWM) in kB of a process (`None`: this one).
pub fn vm_hwm_kb(pid: Option<u32>) -> Option<u64> {
    let path = pid.map_or_else(
        || "/proc/self/status".to_owned(),
        |p| format!("/proc/{p}/status"),
    );
    let s = std::fs::read_to_string(path).ok()?;
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

/// Watches the inotify instances of a process hold, and how many instances: the
/// `inotify wd:` lines of `/proc/PID/fdinfo/FD` for each fd that is one.
pub fn inotify_watches(pid: u32) -> Option<(usize, usize)> {
    let (mut watches, mut fds) = (0, 0);
    for e in std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.flatten() {
        let is_inotify =
            std::fs::read_link(e.path()).is_ok_and(|l| l.to_string_lossy().contains("inotify"));
        if !is_inotify {
            continue;
        }
        let Ok(info) = std::fs::read_to_string(format!(
            "/proc/{pid}/fdinfo/{}",
            e.file_name().to_string_lossy()
        )) else {
            continue;
        };
        fds += 1;
        watches += info
            .lines()
            .filter(|l| l.starts_with("inotify wd:"))
            .count();
    }
    Some((watches, fds))
}

/// Drop the page cache (`sync`, then `3` into `/proc/sys/vm/drop_caches`: root
/// only), or why it cannot be dropped.
pub fn drop_page_cache() -> Result<(), String> {
    let _ = Command::new("sync").status();
    std::fs::write("/proc/sys/vm/drop_caches", "3\n")
        .map_err(|e| format!("the page cache cannot be dropped here ({e})"))
}

/// CPU time of a process and of its children it waited for (utime + stime +
/// cutime + cstime), in clock ticks.
pub fn cpu_ticks_with_children(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let f: Vec<&str> = s.rsplit_once(')')?.1.split_whitespace().collect();
    (11..=14).map(|i| f.get(i)?.parse::<u64>().ok()).sum()
}

/// CPU time (user + system) of a process, in clock ticks.
pub fn cpu_ticks(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // fields after the command name, which is in parentheses
    let f: Vec<&str> = s.rsplit_once(')')?.1.split_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

pub fn new_app(root: &Path) -> App {
    let mut app = App::new(
        Options {
            label: "bench".into(),
            root: root.to_path_buf(),
            host: "127.0.0.1".into(),
            use_env: false,
        },
        Keymap::builtin("default").expect("keymap"),
    );
    app.update(Action::Resize(160, 48));
    app
}

/// The TUI's load, in process: the tree drawn (tree-only scan, model, frame),
/// then the whole history indexed (full load, model, frame), then the finder.
pub struct TuiFigures {
    pub cases: usize,
    pub runs: usize,
    /// The first frame with the tree (its first rows).
    pub tree: Duration,
    /// The frame with the whole tree, the catalog and the finder's candidates.
    pub whole_tree: Duration,
    pub indexed: Duration,
    pub candidates: usize,
    /// Keystroke → frame, median and max over the query's keys.
    pub key_median: Duration,
    pub key_max: Duration,
    /// The app, with the finder open on the whole query.
    pub app: App,
}

/// The tree's first frame both ways, on this thread, `rounds` times each,
/// interleaved (now, before, now, before…): now, the walk's first results
/// drawn from inside the walk as the cockpit's `Action::TreePart` (its first
/// screenful: the folders under `tests/` walked so far hold
/// `runtime::FIRST_ROWS` cases, as the runtime hands them on); before, the whole tree and catalog read
/// (`Workspace::load_tree`), installed and drawn (the cockpit's first frame
/// until this round). Each a fresh app on a 160x48 test backend.
pub fn tree_first_frames(root: &Path, rounds: usize) -> (Vec<Duration>, Vec<Duration>) {
    let theme = Theme::builtin("dark", false).expect("theme");
    let (mut now, mut before) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let mut term = Terminal::new(TestBackend::new(160, 48)).expect("term");
        let mut app = new_app(root);
        let t = Instant::now();
        let mut first = None;
        let ws = testdeck_core::workspace::Workspace::load_tree_staged(root, &mut |n, part| {
            if first.is_none() && n >= testdeck_tui::runtime::FIRST_ROWS {
                app.update(Action::TreePart(Box::new(part())));
                frame(&app, &theme, &mut term);
                first = Some(t.elapsed());
            }
        })
        .expect("tree");
        if first.is_none() {
            app.update(Action::TreeLoaded(Box::new(ws)));
            frame(&app, &theme, &mut term);
            first = Some(t.elapsed());
        }
        now.extend(first);

        let mut term = Terminal::new(TestBackend::new(160, 48)).expect("term");
        let mut app = new_app(root);
        let t = Instant::now();
        let ws = testdeck_core::workspace::Workspace::load_tree(root).expect("tree");
        app.update(Action::TreeLoaded(Box::new(ws)));
        frame(&app, &theme, &mut term);
        before.push(t.elapsed());
    }
    now.sort();
    before.sort();
    (now, before)
}

/// The finder query the benches type (it matches generated case names).
pub const QUERY: &str = "case 12 basic";

pub fn measure_tui(root: &Path) -> TuiFigures {
    let theme = Theme::builtin("dark", false).expect("theme");
    let mut term = Terminal::new(TestBackend::new(160, 48)).expect("term");
    // the staged index as the cockpit runs it: on another thread, the tree
    // first, then the history by domain, each piece applied and drawn as it comes
    let t = Instant::now();
    let mut app = new_app(root);
    let (tx, rx) = mpsc::channel();
    let indexer = {
        let root = root.to_path_buf();
        std::thread::spawn(move || {
            let send = |a: Action| {
                let _ = tx.send(a);
            };
            testdeck_tui::runtime::index_staged(&root, &send, &|| {});
        })
    };
    let (mut tree, mut whole_tree) = (None, None);
    while let Ok(a) = rx.recv() {
        let (is_tree, is_whole, chunk, end) = (
            // the walk's first rows (`TreePart`) or the whole tree at once
            matches!(a, Action::TreePart(_) | Action::TreeLoaded(_)),
            matches!(a, Action::TreeLoaded(_)),
            matches!(a, Action::HistoryChunk(_)),
            matches!(a, Action::Records(_)),
        );
        app.update(a);
        if is_tree || chunk || end {
            frame(&app, &theme, &mut term);
        }
        if is_tree && tree.is_none() {
            tree = Some(t.elapsed());
        }
        if is_whole {
            whole_tree = Some(t.elapsed());
        }
        if end {
            break;
        }
    }
    let indexed = t.elapsed();
    let _ = indexer.join();
    let tree = tree.unwrap_or(indexed);
    let whole_tree = whole_tree.unwrap_or(indexed);
    let cases = app.tests().cases().len();
    let runs = app.domain().ws().map_or(0, |w| w.logs.runs.len());
    app.on_key(KeyEvent::new(KeyCode::Char('/'), KeyModifiers::NONE));
    let mut keys = Vec::new();
    for c in QUERY.chars() {
        let t = Instant::now();
        app.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
        frame(&app, &theme, &mut term);
        keys.push(t.elapsed());
    }
    keys.sort();
    TuiFigures {
        cases,
        runs,
        tree,
        whole_tree,
        indexed,
        candidates: app.domain().candidates().len(),
        key_median: keys[keys.len() / 2],
        key_max: keys[keys.len() - 1],
        app,
    }
}

/// The same query through `fzf --filter` on the same candidates, process
/// included; `None` when fzf is not installed.
pub fn fzf(app: &App, query: &str) -> Option<Duration> {
    let mut input = String::new();
    for c in app.domain().candidates() {
        input.push_str(c.text.as_str());
        input.push('\n');
    }
    let mut child = Command::new("fzf")
        .args(["--filter", query])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .ok()?;
    let t = Instant::now();
    if let Some(mut i) = child.stdin.take() {
        let _ = i.write_all(input.as_bytes());
    }
    let _ = child.wait();
    Some(t.elapsed())
}

/// Writes the line of one sequence number.
pub type LineFn = fn(u64) -> String;

/// A clean event in compact JSON, as testdeck's runners write it.
pub fn line(seq: u64) -> String {
    format!(
        "{{\"ts\":\"2026-03-15T10:15:30.112Z\",\"type\":\"step\",\"name\":\"l{seq}\",\"status\":\"ok\",\"message\":\"step number {seq}\",\"data\":{{\"i\":{seq}}}}}\n"
    )
}

/// The same event as [`line`] written as Python's `json.dumps` writes it (a
/// space after every `:` and `,`).
pub fn spaced_line(seq: u64) -> String {
    format!(
        "{{\"ts\": \"2026-03-15T10:15:30.112Z\", \"type\": \"step\", \"name\": \"l{seq}\", \"status\": \"ok\", \"message\": \"step number {seq}\", \"data\": {{\"i\": {seq}}}}}\n"
    )
}

/// A clean event with `"id":null` and a `null` in its data (as runners write
/// events without an id).
pub fn null_line(seq: u64) -> String {
    format!(
        "{{\"ts\":\"2026-03-15T10:15:30.112Z\",\"type\":\"step\",\"name\":\"l{seq}\",\"status\":\"ok\",\"id\":null,\"message\":\"step number {seq}\",\"data\":{{\"i\":{seq},\"e\":null}}}}\n"
    )
}

/// `true` and `false` in the data.
pub fn bool_line(seq: u64) -> String {
    format!(
        "{{\"ts\":\"2026-03-15T10:15:30.112Z\",\"type\":\"step\",\"name\":\"l{seq}\",\"status\":\"ok\",\"message\":\"step number {seq}\",\"data\":{{\"i\":{seq},\"ok\":true,\"skip\":false}}}}\n"
    )
}

/// Negative integers, fractions and exponents in the data.
pub fn number_line(seq: u64) -> String {
    format!(
        "{{\"ts\":\"2026-03-15T10:15:30.112Z\",\"type\":\"step\",\"name\":\"l{seq}\",\"status\":\"ok\",\"message\":\"step number {seq}\",\"data\":{{\"i\":{seq},\"n\":-42,\"f\":0.25,\"e\":2.5e-7,\"E\":1E+3}}}}\n"
    )
}

/// Arrays and objects four deep in the data.
pub fn nested_line(seq: u64) -> String {
    format!(
        "{{\"ts\":\"2026-03-15T10:15:30.112Z\",\"type\":\"step\",\"name\":\"l{seq}\",\"status\":\"ok\",\"message\":\"step number {seq}\",\"data\":{{\"i\":{seq},\"a\":[1,[2,[3,{{\"b\":[\"x\",{{}}]}}]]],\"o\":{{\"p\":{{\"q\":{{\"r\":[]}}}}}}}}}}\n"
    )
}

/// Every shape at once, spaced as `json.dumps` writes it.
pub fn mixed_line(seq: u64) -> String {
    format!(
        "{{\"ts\": \"2026-03-15T10:15:30.112Z\", \"type\": \"step\", \"name\": \"l{seq}\", \"status\": \"ok\", \"id\": null, \"message\": \"step number {seq}\", \"data\": {{\"i\": {seq}, \"ok\": true, \"e\": 2.5e-07, \"a\": [1, {{\"b\": null}}]}}}}\n"
    )
}

/// The shapes of line the tail benches measure, by name.
pub const FORMS: [(&str, LineFn); 7] = [
    ("compact", line),
    ("spaced", spaced_line),
    ("null", null_line),
    ("bool", bool_line),
    ("numbers", number_line),
    ("nested", nested_line),
    ("mixed", mixed_line),
];

/// The sequence number of a printed line: the token after `l` in `"name":"l…"`
/// or `"name": "l…"` (JSON and raw lines) or the 4th field (pretty lines).
pub fn seq_of(printed: &str) -> Option<u64> {
    if let Some(at) = printed.find("\"name\":") {
        let rest = printed[at + 7..].trim_start().strip_prefix("\"l")?;
        let end = rest.find('"')?;
        return rest[..end].parse().ok();
    }
    printed
        .split_whitespace()
        .nth(3)?
        .strip_prefix('l')?
        .parse()
        .ok()
}

/// A follower child (testdeck tail or GNU tail) whose printed lines are
/// timed as they arrive.
pub struct Follow {
    pub child: Child,
    pub seen: mpsc::Receiver<(u64, Instant)>,
}

impl Follow {
    pub fn start(mut cmd: Command) -> Self {
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, seen) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::with_capacity(1 << 20, out);
            let mut buf = String::new();
            loop {
                buf.clear();
                match r.read_line(&mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        if let Some(s) = seq_of(&buf) {
                            if tx.send((s, Instant::now())).is_err() {
                                return;
                            }
                        }
                    }
                }
            }
        });
        Self { child, seen }
    }

    /// When `seq` was printed (everything before it is consumed).
    pub fn wait_for(&self, seq: u64) -> Instant {
        loop {
            let (s, t) = self
                .seen
                .recv_timeout(Duration::from_secs(120))
                .unwrap_or_else(|_| panic!("line {seq} never printed"));
            if s == seq {
                return t;
            }
        }
    }

    pub fn cpu_seconds(&self) -> f64 {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        // fields after the command name, which is in parentheses
        let after = stat.rsplit_once(')').map_or("", |(_, a)| a);
        let f: Vec<&str> = after.split_whitespace().collect();
        let ticks: f64 = f.get(11).and_then(|u| u.parse::<f64>().ok()).unwrap_or(0.0)
            + f.get(12).and_then(|s| s.parse::<f64>().ok()).unwrap_or(0.0);
        ticks / 100.0
    }

    /// (current RSS, peak RSS) in MB.
    pub fn rss_mb(&self) -> (f64, f64) {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find(|l| l.starts_with(name))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
                .map_or(f64::NAN, |kb| kb / 1024.0)
        };
        (field("VmRSS:"), field("VmHWM:"))
    }

    /// Write line 0 until it comes through: the child is following
    /// (`tail -n 0` may start after a first write).
    pub fn until_following(&self, w: &mut std::fs::File, line: LineFn) {
        loop {
            w.write_all(line(0).as_bytes()).unwrap();
            if let Ok((0, _)) = self.seen.recv_timeout(Duration::from_millis(200)) {
                return;
            }
        }
    }

    /// Bursts of `n` lines appended at once after line `next`, a pause
    /// between them; the time from the write to the last line printed, each.
    pub fn bursts(
        &self,
        w: &mut std::fs::File,
        line: LineFn,
        next: &mut u64,
        n: u64,
        count: usize,
    ) -> Vec<Duration> {
        let mut out = Vec::new();
        for _ in 0..count {
            let burst: String = (1..=n).map(|i| line(*next + i)).collect();
            let t = Instant::now();
            w.write_all(burst.as_bytes()).unwrap();
            out.push(self.wait_for(*next + n) - t);
            *next += n;
            std::thread::sleep(Duration::from_millis(300));
        }
        out.sort();
        out
    }
}

impl Drop for Follow {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Lines of one tail burst.
pub const BURST: u64 = 200_000;

/// A [`BURST`]-line burst appended at once to a followed file, until its last
/// line is printed by `cmd` (a follower given the file as its last argument):
/// the median of `bursts` bursts, in seconds.
pub fn tail_burst(mut cmd: Command, line: LineFn, bursts: usize) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("timeline.jsonl");
    std::fs::File::create(&file).unwrap();
    cmd.arg(&file);
    let mut w = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    let f = Follow::start(cmd);
    f.until_following(&mut w, line);
    let mut next = 0;
    let b = f.bursts(&mut w, line, &mut next, BURST, bursts);
    b[b.len() / 2].as_secs_f64()
}

/// `testdeck tail --follow --json`, the file to be appended.
pub fn testdeck_tail() -> Command {
    let mut c = Command::new(exe());
    c.args(["tail", "--follow", "--json"]);
    c
}

/// GNU `tail -F -n 0`, the file to be appended.
pub fn gnu_tail() -> Command {
    let mut c = Command::new("tail");
    c.args(["-F", "-n", "0"]);
    c
}
