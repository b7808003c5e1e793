//! The cases of one launch share their runners: one testdeck runner for the
//! launch, one vitest and one Playwright process for the cases of each, and
//! still each case its own run (real vitest and Playwright runs on the adoption
//! fixtures, launched by `testdeck run` after `testdeck init`).

use crate::common;
use crate::per_test_events::{
    app_with_spec, init, json_file, mv, newest_run, run, run_event, summary, timeline, trace_json,
};
use common::adopt;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Stdio;

#[test]
fn a_scope_of_five_vitest_files_is_one_runner_and_one_vitest_process_each_case_its_own_run() {
    if !common::realworld::node_ready() {
        return;
    }
    let p = adopt::project("lib");
    let root = p.path();
    init(root);
    let names = ["date", "encode", "path", "query", "slug"];
    for n in names {
        let to = format!("tests/lib/backend/{n}/{n}.test.ts");
        mv(root, &format!("test/{n}.test.ts"), &to);
        let f = root.join(&to);
        let text = std::fs::read_to_string(&f).expect("spec");
        std::fs::write(&f, text.replace("'../src", "'../../../../src")).expect("write");
    }
    // one of them fails: its verdict is its own
    let slug = root.join("src/slug.ts");
    let text = std::fs::read_to_string(&slug).expect("slug");
    std::fs::write(&slug, text.replace("toLowerCase()", "toUpperCase()")).expect("write");
    let (events, code) = run(root, "lib/backend", &[], &["TZ"]);
    assert_eq!(code, 1);
    let verdicts: BTreeSet<(String, String)> = summary(&events)["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap_or_default().to_owned(),
                r["verdict"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let want: BTreeSet<(String, String)> = names
        .iter()
        .map(|n| {
            (
                format!("lib/backend/{n}/{n}"),
                if *n == "slug" { "fail" } else { "pass" }.to_owned(),
            )
        })
        .collect();
    assert_eq!(verdicts, want, "{events:#?}");
    let runner_exits = events.iter().filter(|e| e["type"] == "runner-exit").count();
    assert_eq!(runner_exits, 1, "one runner process for the launch");
    // every case's run names the one vitest process and the one runner
    let mut tools = BTreeSet::new();
    let mut runners = BTreeSet::new();
    for n in names {
        let dir = newest_run(root, &format!("lib/backend/{n}/{n}"));
        let first: Value =
            serde_json::from_str(&common::fs::lines(&dir.join("runtime-events.jsonl"))[0])
                .expect("runtime event");
        tools.insert(first["pid"].as_u64().expect("pid"));
        runners.insert(first["runner"].as_u64().expect("runner pid"));
        let meta = json_file(&dir.join("meta.json"));
        assert_eq!(meta["scope"], format!("lib/backend/{n}"));
        assert_eq!(meta["caseId"], n);
        let ev = timeline(&dir);
        assert!(run_event(&ev, "run/finish")["data"]["tests"]["total"].as_u64() >= Some(1));
    }
    assert_eq!(tools.len(), 1, "one vitest process: {tools:?}");
    assert_eq!(runners.len(), 1, "one runner process: {runners:?}");
    assert_ne!(tools, runners, "vitest is the runner's child");
}

/// `testdeck run --json TARGETS…` with `env` set: its events and exit status.
fn run_many(root: &Path, targets: &[&str], env: &[(&str, &Path)]) -> (Vec<Value>, i32) {
    let mut c = common::cli::at(root);
    c.args(["run", "--json"])
        .args(targets)
        .stderr(Stdio::inherit());
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("testdeck run");
    (
        common::cli::json_lines(&out.stdout),
        out.status.code().unwrap_or(-1),
    )
}

/// Each result's verdict by its id.
fn verdicts(events: &[Value]) -> BTreeSet<(String, String)> {
    summary(events)["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap_or_default().to_owned(),
                r["verdict"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// The tool, the tool's pid and the runner's pid a run's runtime events name.
fn processes(dir: &Path) -> (String, u64, u64) {
    let first: Value =
        serde_json::from_str(&common::fs::lines(&dir.join("runtime-events.jsonl"))[0])
            .expect("runtime event");
    (
        first["tool"].as_str().expect("tool").to_owned(),
        first["pid"].as_u64().expect("pid"),
        first["runner"].as_u64().expect("runner pid"),
    )
}

#[test]
fn two_specs_and_a_vitest_file_of_two_scopes_are_one_runner_one_playwright_one_vitest() {
    let Some(chromium) = common::realworld::e2e_ready() else {
        return;
    };
    let (p, browsers) = app_with_spec();
    let root = p.path();
    // a second spec of the same scope's folder: the first three tests, passing
    let spec =
        std::fs::read_to_string(root.join("tests/web/e2e/search/search.spec.ts")).expect("spec");
    let cut = spec
        .find("  test('should focus and select input on Ctrl+K")
        .expect("the fourth test");
    let other = root.join("tests/web/e2e/tour/tour.spec.ts");
    std::fs::create_dir_all(other.parent().expect("parent")).expect("mkdir");
    std::fs::write(&other, format!("{}}});\n", &spec[..cut])).expect("write");
    // a vitest file in another scope of the same launch
    let vite = root.join("vite.config.ts");
    let text = std::fs::read_to_string(&vite).expect("vite config");
    std::fs::write(
        &vite,
        text.replace(
            "include: ['src/**/*.test.ts']",
            "include: ['src/**/*.test.ts', 'tests/**/*.test.ts']",
        ),
    )
    .expect("write");
    mv(
        root,
        "src/lib/filter.test.ts",
        "tests/web/backend/filter/filter.test.ts",
    );
    adopt::break_the_shortcut(root);
    let (events, code) = run_many(
        root,
        &["web/e2e", "web/backend/filter/filter"],
        &[
            ("CHROMIUM_PATH", &chromium),
            ("PLAYWRIGHT_BROWSERS_PATH", browsers.path()),
        ],
    );
    assert_eq!(code, 1);
    let want: BTreeSet<(String, String)> = [
        ("web/backend/filter/filter", "pass"),
        ("web/e2e/tour/tour", "pass"),
        ("web/e2e/search/search", "fail"),
    ]
    .iter()
    .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
    .collect();
    assert_eq!(verdicts(&events), want, "{events:#?}");
    let exits: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "runner-exit")
        .collect();
    assert_eq!(exits.len(), 1, "one runner for the launch: {events:#?}");
    assert_eq!(exits[0]["runs"].as_array().map(Vec::len), Some(3));

    // one Playwright process for both specs, one vitest process, one runner
    let (search, browse, filter) = (
        newest_run(root, "web/e2e/search/search"),
        newest_run(root, "web/e2e/tour/tour"),
        newest_run(root, "web/backend/filter/filter"),
    );
    let (t1, pw1, r1) = processes(&search);
    let (t2, pw2, r2) = processes(&browse);
    let (t3, vi, r3) = processes(&filter);
    assert_eq!(
        (t1.as_str(), t2.as_str(), t3.as_str()),
        ("playwright", "playwright", "vitest")
    );
    assert_eq!(pw1, pw2, "one Playwright process for both specs");
    assert_ne!(pw1, vi);
    assert_eq!((r1, r2), (r3, r3), "one runner process");
    assert!(r1 != pw1 && r1 != vi, "the tools are the runner's children");

    // each spec its own run: its own tests, its own verdict
    let count = |dir: &Path| run_event(&timeline(dir), "run/finish")["data"]["tests"].clone();
    assert_eq!(
        count(&browse),
        serde_json::json!({"total": 3, "passed": 3, "failed": 0, "skipped": 0})
    );
    assert_eq!(
        count(&search),
        serde_json::json!({"total": 6, "passed": 4, "failed": 2, "skipped": 0})
    );
    assert_eq!(json_file(&browse.join("meta.json"))["status"], "passed");
    assert_eq!(json_file(&search.join("meta.json"))["status"], "failed");
    // the failed spec says at its last test why its run stays open (the HTML
    // report comes when Playwright ends); the passing one ends at its last test
    let waits = |dir: &Path| -> Vec<Value> {
        timeline(dir)
            .into_iter()
            .filter(|e| e["name"] == "runner/awaiting-report")
            .collect()
    };
    let said = waits(&search);
    assert_eq!(said.len(), 1, "{said:#?}");
    assert_eq!(said[0]["type"], "signal");
    assert_eq!(said[0]["data"]["tests"]["failed"], 2);
    assert!(waits(&browse).is_empty());
    // the passing spec: its traces, no HTML report; the failing one: its own
    // failed tests' traces and the report, every path a file of its folder
    let items = |dir: &Path| {
        json_file(&dir.join("artifacts.json"))["items"]
            .as_array()
            .expect("items")
            .clone()
    };
    let browse_items = items(&browse);
    assert!(
        browse_items.iter().all(|a| a["kind"] == "trace"),
        "{browse_items:#?}"
    );
    assert_eq!(browse_items.len(), 3);
    let search_items = items(&search);
    for (dir, list) in [(&browse, &browse_items), (&search, &search_items)] {
        for a in list {
            let path = a["path"].as_str().expect("path");
            assert!(dir.join(path).is_file(), "{path} in {}", dir.display());
        }
    }
    assert!(
        search_items
            .iter()
            .any(|a| a["kind"] == "playwright-report")
    );
    // the launch's one report, copied with the failing spec's own traces only
    let traces = std::fs::read_dir(search.join("artifacts/playwright/report/data"))
        .expect("report data")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "zip"))
        .count();
    assert_eq!(traces, 6, "its six tests' traces, not the other spec's");
    let ev = timeline(&search);
    for t in ev
        .iter()
        .filter(|e| e["data"]["kind"] == "test" && e["status"] == "failed")
    {
        let id = t["id"].as_str().expect("id");
        let trace = search_items
            .iter()
            .find(|a| a["kind"] == "trace" && a["refs"]["stepId"] == id)
            .unwrap_or_else(|| panic!("{id}'s trace: {search_items:#?}"));
        let doc = trace_json(root, &search, trace);
        assert!(
            doc["failed"]
                .as_str()
                .is_some_and(|f| f.contains("toBeFocused")),
            "{id}: {doc:#}"
        );
    }
    // live: the failing spec (first by its path) said it waits for the report
    // before the passing one began, and the passing one ended at its last test,
    // before the failing one (which ends with Playwright's report)
    let began = json_file(&browse.join("meta.json"))["startedAt"]
        .as_str()
        .expect("startedAt")
        .to_owned();
    let said_at = said[0]["ts"].as_str().expect("ts").to_owned();
    assert!(said_at <= began, "{said_at} then {began}");
    let ended = |dir: &Path| {
        json_file(&dir.join("meta.json"))["finishedAt"]
            .as_str()
            .expect("finishedAt")
            .to_owned()
    };
    assert!(
        ended(&browse) <= ended(&search),
        "{} then {}",
        ended(&browse),
        ended(&search)
    );
}

#[test]
fn cases_of_two_scopes_are_one_runner_invocation() {
    if !common::realworld::node_ready() {
        return;
    }
    let p = adopt::project("lib");
    let root = p.path();
    init(root);
    for (n, to) in [
        ("date", "tests/lib/backend/dates/date.test.ts"),
        ("encode", "tests/lib/backend/text/encode.test.ts"),
        ("path", "tests/lib/backend/text/path.test.ts"),
    ] {
        mv(root, &format!("test/{n}.test.ts"), to);
        let f = root.join(to);
        let text = std::fs::read_to_string(&f).expect("spec");
        std::fs::write(&f, text.replace("'../src", "'../../../../src")).expect("write");
    }
    // a whole scope and one case of another, as a multi-select in the cockpit
    let (events, code) = run_many(root, &["lib/backend/text", "lib/backend/dates/date"], &[]);
    assert_eq!(code, 0, "{events:#?}");
    let want: BTreeSet<(String, String)> = [
        "lib/backend/dates/date",
        "lib/backend/text/encode",
        "lib/backend/text/path",
    ]
    .iter()
    .map(|k| ((*k).to_owned(), "pass".to_owned()))
    .collect();
    assert_eq!(verdicts(&events), want, "{events:#?}");
    let starts: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "runner-start")
        .collect();
    assert_eq!(starts.len(), 1, "one runner invocation: {events:#?}");
    let argv: Vec<&str> = starts[0]["command"]
        .as_array()
        .expect("command")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        argv.iter().filter(|a| **a == "--case").count(),
        3,
        "{argv:?}"
    );
    assert_eq!(
        events.iter().filter(|e| e["type"] == "runner-exit").count(),
        1
    );
    let pids: BTreeSet<(String, u64, u64)> = [
        "lib/backend/dates/date",
        "lib/backend/text/encode",
        "lib/backend/text/path",
    ]
    .iter()
    .map(|k| processes(&newest_run(root, k)))
    .collect();
    assert_eq!(pids.len(), 1, "one vitest process, one runner: {pids:?}");
}
