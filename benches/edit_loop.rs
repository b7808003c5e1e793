//! The edit-and-test loop (figures, never pass/fail): one source edit in a
//! 60-file vitest suite, `testdeck watch` beside `npx vitest related` of the
//! same file.
//!
//!     cargo bench --bench edit_loop
//!
//! - The project is generated in a temporary folder (deleted afterwards): 60
//!   vitest files `tests/loop/backend/lib/cNN.test.ts` of 5 tests each, over a
//!   source tree of 80 modules — `src/lib/lNN.ts` (one a test file, each
//!   importing a leaf) over `src/util/uNN.ts` (20 leaves, each reached by 3
//!   test files) — a `vitest.config.ts` taking `tests/**/*.test.ts`, and
//!   `node_modules` linked to `examples/realworld`'s (the pinned vitest);
//!   `testdeck init` writes its runner, reporters and `testdeck.toml`.
//! - testdeck: `testdeck watch --json` (no `--debounce-ms`: a lone save reruns
//!   at once), started once; each round appends a line to `src/util/u07.ts`,
//!   then reads the watch's lines, each stamped as it arrives: **start** is the
//!   write to the launch's `runner-start` line (the runner process spawned for
//!   the cases the edit reaches: the trigger must name exactly the 3), **end**
//!   the write to its `summary`. Goal: start ≤ 300 ms.
//! - Its peer: `npx vitest related src/util/u07.ts --run` (and the same without
//!   npx, `node node_modules/vitest/vitest.mjs related …`), spawn to exit, after
//!   the same edit. Goal: testdeck's end ≤ 1.5× `npx vitest related`.
//! - `EDIT_LOOP_ROUNDS` (default 7) rounds, interleaved (testdeck, npx, node,
//!   testdeck, …); a second's pause before each edit (a quiet spell, as
//!   between a person's saves). Medians and every figure are printed.
//!   `TESTDECK_BENCH_EXE=PATH` runs another build; `EDIT_LOOP_DEBOUNCE_MS=N`
//!   gives the watch `--debounce-ms N` (every save waits for the quiet period,
//!   as the watch did before a lone save started at once).
#![allow(clippy::unwrap_used)]

use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// The testdeck binary cargo built for the bench, or `TESTDECK_BENCH_EXE`'s.
fn exe() -> std::path::PathBuf {
    std::env::var_os("TESTDECK_BENCH_EXE").map_or_else(
        || std::path::PathBuf::from(env!("CARGO_BIN_EXE_testdeck")),
        std::path::PathBuf::from,
    )
}

const FILES: usize = 60;
const LEAVES: usize = 20;
const TESTS_A_FILE: usize = 5;
const EDITED: &str = "src/util/u07.ts";

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn append(root: &Path, rel: &str, text: &str) {
    use std::io::Write as _;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(root.join(rel))
        .unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

/// The generated project (see the file's head).
fn project(root: &Path, modules: &Path) {
    write(
        root,
        "package.json",
        r#"{ "name": "edit-loop", "private": true, "type": "module", "scripts": { "test": "vitest" }, "devDependencies": { "vitest": "4.1.12" } }
"#,
    );
    write(
        root,
        "vitest.config.ts",
        "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['tests/**/*.test.ts'] } });\n",
    );
    std::os::unix::fs::symlink(modules, root.join("node_modules")).unwrap();
    for u in 0..LEAVES {
        write(
            root,
            &format!("src/util/u{u:02}.ts"),
            &format!(
                "export const base{u} = {u};\nexport function scale{u}(x: number): number {{\n  return x * {m};\n}}\n",
                m = u + 2
            ),
        );
    }
    for k in 0..FILES {
        let u = k % LEAVES;
        write(
            root,
            &format!("src/lib/l{k:02}.ts"),
            &format!(
                "import {{ base{u}, scale{u} }} from '../util/u{u:02}';\nexport function value{k}(x: number): number {{\n  return scale{u}(x) + base{u};\n}}\n"
            ),
        );
        let mut t = format!(
            "import {{ describe, expect, it }} from 'vitest';\nimport {{ value{k} }} from '../../../../src/lib/l{k:02}';\n\ndescribe('value{k}', () => {{\n"
        );
        for i in 0..TESTS_A_FILE {
            let want = i * (u + 2) + u;
            let _ = write!(
                t,
                "  it('maps {i}', () => {{\n    expect(value{k}({i})).toBe({want});\n  }});\n"
            );
        }
        t.push_str("});\n");
        write(root, &format!("tests/loop/backend/lib/c{k:02}.test.ts"), &t);
    }
    let out = Command::new(exe())
        .arg("--root")
        .arg(root)
        .arg("init")
        .output()
        .unwrap();
    assert!(out.status.success(), "init: {out:?}");
}

/// A line of the watch and when it arrived.
type Stamped = (Instant, serde_json::Value);

fn watch(root: &Path, cache: &Path) -> (Child, Receiver<Stamped>) {
    let mut child = Command::new(exe())
        .arg("--root")
        .arg(root)
        .args(["watch", "--json"])
        .args(
            std::env::var("EDIT_LOOP_DEBOUNCE_MS")
                .map(|ms| vec!["--debounce-ms".to_owned(), ms])
                .unwrap_or_default(),
        )
        .env("XDG_CACHE_HOME", cache)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            let at = Instant::now();
            let Ok(v) = serde_json::from_str(&line) else {
                continue;
            };
            if tx.send((at, v)).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

/// The next line of type `t` (60 s at most).
fn next(rx: &Receiver<Stamped>, t: &str) -> Stamped {
    let end = Instant::now() + Duration::from_secs(60);
    loop {
        let left = end.saturating_duration_since(Instant::now());
        let (at, v) = rx
            .recv_timeout(left)
            .unwrap_or_else(|e| panic!("no {t}: {e}"));
        if v["type"] == t {
            return (at, v);
        }
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn timed(root: &Path, program: &str, args: &[&str]) -> f64 {
    let t = Instant::now();
    let out = Command::new(program)
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    let took = ms(t.elapsed());
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    took
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        eprintln!("run with `cargo bench --bench edit_loop`");
        return;
    }
    let modules = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/realworld/node_modules");
    if !modules.join("vitest/package.json").is_file() {
        eprintln!("skipped: examples/realworld/node_modules (run `npm ci` there)");
        return;
    }
    let rounds: usize = std::env::var("EDIT_LOOP_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("project");
    let cache = dir.path().join("cache");
    project(&root, &modules);
    // vitest's own first run (its caches warm) before any figure
    timed(
        &root,
        "node",
        &["node_modules/vitest/vitest.mjs", "related", EDITED, "--run"],
    );
    let (mut start, mut end, mut npx, mut node) = (vec![], vec![], vec![], vec![]);
    for round in 0..=rounds {
        // the watch alone while it is measured, and gone while its peer is
        let (mut child, rx) = watch(&root, &cache);
        next(&rx, "watch-start");
        std::thread::sleep(Duration::from_secs(1));
        append(&root, EDITED, &format!("// round {round}\n"));
        let wrote = Instant::now();
        let (_, trigger) = next(&rx, "watch-trigger");
        let (started, _) = next(&rx, "runner-start");
        let (ended, summary) = next(&rx, "summary");
        let cases = trigger["cases"].as_array().map_or(0, Vec::len);
        assert_eq!(cases, 3, "{trigger}");
        let failed = summary["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["verdict"] != "pass")
            .count();
        assert_eq!(failed, 0, "{summary}");
        // the first round warms the runner: not counted
        if round > 0 {
            start.push(ms(started - wrote));
            end.push(ms(ended - wrote));
        }
        let _ = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        let _ = child.wait();
        std::thread::sleep(Duration::from_secs(1));
        append(&root, EDITED, &format!("// vitest round {round}\n"));
        let n = timed(&root, "npx", &["vitest", "related", EDITED, "--run"]);
        append(&root, EDITED, &format!("// node round {round}\n"));
        let d = timed(
            &root,
            "node",
            &["node_modules/vitest/vitest.mjs", "related", EDITED, "--run"],
        );
        if round > 0 {
            npx.push(n);
            node.push(d);
        }
    }
    let show = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.0}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    println!(
        "one edit of {EDITED} ({FILES} files, {} tests; 3 files reach it), {rounds} rounds, ms:",
        FILES * TESTS_A_FILE
    );
    println!(
        "  testdeck watch: write → runner start   {} | median {:.0}",
        show(&start),
        median(&start)
    );
    println!(
        "  testdeck watch: write → summary        {} | median {:.0}",
        show(&end),
        median(&end)
    );
    println!(
        "  npx vitest related --run               {} | median {:.0}",
        show(&npx),
        median(&npx)
    );
    println!(
        "  node …/vitest.mjs related --run        {} | median {:.0}",
        show(&node),
        median(&node)
    );
    println!(
        "  end ÷ npx vitest related: {:.2}; end ÷ node vitest related: {:.2}",
        median(&end) / median(&npx),
        median(&end) / median(&node)
    );
}
