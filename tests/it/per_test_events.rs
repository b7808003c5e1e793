//! The runner's reporters write every test inside a case file as the events of
//! docs/per-test-events.md (issue 40), Playwright runs on a config of the
//! runner's own that leaves the project's byte-identical (issue 39), and the
//! project's test environment reaches the runner (issue 44): real vitest and
//! Playwright runs on the adoption fixtures (`tests/fixtures/adopt/`), each
//! launched by `testdeck run` after `testdeck init`.

use crate::common;
use common::adopt;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// `testdeck init` in `root`: its output.
pub(crate) fn init(root: &Path) -> String {
    let out = common::cli::at(root).arg("init").output().expect("init");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{text}");
    text
}

/// Move `from` to `to` (relative to `root`), creating its folder.
pub(crate) fn mv(root: &Path, from: &str, to: &str) {
    let dest = root.join(to);
    std::fs::create_dir_all(dest.parent().expect("parent")).expect("mkdir");
    std::fs::rename(root.join(from), dest).expect("move");
}

/// `testdeck run --json TARGET` with `env` set: its events and exit status.
pub(crate) fn run(
    root: &Path,
    target: &str,
    env: &[(&str, &Path)],
    unset: &[&str],
) -> (Vec<Value>, i32) {
    let mut c = common::cli::at(root);
    c.args(["run", "--json", target]).stderr(Stdio::inherit());
    for (k, v) in env {
        c.env(k, v);
    }
    for k in unset {
        c.env_remove(k);
    }
    let out = c.output().expect("testdeck run");
    (
        common::cli::json_lines(&out.stdout),
        out.status.code().unwrap_or(-1),
    )
}

pub(crate) fn summary(events: &[Value]) -> &Value {
    events
        .iter()
        .rev()
        .find(|e| e["type"] == "summary")
        .unwrap_or_else(|| panic!("no summary: {events:#?}"))
}

/// The one result's verdict and the runner's output lines.
pub(crate) fn verdict(events: &[Value]) -> (String, String) {
    let results = summary(events)["results"].as_array().expect("results");
    assert_eq!(results.len(), 1, "{results:#?}");
    let output: String = events
        .iter()
        .filter(|e| e["type"] == "output")
        .filter_map(|e| e["line"].as_str())
        .flat_map(|l| [l, "\n"])
        .collect();
    (
        results[0]["verdict"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        output,
    )
}

/// The newest run folder of `case` (its scope/caseId), absolute.
pub(crate) fn newest_run(root: &Path, case: &str) -> PathBuf {
    let dir = root.join("tests/logs").join(case);
    let mut runs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    runs.sort();
    runs.pop().expect("a run")
}

pub(crate) fn timeline(dir: &Path) -> Vec<Value> {
    common::fs::lines(&dir.join("timeline.jsonl"))
        .iter()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect()
}

pub(crate) fn json_file(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).expect("read")).expect("json")
}

/// The `run/start` or `run/finish` event.
pub(crate) fn run_event<'a>(events: &'a [Value], name: &str) -> &'a Value {
    events
        .iter()
        .find(|e| e["type"] == "run" && e["name"] == name)
        .unwrap_or_else(|| panic!("no {name}: {events:#?}"))
}

/// The app fixture, initialised, its Playwright spec in the formal tree
/// (`tests/web/e2e/search/`), the browsers' own download folder empty (so
/// the bundled browsers are missing here as on a machine that never ran
/// `playwright install`).
pub(crate) fn app_with_spec() -> (tempfile::TempDir, tempfile::TempDir) {
    let p = adopt::project("app");
    init(p.path());
    mv(
        p.path(),
        "src/e2e/search.spec.ts",
        "tests/web/e2e/search/search.spec.ts",
    );
    (p, common::fs::scratch_dir())
}

#[test]
fn a_playwright_spec_of_six_tests_writes_each_test_its_failures_and_its_own_trace() {
    let Some(chromium) = common::realworld::e2e_ready() else {
        return;
    };
    let (p, browsers) = app_with_spec();
    let root = p.path();
    let config = std::fs::read(root.join("playwright.config.ts")).expect("config");
    adopt::break_the_shortcut(root);
    let (events, code) = run_search(root, &chromium, browsers.path());
    let (v, output) = verdict(&events);
    assert_eq!((v.as_str(), code), ("fail", 1), "{output}");
    assert_eq!(
        std::fs::read(root.join("playwright.config.ts")).expect("config"),
        config,
        "the project's Playwright config is byte-identical"
    );
    let dir = newest_run(root, "web/e2e/search/search");
    let ev = timeline(&dir);

    // one step per test, by its title path, at its line in the spec
    let tests: Vec<&Value> = ev
        .iter()
        .filter(|e| e["type"] == "step" && e["data"]["kind"] == "test")
        .collect();
    assert_eq!(tests.len(), 6, "{ev:#?}");
    for t in &tests {
        let name = t["name"].as_str().expect("name");
        assert!(name.starts_with("PostsSearch › "), "{name}");
        assert_eq!(
            t["data"]["location"]["file"], "tests/web/e2e/search/search.spec.ts",
            "{t:#}"
        );
        assert!(
            t["data"]["location"]["line"]
                .as_u64()
                .is_some_and(|l| l > 1)
        );
        assert_eq!(t["data"]["project"], "chromium", "{t:#}");
        assert_eq!(t["data"]["retry"], 0);
        assert!(!t["message"].as_str().expect("message").contains(name));
    }
    let failed: Vec<&Value> = tests
        .iter()
        .copied()
        .filter(|t| t["status"] == "failed")
        .collect();
    let names: BTreeSet<&str> = failed.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        BTreeSet::from([
            "PostsSearch › should focus and select input on Ctrl+K shortcut",
            "PostsSearch › should focus and select input on Cmd+K shortcut",
        ])
    );
    // each failed test: exactly one failure event, its own, after its step
    let errors: Vec<&Value> = ev
        .iter()
        .filter(|e| e["data"]["kind"] == "test-error")
        .collect();
    assert_eq!(errors.len(), 2, "no message twice: {errors:#?}");
    for t in &failed {
        let id = t["id"].as_str().expect("id");
        let e = errors
            .iter()
            .find(|e| e["data"]["test"] == id)
            .unwrap_or_else(|| panic!("{id}'s failure: {errors:#?}"));
        assert_eq!(e["id"], format!("{id}.e1"));
        assert_eq!(e["type"], "assertion", "an expect() failure: {e:#}");
        assert_eq!(e["name"], t["name"]);
        assert!(
            e["data"]["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("toBeFocused")),
            "{e:#}"
        );
        assert_eq!(
            e["data"]["location"]["file"],
            "tests/web/e2e/search/search.spec.ts"
        );
        assert!(e["data"]["stack"].is_string());
        assert!(
            t["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("failed: "))
        );
    }
    // the browsers that are not installed: skipped, said with how to install them
    let skipped: Vec<&str> = ev
        .iter()
        .filter(|e| e["name"] == "runner/project-skipped")
        .filter_map(|e| e["message"].as_str())
        .collect();
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    assert!(
        skipped
            .iter()
            .any(|m| m.contains("firefox") && m.contains("npx playwright install firefox")),
        "{skipped:?}"
    );
    assert!(skipped.iter().any(|m| m.contains("webkit")), "{skipped:?}");
    let finish = run_event(&ev, "run/finish");
    assert_eq!(
        finish["data"]["tests"],
        serde_json::json!({"total": 6, "passed": 4, "failed": 2, "skipped": 0})
    );

    // every artifact a file in the run folder; each failed test its own trace
    // and screenshot, bound to its step and its failure
    let items = json_file(&dir.join("artifacts.json"))["items"]
        .as_array()
        .expect("items")
        .clone();
    for a in &items {
        let path = a["path"].as_str().expect("path");
        assert!(dir.join(path).is_file(), "{path} exists");
    }
    for t in &failed {
        let id = t["id"].as_str().expect("id");
        let shot = items
            .iter()
            .find(|a| a["kind"] == "screenshot" && a["refs"]["stepId"] == id)
            .unwrap_or_else(|| panic!("{id}'s screenshot: {items:#?}"));
        assert_eq!(shot["refs"]["assertionId"], format!("{id}.e1"));
        assert_eq!(shot["path"], format!("artifacts/tests/{id}/failure.png"));
        let trace = items
            .iter()
            .find(|a| a["kind"] == "trace" && a["refs"]["stepId"] == id)
            .unwrap_or_else(|| panic!("{id}'s trace: {items:#?}"));
        // its own trace: the failed action is in it
        let doc = trace_json(root, &dir, trace);
        assert!(
            doc["failed"]
                .as_str()
                .is_some_and(|f| f.contains("toBeFocused")),
            "{id}: {doc:#}"
        );
    }
    assert_eq!(
        items.iter().filter(|a| a["kind"] == "trace").count(),
        6,
        "every test's trace is kept (seed 000 §6)"
    );
    assert!(items.iter().any(|a| a["kind"] == "playwright-report"));
    // no path the output names is gone
    for l in output.lines() {
        for w in l.split_whitespace() {
            let ext = Path::new(w).extension().and_then(|e| e.to_str());
            if matches!(ext, Some("zip" | "png" | "md")) {
                assert!(
                    root.join(w).is_file(),
                    "the output names {w}, not there: {output}"
                );
            }
        }
    }
    let (_, doc) = common::cli::validate_json(root);
    let rel = dir
        .strip_prefix(root)
        .expect("inside")
        .to_string_lossy()
        .into_owned();
    let mine: Vec<&Value> = doc["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .filter(|p| p["file"].as_str().is_some_and(|f| f.starts_with(&rel)))
        .collect();
    assert!(mine.is_empty(), "{mine:#?}");
}

/// `testdeck run` of the app's spec with the system Chromium and the
/// browsers' own (empty) download folder.
fn run_search(root: &Path, chromium: &Path, browsers: &Path) -> (Vec<Value>, i32) {
    run(
        root,
        "web/e2e/search/search",
        &[
            ("CHROMIUM_PATH", chromium),
            ("PLAYWRIGHT_BROWSERS_PATH", browsers),
        ],
        &[],
    )
}

/// `trace --json` of the trace artifact `trace` of the run folder `dir`.
pub(crate) fn trace_json(root: &Path, dir: &Path, trace: &Value) -> Value {
    let out = common::cli::at(root)
        .args(["trace", "--json"])
        .arg(dir.join(trace["path"].as_str().expect("path")))
        .output()
        .expect("trace");
    serde_json::from_slice(&out.stdout).expect("trace json")
}

#[test]
fn no_installed_browser_is_environment_fail_never_a_test_fail() {
    if !common::realworld::node_ready() {
        return;
    }
    let (p, browsers) = app_with_spec();
    let root = p.path();
    let missing = root.join("no-chromium-here");
    let (events, _) = run_search(root, &missing, browsers.path());
    let (v, output) = verdict(&events);
    assert_eq!(v, "environment-fail", "{output}");
    let reason = summary(&events)["results"][0]["reason"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    for b in ["chromium", "firefox", "webkit"] {
        assert!(
            reason.contains(&format!("npx playwright install {b}")),
            "{reason}"
        );
    }
    let ev = timeline(&newest_run(root, "web/e2e/search/search"));
    let finish = run_event(&ev, "run/finish");
    assert_eq!(finish["data"]["tests"]["total"], 0);
    assert!(finish["data"]["noTests"].is_string(), "{finish:#}");
    assert!(
        !ev.iter().any(|e| e["name"] == "runner/error"),
        "no second word for the same cause: {ev:#?}"
    );
}

/// The project's `webServer` that does not start is the environment, not a
/// test: the case is environment-fail with what the server said, and the
/// runner's output never points at the report folder it deletes.
#[test]
fn a_web_server_that_does_not_start_is_environment_fail_with_what_it_said() {
    let Some(chromium) = common::realworld::e2e_ready() else {
        return;
    };
    let (p, browsers) = app_with_spec();
    let root = p.path();
    std::fs::write(
        root.join("server.mjs"),
        "console.error('cannot listen: DATABASE_URL is not set');\nprocess.exit(3);\n",
    )
    .expect("server");
    let (events, code) = run_search(root, &chromium, browsers.path());
    let (v, output) = verdict(&events);
    assert_eq!((v.as_str(), code), ("environment-fail", 1), "{output}");
    let reason = summary(&events)["results"][0]["reason"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(reason.contains("the web server did not start"), "{reason}");
    assert!(reason.contains("DATABASE_URL is not set"), "{reason}");
    assert!(
        output.contains("DATABASE_URL is not set"),
        "the server's own words reach the terminal: {output}"
    );
    assert!(
        !output.contains("show-report"),
        "no command naming a deleted folder: {output}"
    );
    let ev = timeline(&newest_run(root, "web/e2e/search/search"));
    let finish = run_event(&ev, "run/finish");
    assert!(
        finish["data"]["environment"]
            .as_str()
            .is_some_and(|e| e.contains("DATABASE_URL")),
        "{finish:#}"
    );
}

#[test]
fn a_vitest_file_writes_each_test_by_its_describe_path_and_counts_as_vitest_does() {
    if !common::realworld::node_ready() {
        return;
    }
    let p = adopt::project("app");
    let root = p.path();
    init(root);
    // vitest looks in src/ only here: the copy's config also looks in tests/
    // (a file left where it is runs through the runner's outside selection)
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
    adopt::break_the_filter(root);
    let (events, code) = run(root, "web/backend/filter/filter", &[], &[]);
    let (v, output) = verdict(&events);
    assert_eq!((v.as_str(), code), ("fail", 1), "{output}");
    let ev = timeline(&newest_run(root, "web/backend/filter/filter"));
    let tests: Vec<&Value> = ev
        .iter()
        .filter(|e| e["type"] == "step" && e["data"]["kind"] == "test")
        .collect();
    let nested = tests
        .iter()
        .find(|t| t["name"] == "filterPosts › matching › matches a tag")
        .unwrap_or_else(|| panic!("the describe path: {tests:#?}"));
    assert_eq!(
        nested["data"]["titlePath"],
        serde_json::json!(["filterPosts", "matching", "matches a tag"])
    );
    assert_eq!(
        nested["data"]["location"]["file"],
        "tests/web/backend/filter/filter.test.ts"
    );
    assert_eq!(nested["data"]["location"]["line"], 15);
    let failed: Vec<&Value> = tests
        .iter()
        .copied()
        .filter(|t| t["status"] == "failed")
        .collect();
    assert_eq!(failed.len(), 2, "{tests:#?}");
    let errors: Vec<&Value> = ev
        .iter()
        .filter(|e| e["data"]["kind"] == "test-error")
        .collect();
    assert_eq!(errors.len(), 2, "{errors:#?}");
    for e in &errors {
        assert_eq!(e["type"], "assertion", "{e:#}");
        assert!(e["data"]["error"]["expected"].is_string(), "{e:#}");
        assert!(e["data"]["error"]["actual"].is_string(), "{e:#}");
        let at = &e["data"]["location"];
        assert_eq!(
            at["file"], "tests/web/backend/filter/filter.test.ts",
            "{e:#}"
        );
        assert!(!e["message"].as_str().unwrap_or_default().is_empty());
    }
    // the counts are vitest's own
    let out = Command::new("node")
        .args([
            "node_modules/vitest/vitest.mjs",
            "run",
            "--reporter=json",
            "tests/web/backend/filter/filter.test.ts",
        ])
        .current_dir(root)
        .output()
        .expect("vitest");
    let text = String::from_utf8_lossy(&out.stdout);
    let own: Value =
        serde_json::from_str(&text[text.find('{').expect("json")..]).expect("vitest json");
    let finish = run_event(&ev, "run/finish");
    assert_eq!(finish["data"]["tests"]["total"], own["numTotalTests"]);
    assert_eq!(finish["data"]["tests"]["failed"], own["numFailedTests"]);
    assert_eq!(finish["data"]["tests"]["passed"], own["numPassedTests"]);
    assert_eq!(
        tests.len() as u64,
        own["numTotalTests"].as_u64().expect("n")
    );
}

/// git in `root`, with no configuration but the repository's.
pub(crate) fn git(root: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

#[test]
fn a_run_records_the_code_it_ran_without_running_a_program_the_repository_configures() {
    if !common::realworld::node_ready() {
        return;
    }
    let p = adopt::project("lib");
    let root = p.path();
    init(root);
    mv(
        root,
        "test/slug.test.ts",
        "tests/lib/backend/slug/slug.test.ts",
    );
    let spec = root.join("tests/lib/backend/slug/slug.test.ts");
    let text = std::fs::read_to_string(&spec).expect("spec");
    std::fs::write(&spec, text.replace("'../src", "'../../../../src")).expect("write");
    std::fs::write(root.join(".gitignore"), "node_modules\ntests/logs/\n").expect("ignore");
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "start"]);
    // a repository's own programs: git must run none of them for testdeck
    let marker = root.join("ran");
    for (k, v) in [
        ("core.fsmonitor", format!("touch {}", marker.display())),
        ("core.pager", format!("touch {}", marker.display())),
        ("diff.external", format!("touch {}", marker.display())),
    ] {
        git(root, &["config", k, &v]);
    }
    let hooks = root.join(".git/hooks/post-checkout");
    std::fs::write(&hooks, format!("#!/bin/sh\ntouch {}\n", marker.display())).expect("hook");
    let code = |root: &Path| {
        let (events, _) = run(root, "lib/backend/slug/slug", &[], &[]);
        let (v, output) = verdict(&events);
        assert_eq!(v, "pass", "{output}");
        let ev = timeline(&newest_run(root, "lib/backend/slug/slug"));
        run_event(&ev, "run/start")["data"]["code"].clone()
    };
    let clean = code(root);
    assert!(
        clean["commit"].as_str().is_some_and(|c| c.len() == 40),
        "{clean:#}"
    );
    assert_eq!(clean["dirty"], Value::Null, "{clean:#}");
    // a change to a tracked source file is dirty; changed back, clean again
    let src = root.join("src/slug.ts");
    let before = std::fs::read(&src).expect("src");
    let mut changed = before.clone();
    changed.extend_from_slice(b"\n// a change\n");
    std::fs::write(&src, &changed).expect("write");
    let dirty = code(root);
    assert_eq!(dirty["commit"], clean["commit"]);
    let hash = dirty["dirty"]
        .as_str()
        .expect("a hash of the change")
        .to_owned();
    // a new test file nobody committed is part of the code too
    std::fs::write(
        root.join("tests/lib/backend/slug/extra.test.ts"),
        "// new\n",
    )
    .expect("new");
    let more = code(root);
    assert!(
        more["dirty"].as_str().is_some_and(|h| h != hash),
        "{more:#}"
    );
    std::fs::remove_file(root.join("tests/lib/backend/slug/extra.test.ts")).expect("rm");
    std::fs::write(&src, &before).expect("write back");
    assert_eq!(code(root), clean, "the same code again");
    assert!(
        !marker.exists(),
        "git ran a program the repository configures"
    );
}

/// `testdeck init` on the lib fixture (or its variant with `script` as its
/// test script), `test/date.test.ts` moved into the tree: the run of that case
/// from an environment without TZ, and the run folder.
fn date_case(
    script: Option<&str>,
    env_line: bool,
    tz: Option<&Path>,
) -> Option<(String, Vec<Value>, String)> {
    if !common::realworld::node_ready() {
        return None;
    }
    let p = adopt::project("lib");
    let root = p.path();
    if let Some(s) = script {
        let pkg = root.join("package.json");
        let text = std::fs::read_to_string(&pkg).expect("package.json");
        std::fs::write(&pkg, text.replace("TZ=America/New_York vitest run", s)).expect("write");
    }
    let said = init(root);
    let toml = std::fs::read_to_string(root.join("testdeck.toml")).expect("toml");
    assert!(
        toml.contains("env = { TZ = \"America/New_York\" }"),
        "{toml}"
    );
    if !env_line {
        let without: String = toml
            .lines()
            .filter(|l| !l.starts_with("env = "))
            .flat_map(|l| [l, "\n"])
            .collect();
        std::fs::write(root.join("testdeck.toml"), without).expect("write");
    }
    mv(
        root,
        "test/date.test.ts",
        "tests/lib/backend/date/date.test.ts",
    );
    let spec = root.join("tests/lib/backend/date/date.test.ts");
    let text = std::fs::read_to_string(&spec).expect("spec");
    std::fs::write(&spec, text.replace("'../src", "'../../../../src")).expect("write");
    let (events, _) = match tz {
        Some(tz) => run(root, "lib/backend/date/date", &[("TZ", tz)], &[]),
        None => run(root, "lib/backend/date/date", &[], &["TZ"]),
    };
    let (v, output) = verdict(&events);
    let ev = timeline(&newest_run(root, "lib/backend/date/date"));
    Some((v, ev, format!("{said}\n{output}")))
}

#[test]
fn init_carries_the_test_scripts_tz_and_a_run_without_tz_passes() {
    let Some((v, ev, out)) = date_case(None, true, None) else {
        return;
    };
    assert!(
        out.contains("package.json's scripts.test sets TZ: testdeck.toml's [runner] env gives it to the runner"),
        "{out}"
    );
    assert_eq!(v, "pass", "{out}");
    assert_eq!(
        run_event(&ev, "run/start")["data"]["env"],
        serde_json::json!(["TZ"]),
        "the names, never the values"
    );
}

#[test]
fn a_cross_env_test_script_is_carried_too_and_without_it_the_case_fails() {
    let Some((v, _, out)) = date_case(Some("cross-env TZ=America/New_York vitest run"), true, None)
    else {
        return;
    };
    assert_eq!(v, "pass", "{out}");
    // the control: the same case without the variable, in UTC, fails
    let Some((v, ev, out)) = date_case(None, false, Some(Path::new("UTC"))) else {
        return;
    };
    assert_eq!(v, "fail", "{out}");
    assert_eq!(
        run_event(&ev, "run/start")["data"]["env"],
        serde_json::json!([])
    );
}
