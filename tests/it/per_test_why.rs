//! Issue 40's readers on run folders of files holding many tests, written as the
//! reporters write them (docs/per-test-events.md; `testkit::per_test`): a
//! Playwright spec of 6 tests, 2 failing, each with its own trace, and a vitest
//! file of nested `describe`s, 2 failing with expected / actual. `explain` lists
//! each failed test once by its title path with its `file:line`, frames and
//! snippet; `trace` opens the failed test's own trace and names its failed
//! action; in the cockpit `E` from `W` opens each failing test's line, the
//! Artifacts pane stands on the failed test's trace, `W` marks the characters a
//! string diff differs by, and the timeline of a passing run lists every test by
//! its title path, once.

use crate::common;
use common::Session;
use common::cli::at;
use serde_json::Value;
use std::path::Path;
use testdeck_core::testkit::per_test as fx;

pub(crate) fn json_of(root: &Path, args: &[&str]) -> (Option<i32>, Value) {
    let o = at(root).args(args).output().expect("testdeck");
    let v = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)));
    (o.status.code(), v)
}

#[test]
fn explain_lists_each_failed_test_once_by_its_title_path_line_frames_and_snippet() {
    let d = common::fs::scratch_dir();
    let root = d.path();
    fx::playwright_run(root);
    fx::vitest_runs(root);

    let (code, pw) = json_of(root, &["explain", fx::PW_RUN, "--json"]);
    assert_eq!(code, Some(0), "{pw}");
    let failures = pw["failures"].as_array().expect("failures");
    assert_eq!(failures.len(), 2, "no duplicates: {pw:#}");
    for (f, (id, title, _, line)) in failures.iter().zip(fx::PW_FAILED) {
        assert_eq!(f["test"], id);
        assert_eq!(f["titlePath"].as_array().map(Vec::len), Some(2));
        let joined: Vec<&str> = f["titlePath"]
            .as_array()
            .expect("titles")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(joined.join(" › "), title);
        assert_eq!(f["location"]["file"], fx::PW_SPEC);
        assert_eq!(f["location"]["line"], line);
        let frame = &f["frames"][0];
        assert_eq!(frame["file"], fx::PW_SPEC);
        assert_eq!(frame["line"], line);
        assert_eq!(frame["inWorkspace"], true);
        let marked: Vec<&Value> = frame["snippet"]
            .as_array()
            .expect("a snippet")
            .iter()
            .filter(|l| l["marked"] == true)
            .collect();
        assert_eq!(marked.len(), 1);
        assert!(
            marked[0]["text"]
                .as_str()
                .is_some_and(|t| t.contains("await expect(")),
            "{frame}"
        );
        assert_eq!(
            f["artifacts"],
            serde_json::json!([format!("failure-{id}"), format!("trace-{id}")])
        );
    }
    assert_eq!(pw["passed"].as_array().map(Vec::len), Some(4));

    let (_, vt) = json_of(root, &["explain", fx::VT_RUN, "--json"]);
    let failures = vt["failures"].as_array().expect("failures");
    assert_eq!(failures.len(), 2, "{vt:#}");
    assert_eq!(
        failures[0]["titlePath"],
        serde_json::json!(["joinURL", "with a base", "keeps the trailing slash"])
    );
    assert_eq!(failures[0]["expected"], "'https://a.dev/api/'");
    assert_eq!(failures[0]["received"], "'https://a.dev/api'");
    for (f, (_, _, line)) in failures.iter().zip(fx::VT_FAILED) {
        assert_eq!(f["location"]["file"], fx::VT_FILE);
        assert_eq!(f["location"]["line"], line);
        assert_eq!(f["frames"][0]["line"], line);
    }

    // the text: each failed test by its title, the passing in one line, said once
    let o = at(root)
        .args(["explain", fx::PW_RUN])
        .output()
        .expect("explain");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("✓ 4 tests passed"), "{text}");
    assert!(
        text.contains("✗ PostsSearch › should focus and select input on Ctrl+K shortcut [t5.e1]"),
        "{text}"
    );
    assert_eq!(
        text.matches("toHaveValue(expected) failed").count(),
        1,
        "{text}"
    );
    assert!(!text.contains("node_modules/playwright"), "folded: {text}");
}

#[test]
fn trace_of_the_run_opens_the_failed_tests_own_trace_and_names_its_failed_action() {
    let d = common::fs::scratch_dir();
    let root = d.path();
    fx::playwright_run(root);
    // the run folder: the first failed test's trace (the report is listed first)
    let run = root.join(fx::PW_RUN).display().to_string();
    let (code, t) = json_of(root, &["trace", &run, "--json"]);
    assert_eq!(code, Some(1), "a failed action: {t:#}");
    assert_eq!(t["failed"], fx::PW_FAILED_ACTIONS[0], "{t:#}");
    assert!(
        t["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("artifacts/tests/t3/trace.zip")),
        "{t:#}"
    );
    // each failed test's own trace names its own failed action
    for ((id, ..), action) in fx::PW_FAILED.iter().zip(fx::PW_FAILED_ACTIONS) {
        let zip = format!("{run}/artifacts/tests/{id}/trace.zip");
        let (_, t) = json_of(root, &["trace", &zip, "--json"]);
        assert_eq!(t["failed"], action, "{t:#}");
    }
}

#[test]
fn w_opens_each_failing_tests_line_and_the_artifacts_stand_on_its_trace() {
    let d = common::fs::scratch_dir();
    let root = d.path();
    fx::playwright_run(root);
    let cfg = common::fs::scratch_dir();
    let editor = common::editor::Recording::new();
    let mut s = Session::start_with(root, cfg.path(), &editor.env());
    s.wait_text("Tests ·");
    s.find("posts-search");
    s.wait_text("W: why");
    let text = s.screen().screen().contents();
    assert!(
        text.contains("✗ PostsSearch › should focus and select input on Cmd+K shortcut"),
        "the details name the failed test: {text}"
    );
    s.send("W");
    s.wait_text("Why it failed");
    s.wait_text("✓ 4 tests passed");
    let root_real = root.canonicalize().expect("root");
    // E: the first failed test's line; j: the next failed test's; E: its line
    for (k, (_, _, _, line)) in fx::PW_FAILED.iter().enumerate() {
        if k > 0 {
            s.send("j");
            s.wait_for("the cursor on the next failed test", |sc| {
                sc.contents()
                    .contains(&format!("▸ at {}:{line}", fx::PW_SPEC))
            });
        }
        s.send("E");
        assert_eq!(
            editor.take(),
            format!("+{line}\n{}\n{}\n", fx::PW_SPEC, root_real.display())
        );
        s.wait_text(&format!("edited {}", fx::PW_SPEC));
    }
    s.send("\x1b");
    s.wait_for("the panes", |sc| !sc.contents().contains("Why it failed"));
    // the Artifacts pane stands on the failed test's trace: Enter opens it
    s.send("\t");
    s.send("\t");
    s.send("\t");
    s.send("\r");
    s.wait_text("Trace · artifacts/tests/t3/trace.zip");
    s.wait_text("Expect \"toBeFocused\"");
    s.send("\x1b");
    s.quit();
}

#[test]
fn a_passing_runs_timeline_lists_every_test_by_its_title_path_once() {
    let d = common::fs::scratch_dir();
    let root = d.path();
    fx::vitest_runs(root);
    let cfg = common::fs::scratch_dir();
    let mut s = Session::start_with(root, cfg.path(), &[]);
    s.wait_text("Tests ·");
    s.find("join-url");
    s.wait_text("joinURL › segments › splits every part");
    let text = s.screen().screen().contents();
    // each test a row of its own, its title path once, no `passed` after the status
    for title in [
        "joinURL › with a base › joins two parts",
        "joinURL › with a base › keeps the trail",
        "joinURL › segments › keeps an empty input",
        "joinURL › segments › splits every part",
    ] {
        assert_eq!(
            text.matches(&format!("step      ok      {title}")).count(),
            1,
            "{title} once in\n{text}"
        );
    }
    assert_eq!(text.matches("joinURL ›").count(), 4, "{text}");
    assert!(!text.contains("· passed"), "the status says it: {text}");
    s.quit();
}

#[test]
fn w_marks_the_characters_a_string_diff_differs_by() {
    let d = common::fs::scratch_dir();
    let root = d.path();
    fx::vitest_runs(root);
    // the failed run is the case's latest
    std::fs::remove_dir_all(root.join(fx::VT_PASSED_RUN)).expect("rm");
    let cfg = common::fs::scratch_dir();
    let mut s = Session::start(root, cfg.path());
    s.wait_text("Tests ·");
    s.find("join-url");
    s.wait_text("W: why");
    s.send("W");
    s.wait_text("Why it failed");
    s.wait_text("✓ 2 tests passed");
    s.wait_text("✗ joinURL › with a base › keeps the trailing slash");
    let screen = s.screen();
    let sc = screen.screen();
    let text = sc.contents();
    let (row, col) =
        common::find_text(sc, "- https://a.dev/api/").unwrap_or_else(|| panic!("{text}"));
    let cell = |c: u16| sc.cell(row, c).expect("cell").clone();
    // `- https://a.dev/api/`: the last slash (column + 19) is the one received lacks
    let slash = cell(col + 19);
    assert_eq!(slash.contents(), "/", "{text}");
    assert!(slash.inverse(), "the differing character is marked: {text}");
    assert!(!cell(col + 18).inverse(), "the rest is not: {text}");
    assert_eq!(
        slash.fgcolor(),
        cell(col + 18).fgcolor(),
        "in the side's own colour"
    );
    s.send("\x1b");
    s.quit();
}
