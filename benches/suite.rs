//! A suite run streaming into a big workspace (figures, never pass/fail): a
//! real `sh` runner writes 1,000 run folders one after another into a
//! 10k-case workspace (5 runs a case) while the cockpit — the release binary in
//! a 160×48 pseudo-terminal — follows it; per event, the delay until a frame
//! shows it, and the cockpit's CPU time against the runner's.
//!
//!     cargo bench --bench suite
//!
//! - The workspace is the scale bench's `10k` (`TESTDECK_BENCH_WS=DIR` reuses
//!   `DIR/10k`; otherwise it is generated in a temporary folder and deleted).
//!   `SUITE_CASES` (default 1000) sets the cases run, spread over the tree;
//!   `SUITE_PAUSE_MS` (default 20) the runner's pause between two events.
//! - The runner (`sh`, written by the bench) runs as another terminal would run
//!   it, in the workspace root: for each case a run folder
//!   `tests/logs/<scope>/<caseId>/2099…/` with its timeline grown event by event
//!   (run start, three steps, the assertion, run finish: each stamped `ts` by
//!   `date` just before it is appended), then `runtime-events.jsonl`,
//!   `artifacts.json` and `meta.json` (written aside and renamed), as the
//!   seed's runners write them. The bench removes the run folders afterwards.
//! - Events on screen: each event is named `ev#<case>.<event>`; a hook on the
//!   cockpit's screen (vt100, at each read of the pty) notes when each name is
//!   first on it. The cockpit follows a new run in its live pane when no other
//!   run is live there; an event of a run it did not follow is never on screen
//!   (counted, not timed). The delay is from the event's `ts` to that read:
//!   p50, p99, max. Goal: every frame within 100 ms of its event.
//! - Runs counted: the status line's run count (`N cases · M runs`) reaching
//!   the run's number, from its first event's `ts` (a notice in the status line
//!   hides the count while it is shown).
//! - CPU: the cockpit's utime + stime (and its waited-for children's) from the
//!   runner's start until the cockpit has counted every run (it may lag: at
//!   most 5 minutes after the runner ended), from `/proc/PID/stat`; the runner's from the shell's own `times`
//!   (itself and every child: `date`, `sleep`, `mkdir`, `mv`). Goal: the
//!   cockpit's below the runner's.
//! - `SUITE_SCREEN=1` prints the cockpit's screen as the runner ends;
//!   `TESTDECK_BENCH_EXE=PATH` runs another build of the cockpit.
#![allow(clippy::unwrap_used)]

use common::pty::{Cockpit, FirstSeen, Start, history_count};
use common::ws::{bench_run_id, remove_bench_runs};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};
use testdeck_core::workspace::Workspace;

#[allow(dead_code)]
mod common;

/// Events a case's run writes.
const EVENTS: usize = 6;
/// How long the cockpit is given to catch up once the runner has ended.
const CATCH_UP: Duration = Duration::from_secs(300);
/// Clock ticks a second (`/proc/PID/stat`).
const TICKS: f64 = 100.0;

/// The runner: `sh runner.sh LIST PAUSE` in the workspace root, LIST a file
/// of `scope caseId` lines, PAUSE seconds between events; `times` at the end.
const RUNNER: &str = r#"list=$1
pause=$2
now() { date -u +%Y-%m-%dT%H:%M:%S.%3NZ; }
i=0
while read -r scope case; do
  i=$((i + 1))
  run=$(printf '20990101-%02d%02d%02d-000' $((i / 3600 % 24)) $((i / 60 % 60)) $((i % 60)))
  d="tests/logs/$scope/$case/$run"
  mkdir -p "$d"
  t=$d/timeline.jsonl
  started=$(now)
  printf '{"ts":"%s","type":"run","name":"ev#%d.0","status":"info","message":"case started","data":{}}\n' "$started" $i >> "$t"
  for k in 1 2 3; do
    sleep "$pause"
    printf '{"ts":"%s","type":"step","name":"ev#%d.%d","status":"ok","id":"s%d","message":"step done","data":{}}\n' "$(now)" $i $k $k >> "$t"
  done
  sleep "$pause"
  printf '{"ts":"%s","type":"assertion","name":"ev#%d.4","status":"ok","id":"a1","message":"result matches oracle","data":{}}\n' "$(now)" $i >> "$t"
  sleep "$pause"
  finished=$(now)
  printf '{"ts":"%s","type":"run","name":"ev#%d.5","status":"ok","message":"case finished","data":{}}\n' "$finished" $i >> "$t"
  printf '{"type":"session.started"}\n{"type":"session.closed"}\n' > "$d/runtime-events.jsonl"
  printf '{"schemaVersion":4,"items":[]}\n' > "$d/artifacts.json"
  printf '{"schemaVersion":4,"runId":"%s","caseId":"%s","scope":"%s","status":"passed","startedAt":"%s","finishedAt":"%s","stats":{"durationMs":100,"steps":3,"assertions":1,"errors":0,"artifacts":0},"runtime":{"driver":"node-harness","target":"main-process","modelName":null}}\n' "$run" "$case" "$scope" "$started" "$finished" > "$d/.meta.json.part"
  mv "$d/.meta.json.part" "$d/meta.json"
done < "$list"
times
"#;

fn env_or(var: &str, default: u64) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", common::ms(d))
}

/// `p50 …, p99 …, max …` of sorted delays.
fn percentiles(v: &[Duration]) -> String {
    if v.is_empty() {
        return "none".into();
    }
    let at = |p: f64| v[((v.len() as f64 * p).ceil() as usize).clamp(1, v.len()) - 1];
    format!(
        "p50 {}, p99 {}, max {}",
        ms(at(0.5)),
        ms(at(0.99)),
        ms(v[v.len() - 1])
    )
}

/// Seconds of CPU the shell's `times` says (itself and its children): the sum
/// of every `XmY.Zs` it prints.
fn times_seconds(out: &str) -> Option<f64> {
    let mut total = None;
    for w in out.split_whitespace() {
        let Some((m, s)) = w.strip_suffix('s').and_then(|w| w.split_once('m')) else {
            continue;
        };
        if let (Ok(m), Ok(s)) = (m.parse::<f64>(), s.parse::<f64>()) {
            *total.get_or_insert(0.0) += m * 60.0 + s;
        }
    }
    total
}

/// An event's `ts` (`YYYY-MM-DDTHH:MM:SS.mmmZ`) as a time.
fn parse_ts(ts: &str) -> Option<SystemTime> {
    let t = chrono::DateTime::parse_from_rfc3339(ts).ok()?;
    let ms = u64::try_from(t.timestamp_millis()).ok()?;
    Some(SystemTime::UNIX_EPOCH + Duration::from_millis(ms))
}

/// The `ts` of each event of run `i`'s timeline, by its event number.
fn timeline_times(file: &Path) -> HashMap<usize, SystemTime> {
    let mut out = HashMap::new();
    let text = std::fs::read_to_string(file).unwrap_or_default();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let (Some(name), Some(ts)) = (v["name"].as_str(), v["ts"].as_str().and_then(parse_ts))
        else {
            continue;
        };
        if let Some(k) = name
            .rsplit_once('.')
            .and_then(|(_, k)| k.parse::<usize>().ok())
        {
            out.insert(k, ts);
        }
    }
    out
}

/// What the hooks saw: each event's first read on screen, and when the status
/// line's run count first reached each value.
#[derive(Default)]
struct Seen {
    events: HashMap<(usize, usize), Instant>,
    counts: Vec<(u64, Instant)>,
}

#[expect(
    clippy::too_many_lines,
    reason = "a benchmark script read top to bottom: build, measure, print"
)]
fn main() {
    // `cargo test --all-targets` runs bench targets too: only measure under `cargo bench`
    if !std::env::args().any(|a| a == "--bench") {
        eprintln!("run with `cargo bench --bench suite`");
        return;
    }
    let exe = common::exe();
    if !exe.is_file() {
        println!("the testdeck binary is not built (cargo bench builds it)");
        return;
    }
    let n = env_or("SUITE_CASES", 1000) as usize;
    let pause_ms = env_or("SUITE_PAUSE_MS", 20);
    let Some((root, _tmp)) = common::ws::workspace(10_000, "10k") else {
        return;
    };
    let ws = Workspace::load_tree(&root).expect("tree");
    let cases: Vec<(String, String)> = ws
        .tests
        .cases
        .iter()
        .filter(|c| !c.temp)
        .map(|c| (c.scope.clone(), c.case_id.clone()))
        .collect();
    let total_cases = ws.tests.cases.len();
    drop(ws);
    let step = (cases.len() / n.max(1)).max(1);
    let chosen: Vec<(String, String)> = cases.into_iter().step_by(step).take(n).collect();
    let case_dirs: Vec<PathBuf> = chosen
        .iter()
        .map(|(scope, case)| root.join("tests/logs").join(scope).join(case))
        .collect();
    let left = remove_bench_runs(case_dirs.iter().map(PathBuf::as_path));
    if left > 0 {
        println!("removed {left} run folders an earlier bench left");
    }
    let work = tempfile::tempdir().unwrap();
    let list = work.path().join("cases.txt");
    let script = work.path().join("runner.sh");
    let mut lines = String::new();
    for (s, c) in &chosen {
        let _ = writeln!(lines, "{s} {c}");
    }
    std::fs::write(&list, lines).unwrap();
    std::fs::write(&script, RUNNER).unwrap();

    let seen = Arc::new(Mutex::new(Seen::default()));
    let hook: common::pty::Hook = {
        let seen = seen.clone();
        let re = regex::Regex::new(r"ev#(\d+)\.(\d+)").unwrap();
        Box::new(move |screen: &vt100::Screen, now: Instant| {
            let text = screen.contents();
            let Ok(mut s) = seen.lock() else { return };
            for c in re.captures_iter(&text) {
                if let (Ok(i), Ok(k)) = (c[1].parse(), c[2].parse()) {
                    s.events.entry((i, k)).or_insert(now);
                }
            }
            if let Some(count) = history_count(&text) {
                if s.counts.last().is_none_or(|(c, _)| count > *c) {
                    s.counts.push((count, now));
                }
            }
        })
    };
    let drawn = FirstSeen::default();
    let mut cockpit = Cockpit::open(
        exe,
        &root,
        Start::new(48, 160)
            .hook(drawn.hook(|s| history_count(s).is_some()))
            .hook(hook),
    );
    let Some(at) = drawn.wait(Duration::from_secs(600)) else {
        println!(
            "the cockpit never drew the history; the screen:\n{}",
            cockpit.text()
        );
        return;
    };
    println!(
        "the cockpit drew the history in {}; waiting for it to settle",
        ms(at - cockpit.spawned)
    );
    cockpit.settle(Duration::from_secs(60));
    let base = seen
        .lock()
        .ok()
        .and_then(|s| s.counts.last().map(|c| c.0))
        .unwrap_or(0);
    let pid = cockpit.pid();
    let cpu0 = common::cpu_ticks_with_children(pid).unwrap_or(0);
    // an Instant read on screen, as a wall-clock time (the runner's `ts`)
    let anchor = (Instant::now(), SystemTime::now());
    let wall = |i: Instant| anchor.1 + (i - anchor.0);
    let t0 = Instant::now();
    let out = Command::new("sh")
        .arg(&script)
        .arg(&list)
        .arg(format!("{:.3}", pause_ms as f64 / 1000.0))
        .current_dir(&root)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .expect("runner");
    let ran = t0.elapsed();
    if std::env::var_os("SUITE_SCREEN").is_some() {
        println!(
            "the cockpit's screen as the runner ended:\n{}",
            cockpit.text()
        );
    }
    // the cockpit catches up: every run counted on its status line (at most
    // CATCH_UP), then the last event on screen (at most 5 s more)
    let ended = Instant::now();
    let all = base + chosen.len() as u64;
    while ended.elapsed() < CATCH_UP
        && !seen
            .lock()
            .is_ok_and(|s| s.counts.last().is_some_and(|c| c.0 >= all))
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    let caught_up = ended.elapsed();
    let last = (chosen.len(), EVENTS - 1);
    let until = Instant::now() + Duration::from_secs(5);
    while Instant::now() < until && !seen.lock().is_ok_and(|s| s.events.contains_key(&last)) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let cockpit_cpu = common::cpu_ticks_with_children(pid)
        .unwrap_or(cpu0)
        .saturating_sub(cpu0) as f64
        / TICKS;
    let runner_cpu = times_seconds(&String::from_utf8_lossy(&out.stdout));
    let rss = common::vm_hwm_kb(Some(pid)).map_or(0, |k| k / 1024);
    let _ = cockpit.quit(&["q"], Duration::from_secs(10));

    // per event and per run, from its `ts` to the read that showed it
    let seen = seen
        .lock()
        .map(|mut s| std::mem::take(&mut *s))
        .unwrap_or_default();
    let (mut events, mut runs) = (Vec::new(), Vec::new());
    let (mut written, mut never, mut early) = (0, 0, 0);
    for (i, dir) in case_dirs.iter().enumerate() {
        let i = i + 1;
        let times = timeline_times(&dir.join(bench_run_id(i)).join("timeline.jsonl"));
        for k in 0..EVENTS {
            let Some(ts) = times.get(&k) else { continue };
            written += 1;
            match seen.events.get(&(i, k)) {
                Some(at) => match wall(*at).duration_since(*ts) {
                    Ok(d) => events.push(d),
                    // `ts` is cut to the millisecond: shown within it
                    Err(_) => early += 1,
                },
                None => never += 1,
            }
        }
        let counted = seen
            .counts
            .iter()
            .find(|(c, _)| *c >= base + i as u64)
            .map(|(_, at)| *at);
        if let (Some(ts), Some(at)) = (times.get(&0), counted) {
            runs.push(wall(at).duration_since(*ts).unwrap_or_default());
        }
    }
    events.extend(std::iter::repeat_n(Duration::ZERO, early));
    events.sort();
    runs.sort();
    let removed = remove_bench_runs(case_dirs.iter().map(PathBuf::as_path));

    println!(
        "suite: {} cases × {EVENTS} events into a {total_cases}-case workspace, the runner's pause {pause_ms} ms; it ran {:.1} s, the cockpit counted its last run {:.1} s after ({removed} run folders removed after)",
        chosen.len(),
        ran.as_secs_f64(),
        caught_up.as_secs_f64()
    );
    let events_row = format!(
        "{} of {written} events shown: {}",
        events.len(),
        percentiles(&events)
    );
    let never_note = format!("{never} never shown (their run was not the one followed)");
    let runs_row = format!(
        "{} of {} runs counted: {}",
        runs.len(),
        chosen.len(),
        percentiles(&runs)
    );
    let cpu_row = format!(
        "cockpit {cockpit_cpu:.2} s, runner {}",
        runner_cpu.map_or_else(
            || "?".to_owned(),
            |r| format!("{r:.2} s ({:.2}x)", cockpit_cpu / r)
        )
    );
    println!("event → frame (live pane): {events_row}; {never_note}");
    println!("run → status line's count: {runs_row}");
    println!("CPU over the run: {cpu_row}; the cockpit's peak RSS {rss} MB");
    println!();
    println!(
        "| a {}-case suite run into a {total_cases}-case workspace | measured | goal |",
        chosen.len()
    );
    println!("|---|---|---|");
    println!(
        "| event → frame that shows it (live pane) | {events_row}; {never_note} | every frame within 100 ms |"
    );
    println!("| run → the status line counts it | {runs_row} | within 100 ms |");
    println!("| CPU time over the run | {cpu_row} | cockpit below the runner |");
}
