//! Issue 39 (part A): a project's existing vitest and Playwright tests, where
//! they stand, are cases outside the tree after `testdeck init` alone — the
//! same files the frameworks themselves name, runnable, shown in the cockpit —
//! and first contact: the no-workspace message, `.gitignore`, the empty tree's
//! hint, a case row that keeps its name. Each test on a fresh copy of one of
//! the adoption fixtures (`tests/fixtures/adopt/`).

use crate::common;
use common::adopt::project;
use common::app::{Deck, Runs, options, rows};
use common::cli::at;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use testdeck_core::workspace::config::ConfigLoad as _;

fn init(root: &Path) -> String {
    let out = at(root).arg("init").output().expect("init");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `list --json`'s tests cases: (path, outside) each.
fn listed(root: &Path) -> Vec<(String, bool)> {
    let out = at(root).args(["list", "--json"]).output().expect("list");
    assert!(out.status.success(), "{out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    doc["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            (
                c["path"].as_str().expect("path").to_owned(),
                c["outside"].as_bool().expect("outside"),
            )
        })
        .collect()
}

/// The files `vitest list` names, relative to `root`.
fn vitest_lists(root: &Path) -> BTreeSet<String> {
    let out = Command::new("node")
        .args([
            "node_modules/vitest/vitest.mjs",
            "list",
            "--json",
            "--filesOnly",
        ])
        .current_dir(root)
        .output()
        .expect("vitest list");
    assert!(out.status.success(), "{out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).expect("vitest's json");
    doc.as_array()
        .expect("files")
        .iter()
        .map(|f| {
            let abs = f["file"].as_str().expect("file");
            rel(root, Path::new(abs))
        })
        .collect()
}

/// The files `playwright test --list` names, relative to `root`.
fn playwright_lists(root: &Path) -> BTreeSet<String> {
    let out = Command::new("node")
        .args([
            "node_modules/@playwright/test/cli.js",
            "test",
            "--list",
            "--reporter=json",
        ])
        .current_dir(root)
        .output()
        .expect("playwright --list");
    assert!(out.status.success(), "{out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).expect("playwright's json");
    let dir = doc["config"]["rootDir"].as_str().expect("rootDir");
    doc["suites"]
        .as_array()
        .expect("suites")
        .iter()
        .map(|s| {
            rel(
                root,
                &Path::new(dir).join(s["file"].as_str().expect("file")),
            )
        })
        .collect()
}

fn rel(root: &Path, p: &Path) -> String {
    let root = root.canonicalize().expect("root");
    let p = p.canonicalize().expect("file");
    p.strip_prefix(&root)
        .expect("inside")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn after_init_the_library_s_tests_are_the_cases_vitest_lists() {
    if !common::realworld::node_ready() {
        return;
    }
    let d = project("lib");
    let said = init(d.path());
    assert!(said.contains("found vitest"), "{said}");
    assert!(said.contains("found 5 test files"), "{said}");
    assert!(said.contains("test/ (5 vitest)"), "{said}");
    let cases = listed(d.path());
    assert!(cases.iter().all(|(_, o)| *o), "{cases:?}");
    let ours: BTreeSet<String> = cases.into_iter().map(|(p, _)| p).collect();
    assert_eq!(ours, vitest_lists(d.path()));
    assert_eq!(ours.len(), 5);
}

#[test]
fn after_init_the_app_s_tests_are_the_cases_vitest_and_playwright_list() {
    if !common::realworld::node_ready() {
        return;
    }
    let d = project("app");
    let said = init(d.path());
    assert!(said.contains("found vitest and @playwright/test"), "{said}");
    assert!(said.contains("src/ (2 vitest, 1 Playwright)"), "{said}");
    let ours: BTreeSet<String> = listed(d.path()).into_iter().map(|(p, _)| p).collect();
    let mut theirs = vitest_lists(d.path());
    theirs.extend(playwright_lists(d.path()));
    assert_eq!(ours, theirs);
    // a new test file the written patterns take shows without init again
    common::fs::write(
        d.path(),
        "src/lib/more.test.ts",
        "import { test } from 'vitest';\n",
    );
    let now: BTreeSet<String> = listed(d.path()).into_iter().map(|(p, _)| p).collect();
    assert!(now.contains("src/lib/more.test.ts"), "{now:?}");
    // the project's own config is byte-identical
    let mine = std::fs::read(d.path().join("playwright.config.ts")).expect("config");
    let theirs = std::fs::read(common::adopt::source("app").join("playwright.config.ts"))
        .expect("fixture's");
    assert_eq!(mine, theirs);
}

/// `testdeck run FILE --json`: its exit code and result lines.
fn run(root: &Path, what: &str) -> (Option<i32>, Vec<Value>) {
    let out = at(root)
        .args(["run", what, "--json"])
        .output()
        .expect("run");
    (out.status.code(), common::cli::json_lines(&out.stdout))
}

#[test]
fn an_outside_vitest_file_runs_where_it_stands_and_its_run_validates() {
    if !common::realworld::node_ready() {
        return;
    }
    for (which, file, scope) in [
        ("lib", "test/slug.test.ts", "temp/outside/test/slug"),
        (
            "app",
            "src/lib/filter.test.ts",
            "temp/outside/src/lib/filter",
        ),
    ] {
        let d = project(which);
        init(d.path());
        let (code, lines) = run(d.path(), file);
        assert_eq!(code, Some(0), "{which}: {lines:?}");
        let runs = d.path().join("tests/logs").join(scope);
        let folders: Vec<_> = std::fs::read_dir(&runs)
            .expect("its run folder")
            .flatten()
            .collect();
        assert_eq!(folders.len(), 1, "{which}");
        let meta: Value = serde_json::from_slice(
            &std::fs::read(folders[0].path().join("meta.json")).expect("meta.json"),
        )
        .expect("meta");
        assert_eq!(meta["status"], "passed");
        let (scope_dir, case_id) = scope.rsplit_once('/').expect("scope");
        assert_eq!(meta["scope"], scope_dir);
        assert_eq!(meta["caseId"], case_id);
        let (code, doc) = common::cli::validate_json(d.path());
        assert_eq!(code, Some(0), "{which}: {doc}");
        // the same case by its key
        let (code, _) = run(d.path(), scope);
        assert_eq!(code, Some(0), "{which} by key");
        // explain takes the file as run does: its newest run
        let out = common::cli::at(d.path())
            .args(["explain", "--json", file])
            .output()
            .expect("explain");
        let doc: Value = serde_json::from_slice(&out.stdout).expect("explain json");
        assert_eq!(doc["status"], "passed", "{which}: {doc}");
        assert!(
            doc["path"]
                .as_str()
                .is_some_and(|p| p.starts_with(&format!("tests/logs/{scope}/"))),
            "{which}: {doc}"
        );
    }
}

#[test]
fn the_playwright_spec_is_listed_and_launched_by_its_file() {
    let d = project("app");
    init(d.path());
    let cases = listed(d.path());
    assert!(
        cases.contains(&("src/e2e/search.spec.ts".to_owned(), true)),
        "{cases:?}"
    );
    // the runner as a real sh child that says what it was given
    let toml = d.path().join("testdeck.toml");
    let text = std::fs::read_to_string(&toml).expect("toml");
    let text = text.replace(
        r#"command = ["node", "scripts/test-workflow.mjs"]"#,
        r#"command = ["sh", "-c", "printf '%s\n' \"$@\" > args.txt", "runner"]"#,
    );
    std::fs::write(&toml, text).expect("toml");
    let _ = at(d.path())
        .args(["run", "src/e2e/search.spec.ts"])
        .output()
        .expect("run");
    let args = std::fs::read_to_string(d.path().join("args.txt")).expect("the runner ran");
    assert_eq!(args, "--case\nsrc/e2e/search.spec.ts\n");
}

#[test]
fn init_ignores_the_logs_in_gitignore_once() {
    let d = project("lib");
    common::fs::write(d.path(), ".gitignore", "node_modules\ndist");
    init(d.path());
    let text = std::fs::read_to_string(d.path().join(".gitignore")).expect("gitignore");
    assert_eq!(text, "node_modules\ndist\ntests/logs/\n");
    let again = at(d.path())
        .args(["init", "--catalog"])
        .output()
        .expect("init");
    assert!(again.status.success());
    let text = std::fs::read_to_string(d.path().join(".gitignore")).expect("gitignore");
    assert_eq!(
        text,
        "node_modules\ndist\ntests/logs/\n.pouch/tester/local.yaml\n"
    );
}

#[test]
fn no_workspace_names_init_and_the_test_files_below() {
    let d = project("lib");
    let out = common::cli::command()
        .arg("list")
        .current_dir(d.path())
        .output()
        .expect("list");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("testdeck init"), "{err}");
    assert!(err.contains("5 test files below this folder"), "{err}");
}

#[test]
fn the_cockpit_shows_them_under_their_node() {
    let d = project("app");
    init(d.path());
    let mut deck = Deck::new(options(d.path(), "app"), Runs::NOTHING)
        .sized(100, 30)
        .loaded();
    deck.keys("L");
    let text = rows(&common::app::draw(&deck)).join("\n");
    for want in [
        "temp", "outside", "src", "lib", "e2e", "filter", "format", "search",
    ] {
        assert!(text.contains(want), "{want}:\n{text}");
    }
}

#[test]
fn the_empty_tree_says_what_is_there_and_how_to_begin() {
    let d = common::fs::scratch_dir();
    std::fs::create_dir(d.path().join("tests")).expect("tests/");
    let deck = Deck::new(options(d.path(), "empty"), Runs::NOTHING)
        .sized(110, 30)
        .loaded();
    let text = rows(&common::app::draw(&deck)).join("\n");
    assert!(text.contains("No test cases here"), "{text}");
    assert!(text.contains("testdeck init"), "{text}");
    assert!(text.contains("testdeck new"), "{text}");
    assert!(text.contains("testdeck adopt"), "{text}");
}

#[test]
fn a_badge_heavy_row_keeps_sixteen_columns_of_its_name() {
    let d = common::fs::scratch_dir();
    let scope = "docs/backend/export/roundtrip/boundary";
    common::fs::write(
        d.path(),
        &format!("tests/{scope}/docx-export-roundtrip-large.test.ts"),
        "",
    );
    // flaky and a new failure: passed, failed, passed, failed
    for (i, st) in ["passed", "failed", "passed", "failed"].iter().enumerate() {
        common::fixtures::write_run(
            d.path(),
            scope,
            "docx-export-roundtrip-large",
            &common::fixtures::run_id(1, i as u32),
            Some(st),
            10,
            &[],
            &[],
        );
    }
    for w in [100u16, 150, 200] {
        let mut deck = Deck::new(options(d.path(), "badges"), Runs::NOTHING)
            .sized(w, 20)
            .loaded();
        deck.keys("L");
        let text = rows(&common::app::draw(&deck)).join("\n");
        assert!(
            text.contains("docx-export-roun"),
            "{w} columns: the name is cut below 16:\n{text}"
        );
        // narrow: each badge as its one-column sign; wide: in full
        let signs = text.contains("⚠~!");
        let full = text.contains("⚠unreg") && text.contains("~flaky") && text.contains("new✗");
        assert!(if w == 100 { signs } else { full }, "{w}:\n{text}");
    }
}

/// A test file the project adds outside the tree while the cockpit is open is
/// a case at once, and gone when the file is: the workspace's one watcher
/// watches `[outside]`'s folders and the reader makes each such file its case.
#[test]
fn a_test_file_added_outside_the_tree_while_open_is_a_case_and_gone_with_it() {
    use testdeck_core::workspace::Workspace;
    use testdeck_core::workspace::changes::{Change, Reader};
    use testdeck_core::workspace::config::Config;
    use testdeck_core::workspace::watch::WorkspaceWatcher;
    let d = project("lib");
    init(d.path());
    let root = d.path().canonicalize().expect("real root");
    let mut ws = Workspace::load(&root).expect("workspace");
    let paths = |ws: &Workspace| -> BTreeSet<String> {
        ws.tests
            .cases
            .iter()
            .filter(|c| c.outside)
            .map(|c| c.path.clone())
            .collect()
    };
    let before = paths(&ws);
    assert_eq!(before.len(), 5, "{before:?}");
    let (w, rx) = WorkspaceWatcher::start(&root);
    let end = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !w.ready() {
        assert!(
            std::time::Instant::now() < end,
            "the watcher never got ready"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let mut problems = Vec::new();
    let reader = Reader::new(&root, &Config::load(&root, &mut problems));
    // the batches until one names `rel` as an outside change, applied
    let follow = |ws: &mut Workspace, rel: &str| {
        let want = Change::Outside(rel.to_owned());
        loop {
            let left = end.saturating_duration_since(std::time::Instant::now());
            let batch = rx
                .recv_timeout(left)
                .unwrap_or_else(|e| panic!("no change for {rel}: {e}"));
            let seen = batch.changes.contains(&want);
            ws.apply(reader.read(&batch.changes));
            if seen {
                return;
            }
        }
    };
    let rel = "test/later.test.ts";
    std::fs::write(
        root.join(rel),
        "import { expect, it } from 'vitest';\nit('is later', () => expect(1).toBe(1));\n",
    )
    .expect("write");
    follow(&mut ws, rel);
    let case = ws
        .tests
        .cases
        .iter()
        .find(|c| c.path == rel)
        .unwrap_or_else(|| panic!("no case for {rel}: {:?}", paths(&ws)));
    assert!(case.outside && case.temp, "{case:?}");
    assert_eq!(
        (case.scope.as_str(), case.case_id.as_str()),
        ("temp/outside/test", "later")
    );
    // a save of it changes nothing; its removal takes the case away
    std::fs::remove_file(root.join(rel)).expect("remove");
    follow(&mut ws, rel);
    assert_eq!(paths(&ws), before);
    // a file no pattern takes for a test is no change of the tree
    std::fs::write(root.join("test/helpers.ts"), "export const x = 1;\n").expect("write");
    std::fs::write(root.join(rel), "it('again', () => {});\n").expect("write");
    follow(&mut ws, rel);
    assert!(paths(&ws).contains(rel));
    assert!(!paths(&ws).iter().any(|p| p.ends_with("helpers.ts")));
    drop(w);
}
