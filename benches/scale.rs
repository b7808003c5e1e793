//! Issue 30's table (figures, never pass/fail): for generated workspaces of
//! 10k and 30k cases (5 runs a case), each row of the issue beside its goal and
//! its peer, printed as it is measured as `row | size | measured | goal | peer`,
//! and at the end the markdown table `docs/performance.md` holds.
//!
//!     SCALE_SIZES=10k cargo bench --bench scale
//!
//! - `SCALE_SIZES` chooses the sizes (default `10k,30k`; any `Nk` or number of
//!   cases). `TESTDECK_BENCH_WS=DIR` keeps the workspaces in `DIR/<size>` and
//!   reuses them; otherwise each is generated in a temporary folder (about
//!   150 KB a case; 10k cases take 1.1 GB) and deleted once measured. A size is
//!   skipped (and says so) when generating it would leave less than 20 GB free.
//! - `SCALE_ROWS` chooses the rows (default `1,2,3,4,5,6,7,8,9,10`; `issue17` adds
//!   the last round's `list --json` RSS, `stats --json`, `validate` and finder
//!   rows). Rows 6 and 7 are read from row 3's open, so they open it too.
//! - The cockpit is the release binary cargo built for the bench (or the one
//!   `TESTDECK_BENCH_EXE` names, to compare another build), in a 160×48
//!   pseudo-terminal that answers no query, its screen read through vt100, with
//!   config, state and cache folders of its own (`XDG_*_HOME`); except in row 2
//!   it runs with `TESTDECK_IMAGES=halfblocks` (no graphics query). The
//!   in-process rows always measure this checkout's library.
//! - Cold pages: the page cache is dropped (`sync; echo 3 >
//!   /proc/sys/vm/drop_caches`, root only) before each cold row and before its
//!   floor alike; where it cannot be, the row says so and is a warm-page figure.
//!   Every other row runs after the page cache was warmed
//!   (`find -type f -exec cat`).
//!
//! The rows:
//!
//! 1. **TUI: tree drawn.** In process: the cockpit's own staged index
//!    (`tui::runtime::index_staged` on another thread) from the start to the
//!    first frame with the tree on a 160×48 test backend (the walk's first
//!    rows; the frame with the whole tree, the catalog and the finder's
//!    candidates is the row after it); then the first frame alone, five
//!    times, interleaved with the whole tree read, installed and drawn at once
//!    (the path before the walk's first rows were handed on). The binary: from its
//!    spawn to the first screen whose tree pane's title counts the cases
//!    (`Tests · N`), no index in its cache, pages warm: median of 3; and cold,
//!    in row 3's cold open (no index, the page cache dropped). Goal ≤ 100 ms at
//!    10k, ≤ 200 ms at 30k.
//! 2. **First frame in a bare pty.** From the spawn to the first screen with the
//!    tree pane's title, `TESTDECK_IMAGES=auto` (the graphics query written; the
//!    pty never answers) and `halfblocks`; median and max of 5. Goal: the first
//!    frame never waits on the terminal (the two alike).
//! 3. **TUI: full history drawn.** From the spawn until the status line shows
//!    the history's counts (`N cases · M runs`, no `indexing`). Cold: no index
//!    (an empty cache folder) and the page cache dropped; beside it the floor,
//!    `find tests/logs -name meta.json -exec cat {} +`, the page cache dropped
//!    too (goal: cold ≤ the floor). Also with warm pages and no index, beside
//!    the floor with warm pages (median of 3), and the in-process index's
//!    figure (row 1's run, until the last domain is drawn). Warm: the second
//!    open, when the binary has a persistent index (its `--help` names
//!    `--no-cache`): the same cache folder as the cold open (goal ≤ 300 ms at
//!    30k); otherwise "n/a: no index".
//! 4. **Run folder appears → its first event on screen** (`common::live`, as
//!    `cargo bench --bench live`): in process, the whole workspace loaded, the
//!    cockpit's real workspace watch running; 10 run folders, each in its own
//!    case, written with one event; from the folder's creation to the frame
//!    that shows the event; median and max. Goal ≤ 100 ms.
//! 5. **A run ends → tree, statistics, details updated.** In process, the same
//!    app: a run written in progress and applied (its case selected, as the
//!    cockpit selects a new run), then its `meta.json` (`failed`) renamed into
//!    place and read as the watch reads it; from the app taking that update
//!    to the frame whose details say `<runId> failed`; median and max of 10.
//!    Peer: the same app taking the whole workspace again (`Action::Loaded`,
//!    read beforehand) and drawing it, the full rebuild. Goal ≤ 20 ms, no full
//!    rebuild.
//! 6. **TUI peak RSS**: `VmHWM` of row 3's warm-page open once the history is
//!    drawn and its CPU time stops growing (and of the warm open, with an
//!    index). Goal ≤ 100 MB at 10k, ≤ 250 MB at 30k.
//! 7. **inotify watches**: the same process, the `inotify wd:` lines of
//!    `/proc/PID/fdinfo` of each of its inotify descriptors, once the count
//!    holds for a second; beside the watcher's budget
//!    (`workspace::watch::budget`) and the user's limit
//!    (`fs.inotify.max_user_watches`). Goal: within the budget, the rest polled.
//! 8. **`tail --json`, 200k lines with `"id":null`** appended at once to a
//!    followed file, until the last is printed (median of 5 bursts), beside GNU
//!    `tail -F -n 0` on the same lines (`common::tail_burst`, as `cargo bench
//!    --bench tail`). Goal ≤ 1.5x. Once, not per size.
//! 9. **Quitting 6 s into a 2M-line flood the cockpit launched**
//!    (`common::flood`, as `cargo bench --bench flood`): `q` then `y` 100 ms
//!    later; from the last of them typed before the process ended to its end
//!    (polled every millisecond); median and max of 3. Goal ≤ 100 ms.
//!    Once, not per size.
//! 10. **Finder keystroke → frame, in a pty**, beside an interactive `fzf`
//!     in a pty of the same size on the same candidates (said when `fzf` is
//!     not installed): the cockpit opened from its index, `/`, then each key of
//!     the query typed into one and the other alternately, from the key's write
//!     to the last bytes read before 150 ms of quiet; three rounds (the query
//!     erased between them); medians. Goal ≤ 1x fzf.
#![allow(clippy::unwrap_used)]

use common::pty::{Cockpit, FirstSeen, Start, history_count, tree_drawn};
use common::{median, ms};
use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[allow(dead_code)]
mod common;

/// The pty the cockpit runs in.
const ROWS: u16 = 48;
const COLS: u16 = 160;
/// Longest a cockpit is waited for (a screen, its history).
const LIMIT: Duration = Duration::from_secs(600);
/// Runs of rows 4 and 5.
const LIVE_RUNS: usize = 10;

/// One printed row.
struct Row {
    name: String,
    size: String,
    measured: String,
    goal: String,
    peer: String,
}

#[derive(Default)]
struct Table(Vec<Row>);

impl Table {
    fn add(&mut self, row: &str, size: &str, measured: String, goal: &str, peer: String) {
        let r = Row {
            name: row.to_owned(),
            size: size.to_owned(),
            measured,
            goal: goal.to_owned(),
            peer,
        };
        println!(
            "{} | {} | {} | {} | {}",
            r.name, r.size, r.measured, r.goal, r.peer
        );
        self.0.push(r);
    }

    /// The rows by their number, each row's sizes together, in the order
    /// they were measured.
    fn markdown(&self) -> String {
        // the workspace's counts first, issue 17's rows last
        let number = |r: &Row| {
            r.name
                .split_once(". ")
                .and_then(|(n, _)| n.parse::<u32>().ok())
                .unwrap_or(if r.name.starts_with("cases") { 0 } else { 100 })
        };
        let first = |r: &Row| self.0.iter().position(|o| o.name == r.name).unwrap_or(0);
        let mut rows: Vec<&Row> = self.0.iter().collect();
        rows.sort_by_key(|r| (number(r), first(r)));
        let mut t = String::new();
        let _ = writeln!(t, "| | cases | measured | goal | peer |");
        let _ = writeln!(t, "|---|---|---|---|---|");
        for r in rows {
            let _ = writeln!(
                t,
                "| {} | {} | {} | {} | {} |",
                r.name, r.size, r.measured, r.goal, r.peer
            );
        }
        t
    }
}

/// Which rows to measure (`SCALE_ROWS`).
struct Rows(Vec<String>);

impl Rows {
    fn from_env() -> Rows {
        let v = std::env::var("SCALE_ROWS").unwrap_or_else(|_| "1,2,3,4,5,6,7,8,9,10".into());
        Rows(v.split(',').map(|s| s.trim().to_owned()).collect())
    }
    fn has(&self, r: &str) -> bool {
        self.0.iter().any(|x| x == r)
    }
    fn any(&self, rs: &[&str]) -> bool {
        rs.iter().any(|r| self.has(r))
    }
}

fn exe() -> &'static Path {
    common::exe()
}

fn grouped(n: u64) -> String {
    testdeck_core::number::grouped(n)
}

fn ms0(d: Duration) -> String {
    format!("{} ms", grouped(ms(d).round() as u64))
}

/// `median ms (max ms)` of sorted times, or why there are none.
fn med_max(v: &[Duration]) -> String {
    match (v.get(v.len() / 2), v.last()) {
        (Some(m), Some(x)) => format!("median {}, max {}", ms0(*m), ms0(*x)),
        _ => "none measured".into(),
    }
}

fn time_runs(cmd: &mut Command, reps: usize) -> Duration {
    let mut v = Vec::new();
    for _ in 0..reps {
        let t = Instant::now();
        let _ = cmd.stdout(Stdio::null()).stderr(Stdio::null()).status();
        v.push(t.elapsed());
    }
    median(v)
}

fn has(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

/// Whether the binary has a persistent index: its help names `--no-cache`.
fn has_index() -> bool {
    Command::new(exe())
        .arg("--help")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("--no-cache"))
}

/// The page cache dropped (`true`), or said why not (`false`).
fn drop_pages(why_not: &mut Option<String>) -> bool {
    match common::drop_page_cache() {
        Ok(()) => true,
        Err(e) => {
            if why_not.is_none() {
                println!("{e}: the cold rows are warm-page figures");
            }
            *why_not = Some(e);
            false
        }
    }
}

/// An open of the cockpit until its history is drawn.
struct Open {
    cockpit: Cockpit,
    tree: Option<Duration>,
    history: Option<Duration>,
}

/// Open the cockpit on `root` with its caches in `home` and wait for its
/// history to be drawn.
fn open_until_history(root: &Path, home: &Path) -> Open {
    let (tree, hist) = (FirstSeen::default(), FirstSeen::default());
    let cockpit = Cockpit::open(
        exe(),
        root,
        Start::new(ROWS, COLS)
            .home(home)
            .hook(tree.hook(tree_drawn))
            .hook(hist.hook(|s| history_count(s).is_some())),
    );
    let history = hist.wait(LIMIT).map(|t| t - cockpit.spawned);
    if history.is_none() {
        println!(
            "the history was not drawn within {LIMIT:?}; the screen:\n{}",
            cockpit.text()
        );
    }
    let tree = tree.get().map(|t| t - cockpit.spawned);
    Open {
        cockpit,
        tree,
        history,
    }
}

/// Quit an open cockpit (`q`: a persistent index is written as the cockpit
/// writes it on its way out), killed after 30 s.
fn quit(mut o: Open) {
    if !o.cockpit.quit(&["q"], Duration::from_secs(30)) {
        println!("(the cockpit did not quit within 30 s of q: killed)");
    }
}

/// Peak RSS in MB and inotify watches (watches, instances) of an open cockpit
/// once its work is done: its CPU time stops growing, its watch count holds
/// for a second.
fn settle_and_read(o: &Open) -> (Option<f64>, Option<(usize, usize)>) {
    o.cockpit.settle(Duration::from_secs(30));
    let pid = o.cockpit.pid();
    let start = Instant::now();
    let mut last = common::inotify_watches(pid);
    loop {
        std::thread::sleep(Duration::from_secs(1));
        let now = common::inotify_watches(pid);
        if now == last || start.elapsed() > Duration::from_secs(30) {
            last = now;
            break;
        }
        last = now;
    }
    let rss = common::vm_hwm_kb(Some(pid)).map(|k| k as f64 / 1024.0);
    (rss, last)
}

fn inotify_limit() -> Option<usize> {
    std::fs::read_to_string("/proc/sys/fs/inotify/max_user_watches")
        .ok()?
        .trim()
        .parse()
        .ok()
}

fn mb(v: Option<f64>) -> String {
    v.map_or_else(|| "?".to_owned(), |m| format!("{m:.0} MB"))
}

fn opt_ms(d: Option<Duration>) -> String {
    d.map_or_else(|| "not drawn".to_owned(), ms0)
}

/// Every row of one size.
#[allow(clippy::too_many_lines)]
fn measure(label: &str, root: &Path, rows: &Rows, t: &mut Table, index: bool) {
    let files = common::ws::count_files(root);
    let mut cold_why: Option<String> = None;
    // the page cache warm for every warm row, testdeck's and the floor's
    let t0 = Instant::now();
    let _ = Command::new("sh")
        .arg("-c")
        .arg("find \"$1\" -type f -exec cat {} + > /dev/null")
        .arg("sh")
        .arg(root)
        .status();
    println!(
        "{label}: {} files, page cache warmed in {:.1} s",
        grouped(files),
        t0.elapsed().as_secs_f64()
    );

    // in process: the tree and the whole history (row 1; row 3's in-process
    // figure; the finder of issue 17)
    let mut in_process = None;
    if rows.any(&["1", "3", "10", "issue17"]) {
        let tui = common::measure_tui(root);
        t.add(
            "cases / runs / files",
            label,
            format!(
                "{} / {} / {}",
                grouped(tui.cases as u64),
                grouped(tui.runs as u64),
                grouped(files)
            ),
            "",
            String::new(),
        );
        in_process = Some(tui);
    }
    let floor_warm = rows
        .any(&["3", "issue17"])
        .then(|| time_runs(&mut common::meta_floor(root), 3));
    let goal_tree = if label == "10k" {
        "≤ 100 ms"
    } else if label == "30k" {
        "≤ 200 ms"
    } else {
        "≤ 100 ms at 10k, ≤ 200 ms at 30k"
    };

    if rows.has("1") {
        if let Some(tui) = &in_process {
            t.add(
                "1. TUI: tree drawn, in process",
                label,
                ms0(tui.tree),
                goal_tree,
                "—".into(),
            );
            let (now, before) = common::tree_first_frames(root, 5);
            t.add(
                "1. TUI: tree drawn, in process, the first rows vs the whole tree at once (5 each, interleaved)",
                label,
                format!("median {}", ms0(now[now.len() / 2])),
                goal_tree,
                format!(
                    "the whole tree, catalog and candidates at once (before): median {}",
                    ms0(before[before.len() / 2])
                ),
            );
            t.add(
                "1. the whole tree, catalog and candidates, in process",
                label,
                ms0(tui.whole_tree),
                "",
                "—".into(),
            );
        }
        let mut times = Vec::new();
        for _ in 0..3 {
            let seen = FirstSeen::default();
            let c = Cockpit::open(
                exe(),
                root,
                Start::new(ROWS, COLS).hook(seen.hook(tree_drawn)),
            );
            if let Some(at) = seen.wait(LIMIT) {
                times.push(at - c.spawned);
            }
        }
        times.sort();
        t.add(
            "1. TUI: tree drawn, the binary in a pty",
            label,
            med_max(&times),
            goal_tree,
            "—".into(),
        );
    }

    if rows.has("2") {
        for images in ["auto", "halfblocks"] {
            let times = common::pty::first_frame_bare(exe(), root, images, 5, (ROWS, COLS));
            t.add(
                &format!("2. first frame in a bare pty, TESTDECK_IMAGES={images}"),
                label,
                med_max(&times),
                "never waits on the terminal (auto ≈ halfblocks)",
                "—".into(),
            );
        }
    }

    if rows.any(&["3", "6", "7"]) {
        // no index, warm pages: rows 3, 6 and 7 from the same process
        let home = tempfile::tempdir().unwrap();
        let o = open_until_history(root, home.path());
        let (rss, watches) = settle_and_read(&o);
        let warm_pages = o.history;
        quit(o);
        let mut warm_rss = None;
        if rows.has("3") {
            let floor_peer =
                |f: Duration, pages: &str| format!("find -exec cat floor, {pages}: {}", ms0(f));
            if let (Some(tui), Some(floor)) = (&in_process, floor_warm) {
                t.add(
                    "3. TUI: full history drawn, in process, no index, pages warm",
                    label,
                    ms0(tui.indexed),
                    "≤ the floor",
                    floor_peer(floor, "pages warm"),
                );
            }
            if let Some(floor) = floor_warm {
                t.add(
                    "3. TUI: full history drawn, no index, pages warm",
                    label,
                    opt_ms(warm_pages),
                    "≤ the floor",
                    floor_peer(floor, "pages warm"),
                );
            }
            // cold: no index, the page cache dropped, for testdeck and the floor alike
            let cold_home = tempfile::tempdir().unwrap();
            let dropped = drop_pages(&mut cold_why);
            let o = open_until_history(root, cold_home.path());
            let (cold, cold_tree) = (o.history, o.tree);
            quit(o);
            let dropped = drop_pages(&mut cold_why) && dropped;
            let floor_cold = time_runs(&mut common::meta_floor(root), 1);
            let pages = if dropped {
                "pages dropped"
            } else {
                "pages warm (not dropped)"
            };
            if rows.has("1") {
                t.add(
                    &format!("1. TUI: tree drawn, the binary in a pty, cold (no index, {pages})"),
                    label,
                    opt_ms(cold_tree),
                    goal_tree,
                    "—".into(),
                );
            }
            t.add(
                &format!("3. TUI: full history drawn, cold (no index, {pages})"),
                label,
                opt_ms(cold),
                "≤ the floor",
                floor_peer(floor_cold, pages),
            );
            // warm: the second open, from the index the cold open left
            let warm = if index {
                let o = open_until_history(root, cold_home.path());
                let warm = o.history;
                warm_rss = settle_and_read(&o).0;
                quit(o);
                opt_ms(warm)
            } else {
                "n/a: no index".to_owned()
            };
            t.add(
                "3. TUI: full history drawn, warm (second open)",
                label,
                warm,
                "≤ 300 ms at 30k",
                format!("cold: {}", opt_ms(cold)),
            );
        }
        if rows.has("6") {
            let goal = match label {
                "10k" => "≤ 100 MB",
                "30k" => "≤ 250 MB",
                _ => "≤ 100 MB at 10k, ≤ 250 MB at 30k",
            };
            let measured = match warm_rss {
                Some(w) => format!("{} (warm open: {})", mb(rss), mb(Some(w))),
                None => mb(rss),
            };
            t.add(
                "6. TUI peak RSS, history drawn",
                label,
                measured,
                goal,
                "—".into(),
            );
        }
        if rows.has("7") {
            let budget = testdeck_core::workspace::watch::budget();
            let limit = inotify_limit();
            t.add(
                "7. inotify watches",
                label,
                watches.map_or_else(
                    || "?".to_owned(),
                    |(w, n)| format!("{} in {n} inotify instance(s)", grouped(w as u64)),
                ),
                "within a budget, polling beyond it",
                format!(
                    "budget {} (1/{} of the limit, at most {}); the user's limit {}",
                    grouped(budget as u64),
                    testdeck_core::workspace::watch::BUDGET_SHARE,
                    grouped(testdeck_core::workspace::watch::BUDGET_CAP as u64),
                    limit.map_or_else(|| "?".to_owned(), |l| grouped(l as u64)),
                ),
            );
        }
    }

    if rows.any(&["4", "5"]) {
        let mut l = common::live::Loaded::new(root, 2 * LIVE_RUNS + 5);
        if rows.has("4") {
            let f = common::live::first_events(&mut l, LIVE_RUNS);
            t.add(
                "4. run folder appears → its first event on screen",
                label,
                format!("{} ({} runs)", med_max(&f.times), f.times.len()),
                "≤ 100 ms",
                format!("(the watch set up in {})", ms0(f.watch_setup)),
            );
        }
        if rows.has("5") {
            let e = common::live::run_ends(&mut l, LIVE_RUNS);
            let missed = if e.missed > 0 {
                format!(", {} not shown", e.missed)
            } else {
                String::new()
            };
            t.add(
                "5. a run ends → tree, statistics, details drawn",
                label,
                format!("{} ({} runs{missed})", med_max(&e.times), e.times.len()),
                "≤ 20 ms, no full rebuild",
                format!("full rebuild and frame: {}", med_max(&e.rebuild)),
            );
        }
    }

    if rows.has("issue17") {
        issue17(label, root, files, in_process.as_ref(), floor_warm, t);
    }
    if rows.has("10") {
        if let Some(tui) = &in_process {
            finder_pty(label, root, &tui.app, t);
        }
    }
}

/// `key` typed into `p`: from its write to its answer's last bytes.
fn typed(p: &mut Cockpit, read: &common::pty::LastRead, key: &str) -> Option<Duration> {
    let sent = Instant::now();
    p.press(key);
    read.answer(sent, QUIET, Duration::from_secs(2))
}

/// Rounds of the query typed in row 10.
const FINDER_ROUNDS: usize = 3;
/// A key's answer is over when no byte followed for this long.
const QUIET: Duration = Duration::from_millis(150);

/// Row 10: the finder's keystroke → frame through a real pty, beside an
/// interactive `fzf` in a pty of the same size on the same candidates (their
/// texts as the finder matches them, one a line on its input). Both wait
/// with the whole list shown; each key of the query is typed into one, then
/// the other, and timed from its write to the last bytes read before 150 ms
/// of quiet; the query is erased (one backspace a key) and typed again,
/// three rounds. Medians.
fn finder_pty(label: &str, root: &Path, app: &testdeck_tui::app::App, t: &mut Table) {
    let count = app.domain().candidates().len();
    let home = tempfile::tempdir().unwrap();
    let first = open_until_history(root, home.path());
    first.cockpit.settle(Duration::from_secs(30));
    quit(first);
    // a fresh open from the index, so the finder is the only thing at work
    let ours_read = common::pty::LastRead::default();
    let mut ours = Cockpit::open(
        exe(),
        root,
        Start::new(ROWS, COLS)
            .home(home.path())
            .hook(ours_read.hook()),
    );
    let drawn = ours.wait(" runs", LIMIT);
    ours.settle(Duration::from_secs(30));
    ours.press("/");
    let all = format!("{count}/{count}");
    if !drawn || !ours.wait(&all, Duration::from_secs(10)) {
        println!(
            "the finder did not show {all}; the screen:\n{}",
            ours.text()
        );
        return;
    }
    let _ = ours_read.answer(Instant::now(), QUIET, Duration::from_secs(2));
    let input = tempfile::NamedTempFile::new().unwrap();
    let mut lines = String::new();
    for c in app.domain().candidates() {
        lines.push_str(c.text.as_str());
        lines.push('\n');
    }
    std::fs::write(input.path(), lines).unwrap();
    let fzf_read = common::pty::LastRead::default();
    let mut fzf = has("fzf").then(|| {
        let mut cmd = portable_pty::CommandBuilder::new("sh");
        cmd.args(["-c", "exec fzf < \"$1\"", "sh"]);
        cmd.arg(input.path());
        cmd.env("TERM", "xterm-256color");
        for v in ["FZF_DEFAULT_OPTS", "FZF_DEFAULT_COMMAND"] {
            cmd.env_remove(v);
        }
        Cockpit::program(cmd, (ROWS, COLS), vec![fzf_read.hook()])
    });
    if let Some(f) = &fzf {
        let whole = format!("{count}/{count}");
        if !f.wait(&whole, Duration::from_secs(30)) {
            println!("fzf did not show {whole}; the screen:\n{}", f.text());
        }
        let _ = fzf_read.answer(Instant::now(), QUIET, Duration::from_secs(2));
    }
    let limit = Duration::from_secs(2);
    let (mut mine, mut theirs) = (Vec::new(), Vec::new());
    for round in 0..FINDER_ROUNDS {
        for c in common::QUERY.chars() {
            let key = c.to_string();
            // alternate which of the two takes the key first
            if round % 2 == 0 {
                mine.extend(typed(&mut ours, &ours_read, &key));
            }
            if let Some(f) = fzf.as_mut() {
                theirs.extend(typed(f, &fzf_read, &key));
            }
            if round % 2 == 1 {
                mine.extend(typed(&mut ours, &ours_read, &key));
            }
        }
        let erase = "\x7f".repeat(common::QUERY.chars().count());
        ours.press(&erase);
        let _ = ours_read.answer(Instant::now(), QUIET, limit);
        if let Some(f) = fzf.as_mut() {
            f.press(&erase);
            let _ = fzf_read.answer(Instant::now(), QUIET, limit);
        }
    }
    mine.sort();
    theirs.sort();
    let keys = FINDER_ROUNDS * common::QUERY.chars().count();
    let peer = if fzf.is_some() {
        let ratio = match (mine.get(mine.len() / 2), theirs.get(theirs.len() / 2)) {
            (Some(ours), Some(fzf)) if !fzf.is_zero() => {
                format!(": {:.2}x", ms(*ours) / ms(*fzf))
            }
            _ => String::new(),
        };
        format!(
            "interactive fzf, the same pty and keys: {} ({} of {keys}){ratio}",
            med_max(&theirs),
            theirs.len()
        )
    } else {
        "fzf is not installed: no peer (apt-get install fzf)".to_owned()
    };
    t.add(
        "10. finder keystroke → frame, in a pty",
        label,
        format!("{} ({} of {keys})", med_max(&mine), mine.len()),
        "≤ 1x interactive fzf",
        peer,
    );
}

/// The last round's rows (issue 17) still worth a look: `list --json`'s peak
/// RSS, `stats --json` beside the warm floor, `validate`'s opens and readlinks
/// per file, the finder beside `fzf --filter`.
fn issue17(
    label: &str,
    root: &Path,
    files: u64,
    tui: Option<&common::TuiFigures>,
    floor: Option<Duration>,
    t: &mut Table,
) {
    t.add(
        "issue 17: `list --json` peak RSS",
        label,
        mb(timed_peak(&["list", "--json"], root).1),
        "≤ 150 MB at 30k",
        "—".into(),
    );
    let stats = time_runs(
        Command::new(exe())
            .arg("--root")
            .arg(root)
            .args(["stats", "--json"]),
        3,
    );
    t.add(
        "issue 17: `stats --json`",
        label,
        ms0(stats),
        "≤ 0.5x the floor",
        floor.map_or_else(String::new, |f| format!("find -exec cat floor: {}", ms0(f))),
    );
    let validate = if has("strace") {
        validate_syscalls(root).map_or_else(
            || "?".to_owned(),
            |(o, r)| {
                let n = files.max(1) as f64;
                format!("{:.2} / {:.2}", o as f64 / n, r as f64 / n)
            },
        )
    } else {
        "strace missing".to_owned()
    };
    t.add(
        "issue 17: `validate`, opens / readlinks per file",
        label,
        validate,
        "≤ 1.05 / 0",
        "—".into(),
    );
    if let Some(tui) = tui {
        let fzf = common::fzf(&tui.app, common::QUERY).map_or_else(
            || "fzf missing".to_owned(),
            |d| format!("fzf --filter: {:.1} ms", ms(d)),
        );
        t.add(
            "issue 17: finder keystroke → frame",
            label,
            format!("{:.1} ms", ms(tui.key_median)),
            "",
            fzf,
        );
    }
}

/// The time of `testdeck ARGS` and its peak RSS in MB, through `/usr/bin/time`
/// (the child's rusage) when it is there, else by sampling `/proc` (a lower bound).
fn timed_peak(args: &[&str], root: &Path) -> (Duration, Option<f64>) {
    let time = Path::new("/usr/bin/time");
    if time.is_file() {
        let out = tempfile::NamedTempFile::new().unwrap();
        let t = Instant::now();
        let st = Command::new(time)
            .args(["-f", "%M", "-o"])
            .arg(out.path())
            .arg(exe())
            .arg("--root")
            .arg(root)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let took = t.elapsed();
        let kb = st
            .ok()
            .and_then(|_| std::fs::read_to_string(out.path()).ok())
            .and_then(|s| s.lines().last()?.trim().parse::<f64>().ok());
        return (took, kb.map(|k| k / 1024.0));
    }
    let t = Instant::now();
    let mut child = Command::new(exe())
        .arg("--root")
        .arg(root)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut peak = 0;
    while child.try_wait().ok().flatten().is_none() {
        peak = peak.max(common::vm_hwm_kb(Some(child.id())).unwrap_or(0));
        std::thread::sleep(Duration::from_millis(5));
    }
    (t.elapsed(), Some(peak as f64 / 1024.0))
}

/// `validate` under `strace -f -c`: (opens, readlinks) in all.
fn validate_syscalls(root: &Path) -> Option<(u64, u64)> {
    let out = tempfile::NamedTempFile::new().ok()?;
    // validate exits 1 when it finds problems; strace itself failing leaves no table
    let _ = Command::new("strace")
        .args(["-f", "-c", "-e", "trace=%file", "-o"])
        .arg(out.path())
        .arg(exe())
        .arg("--root")
        .arg(root)
        .arg("validate")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .ok()?;
    let table = std::fs::read_to_string(out.path()).ok()?;
    let (mut opens, mut readlinks) = (0, 0);
    for l in table.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        let (Some(name), Some(calls)) = (f.last(), f.get(3).and_then(|c| c.parse::<u64>().ok()))
        else {
            continue;
        };
        if name.starts_with("open") {
            opens += calls;
        } else if name.starts_with("readlink") {
            readlinks += calls;
        }
    }
    (opens > 0).then_some((opens, readlinks))
}

/// Row 8: `tail --json` beside GNU `tail -F` on 200k `"id":null` lines.
fn tail_row(t: &mut Table) {
    let ours = common::tail_burst(common::testdeck_tail(), common::null_line, 5);
    let gnu = has("tail").then(|| common::tail_burst(common::gnu_tail(), common::null_line, 5));
    t.add(
        &format!(
            "8. `tail --json`, {}-line burst with `\"id\":null`",
            grouped(common::BURST)
        ),
        "—",
        match gnu {
            Some(g) => format!("{:.3} s ({:.1}x)", ours, ours / g),
            None => format!("{ours:.3} s"),
        },
        "≤ 1.5x `tail -F`",
        gnu.map_or_else(
            || "GNU tail missing".to_owned(),
            |g| format!("GNU `tail -F`: {g:.3} s"),
        ),
    );
}

/// Row 9: `q` `y` 6 s into a launch's 2M-line flood, 3 times.
fn flood_row(t: &mut Table) {
    let (mut times, mut never, mut peak) = (Vec::new(), 0, 0);
    for _ in 0..3 {
        let q = common::flood::launch_then_quit(exe(), Duration::from_secs(6));
        match q.latency {
            Some(s) => times.push(Duration::from_secs_f64(s)),
            None => never += 1,
        }
        peak = peak.max(q.peak_mb);
    }
    times.sort();
    let never = if never > 0 {
        format!(", {never} never ended (300 s)")
    } else {
        String::new()
    };
    t.add(
        &format!(
            "9. quitting 6 s into a {}-line flood the cockpit launched",
            grouped(common::flood::FLOOD_LINES)
        ),
        "—",
        format!("{} of 3{never}", med_max(&times)),
        "≤ 100 ms",
        format!("(peak RSS before the keys: {peak} MB)"),
    );
}

fn main() {
    // `cargo test --all-targets` runs bench targets too: only measure under `cargo bench`
    if !std::env::args().any(|a| a == "--bench") {
        eprintln!("run with `cargo bench --bench scale`");
        return;
    }
    if !exe().is_file() {
        println!("the testdeck binary is not built (cargo bench builds it)");
        return;
    }
    let sizes = std::env::var("SCALE_SIZES").unwrap_or_else(|_| "10k,30k".into());
    let rows = Rows::from_env();
    let index = has_index();
    println!(
        "persistent index: {}",
        if index {
            "yes (--no-cache): warm opens measured"
        } else {
            "no (the binary has no --no-cache): warm opens are n/a"
        }
    );
    let mut t = Table::default();
    let started = Instant::now();
    for label in sizes.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let Some(cases) = common::ws::parse_size(label) else {
            println!("{label}: not a size (10k, 30k or a number of cases)");
            continue;
        };
        let Some((root, tmp)) = common::ws::workspace(cases, label) else {
            continue;
        };
        let t0 = Instant::now();
        measure(label, &root, &rows, &mut t, index);
        println!("{label}: measured in {:.0} s", t0.elapsed().as_secs_f64());
        if let Some(tmp) = tmp {
            let t = Instant::now();
            drop(tmp);
            println!(
                "{label}: workspace deleted in {:.1} s",
                t.elapsed().as_secs_f64()
            );
        }
    }
    if rows.has("8") {
        tail_row(&mut t);
    }
    if rows.has("9") {
        flood_row(&mut t);
    }
    println!(
        "\nall rows in {:.0} s\n\n{}",
        started.elapsed().as_secs_f64(),
        t.markdown()
    );
}
