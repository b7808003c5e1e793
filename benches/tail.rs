//! Figures for the tail engine, measured on the real binary beside GNU `tail -F`:
//! write-to-print latency (p50/p99), a 200k-line burst for each shape of line
//! (compact JSON; the same with spaces as Python's `json.dumps` writes them;
//! `null`, `true`/`false`, numbers of every form, nested arrays and objects),
//! RSS and throughput on a 1 GB timeline, CPU while idle for 10 s, and the line
//! index on the same file.
//!
//! `cargo bench --bench tail` (release). `TAIL_BENCH_MB` sets the big file's size
//! (default 1024; 0 skips it); `TAIL_BENCH_FORMS` the shapes measured (a comma
//! list of [`FORMS`]' names, default all); `TAIL_BENCH_PRETTY=0` leaves out the
//! pretty follower. Prints figures; asserts nothing about speed.
#![allow(clippy::unwrap_used)]

use common::{BURST, FORMS, Follow, LineFn, line};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::Command;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use testdeck_core::tail::{Follower, LineIndex, Start, TailEvent, Watch};

#[allow(dead_code)]
mod common;

const SAMPLES: u64 = 500;
/// Bursts per follower; the median is reported.
const BURSTS: usize = 7;

fn pct(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

/// Latency samples, the burst, idle CPU for one follower command, fed the
/// lines `line` writes.
/// Returns the burst's median (s).
fn run_small(label: &str, cmd: Command, file: &Path, idle: bool, line: LineFn) -> f64 {
    let mut w = OpenOptions::new().append(true).open(file).unwrap();
    let f = Follow::start(cmd);
    f.until_following(&mut w, line);
    let mut lat = Vec::new();
    for seq in 1..=SAMPLES {
        let t = Instant::now();
        w.write_all(line(seq).as_bytes()).unwrap();
        lat.push(f.wait_for(seq) - t);
        std::thread::sleep(Duration::from_millis(3));
    }
    lat.sort();
    // several bursts, a pause between them: one burst is at the mercy of the
    // scheduler of a small machine, the median is not
    let mut next = SAMPLES;
    let bursts = f.bursts(&mut w, line, &mut next, BURST, BURSTS);
    println!(
        "{label:<36} latency p50 {:.3} ms  p99 {:.3} ms  max {:.3} ms | 200k burst median {:.3} s (min {:.3}, max {:.3}, {BURSTS} bursts)",
        pct(&lat, 0.5),
        pct(&lat, 0.99),
        pct(&lat, 1.0),
        pct(&bursts, 0.5) / 1000.0,
        pct(&bursts, 0.0) / 1000.0,
        pct(&bursts, 1.0) / 1000.0,
    );
    if idle {
        let before = f.cpu_seconds();
        std::thread::sleep(Duration::from_secs(10));
        let after = f.cpu_seconds();
        println!("{label:<36} CPU while idle 10 s: {:.2} s", after - before);
    }
    pct(&bursts, 0.5) / 1000.0
}

/// Where the time of a burst goes, inside the process: reading and parsing,
/// then writing JSON, then pretty lines.
fn engine(label: &str, file: &Path, line: LineFn) {
    let text: String = (1..=BURST).map(line).collect();
    std::fs::write(file, &text).unwrap();
    let t = Instant::now();
    let mut f = Follower::with_watch(file, Start::Beginning, Watch::Off);
    let mut events = Vec::new();
    loop {
        let b = f.read_available();
        if b.is_empty() {
            break;
        }
        events.extend(b);
    }
    let parsed = t.elapsed();
    let t = Instant::now();
    let mut out = Vec::with_capacity(text.len() * 2);
    for e in &events {
        if let TailEvent::Line(l) = e {
            l.write_json(&mut out).unwrap();
            out.push(b'\n');
        }
    }
    let json = t.elapsed();
    let t = Instant::now();
    let mut n = 0;
    for e in &events {
        if let TailEvent::Line(l) = e {
            n += l.pretty(false).len();
        }
    }
    let pretty = t.elapsed();
    println!(
        "== engine, {BURST} {label} lines in-process: read+parse {:.3} s, JSON out {:.3} s, pretty out {:.3} s ({} events, {n} bytes)",
        parsed.as_secs_f64(),
        json.as_secs_f64(),
        pretty.as_secs_f64(),
        events.len()
    );
}

#[expect(
    clippy::too_many_lines,
    reason = "a benchmark script read top to bottom: build, measure, print"
)]
fn main() {
    // `cargo test --all-targets` runs bench targets too: only measure under `cargo bench`
    if !std::env::args().any(|a| a == "--bench") {
        eprintln!("run with `cargo bench --bench tail`");
        return;
    }
    let exe = common::exe();
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("timeline.jsonl");
    let has_tail = Command::new("tail").arg("--version").output().is_ok();

    let wanted = std::env::var("TAIL_BENCH_FORMS").ok();
    let forms: Vec<(&str, LineFn)> = FORMS
        .into_iter()
        .filter(|(name, _)| {
            wanted
                .as_deref()
                .is_none_or(|w| w.split(',').any(|x| x.trim() == *name))
        })
        .collect();
    let pretty = std::env::var("TAIL_BENCH_PRETTY").map_or(true, |v| v != "0");
    for &(form, gen_line) in &forms {
        engine(form, &small, gen_line);
    }
    println!("== write-to-print latency ({SAMPLES} samples, 3 ms apart) and a {BURST}-line burst");
    let mut table = Vec::new();
    for &(form, gen_line) in &forms {
        let mut ours = 0.0;
        for (label, args) in [
            ("testdeck tail -f --json", vec!["--json"]),
            ("testdeck tail -f (pretty)", vec![]),
        ] {
            if args.is_empty() && !pretty {
                continue;
            }
            File::create(&small).unwrap();
            let mut cmd = Command::new(exe);
            cmd.args(["tail", "--follow"])
                .args(&args)
                .arg(&small)
                .env("NO_COLOR", "1");
            // idle CPU does not depend on the form: measured once
            let idle = args.is_empty() && form == "compact";
            let median = run_small(&format!("{label} {form}"), cmd, &small, idle, gen_line);
            if !args.is_empty() {
                ours = median;
            }
        }
        let gnu = has_tail.then(|| {
            File::create(&small).unwrap();
            let mut cmd = Command::new("tail");
            cmd.args(["-F", "-n", "0"]).arg(&small);
            run_small(
                &format!("GNU tail -F {form}"),
                cmd,
                &small,
                form == "compact",
                gen_line,
            )
        });
        table.push((form, ours, gnu));
    }
    println!("| {BURST}-line burst (s) | `testdeck tail -f --json` | GNU `tail -F` | ratio |");
    println!("|---|---|---|---|");
    for (form, ours, gnu) in table {
        match gnu {
            Some(g) => println!("| {form} | {ours:.3} | {g:.3} | {:.1}x |", ours / g),
            None => println!("| {form} | {ours:.3} | (not installed) | |"),
        }
    }

    let mb: u64 = std::env::var("TAIL_BENCH_MB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1024);
    if mb == 0 {
        return;
    }
    println!("== a {mb} MB timeline");
    let big = dir.path().join("big.jsonl");
    let t = Instant::now();
    let mut lines = 0u64;
    {
        let mut w = BufWriter::with_capacity(1 << 20, File::create(&big).unwrap());
        let mut written = 0u64;
        while written < mb << 20 {
            let l = line(1_000_000_000 + lines);
            w.write_all(l.as_bytes()).unwrap();
            written += l.len() as u64;
            lines += 1;
        }
        w.flush().unwrap();
    }
    println!(
        "written: {lines} lines in {:.1} s",
        t.elapsed().as_secs_f64()
    );

    // following from the last 10 lines, then new lines
    let t = Instant::now();
    let mut cmd = Command::new(exe);
    cmd.args(["tail", "--follow", "--json"]).arg(&big);
    let f = Follow::start(cmd);
    f.wait_for(1_000_000_000 + lines - 1);
    let opened = t.elapsed();
    let mut w = OpenOptions::new().append(true).open(&big).unwrap();
    for i in 0..1000 {
        w.write_all(line(5_000_000_000 + i).as_bytes()).unwrap();
    }
    f.wait_for(5_000_000_000 + 999);
    let (rss, peak) = f.rss_mb();
    println!(
        "testdeck tail -f (last 10):  first lines after {:.3} s; RSS {rss:.1} MB, peak {peak:.1} MB",
        opened.as_secs_f64()
    );
    drop(f);

    // streaming the whole file, as --from-start does
    let t = Instant::now();
    let mut cmd = Command::new(exe);
    cmd.args(["tail", "--follow", "--json", "--from-start"])
        .arg(&big);
    let f = Follow::start(cmd);
    let mut peak = 0.0f64;
    let mut sampled = Instant::now();
    let last = 5_000_000_000 + 999;
    loop {
        match f.seen.recv_timeout(Duration::from_millis(200)) {
            Ok((s, _)) if s == last => break,
            Ok(_) | Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => panic!("tail ended early"),
        }
        if sampled.elapsed() > Duration::from_millis(100) {
            peak = peak.max(f.rss_mb().1);
            sampled = Instant::now();
        }
    }
    let took = t.elapsed().as_secs_f64();
    let (rss, hwm) = f.rss_mb();
    println!(
        "testdeck tail -f --from-start: {lines} lines in {took:.1} s ({:.0} MB/s); RSS {rss:.1} MB, peak {:.1} MB",
        mb as f64 / took,
        hwm.max(peak)
    );
    drop(f);

    // the index the TUI uses to show any window of the file
    let t = Instant::now();
    let idx = LineIndex::build(&big).unwrap();
    let built = t.elapsed();
    let t = Instant::now();
    let window = idx.read_lines(idx.len() / 2..idx.len() / 2 + 50).unwrap();
    let read = t.elapsed();
    println!(
        "LineIndex: {} lines indexed in {:.2} s, {:.2} MB of offsets; 50 lines from the middle in {:.3} ms ({} read)",
        idx.len(),
        built.as_secs_f64(),
        idx.memory_bytes() as f64 / 1_048_576.0,
        read.as_secs_f64() * 1000.0,
        window.len()
    );
}
