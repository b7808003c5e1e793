//! `--changed [REV]` on `list` and `run`, on a real git checkout in a tempdir:
//! exactly the cases whose test file or plan entry changed, or whose import
//! graph reaches a changed file.

use crate::common::cli;
use serde_json::Value;
use std::path::Path;

pub(crate) fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

pub(crate) fn git(root: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .current_dir(root)
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

pub(crate) fn has_git() -> bool {
    std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Seed 000's filters in; one passed run folder per `--case` out.
pub(crate) const RUNNER: &str = r#"#!/bin/sh
scope=; cases=
while [ $# -gt 0 ]; do
  case "$1" in
    --domain|--layer|--suite|--group) scope="$scope/$2"; shift 2 ;;
    --case) cases="$cases $2"; shift 2 ;;
    *) shift ;;
  esac
done
scope=${scope#/}
for c in $cases; do
  dir="tests/logs/$scope/$c/20260101-000000-001"
  mkdir -p "$dir"
  : > "$dir/timeline.jsonl"
  printf '{"schemaVersion":4,"runId":"20260101-000000-001","caseId":"%s","scope":"%s","status":"passed","startedAt":"2026-01-01T00:00:00Z","finishedAt":"2026-01-01T00:00:01Z","stats":{"durationMs":5,"steps":0,"assertions":0,"errors":0,"artifacts":0},"runtime":{"driver":"sh","target":"none","modelName":"none"}}\n' "$c" "$scope" > "$dir/meta.json"
done
"#;

pub(crate) const PLAN: &str =
    "# shop\n\n## one\n\nWhat: one\n\n## two\n\nWhat: two\n\n## three\n\nWhat: three\n";

/// Three committed cases, a plan entry each, the slow runner as the runner.
fn checkout() -> tempfile::TempDir {
    let dir = crate::common::fs::scratch_dir();
    let root = dir.path();
    for c in ["one", "two", "three"] {
        write(
            root,
            &format!("tests/shop/api/cart/{c}.test.ts"),
            "// case\n",
        );
    }
    write(root, "doc/test-plan/shop.md", PLAN);
    write(root, "src/cart.js", "export const x = 1;\n");
    // a runner that passes every case it is given (`--case` may come more than once)
    write(root, "runner.sh", RUNNER);
    write(
        root,
        "testdeck.toml",
        "[runner]\ncommand = [\"sh\", \"runner.sh\"]\n",
    );
    git(root, &["init", "-q"]);
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "cases"]);
    dir
}

pub(crate) fn listed(root: &Path, args: &[&str]) -> Vec<String> {
    let out = cli::at(root)
        .args(["list", "--json"])
        .args(args)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    let mut ids: Vec<String> = doc["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| c["id"].as_str().expect("id").to_owned())
        .collect();
    ids.sort();
    ids
}

#[test]
fn changed_lists_and_runs_exactly_the_cases_whose_files_changed() {
    if !has_git() {
        eprintln!("no git: skipped");
        return;
    }
    let ws = checkout();
    let root = ws.path();
    assert!(listed(root, &["--changed"]).is_empty());
    // one test file edited, the plan entry of another
    write(root, "tests/shop/api/cart/one.test.ts", "// case, edited\n");
    write(
        root,
        "doc/test-plan/shop.md",
        &PLAN.replace("What: two", "What: two, said better"),
    );
    assert_eq!(listed(root, &["--changed"]), ["one", "two"]);
    // text output too
    let out = cli::at(root)
        .args(["list", "--changed"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("one") && !text.contains("three"), "{text}");
    // run --changed runs those two, and only them
    let out = cli::at(root)
        .args(["run", "--json", "--changed"])
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = cli::json_lines(&out.stdout);
    let summary = lines.last().expect("summary");
    assert_eq!(summary["type"], "summary");
    let mut ran: Vec<&str> = summary["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["id"].as_str().expect("id"))
        .collect();
    ran.sort_unstable();
    assert_eq!(ran, ["shop/api/cart/one", "shop/api/cart/two"]);
    // committed: nothing differs from HEAD, all of it from the first commit
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "edits"]);
    assert!(listed(root, &["--changed"]).is_empty());
    let out = cli::at(root)
        .args(["run", "--changed"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing to run"));
    let out = cli::at(root)
        .args(["watch", "--changed"])
        .output()
        .expect("watch");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing to watch"));
    assert_eq!(listed(root, &["--changed=HEAD~1"]), ["one", "two"]);
    // a new case, untracked
    write(root, "tests/shop/api/cart/four.test.ts", "// new\n");
    assert_eq!(listed(root, &["--changed"]), ["four"]);
    // the code under test: the cases that import it (none: none, and said so)
    write(root, "src/cart.js", "export const x = 2;\n");
    assert_eq!(listed(root, &["--changed"]), ["four"]);
    write(
        root,
        "tests/shop/api/cart/three.test.ts",
        "import { x } from '../../../../src/cart.js';\n",
    );
    git(root, &["commit", "-q", "-am", "three imports the cart"]);
    write(root, "src/cart.js", "export const x = 3;\n");
    assert_eq!(listed(root, &["--changed"]), ["four", "three"]);
    // a change the graph cannot place: every case
    write(root, "package.json", "{}\n");
    assert_eq!(
        listed(root, &["--changed"]),
        ["four", "one", "three", "two"]
    );
    // a revision git does not know: exit 2
    let out = cli::at(root)
        .args(["list", "--changed=no-such-rev"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn changed_outside_a_git_checkout_says_so_and_exits_2() {
    let dir = crate::common::fs::scratch_dir();
    write(dir.path(), "tests/shop/api/cart/one.test.ts", "// case\n");
    for cmd in [
        &["list", "--changed"][..],
        &["run", "--changed"][..],
        &["watch", "--changed"][..],
    ] {
        let out = cli::at(dir.path()).args(cmd).output().expect("run");
        assert_eq!(out.status.code(), Some(2), "{cmd:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("not a git checkout"), "{cmd:?}: {err}");
    }
}

/// Issue 44: `list --changed` printed nothing at all when nothing changed.
#[test]
fn list_changed_says_when_nothing_differs() {
    if !has_git() {
        eprintln!("no git: skipped");
        return;
    }
    let ws = checkout();
    let out = cli::at(ws.path())
        .args(["list", "--changed"])
        .output()
        .expect("list");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "nothing differs from HEAD: no case changed\n"
    );
    // --json stays the empty list, and says no file changed
    let out = cli::at(ws.path())
        .args(["list", "--changed", "--json"])
        .output()
        .expect("list");
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["cases"], serde_json::json!([]));
    assert_eq!(doc["changed"]["files"], serde_json::json!([]));
}

/// Issue 44: a `.gitignore` naming `temp` hid `tests/temp/` from git, and so
/// from `--changed`, and nothing said so.
#[test]
fn validate_warns_where_git_ignores_the_tests() {
    if !has_git() {
        eprintln!("no git: skipped");
        return;
    }
    let ws = checkout();
    let root = ws.path();
    let (_, doc) = cli::validate_json(root);
    let rules = |doc: &Value| -> Vec<Value> {
        doc["problems"]
            .as_array()
            .expect("problems")
            .iter()
            .filter(|p| p["rule"] == "git-ignores-tests")
            .cloned()
            .collect()
    };
    assert!(rules(&doc).is_empty(), "{doc}");
    write(root, ".gitignore", "node_modules\ntemp\n");
    write(root, "tests/temp/try.test.ts", "// ad hoc\n");
    // git does not see the new temp case: --changed cannot either
    assert!(!listed(root, &["--changed"]).contains(&"try".to_owned()));
    let (code, doc) = cli::validate_json(root);
    assert_eq!(code, Some(0), "a warning, not an error: {doc}");
    let found = rules(&doc);
    assert_eq!(found.len(), 1, "{doc}");
    assert_eq!(found[0]["severity"], "warning");
    assert_eq!(found[0]["file"], ".gitignore");
    assert_eq!(found[0]["line"], 2);
    assert!(
        found[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("tests/temp/") && m.contains("\"temp\"")),
        "{doc}"
    );
    // `tests` itself: the whole tree, said once
    write(root, ".gitignore", "tests\n");
    let (_, doc) = cli::validate_json(root);
    let found = rules(&doc);
    assert_eq!(found.len(), 1, "{doc}");
    assert!(
        found[0]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("git ignores tests/ ")),
        "{doc}"
    );
}
