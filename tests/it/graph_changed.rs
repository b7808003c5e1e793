//! What a change reaches, on the adoption fixtures (`tests/fixtures/adopt`):
//! their test files moved into the tests tree (their relative imports written
//! from there), a real git checkout, `list --changed --json` and `run
//! --changed` selecting exactly the cases whose import graph reaches an edit.

use crate::changed_cli::{RUNNER, git, has_git, write};
use crate::common::{adopt, cli};
use serde_json::Value;
use std::path::Path;
use testdeck_core::workspace::insights::ChangeTimesRead as _;

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

/// The import index kept in the history cache: a second `--changed` after one
/// edit parses that file only, and says what a build from nothing says; the
/// cockpit's `stale` (the change times) reads from the same index.
#[test]
fn a_second_changed_after_one_edit_parses_only_that_file() {
    use testdeck_core::workspace::changed::{changed, changed_in};
    use testdeck_core::workspace::graph::index::parsed_files;
    use testdeck_core::workspace::insights::ChangeTimes;
    if !has_git() {
        eprintln!("no git: skipped");
        return;
    }
    let d = workspace("lib");
    let cache = tempfile::tempdir().expect("cache");
    let ws = testdeck_core::workspace::Workspace::load(d.path()).expect("load");
    let root = ws.root.clone();
    // the first: every module the five tests reach, parsed once each
    append(&root, "src/path.ts", "// edited\n");
    let first = changed_in(&ws, None, Some(cache.path())).expect("changed");
    let mut all = parsed_files(&root);
    all.sort();
    let mut once = all.clone();
    once.dedup();
    assert_eq!(all, once, "each module parsed once");
    assert!(
        all.contains(&"src/text/chars.ts".to_owned()) && all.len() >= 10,
        "{all:?}"
    );
    assert_eq!(first.notes, ["src/path.ts changed: 2 cases reach it"]);
    // one edit: that file parsed, nothing else
    append(&root, "src/text/chars.ts", "export const more = 1;\n");
    let n = parsed_files(&root).len();
    let second = changed_in(&ws, None, Some(cache.path())).expect("changed");
    assert_eq!(parsed_files(&root)[n..], ["src/text/chars.ts"]);
    // the same answer as a graph built from nothing (it parses every module)
    let n = parsed_files(&root).len();
    let fresh = changed(&ws, None).expect("changed");
    assert!(parsed_files(&root).len() - n >= 10);
    assert_eq!(second, fresh);
    assert_eq!(
        second.tests,
        [
            "text/unit/lib/encode",
            "text/unit/lib/path",
            "text/unit/lib/query",
            "text/unit/lib/slug"
        ]
    );
    // stale's change times: from the same index, nothing parsed again
    let n = parsed_files(&root).len();
    let files = ChangeTimes::files(&ws);
    let _ = ChangeTimes::read_files(&root, files, Some(cache.path()));
    assert_eq!(
        parsed_files(&root).len(),
        n,
        "{:?}",
        &parsed_files(&root)[n..]
    );
    // an index of another format is no index: every module parsed again, the same answer
    let file = testdeck_core::workspace::history_cache::section_file_of(cache.path(), &root)
        .expect("file");
    let mut bytes = std::fs::read(&file).expect("read");
    bytes[8] ^= 0x7f;
    std::fs::write(&file, &bytes).expect("write");
    let n = parsed_files(&root).len();
    let third = changed_in(&ws, None, Some(cache.path())).expect("changed");
    assert!(parsed_files(&root).len() - n >= 10);
    assert_eq!(third, fresh);
    // the command keeps its index in the person's cache folder
    let home = tempfile::tempdir().expect("cache home");
    let out = cli::at(&root)
        .args(["list", "--json", "--changed"])
        .env("XDG_CACHE_HOME", home.path())
        .output()
        .expect("list");
    assert!(out.status.success(), "{out:?}");
    let dir = home.path().join("testdeck/history");
    let kept = testdeck_core::workspace::graph::index::ModuleIndex::open(Some(&dir), &root);
    assert!(kept.len() >= 10, "{} modules kept", kept.len());
}

/// `testdeck watch --json` on a fixture: its lines read on a thread.
struct Watching {
    child: std::process::Child,
    rx: std::sync::mpsc::Receiver<Value>,
    seen: Vec<Value>,
}

impl Watching {
    /// The watch on `root`, its runner writing a new run folder at each launch.
    fn start(root: &Path) -> Watching {
        use std::io::BufRead;
        let runner = RUNNER
            .replace(
                "scope=${scope#/}\n",
                "scope=${scope#/}\nn=$(cat .launches 2>/dev/null || echo 0); n=$((n + 1)); echo $n > .launches\nid=$(printf '20260101-000000-%03d' $n)\n",
            )
            .replace("$c/20260101-000000-001\"", "$c/$id\"")
            .replace("\"runId\":\"20260101-000000-001\"", "\"runId\":\"'\"$id\"'\"");
        assert!(runner.contains("$id\""), "{runner}");
        write(root, "runner.sh", &runner);
        let mut child = cli::at(root)
            .args(["watch", "--json"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .spawn()
            .expect("watch");
        let out = child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                let v: Value =
                    serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let mut w = Watching {
            child,
            rx,
            seen: Vec::new(),
        };
        w.next("watch-start");
        w
    }

    /// The next line of type `t` (30 s at most), the lines before it kept.
    fn next(&mut self, t: &str) -> Value {
        let end = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let left = end.saturating_duration_since(std::time::Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(v) if v["type"] == t => return v,
                Ok(v) => self.seen.push(v),
                Err(e) => panic!("no {t}: {e}; seen: {:#?}", self.seen),
            }
        }
    }

    /// The cases a trigger reran (the ones its launch started), sorted, once
    /// its launch's summary is in.
    fn rerun(&mut self) -> (Value, Vec<String>) {
        let trigger = self.next("watch-trigger");
        let from = self.seen.len();
        self.next("summary");
        let mut ids: Vec<String> = trigger["cases"]
            .as_array()
            .expect("cases")
            .iter()
            .map(|c| c.as_str().expect("id").to_owned())
            .collect();
        ids.sort();
        // the launch started those cases and no other
        let mut started: Vec<String> = self.seen[from..]
            .iter()
            .filter(|v| v["type"] == "case-start")
            .filter_map(|v| v["id"].as_str().map(str::to_owned))
            .collect();
        started.sort();
        started.dedup();
        assert_eq!(started, ids, "{:#?}", &self.seen[from..]);
        (trigger, ids)
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn watch_reruns_exactly_the_tests_that_reach_an_edit_on_the_library() {
    if !has_git() {
        eprintln!("no git: skipped");
        return;
    }
    let d = workspace("lib");
    let root = d.path();
    let mut w = Watching::start(root);
    // the leaf: the three tests that reach it (through encode.ts, query.ts and
    // the `export *` barrel), no other
    append(root, "src/text/chars.ts", "// edited\n");
    let (trigger, ran) = w.rerun();
    assert_eq!(
        ran,
        [
            "text/unit/lib/encode",
            "text/unit/lib/query",
            "text/unit/lib/slug"
        ]
    );
    assert_eq!(
        trigger["notes"],
        serde_json::json!(["src/text/chars.ts changed: 3 cases reach it"])
    );
    // the module no test reaches: none, and said so
    append(root, "src/unused.ts", "// edited\n");
    let trigger = w.next("watch-trigger");
    assert_eq!(trigger["cases"], serde_json::json!([]));
    assert_eq!(
        trigger["notes"],
        serde_json::json!(["src/unused.ts changed: reaches no case"])
    );
    // the vitest config: every case, and why
    append(root, "vitest.config.ts", "// edited\n");
    let (trigger, ran) = w.rerun();
    assert_eq!(ran.len(), 5, "{ran:?}");
    assert_eq!(
        trigger["notes"],
        serde_json::json!(["vitest.config.ts changed: every case"])
    );
}

#[test]
fn watch_follows_the_app_alias_to_the_tests_that_reach_an_edit() {
    if !has_git() {
        eprintln!("no git: skipped");
        return;
    }
    let d = workspace("app");
    let root = d.path();
    // the page's script is code under test too: the watch follows web/
    append(
        root,
        "testdeck.toml",
        "\n[watch]\npaths = [\"src/**\", \"web/**\"]\n",
    );
    let mut w = Watching::start(root);
    // format.ts: its own test, and filter's through `_/lib/filter` → `_/lib/format`
    append(root, "src/lib/format.ts", "// edited\n");
    let (trigger, ran) = w.rerun();
    assert_eq!(ran, ["app/unit/lib/filter", "app/unit/lib/format"]);
    assert_eq!(
        trigger["notes"],
        serde_json::json!(["src/lib/format.ts changed: 2 cases reach it"])
    );
    append(root, "src/lib/filter.ts", "// edited\n");
    assert_eq!(w.rerun().1, ["app/unit/lib/filter"]);
    // the page's script no vitest case imports: none, and said so
    append(root, "web/app.js", "// edited\n");
    let trigger = w.next("watch-trigger");
    assert_eq!(trigger["cases"], serde_json::json!([]));
    assert_eq!(
        trigger["notes"],
        serde_json::json!(["web/app.js changed: reaches no case"])
    );
    // the vite config (where the alias is): every case, and why
    append(root, "vite.config.ts", "// edited\n");
    let (trigger, ran) = w.rerun();
    assert_eq!(ran, ["app/unit/lib/filter", "app/unit/lib/format"]);
    assert_eq!(
        trigger["notes"],
        serde_json::json!(["vite.config.ts changed: every case"])
    );
}
