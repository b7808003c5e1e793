//! What a change reaches, on the adoption fixtures (`tests/fixtures/adopt`):
//! their test files moved into the tests tree (their relative imports written
//! from there), a real git checkout, `list --changed --json` and `run
//! --changed` selecting exactly the cases whose import graph reaches an edit.

use crate::changed_cli::{RUNNER, git, has_git, write};
use crate::common::{adopt, cli};
use serde_json::Value;
use std::path::Path;

/// Move `from` (a test file of the fixture) to `to` in the tests tree, its
/// `'../src` / `'./` imports written from the new folder.
fn move_test(root: &Path, from: &str, to: &str, rewrites: &[(&str, &str)]) {
    let mut text = std::fs::read_to_string(root.join(from)).expect("read test");
    for (old, new) in rewrites {
        text = text.replace(old, new);
    }
    write(root, to, &text);
    std::fs::remove_file(root.join(from)).expect("rm");
}

/// A fixture project made a testdeck workspace: its tests under `tests/`, a
/// runner that passes each case it is given, a vitest config, committed.
fn workspace(which: &str) -> tempfile::TempDir {
    let d = adopt::project(which);
    let root = d.path();
    let _ = std::fs::remove_file(root.join("node_modules"));
    if which == "lib" {
        for t in ["encode", "query", "path", "slug", "date"] {
            move_test(
                root,
                &format!("test/{t}.test.ts"),
                &format!("tests/text/unit/lib/{t}.test.ts"),
                &[("'../src", "'../../../../src")],
            );
        }
    } else {
        for t in ["filter", "format"] {
            move_test(
                root,
                &format!("src/lib/{t}.test.ts"),
                &format!("tests/app/unit/lib/{t}.test.ts"),
                &[("'./", "'../../../../src/lib/")],
            );
        }
    }
    write(root, "runner.sh", RUNNER);
    write(
        root,
        "testdeck.toml",
        "[runner]\ncommand = [\"sh\", \"runner.sh\"]\n",
    );
    if !root.join("vitest.config.ts").exists() {
        write(
            root,
            "vitest.config.ts",
            "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['tests/**/*.test.ts'] } });\n",
        );
    }
    git(root, &["init", "-q"]);
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "fixture"]);
    d
}

/// `list --changed --json`: the case ids, and the `changed` object.
fn listed(root: &Path) -> (Vec<String>, Value) {
    let out = cli::at(root)
        .args(["list", "--json", "--changed"])
        .output()
        .expect("list");
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
    (ids, doc["changed"].clone())
}

fn append(root: &Path, rel: &str, text: &str) {
    let mut t = std::fs::read_to_string(root.join(rel)).expect("read");
    t.push_str(text);
    write(root, rel, &t);
}

#[test]
fn editing_the_leaf_selects_exactly_the_tests_that_reach_it() {
    if !has_git() {
        eprintln!("no git: skipped");
        return;
    }
    let d = workspace("lib");
    let root = d.path();
    // chars.ts ← encode.ts ← encode test, ← query.ts ← query test;
    // chars.ts ← slug.ts ← the index.ts barrel (`export *`) ← slug test
    append(root, "src/text/chars.ts", "// edited\n");
    let (ids, changed) = listed(root);
    assert_eq!(ids, ["encode", "query", "slug"]);
    assert_eq!(changed["every"], Value::Null);
    assert_eq!(
        changed["notes"],
        serde_json::json!(["src/text/chars.ts changed: 3 cases reach it"])
    );
    // run --changed launches those three, and only them
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
    let mut ran: Vec<&str> = summary["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["id"].as_str().expect("id"))
        .collect();
    ran.sort_unstable();
    assert_eq!(
        ran,
        [
            "text/unit/lib/encode",
            "text/unit/lib/query",
            "text/unit/lib/slug"
        ]
    );
    git(root, &["checkout", "-q", "--", "."]);
    let _ = std::fs::remove_dir_all(root.join("tests/logs"));

    // the module no test reaches: none, and said so
    append(root, "src/unused.ts", "// edited\n");
    let (ids, changed) = listed(root);
    assert!(ids.is_empty(), "{ids:?}");
    assert_eq!(
        changed["notes"],
        serde_json::json!(["src/unused.ts changed: reaches no case"])
    );
    let out = cli::at(root)
        .args(["run", "--changed"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("src/unused.ts changed: reaches no case") && text.contains("nothing to run"),
        "{text}"
    );
    git(root, &["checkout", "-q", "--", "."]);

    // the vitest config: every case, and why
    append(root, "vitest.config.ts", "// edited\n");
    let (ids, changed) = listed(root);
    assert_eq!(ids, ["date", "encode", "path", "query", "slug"]);
    assert_eq!(changed["every"], "vitest.config.ts changed: every case");
    let out = cli::at(root)
        .args(["list", "--changed"])
        .output()
        .expect("list");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("vitest.config.ts changed: every case"),
        "{out:?}"
    );
}

#[test]
fn the_app_alias_in_tsconfig_and_vite_config_is_followed() {
    if !has_git() {
        eprintln!("no git: skipped");
        return;
    }
    let d = workspace("app");
    let root = d.path();
    // filter.test.ts → `_/lib/filter` → `_/lib/format`; format.test.ts → format
    append(root, "src/lib/format.ts", "// edited\n");
    assert_eq!(listed(root).0, ["filter", "format"]);
    git(root, &["checkout", "-q", "--", "."]);
    append(root, "src/lib/filter.ts", "// edited\n");
    assert_eq!(listed(root).0, ["filter"]);
    git(root, &["checkout", "-q", "--", "."]);
    // the page's script no vitest case imports (the Playwright spec is not in the tree)
    append(root, "web/app.js", "// edited\n");
    let (ids, changed) = listed(root);
    assert!(ids.is_empty(), "{ids:?}");
    assert_eq!(
        changed["notes"],
        serde_json::json!(["web/app.js changed: reaches no case"])
    );
    git(root, &["checkout", "-q", "--", "."]);
    append(root, "vite.config.ts", "// edited\n");
    let (ids, changed) = listed(root);
    assert_eq!(ids, ["filter", "format"]);
    assert_eq!(changed["every"], "vite.config.ts changed: every case");
}
