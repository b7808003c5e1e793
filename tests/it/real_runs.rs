//! Issues 39 and 40 end to end on real runs: the adoption fixtures
//! (`tests/fixtures/adopt/`), each a fresh copy after `testdeck init` alone,
//! their files run where they stand (outside the tree) by real vitest and
//! Playwright, then read back by `explain`, `trace`, `stats` and `insights`.
//! Skipped (said on stderr) where node or chromium is missing.

use crate::common;
use crate::per_test_events::{git, init, json_file, run, run_event, summary, timeline, verdict};
use crate::per_test_why::json_of;
use common::adopt;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The run folder a launch wrote (its `runner-exit` names it), absolute.
fn run_dir(root: &Path, events: &[Value]) -> PathBuf {
    let exit = events
        .iter()
        .find(|e| e["type"] == "runner-exit")
        .unwrap_or_else(|| panic!("no runner-exit: {events:#?}"));
    let runs = exit["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1, "{exit:#}");
    root.join(runs[0].as_str().expect("a run path"))
}

/// The test steps of a timeline.
fn tests_of(ev: &[Value]) -> Vec<&Value> {
    ev.iter()
        .filter(|e| e["type"] == "step" && e["data"]["kind"] == "test")
        .collect()
}

/// The 1-based line of the first line of `text` at or after line `from` that
/// contains `needle`.
fn line_of(text: &str, from: usize, needle: &str) -> usize {
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .find(|(_, l)| l.contains(needle))
        .map_or_else(|| panic!("{needle:?} not in the fixture"), |(i, _)| i + 1)
}

const CTRL_K: &str = "should focus and select input on Ctrl+K shortcut";
const CMD_K: &str = "should focus and select input on Cmd+K shortcut";
const SPEC: &str = "src/e2e/search.spec.ts";

#[test]
fn the_playwright_spec_where_it_stands_fails_two_tests_each_explained_with_its_own_trace() {
    let Some(chromium) = common::realworld::e2e_ready() else {
        return;
    };
    let p = adopt::project("app");
    let root = p.path();
    let browsers = common::fs::scratch_dir();
    init(root);
    let config = std::fs::read(root.join("playwright.config.ts")).expect("config");
    let env = [
        ("CHROMIUM_PATH", chromium.as_path()),
        ("PLAYWRIGHT_BROWSERS_PATH", browsers.path()),
    ];
    adopt::break_the_shortcut(root);
    let (events, code) = run(root, SPEC, &env, &[]);
    let (v, output) = verdict(&events);
    assert_eq!((v.as_str(), code), ("fail", 1), "a test failure: {output}");
    assert_eq!(
        std::fs::read(root.join("playwright.config.ts")).expect("config"),
        config,
        "the project's Playwright config is byte-identical"
    );
    let dir = run_dir(root, &events);
    let ev = timeline(&dir);
    let skipped: Vec<&str> = ev
        .iter()
        .filter(|e| e["name"] == "runner/project-skipped")
        .filter_map(|e| e["message"].as_str())
        .collect();
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    for b in ["firefox", "webkit"] {
        assert!(
            skipped
                .iter()
                .any(|m| m.contains(b) && m.contains(&format!("npx playwright install {b}"))),
            "{b}: {skipped:?}"
        );
    }

    // explain: the two failures once each, by title path, at their lines
    let spec = std::fs::read_to_string(root.join(SPEC)).expect("spec");
    let want: Vec<(String, usize)> = [CTRL_K, CMD_K]
        .iter()
        .map(|t| {
            let at = line_of(&spec, 1, t);
            (
                format!("PostsSearch › {t}"),
                line_of(&spec, at, "toBeFocused"),
            )
        })
        .collect();
    let rel = dir.strip_prefix(root).expect("inside").to_string_lossy();
    let (code, doc) = json_of(root, &["explain", &rel, "--json"]);
    assert_eq!(code, Some(0), "{doc:#}");
    let failures = doc["failures"].as_array().expect("failures");
    assert_eq!(failures.len(), 2, "no duplicates: {doc:#}");
    let got: BTreeSet<(String, u64)> = failures
        .iter()
        .map(|f| {
            let path: Vec<&str> = f["titlePath"]
                .as_array()
                .expect("titlePath")
                .iter()
                .filter_map(Value::as_str)
                .collect();
            (
                path.join(" › "),
                f["location"]["line"].as_u64().expect("line"),
            )
        })
        .collect();
    let expected: BTreeSet<(String, u64)> =
        want.iter().map(|(t, l)| (t.clone(), *l as u64)).collect();
    assert_eq!(got, expected, "{doc:#}");
    let steps = tests_of(&ev);
    for f in failures {
        assert_eq!(f["location"]["file"], SPEC, "{f:#}");
        let frame = &f["frames"][0];
        assert_eq!(frame["file"], SPEC, "{f:#}");
        assert_eq!(frame["line"], f["location"]["line"]);
        let marked: Vec<&Value> = frame["snippet"]
            .as_array()
            .expect("a snippet")
            .iter()
            .filter(|l| l["marked"] == true)
            .collect();
        assert_eq!(marked.len(), 1, "{frame:#}");
        assert!(
            marked[0]["text"]
                .as_str()
                .is_some_and(|t| t.contains("toBeFocused")),
            "{frame:#}"
        );
        // its own trace names its failed action; its screenshot its step
        let id = f["test"].as_str().expect("test id");
        let step = steps
            .iter()
            .find(|s| s["id"] == id)
            .unwrap_or_else(|| panic!("{id}'s step"));
        assert_eq!(step["status"], "failed");
        let items = json_file(&dir.join("artifacts.json"))["items"].clone();
        let items = items.as_array().expect("items");
        let trace = items
            .iter()
            .find(|a| a["kind"] == "trace" && a["refs"]["stepId"] == id)
            .unwrap_or_else(|| panic!("{id}'s trace: {items:#?}"));
        let zip = dir.join(trace["path"].as_str().expect("path"));
        assert_eq!(zip.file_name().and_then(|n| n.to_str()), Some("trace.zip"));
        let (code, t) = json_of(root, &["trace", &zip.to_string_lossy(), "--json"]);
        assert_eq!(code, Some(1), "a failed action: {t:#}");
        assert!(
            t["failed"]
                .as_str()
                .is_some_and(|a| a.contains("toBeFocused")),
            "{id}: {t:#}"
        );
        let shot = items
            .iter()
            .find(|a| a["kind"] == "screenshot" && a["refs"]["stepId"] == id)
            .unwrap_or_else(|| panic!("{id}'s screenshot: {items:#?}"));
        assert!(dir.join(shot["path"].as_str().expect("path")).is_file());
    }

    // the source fixed back: a passing run, every test once by its title path
    std::fs::copy(
        adopt::source("app").join("web/app.js"),
        root.join("web/app.js"),
    )
    .expect("fix back");
    let (events, code) = run(root, SPEC, &env, &[]);
    let (v, output) = verdict(&events);
    assert_eq!((v.as_str(), code), ("pass", 0), "{output}");
    let ev = timeline(&run_dir(root, &events));
    let names: Vec<&str> = tests_of(&ev)
        .iter()
        .filter(|t| t["status"] == "ok")
        .filter_map(|t| t["name"].as_str())
        .collect();
    let titles: Vec<String> = spec
        .lines()
        .filter_map(|l| l.trim().strip_prefix("test('"))
        .filter_map(|l| l.split_once("',"))
        .map(|(t, _)| format!("PostsSearch › {t}"))
        .collect();
    assert_eq!(titles.len(), 6, "{titles:?}");
    let mut sorted = names.clone();
    sorted.sort_unstable();
    let mut want = titles.clone();
    want.sort();
    assert_eq!(sorted, want, "each test once: {ev:#?}");
    assert_eq!(
        run_event(&ev, "run/finish")["data"]["tests"],
        json!({"total": 6, "passed": 6, "failed": 0, "skipped": 0})
    );
}

#[test]
fn vitest_nested_describes_where_they_stand_are_explained_and_counted_as_vitest_counts() {
    if !common::realworld::node_ready() {
        return;
    }
    let p = adopt::project("app");
    let root = p.path();
    init(root);
    let file = "src/lib/filter.test.ts";
    adopt::break_the_filter(root);
    let (events, code) = run(root, file, &[], &[]);
    let (v, output) = verdict(&events);
    assert_eq!((v.as_str(), code), ("fail", 1), "{output}");
    let dir = run_dir(root, &events);
    let rel = dir.strip_prefix(root).expect("inside").to_string_lossy();
    let (code, doc) = json_of(root, &["explain", &rel, "--json"]);
    assert_eq!(code, Some(0), "{doc:#}");
    let failures = doc["failures"].as_array().expect("failures");
    let text = std::fs::read_to_string(root.join(file)).expect("test file");
    let got: Vec<(Value, u64)> = failures
        .iter()
        .map(|f| {
            (
                f["titlePath"].clone(),
                f["location"]["line"].as_u64().expect("line"),
            )
        })
        .collect();
    let tag = line_of(&text, 1, "test('matches a tag'");
    let every = line_of(&text, 1, "test('needs every word'");
    assert_eq!(
        got,
        vec![
            (
                json!(["filterPosts", "matching", "matches a tag"]),
                line_of(&text, tag, "expect(") as u64
            ),
            (
                json!(["filterPosts", "matching", "needs every word"]),
                line_of(&text, every, "expect(") as u64
            ),
        ],
        "{doc:#}"
    );
    for f in failures {
        assert_eq!(f["location"]["file"], file, "{f:#}");
        assert_eq!(f["expected"], "1", "{f:#}");
        assert_eq!(f["received"], "0", "{f:#}");
        assert_eq!(f["frames"][0]["file"], file);
    }

    // the counts: vitest's own, in run --json and (the file adopted with its
    // history) in stats --json
    let out = Command::new("node")
        .args([
            "node_modules/vitest/vitest.mjs",
            "run",
            file,
            "--reporter=json",
        ])
        .current_dir(root)
        .output()
        .expect("vitest");
    let raw = String::from_utf8_lossy(&out.stdout);
    let own: Value =
        serde_json::from_str(&raw[raw.find('{').expect("json")..]).expect("vitest's json");
    let theirs = json!({
        "total": own["numTotalTests"],
        "passed": own["numPassedTests"],
        "failed": own["numFailedTests"],
        "skipped": own["numPendingTests"].as_u64().unwrap_or(0) + own["numTodoTests"].as_u64().unwrap_or(0),
    });
    assert_eq!(
        theirs,
        json!({"total": 6, "passed": 4, "failed": 2, "skipped": 0})
    );
    assert_eq!(summary(&events)["tests"], theirs);
    assert_eq!(summary(&events)["results"][0]["tests"], theirs);
    // an outside case is in no pass rate of the tree (SPEC §1.1a)
    let (_, stats) = json_of(root, &["stats", "--json"]);
    assert_eq!(stats["nodes"][0]["tests"], Value::Null, "{stats:#}");
    // adopted (its imports' configs covering tests/), its run counts there
    for (f, from, to) in [
        (
            "vite.config.ts",
            "include: ['src/**/*.test.ts']",
            "include: ['src/**/*.test.ts', 'tests/**/*.test.ts']",
        ),
        (
            "tsconfig.json",
            "\"include\": [\"src\"]",
            "\"include\": [\"src\", \"tests\"]",
        ),
    ] {
        let t = std::fs::read_to_string(root.join(f)).expect(f);
        assert!(t.contains(from), "{f}: {t}");
        std::fs::write(root.join(f), t.replace(from, to)).expect(f);
    }
    let out = common::cli::at(root)
        .args(["adopt", file, "--to", "tests/web/backend/filter/"])
        .output()
        .expect("adopt");
    assert!(out.status.success(), "{out:?}");
    let (_, stats) = json_of(root, &["stats", "--json"]);
    let case = stats["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .find(|n| n["path"] == "web/backend/filter/filter")
        .unwrap_or_else(|| panic!("{stats:#}"));
    assert_eq!(case["tests"], theirs, "{case:#}");
    assert_eq!(stats["nodes"][0]["tests"], theirs);
    the_status_line_counts(root, &theirs);
}

/// The cockpit's status line on the workspace at `root` (drawn on a test
/// backend, its runs read as the cockpit reads them): the tests of the tree's
/// runs counted as `theirs` (vitest's own totals) count them.
fn the_status_line_counts(root: &Path, theirs: &Value) {
    use common::app::{Deck, Runs, draw, options, rows};
    let n = |k: &str| {
        theirs[k]
            .as_u64()
            .unwrap_or_else(|| panic!("{k}: {theirs}"))
    };
    let deck = Deck::new(options(root, "app"), Runs::FOLDERS)
        .sized(160, 30)
        .loaded();
    let frame = rows(&draw(&deck));
    let status = frame
        .iter()
        .find(|r| r.contains("HOST 127.0.0.1"))
        .unwrap_or_else(|| panic!("no status line: {frame:#?}"));
    let mut phrase = format!("{} tests: {} ✓ {} ✗", n("total"), n("passed"), n("failed"));
    if n("skipped") > 0 {
        phrase = format!("{phrase} {} skipped", n("skipped"));
    }
    assert!(
        // the adopted case's one run; the two files outside the tree have none
        status.contains(&format!("3 cases · 1 run · {phrase}")),
        "{status}"
    );
}

/// git in `root`, running no hook.
fn git_here(root: &Path, args: &[&str]) {
    let mut all = vec!["-c", "core.hooksPath=/dev/null"];
    all.extend_from_slice(args);
    git(root, &all);
}

/// `testdeck run CASE`: its verdict.
fn verdict_of(root: &Path, case: &str) -> String {
    let (events, _) = run(root, case, &[], &[]);
    let (v, output) = verdict(&events);
    assert!(v == "pass" || v == "fail", "{v}: {output}");
    v
}

/// `insights --json`: each list's paths.
fn insights(root: &Path) -> Value {
    let (code, doc) = json_of(root, &["insights", "--json"]);
    assert_eq!(code, Some(0), "{doc:#}");
    doc
}

fn listed(doc: &Value, list: &str, path: &str) -> Option<Value> {
    doc[list]
        .as_array()
        .unwrap_or_else(|| panic!("{list}: {doc:#}"))
        .iter()
        .find(|e| e["path"] == path)
        .cloned()
}

#[test]
fn a_break_and_its_fix_is_no_flakiness_and_a_test_failing_every_other_run_is() {
    if !common::realworld::node_ready() {
        return;
    }
    let p = adopt::project("lib");
    let root = p.path();
    init(root);
    let ignore = std::fs::read_to_string(root.join(".gitignore")).unwrap_or_default();
    std::fs::write(
        root.join(".gitignore"),
        format!("{ignore}node_modules\n.count\n"),
    )
    .expect("ignore");
    git_here(root, &["init", "-q"]);
    git_here(root, &["add", "-A"]);
    git_here(root, &["commit", "-q", "-m", "start"]);
    // the file where it stands: a case outside the tree, which insights include
    let (file, case) = ("test/slug.test.ts", "temp/outside/test/slug");

    // pass; the source broken (left dirty): fail; the edit reverted: pass
    assert_eq!(verdict_of(root, file), "pass");
    let src = root.join("src/slug.ts");
    let before = std::fs::read_to_string(&src).expect("slug.ts");
    std::fs::write(&src, before.replace("toLowerCase()", "toUpperCase()")).expect("break");
    assert_eq!(verdict_of(root, file), "fail");
    let doc = insights(root);
    let new = listed(&doc, "newFailures", case).unwrap_or_else(|| panic!("{doc:#}"));
    assert_eq!(new["outside"], true, "marked: {new:#}");
    std::fs::write(&src, &before).expect("revert");
    assert_eq!(verdict_of(root, file), "pass");
    let doc = insights(root);
    let slow = listed(&doc, "slowest", case).unwrap_or_else(|| panic!("{doc:#}"));
    assert_eq!(slow["outside"], true, "{slow:#}");
    for list in ["flakiest", "newFailures", "failingStreaks"] {
        assert!(listed(&doc, list, case).is_none(), "{list}: {doc:#}");
    }
    // and in no pass rate of the tree
    let (_, stats) = json_of(root, &["stats", "--json"]);
    assert_eq!(stats["nodes"][0]["historical"]["totalRuns"], 0, "{stats:#}");

    // on unchanged code, a test that fails every other run: flaky
    common::fs::write(
        root,
        "test/counter.test.ts",
        "import { existsSync, readFileSync, writeFileSync } from 'node:fs';\n\
         import { expect, test } from 'vitest';\n\n\
         test('passes every other run', () => {\n  \
           const n = existsSync('.count') ? Number(readFileSync('.count', 'utf8')) : 0;\n  \
           writeFileSync('.count', String(n + 1));\n  \
           expect(n % 2).toBe(0);\n\
         });\n",
    );
    git_here(root, &["add", "-A"]);
    git_here(root, &["commit", "-q", "-m", "counter"]);
    let counter = "temp/outside/test/counter";
    let seen: Vec<String> = (0..3)
        .map(|_| verdict_of(root, "test/counter.test.ts"))
        .collect();
    assert_eq!(seen, ["pass", "fail", "pass"]);
    let doc = insights(root);
    let flaky = listed(&doc, "flakiest", counter).unwrap_or_else(|| panic!("{doc:#}"));
    assert_eq!(flaky["flips"], 2, "{flaky:#}");
    assert_eq!(flaky["runs"], 3, "{flaky:#}");
    assert_eq!(flaky["outside"], true, "{flaky:#}");
    assert!(listed(&doc, "flakiest", case).is_none(), "{doc:#}");
}
