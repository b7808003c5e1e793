//! testdeck on a real project (issue 14): `examples/realworld`, vitest backend
//! cases and Playwright e2e specs on the system Chromium, run by the project's
//! own `scripts/test-workflow.mjs`, driven through the real binary headless.
//! Tests that need node (and `npm ci` done in the fixture) or Chromium say they
//! are skipped when either is missing, and fail instead under `CI=true`.

use crate::common;
use common::cli::command;
use common::procs::{Proc, cmdline, descendants, proc_of};
use common::realworld::{e2e_ready, node_ready, project};

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A headless command's JSON document (any exit status).
fn json(root: &Path, args: &[&str]) -> Value {
    let out = command()
        .args(args)
        .arg("--json")
        .arg("--root")
        .arg(root)
        .output()
        .expect("testdeck");
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}: {text}"))
}

/// `testdeck run --json TARGETS…`: every event line and the exit status.
fn run(root: &Path, targets: &[&str]) -> (Vec<Value>, Option<i32>) {
    let out = command()
        .args(["run", "--json", "--root"])
        .arg(root)
        .args(targets)
        .stderr(Stdio::inherit())
        .output()
        .expect("testdeck run");
    let events = common::cli::json_lines(&out.stdout);
    (events, out.status.code())
}

fn summary(events: &[Value]) -> &Value {
    events
        .iter()
        .rev()
        .find(|e| e["type"] == "summary")
        .unwrap_or_else(|| panic!("no summary: {events:#?}"))
}

/// The runner's output lines, SGR colour sequences removed.
fn runner_output(events: &[Value]) -> String {
    let sgr = regex::Regex::new("\u{1b}\\[[0-9;]*m").expect("re");
    events
        .iter()
        .filter(|e| e["type"] == "output" && e["id"] == "runner")
        .filter_map(|e| e["line"].as_str())
        .map(|l| sgr.replace_all(l, "").into_owned() + "\n")
        .collect()
}

#[test]
fn list_sees_every_kind_of_case_file_and_validate_is_clean() {
    let p = project();
    let list = json(p.path(), &["list", "--source", "tests"]);
    let cases: BTreeMap<String, &Value> = list["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| (c["id"].as_str().expect("id").to_owned(), c))
        .collect();
    let files: BTreeSet<&str> = cases
        .values()
        .map(|c| c["path"].as_str().expect("path"))
        .collect();
    // every case file of the project, vitest's and Playwright's endings alike
    let mut expected = BTreeSet::new();
    let mut stack = vec![p.path().join("tests")];
    let ending = regex::Regex::new(r"\.(test|spec)\.(ts|tsx|js|jsx|mjs|cjs|mts|cts)$").expect("re");
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("ls").flatten() {
            let rel = e
                .path()
                .strip_prefix(p.path())
                .expect("rel")
                .to_string_lossy()
                .into_owned();
            if e.path().is_dir() && rel != "tests/harness" {
                stack.push(e.path());
            } else if ending.is_match(&rel) {
                expected.insert(rel);
            }
        }
    }
    let expected: BTreeSet<&str> = expected.iter().map(String::as_str).collect();
    assert_eq!(files, expected);
    for ending in [".spec.ts", ".test.mts", ".test.cts", ".test.ts"] {
        assert!(
            files.iter().any(|f| f.ends_with(ending)),
            "{ending}: {files:#?}"
        );
    }
    assert_eq!(cases["storefront-checkout"]["layer"], "e2e");
    assert_eq!(cases["cart-zero-quantity"]["groups"][0], "boundary");
    assert_eq!(cases["cart-advice-live"]["live"], true);
    assert_eq!(cases["cart-rounding-probe"]["temp"], true);
    assert!(
        cases.values().all(|c| c["registered"] == true),
        "every formal case is in doc/test-plan: {list:#}"
    );
    let v = json(p.path(), &["validate"]);
    assert_eq!(v["problems"], Value::Array(Vec::new()), "{v:#}");
}

#[test]
fn a_backend_case_passes_and_a_failing_one_fails_with_the_runners_message() {
    if !node_ready() {
        return;
    }
    let p = project();
    let (events, code) = run(p.path(), &["shop/backend/cart/basic/cart-total"]);
    let s = summary(&events);
    assert_eq!(code, Some(0), "{events:#?}");
    assert_eq!(s["results"].as_array().expect("results").len(), 1, "{s:#}");
    assert_eq!(s["results"][0]["verdict"], "pass", "{s:#}");
    // the timeline streamed: each test() a step, each Oracle an assertion
    let timeline: Vec<&Value> = events.iter().filter(|e| e["type"] == "timeline").collect();
    let names: Vec<&str> = timeline
        .iter()
        .filter_map(|e| e["event"]["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "run/start",
            "total-is-sum-of-lines",
            "sums the lines",
            "discount-rounds-to-cent",
            "applies a discount",
            "run/finish"
        ],
        "{timeline:#?}"
    );

    let (events, code) = run(p.path(), &["shop/backend/cart/boundary/cart-zero-quantity"]);
    let s = summary(&events);
    assert_eq!(code, Some(1), "{events:#?}");
    assert_eq!(s["results"][0]["verdict"], "fail", "{s:#}");
    // the reason is the failed test's title path, its assertion's own message
    // (issue 25) and its place (issue 40)
    assert_eq!(
        s["results"][0]["reason"],
        "refuses a line of quantity zero: expected 1 to deeply equal +0 \
         (tests/shop/backend/cart/boundary/cart-zero-quantity.test.mts:8)",
        "{s:#}"
    );
    let out = runner_output(&events);
    assert!(
        out.contains("AssertionError: expected 1 to deeply equal +0"),
        "vitest's own message reaches the output: {out}"
    );
    let failed: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "timeline" && e["event"]["status"] == "failed")
        .collect();
    assert!(
        failed
            .iter()
            .any(|e| e["event"]["type"] == "assertion"
                && e["event"]["name"] == "zero-quantity-refused"),
        "{failed:#?}"
    );
    // both runs are in runs --json with their outcome, and validate stays clean
    let runs = json(p.path(), &["runs"]);
    let st: BTreeSet<(String, String)> = runs["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .map(|r| {
            (
                r["caseId"].as_str().unwrap_or_default().to_owned(),
                r["status"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert!(
        st.contains(&("cart-total".into(), "passed".into())),
        "{runs:#}"
    );
    assert!(
        st.contains(&("cart-zero-quantity".into(), "failed".into())),
        "{runs:#}"
    );
    let v = json(p.path(), &["validate"]);
    assert_eq!(v["problems"], Value::Array(Vec::new()), "{v:#}");
}

#[test]
fn two_e2e_cases_of_two_scopes_are_one_runner_and_one_playwright_and_leave_no_process_behind() {
    let Some(chromium) = e2e_ready() else {
        return;
    };
    let p = project();
    // two specs of two scopes in one launch: a passing one and a failing one,
    // one runner and one Playwright for both (issue 40)
    let mut child = command()
        .args(["run", "--json", "--root"])
        .arg(p.path())
        .args([
            "shop/e2e/storefront/basic/storefront-add-to-cart",
            "shop/e2e/storefront/scenario/storefront-checkout",
        ])
        .env("CHROMIUM_PATH", &chromium)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("testdeck run");
    let pid = child.id();
    // watch testdeck's process tree the whole time
    let seen: Arc<Mutex<BTreeMap<(u32, u64), Proc>>> = Arc::default();
    let lingering: Arc<Mutex<Vec<String>>> = Arc::default();
    let done = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (seen, lingering, done) = (seen.clone(), lingering.clone(), done.clone());
        std::thread::spawn(move || {
            let mut zombie_since: BTreeMap<(u32, u64), Instant> = BTreeMap::new();
            while !done.load(Ordering::SeqCst) {
                let now = descendants(pid);
                for (p, pr) in &now {
                    seen.lock()
                        .expect("lock")
                        .insert((*p, pr.start), pr.clone());
                    if pr.state == 'Z' {
                        let since = *zombie_since
                            .entry((*p, pr.start))
                            .or_insert_with(Instant::now);
                        // reaped at once is fine; one left for seconds hangs there
                        if since.elapsed() > Duration::from_secs(5) {
                            lingering.lock().expect("lock").push(format!("{p} {pr:?}"));
                        }
                    }
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        })
    };
    let out = child.stdout.take().expect("stdout");
    let events: Vec<Value> = BufReader::new(out)
        .lines()
        .map_while(Result::ok)
        .map(|l| serde_json::from_str(&l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let status = child.wait().expect("wait");
    done.store(true, Ordering::SeqCst);
    watcher.join().expect("watcher");

    let s = summary(&events);
    let verdicts: BTreeMap<&str, &str> = s["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap_or_default(),
                r["verdict"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        BTreeMap::from([
            ("shop/e2e/storefront/basic/storefront-add-to-cart", "pass"),
            ("shop/e2e/storefront/scenario/storefront-checkout", "fail"),
        ]),
        "{}",
        runner_output(&events)
    );
    assert_eq!(status.code(), Some(1));
    let runner_exits = events.iter().filter(|e| e["type"] == "runner-exit").count();
    assert_eq!(runner_exits, 1, "one runner for the launch");
    // both runs name the same Playwright process, the runner's child
    let mut tools = BTreeSet::new();
    let mut runners = BTreeSet::new();
    for case in ["storefront-add-to-cart", "storefront-checkout"] {
        let runs = json(p.path(), &["runs", "--case", case]);
        let dir = p
            .path()
            .join(runs["runs"][0]["path"].as_str().expect("path"));
        let text = std::fs::read_to_string(dir.join("runtime-events.jsonl")).expect("runtime");
        let first: Value =
            serde_json::from_str(text.lines().next().expect("a line")).expect("runtime event");
        assert_eq!(first["tool"], "playwright", "{first:#}");
        tools.insert(first["pid"].as_u64().expect("pid"));
        runners.insert(first["runner"].as_u64().expect("runner pid"));
    }
    assert_eq!(tools.len(), 1, "one Playwright process: {tools:?}");
    assert_eq!(runners.len(), 1, "one runner process: {runners:?}");
    assert_ne!(tools, runners);

    // the failed run's artifacts, as the artifacts pane reads them
    let runs = json(p.path(), &["runs", "--case", "storefront-checkout"]);
    let rel = runs["runs"][0]["path"].as_str().expect("path").to_owned();
    assert_eq!(runs["runs"][0]["status"], "failed", "{runs:#}");
    let dir = p.path().join(&rel);
    let (items, problems) = testdeck_core::workspace::logs::read_artifacts(p.path(), &dir);
    assert!(problems.is_empty(), "{problems:?}");
    let kinds: BTreeSet<&str> = items.iter().map(|a| a.kind.as_str()).collect();
    assert_eq!(
        kinds,
        BTreeSet::from(["trace", "screenshot", "playwright-report"]),
        "{items:#?}"
    );
    assert!(items.iter().all(|a| a.inside && a.exists), "{items:#?}");
    let file = |kind: &str| {
        let a = items.iter().find(|a| a.kind == kind).expect("kind");
        std::fs::read(a.file(&dir).expect("inside")).expect("read")
    };
    assert!(file("trace").starts_with(b"PK"), "a trace is a zip");
    assert!(
        file("screenshot").starts_with(b"\x89PNG\r\n\x1a\n"),
        "a screenshot is a PNG"
    );
    assert!(String::from_utf8_lossy(&file("playwright-report")).contains("<html"));
    let shot = items.iter().find(|a| a.kind == "screenshot").expect("shot");
    // bound to its test's step and that test's first failure event, the
    // Oracle assertion that failed (docs/per-test-events.md), kept under its
    // own folder
    assert_eq!(shot.step_id.as_deref(), Some("t1"), "{items:#?}");
    assert_eq!(shot.assertion_id.as_deref(), Some("a1"));
    assert_eq!(shot.path, "artifacts/tests/t1/failure.png");
    // the passing run keeps its trace, and no HTML report (seed 000 §6)
    let runs = json(p.path(), &["runs", "--case", "storefront-add-to-cart"]);
    let pass_dir = p
        .path()
        .join(runs["runs"][0]["path"].as_str().expect("path"));
    let (items, _) = testdeck_core::workspace::logs::read_artifacts(p.path(), &pass_dir);
    let kinds: Vec<&str> = items.iter().map(|a| a.kind.as_str()).collect();
    assert_eq!(kinds, ["trace"], "{items:#?}");
    // the contract checks (failure screenshot bound, report present) hold
    let v = json(p.path(), &["validate"]);
    assert_eq!(v["problems"], Value::Array(Vec::new()), "{v:#}");

    // Chromium did run under testdeck, and nothing of it is left
    let seen = seen.lock().expect("lock").clone();
    assert!(
        seen.values().any(|p| p.comm.contains("chrom")),
        "Chromium ran under testdeck: {seen:#?}"
    );
    let lingering = lingering.lock().expect("lock").clone();
    assert!(
        lingering.is_empty(),
        "zombies hung under testdeck: {lingering:#?}"
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let left: Vec<String> = seen
            .iter()
            // a zombie runs nothing: it waits for its reaper (the test harness, once
            // testdeck is gone), not for testdeck
            .filter(|((p, start), _)| {
                proc_of(*p)
                    .is_some_and(|now| now.start == *start && !matches!(now.state, 'Z' | 'X'))
            })
            .map(|((p, _), pr)| format!("{p} {pr:?} now {:?}", proc_of(*p)))
            .collect();
        if left.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "left behind by testdeck: {left:#?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Poll the cockpit's screen for `f`, with a deadline fit for a Playwright run
/// on a loaded machine.
fn wait_long(s: &common::Session, what: &str, f: impl Fn(&str) -> bool) {
    let start = Instant::now();
    loop {
        let text = s.screen().screen().contents();
        if f(&text) {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(240),
            "timed out waiting for {what}:\n{text}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_cockpit_shows_a_failed_e2e_runs_artifacts_when_the_launch_ends_and_leaves_no_process() {
    let Some(chromium) = e2e_ready() else {
        return;
    };
    let p = project();
    let cfg = crate::common::fs::scratch_dir();
    let c = chromium.to_str().expect("utf-8 path");
    let mut s = common::Session::start_with(p.path(), cfg.path(), &[("CHROMIUM_PATH", c)]);
    s.wait_text("Tests · ");
    s.find("'storefront-checkout");
    let pid = s.child.process_id().expect("testdeck's pid");
    for launch in 1..=2 {
        s.send("r");
        wait_long(&s, "the launch to start", |t| !t.contains("launch done:"));
        wait_long(&s, "the launch to end", |t| t.contains("launch done:"));
        // no key pressed since: the pane shows the failed run's artifacts
        wait_long(&s, "the failed run's artifacts", |t| {
            t.contains("screenshot")
                && t.contains("trace")
                && t.contains("playwright-report")
                && !t.contains("Artifacts · 0")
        });
        let text = s.screen().screen().contents();
        assert!(
            text.contains("launch done: 1 fail"),
            "launch {launch}:\n{text}"
        );
    }
    // after two e2e launches nothing is left under the cockpit: no zombie, no
    // stray browser or runner
    let start = Instant::now();
    loop {
        // testdeck's own guardian (`sh -c … testdeck-guard`) lives as long as it does
        let left: BTreeMap<u32, Proc> = descendants(pid)
            .into_iter()
            .filter(|(p, _)| !cmdline(*p).contains("testdeck-guard"))
            .collect();
        if left.is_empty() {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "left under testdeck: {left:#?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    s.quit();
}

#[test]
fn a_run_the_projects_workflow_starts_outside_the_cockpit_is_followed_live() {
    if !node_ready() {
        return;
    }
    let p = project();
    let cfg = crate::common::fs::scratch_dir();
    let s = common::Session::start(p.path(), cfg.path());
    s.wait_text("Tests · ");
    // another terminal runs the slow checkout with the project's own workflow
    let mut other = std::process::Command::new("node")
        .args([
            "scripts/test-workflow.mjs",
            "--domain",
            "shop",
            "--layer",
            "backend",
        ])
        .args(["--suite", "cart", "--case", "checkout-slow"])
        .current_dir(p.path())
        .env("SHOP_SLOW_MS", "1500")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("node");
    let case_dir = p
        .path()
        .join("tests/logs/shop/backend/cart/scenario/checkout-slow");
    let start = Instant::now();
    while !std::fs::read_dir(&case_dir).is_ok_and(|mut d| d.next().is_some()) {
        assert!(start.elapsed() < Duration::from_secs(120), "no run folder");
        std::thread::sleep(Duration::from_millis(5));
    }
    let appeared = Instant::now();
    wait_long(&s, "the external run followed live", |t| {
        t.contains("● live") && t.contains("external") && t.contains("run/start")
    });
    eprintln!(
        "external workflow run: on screen {} ms after its folder appeared",
        appeared.elapsed().as_millis()
    );
    // it goes on being followed to its end: the last event, then no `● live`
    assert!(other.wait().expect("wait").success());
    wait_long(&s, "the run followed to its end", |t| {
        t.contains("run/finish") && t.contains("external") && !t.contains("● live")
    });
    s.quit();
}
