//! The scaling curve of issue 17 (figures, never pass/fail): for generated
//! workspaces of 1k / 10k / 30k / 100k cases (5 runs a case), every row of the
//! issue's table beside its peer — the tree drawn and the history indexed (in
//! process), the TUI's and `list --json`'s peak RSS, `stats --json` beside the
//! `find … meta.json -exec cat` floor, `validate`'s opens and readlinks per
//! file (strace), the finder beside `fzf --filter` — and `tail -f --json`
//! beside GNU `tail -F` on compact and on spaced JSON lines. Ends with the
//! markdown tables `docs/performance.md` holds.
//!
//!     SCALE_SIZES=1k,10k,30k cargo bench --bench scale
//!
//! `SCALE_SIZES` (default `1k,10k`) chooses the sizes. `TESTDECK_BENCH_WS=DIR`
//! keeps the workspaces in `DIR/<size>` and reuses them; otherwise each is
//! generated in a temporary folder and deleted when measured. A size is
//! skipped when generating it would leave less than 20 GB free.
#![allow(clippy::unwrap_used)]

use common::{Follow, LineFn, median, ms};
use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

#[allow(dead_code)]
mod common;

// the generator of `cargo run --example gen-workspace`, one home
#[allow(dead_code)]
#[path = "../examples/gen-workspace.rs"]
mod generator;

/// Runs generated per case (the 10k cases / 50k runs).
const RUNS_PER_CASE: usize = 5;
/// Free space a generated workspace must leave on its filesystem.
const KEEP_FREE: u64 = 20 << 30;
/// Disk a generated case takes with its runs, about (measured: 10k cases,
/// 242k files, 1.1 GB).
const BYTES_PER_CASE: u64 = 150 << 10;
/// Lines of one tail burst, and bursts per follower (the median is kept).
const BURST: u64 = 200_000;
const BURSTS: usize = 5;

/// One size's figures; `None` where a tool is missing or a step failed.
#[derive(Default)]
struct Figures {
    label: String,
    cases: usize,
    runs: usize,
    files: u64,
    tree_ms: f64,
    indexed_ms: f64,
    tui_rss_mb: Option<f64>,
    list_rss_mb: Option<f64>,
    stats_s: f64,
    floor_s: f64,
    /// (opens, readlinks) per file.
    validate: Option<(f64, f64)>,
    key_ms: f64,
    fzf_ms: Option<f64>,
}

fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim().to_ascii_lowercase();
    match s.strip_suffix('k') {
        Some(k) => k.parse::<usize>().ok().map(|k| k * 1000),
        None => s.parse().ok(),
    }
}

fn free_bytes(path: &Path) -> Option<u64> {
    let st = rustix::fs::statvfs(path).ok()?;
    Some(st.f_bavail * st.f_frsize)
}

fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_testdeck")
}

/// Regular files under `dir`, from the directory entries' types.
fn count_files(dir: &Path) -> u64 {
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(e.path()),
                Ok(t) if t.is_file() => n += 1,
                _ => {}
            }
        }
    }
    n
}

/// The time of `cmd` and its peak RSS in MB, through `/usr/bin/time` (the
/// child's rusage) when it is there, else by sampling `/proc` (a lower bound).
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

fn time_runs(cmd: &mut Command, reps: usize) -> Duration {
    let mut v = Vec::new();
    for _ in 0..reps {
        let t = Instant::now();
        let _ = cmd.stdout(Stdio::null()).stderr(Stdio::null()).status();
        v.push(t.elapsed());
    }
    median(v)
}

/// Peak RSS of the real TUI in a pseudo-terminal once it has indexed the
/// workspace (no "indexing" on its screen, its CPU time no longer growing), in MB.
fn tui_peak_rss(root: &Path) -> Option<f64> {
    use portable_pty::{CommandBuilder, PtySize, native_pty_system};
    let pty = native_pty_system()
        .openpty(PtySize {
            rows: 48,
            cols: 160,
            pixel_width: 0,
            pixel_height: 0,
        })
        .ok()?;
    let mut cmd = CommandBuilder::new(exe());
    cmd.arg("--root");
    cmd.arg(root);
    cmd.env("TERM", "xterm-256color");
    let mut child = pty.slave.spawn_command(cmd).ok()?;
    let mut reader = pty.master.try_clone_reader().ok()?;
    // what the screen says: drawn at all, and "indexing…" in the status bar
    let drawn = Arc::new(AtomicBool::new(false));
    let indexing = Arc::new(AtomicBool::new(true));
    {
        let (drawn, indexing) = (drawn.clone(), indexing.clone());
        std::thread::spawn(move || {
            let mut screen = vt100::Parser::new(48, 160, 0);
            let mut b = vec![0u8; 65536];
            while let Ok(n @ 1..) = std::io::Read::read(&mut reader, &mut b) {
                screen.process(&b[..n]);
                let text = screen.screen().contents();
                drawn.store(!text.trim().is_empty(), Ordering::Relaxed);
                indexing.store(text.contains("indexing"), Ordering::Relaxed);
            }
        });
    }
    let pid = child.process_id()?;
    let until = Instant::now() + Duration::from_secs(600);
    let (mut last, mut quiet) = (0, 0);
    // indexed: the screen drawn without "indexing", and the CPU time no longer
    // growing for a second (a starved process on a loaded machine also gets
    // few ticks, so the screen decides, not the CPU alone)
    while Instant::now() < until && quiet < 4 {
        std::thread::sleep(Duration::from_millis(250));
        let now = common::cpu_ticks(pid)?;
        let done = drawn.load(Ordering::Relaxed) && !indexing.load(Ordering::Relaxed);
        quiet = if done && now.saturating_sub(last) <= 1 {
            quiet + 1
        } else {
            0
        };
        last = now;
    }
    let kb = common::vm_hwm_kb(Some(pid));
    let _ = child.kill();
    let _ = child.wait();
    kb.map(|k| k as f64 / 1024.0)
}

/// `validate` under `strace -f -c`: (opens, readlinks) in all.
fn validate_syscalls(root: &Path) -> Option<(u64, u64)> {
    let out = tempfile::NamedTempFile::new().ok()?;
    let st = Command::new("strace")
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
    // validate exits 1 when it finds problems; strace itself failing leaves no table
    let _ = st;
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

fn has(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

/// The workspace of `cases` cases: reused or generated; the temporary folder
/// that holds it when it is to be deleted.
fn workspace(cases: usize, label: &str) -> Option<(PathBuf, Option<tempfile::TempDir>)> {
    let (dir, tmp) = if let Some(base) = std::env::var_os("TESTDECK_BENCH_WS") {
        (PathBuf::from(base).join(label), None)
    } else {
        let t = tempfile::tempdir().unwrap();
        (t.path().join("ws"), Some(t))
    };
    if dir.join("tests").is_dir() {
        println!("reusing {label} workspace");
        return Some((dir, tmp));
    }
    let parent = dir.parent().unwrap_or(&dir).to_path_buf();
    std::fs::create_dir_all(&parent).ok()?;
    let need = cases as u64 * BYTES_PER_CASE;
    let free = free_bytes(&parent).unwrap_or(0);
    if free < need + KEEP_FREE {
        println!(
            "{label}: skipped, generating needs about {:.1} GB and only {:.1} GB are free (20 GB are kept free)",
            need as f64 / f64::from(1u32 << 30),
            free as f64 / f64::from(1u32 << 30)
        );
        return None;
    }
    let t = Instant::now();
    let s = generator::generate(&generator::Options {
        out: dir.clone(),
        cases,
        runs: cases * RUNS_PER_CASE,
        catalog: 0,
        seed: 42,
    })
    .unwrap();
    println!(
        "generated {label}: {} cases, {} runs, {} files in {:.1} s",
        s.cases,
        s.runs,
        s.files,
        t.elapsed().as_secs_f64()
    );
    Some((dir, tmp))
}

fn measure(label: &str, root: &Path, tools: &Tools) -> Figures {
    let mut f = Figures {
        label: label.to_owned(),
        files: count_files(root),
        ..Figures::default()
    };
    // the page cache warm for every side
    let _ = Command::new("sh")
        .arg("-c")
        .arg("find \"$1\" -type f -exec cat {} + > /dev/null")
        .arg("sh")
        .arg(root)
        .status();

    let tui = common::measure_tui(root);
    f.cases = tui.cases;
    f.runs = tui.runs;
    f.tree_ms = ms(tui.tree);
    f.indexed_ms = ms(tui.indexed);
    f.key_ms = ms(tui.key_median);
    f.fzf_ms = tools
        .fzf
        .then(|| common::fzf(&tui.app, common::QUERY).map(ms))
        .flatten();
    println!(
        "{label}: {} cases, {} runs, {} files; tree drawn {:.0} ms, history indexed {:.0} ms; finder key → frame median {:.2} ms (max {:.2}) over {} candidates",
        f.cases,
        f.runs,
        f.files,
        f.tree_ms,
        f.indexed_ms,
        f.key_ms,
        ms(tui.key_max),
        tui.candidates
    );
    drop(tui);

    f.tui_rss_mb = tui_peak_rss(root);
    f.list_rss_mb = timed_peak(&["list", "--json"], root).1;
    let stats = time_runs(
        Command::new(exe())
            .arg("--root")
            .arg(root)
            .args(["stats", "--json"]),
        3,
    );
    let floor = time_runs(&mut common::meta_floor(root), 3);
    f.stats_s = stats.as_secs_f64();
    f.floor_s = floor.as_secs_f64();
    if tools.strace {
        f.validate = validate_syscalls(root).map(|(o, r)| {
            let n = f.files.max(1) as f64;
            (o as f64 / n, r as f64 / n)
        });
    }
    println!(
        "{label}: TUI peak RSS {}; list --json peak RSS {}; stats --json {:.2} s vs find+cat {:.2} s; validate opens/readlinks per file {}",
        mb(f.tui_rss_mb),
        mb(f.list_rss_mb),
        f.stats_s,
        f.floor_s,
        f.validate.map_or_else(
            || "(strace missing)".to_owned(),
            |(o, r)| format!("{o:.2} / {r:.2}")
        )
    );
    f
}

fn mb(v: Option<f64>) -> String {
    v.map_or_else(|| "?".to_owned(), |m| format!("{m:.0} MB"))
}

struct Tools {
    strace: bool,
    fzf: bool,
    tail: bool,
}

/// Median time of a 200k-line burst through `cmd`, fed `line`.
fn tail_burst(cmd: Command, line: LineFn) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("timeline.jsonl");
    File::create(&file).unwrap();
    let mut cmd = cmd;
    cmd.arg(&file);
    let mut w = OpenOptions::new().append(true).open(&file).unwrap();
    let f = Follow::start(cmd);
    f.until_following(&mut w, line);
    let mut next = 0;
    let b = f.bursts(&mut w, line, &mut next, BURST, BURSTS);
    b[b.len() / 2].as_secs_f64()
}

/// (testdeck, GNU tail) burst seconds for compact and spaced lines.
fn tails(tools: &Tools) -> Vec<(&'static str, f64, Option<f64>)> {
    let forms: [(&str, LineFn); 2] = [
        ("compact", common::line),
        ("spaced (`json.dumps`)", common::spaced_line),
    ];
    forms
        .into_iter()
        .map(|(form, line)| {
            let mut td = Command::new(exe());
            td.args(["tail", "--follow", "--json"]);
            let ours = tail_burst(td, line);
            let gnu = tools.tail.then(|| {
                let mut t = Command::new("tail");
                t.args(["-F", "-n", "0"]);
                tail_burst(t, line)
            });
            println!(
                "tail, {BURST}-line burst of {form} lines: testdeck tail -f --json {ours:.3} s, GNU tail -F {}",
                gnu.map_or_else(|| "(not installed)".to_owned(), |g| format!("{g:.3} s ({:.1}x)", ours / g))
            );
            (form, ours, gnu)
        })
        .collect()
}

fn table(figs: &[Figures], tails: &[(&str, f64, Option<f64>)], tools: &Tools) -> String {
    let mut t = String::new();
    let head: Vec<&str> = figs.iter().map(|f| f.label.as_str()).collect();
    let _ = writeln!(t, "| | {} | goal |", head.join(" | "));
    let _ = writeln!(t, "|---|{}---|", "---|".repeat(figs.len()));
    let row = |t: &mut String, name: &str, goal: &str, cell: &dyn Fn(&Figures) -> String| {
        let cells: Vec<String> = figs.iter().map(cell).collect();
        let _ = writeln!(t, "| {name} | {} | {goal} |", cells.join(" | "));
    };
    row(&mut t, "cases / runs / files", "", &|f| {
        format!(
            "{} / {} / {}",
            thousands(f.cases as u64),
            thousands(f.runs as u64),
            thousands(f.files)
        )
    });
    row(
        &mut t,
        "TUI: tree drawn (ms)",
        "≤ 100 at 10k, ≤ 200 at 30k",
        &|f| thousands(f.tree_ms.round() as u64),
    );
    row(
        &mut t,
        "TUI: history indexed (ms) vs the cat floor",
        "≤ the cat floor",
        &|f| {
            format!(
                "{} vs {}",
                thousands(f.indexed_ms.round() as u64),
                thousands((f.floor_s * 1000.0).round() as u64)
            )
        },
    );
    row(
        &mut t,
        "TUI peak RSS (MB)",
        "≤ 100 at 10k, ≤ 250 at 30k",
        &|f| f.tui_rss_mb.map_or("?".into(), |m| format!("{m:.0}")),
    );
    row(
        &mut t,
        "`list --json` peak RSS (MB)",
        "≤ 150 at 30k",
        &|f| f.list_rss_mb.map_or("?".into(), |m| format!("{m:.0}")),
    );
    row(
        &mut t,
        "`stats --json` (s) vs `find -name meta.json -exec cat`",
        "≤ 0.5x the floor",
        &|f| format!("{:.2} vs {:.2}", f.stats_s, f.floor_s),
    );
    row(
        &mut t,
        "`validate`: opens / readlinks per file",
        "≤ 1.05 / 0",
        &|f| match (tools.strace, f.validate) {
            (false, _) => "strace missing".into(),
            (true, None) => "?".into(),
            (true, Some((o, r))) => format!("{o:.2} / {r:.2}"),
        },
    );
    row(
        &mut t,
        "finder keystroke → frame (ms) vs `fzf --filter`",
        "",
        &|f| match (tools.fzf, f.fzf_ms) {
            (false, _) => format!("{:.1} vs fzf missing", f.key_ms),
            (true, None) => format!("{:.1} vs ?", f.key_ms),
            (true, Some(z)) => format!("{:.1} vs {z:.1}", f.key_ms),
        },
    );
    let _ = writeln!(t);
    let _ = writeln!(
        t,
        "| {BURST}-line burst (s) | `testdeck tail -f --json` | GNU `tail -F` | ratio | goal |"
    );
    let _ = writeln!(t, "|---|---|---|---|---|");
    for (form, ours, gnu) in tails {
        let (g, r) = gnu.map_or(("not installed".to_owned(), "?".to_owned()), |g| {
            (format!("{g:.3}"), format!("{:.1}x", ours / g))
        });
        let _ = writeln!(t, "| {form} | {ours:.3} | {g} | {r} | ≤ 2x |");
    }
    t
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn main() {
    // `cargo test --all-targets` runs bench targets too: only measure under `cargo bench`
    if !std::env::args().any(|a| a == "--bench") {
        eprintln!("run with `cargo bench --bench scale`");
        return;
    }
    let sizes = std::env::var("SCALE_SIZES").unwrap_or_else(|_| "1k,10k".into());
    let tools = Tools {
        strace: has("strace"),
        fzf: has("fzf"),
        tail: has("tail"),
    };
    for (tool, there) in [
        ("strace", tools.strace),
        ("fzf", tools.fzf),
        ("GNU tail", tools.tail),
    ] {
        if !there {
            println!("{tool} missing: its figures are left out");
        }
    }
    let mut figs = Vec::new();
    for label in sizes.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let Some(cases) = parse_size(label) else {
            println!("{label}: not a size (1k, 10k, 30k, 100k or a number)");
            continue;
        };
        let Some((root, tmp)) = workspace(cases, label) else {
            continue;
        };
        figs.push(measure(label, &root, &tools));
        if let Some(tmp) = tmp {
            let t = Instant::now();
            drop(tmp);
            println!(
                "{label}: workspace deleted in {:.1} s",
                t.elapsed().as_secs_f64()
            );
        }
    }
    let tails = tails(&tools);
    println!("\n{}", table(&figs, &tails, &tools));
}
