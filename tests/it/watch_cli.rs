//! `testdeck watch --json` with real file edits: one rerun per burst of saves,
//! the rerun in flight cancelled (its processes gone) and restarted, and no
//! rerun of a mutating, gated or live case without its authorization.

use crate::common;
use common::{cli::bin, fs::write, procs::signalable};

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

fn append(root: &Path, rel: &str, text: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(root.join(rel))
        .expect("open");
    f.write_all(text.as_bytes()).expect("append");
}

/// A running `testdeck watch --json`, its lines read on a thread.
struct Watch {
    child: Child,
    rx: Receiver<Value>,
    seen: Vec<Value>,
}

impl Watch {
    fn start(root: &Path, args: &[&str]) -> Watch {
        let mut cmd = Command::new(bin());
        cmd.arg("--root")
            .arg(root)
            // a wide quiet period: a loaded machine never splits a test's burst
            .args(["watch", "--json", "--debounce-ms", "800"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .env("XDG_CACHE_HOME", common::cli::cache_home());
        for k in ["TD_W_MUTATING", "TD_W_BILLING", "HOST"] {
            cmd.env_remove(k);
        }
        let mut child = cmd.spawn().expect("spawn watch");
        let out = child.stdout.take().expect("stdout");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                let v: Value =
                    serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let mut w = Watch {
            child,
            rx,
            seen: Vec::new(),
        };
        w.wait_for("watch-start", 1);
        w
    }

    /// Read lines until the `n`-th line of type `t` has been seen (10 s at most).
    fn wait_for(&mut self, t: &str, n: usize) -> Value {
        let end = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(v) = self.of_type(t).get(n - 1) {
                return (*v).clone();
            }
            let left = end.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(v) => self.seen.push(v),
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no {t} #{n} within 10 s; seen: {:#?}", self.seen)
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("watch ended before {t} #{n}; seen: {:#?}", self.seen)
                }
            }
        }
    }

    /// Read every line that comes within `d`.
    fn settle(&mut self, d: Duration) {
        let end = Instant::now() + d;
        while let Ok(v) = self
            .rx
            .recv_timeout(end.saturating_duration_since(Instant::now()))
        {
            self.seen.push(v);
        }
    }

    fn of_type(&self, t: &str) -> Vec<&Value> {
        self.seen.iter().filter(|v| v["type"] == t).collect()
    }

    /// SIGTERM, as a person's Ctrl-C would end it; the exit status.
    fn stop(mut self) -> i32 {
        let pid = self.child.id().to_string();
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill");
        let code = self.child.wait().expect("wait").code().unwrap_or(-1);
        self.settle(Duration::from_millis(100));
        code
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A tests-tree workspace whose runner runs `script` (argv after it: the filters).
fn tests_workspace(script: &str) -> tempfile::TempDir {
    let dir = crate::common::fs::scratch_dir();
    let root = dir.path();
    write(
        root,
        "testdeck.toml",
        &format!(
            "[runner]\ncommand = [\"sh\", \"-c\", {}, \"runner\"]\n",
            serde_json::to_string(script).expect("toml string")
        ),
    );
    write(
        root,
        "doc/test-plan/plan.md",
        "# plan\n\n## case-a\n\n## case-b\n\n## case-l\n",
    );
    for f in ["basic/case-a", "basic/case-b", "live/case-l"] {
        write(
            root,
            &format!("tests/ai/backend/s/{f}.test.ts"),
            "// case\n",
        );
    }
    std::fs::create_dir_all(root.join("tests/logs")).expect("logs");
    dir
}

#[test]
fn one_rerun_per_burst_of_saves() {
    let ws = tests_workspace("echo \"$*\" >> asked.txt");
    let root = ws.path();
    let mut w = Watch::start(root, &["ai/backend/s/basic/case-a"]);
    assert_eq!(
        w.of_type("watch-start")[0]["tests"][0],
        "ai/backend/s/basic/case-a"
    );
    // a burst: five saves 60 ms apart
    for i in 0..5 {
        write(
            root,
            "tests/ai/backend/s/basic/case-a.test.ts",
            &format!("// save {i}\n"),
        );
        std::thread::sleep(Duration::from_millis(60));
    }
    let trigger = w.wait_for("watch-trigger", 1);
    assert_eq!(
        trigger["paths"],
        serde_json::json!(["tests/ai/backend/s/basic/case-a.test.ts"])
    );
    assert_eq!(
        trigger["cases"],
        serde_json::json!(["ai/backend/s/basic/case-a"])
    );
    w.wait_for("summary", 1);
    w.settle(Duration::from_millis(1500));
    assert_eq!(w.of_type("watch-trigger").len(), 1, "{:#?}", w.seen);
    assert_eq!(
        common::fs::lines(&root.join("asked.txt")),
        ["--domain ai --layer backend --suite s --group basic --case case-a"]
    );
    // a case not watched, our own logs: no rerun
    write(
        root,
        "tests/ai/backend/s/basic/case-b.test.ts",
        "// edited\n",
    );
    write(
        root,
        "tests/logs/ai/backend/s/basic/case-a/20260101-000000-000/meta.json",
        "{}",
    );
    w.settle(Duration::from_millis(1500));
    assert_eq!(w.of_type("watch-trigger").len(), 1, "{:#?}", w.seen);
    // the plan file that registers the case: a second rerun
    append(
        root,
        "doc/test-plan/plan.md",
        "\ncase-a: what it proves, edited\n",
    );
    let second = w.wait_for("watch-trigger", 2);
    assert_eq!(
        second["paths"],
        serde_json::json!(["doc/test-plan/plan.md"])
    );
    w.wait_for("summary", 2);
    assert_eq!(common::fs::lines(&root.join("asked.txt")).len(), 2);
    assert_eq!(w.stop(), 0);
}

#[test]
fn editing_the_code_under_test_reruns_the_cases_that_reach_it() {
    let ws = tests_workspace("echo \"$*\" >> asked.txt");
    let root = ws.path();
    write(root, "src/x.js", "export const x = 1;\n");
    write(root, "src/unused.js", "export const u = 1;\n");
    write(
        root,
        "tests/ai/backend/s/basic/case-a.test.ts",
        "import { x } from '../../../../../src/x.js';\n",
    );
    let mut w = Watch::start(root, &["ai/backend/s/basic"]);
    assert!(
        w.of_type("watch-start")[0]["folders"]
            .as_array()
            .expect("folders")
            .contains(&serde_json::json!("src")),
        "{:#?}",
        w.seen
    );
    // the source of the code under test, not a test file: the watched cases
    // whose imports reach it rerun
    write(root, "src/x.js", "export const x = 2;\n");
    let trigger = w.wait_for("watch-trigger", 1);
    assert_eq!(trigger["paths"], serde_json::json!(["src/x.js"]));
    assert_eq!(
        trigger["cases"],
        serde_json::json!(["ai/backend/s/basic/case-a"])
    );
    assert_eq!(
        trigger["notes"],
        serde_json::json!(["src/x.js changed: 1 case reaches it"])
    );
    w.wait_for("summary", 1);
    let asked = common::fs::lines(&root.join("asked.txt"));
    assert_eq!(asked.len(), 1, "one launch: {asked:?}");
    assert!(asked[0].contains("--case case-a"), "{asked:?}");
    // a module no case reaches: nothing reruns, and the watch says so
    write(root, "src/unused.js", "export const u = 2;\n");
    let trigger = w.wait_for("watch-trigger", 2);
    assert_eq!(trigger["cases"], serde_json::json!([]));
    assert_eq!(
        trigger["notes"],
        serde_json::json!(["src/unused.js changed: reaches no case"])
    );
    // a config the graph cannot place: every watched case, and why
    write(root, "package.json", "{}\n");
    let trigger = w.wait_for("watch-trigger", 3);
    assert_eq!(
        trigger["cases"],
        serde_json::json!(["ai/backend/s/basic/case-a", "ai/backend/s/basic/case-b"])
    );
    assert_eq!(
        trigger["notes"],
        serde_json::json!(["package.json changed: every case"])
    );
    w.wait_for("summary", 2);
    assert_eq!(w.stop(), 0);
}

#[test]
fn watch_paths_in_testdeck_toml_replace_the_source_folders() {
    let ws = tests_workspace("echo \"$*\" >> asked.txt");
    let root = ws.path();
    append(
        root,
        "testdeck.toml",
        "[watch]\npaths = [\"fixtures/**/*.json\"]\n",
    );
    write(root, "src/x.js", "export const x = 1;\n");
    write(root, "fixtures/users/one.json", "{}\n");
    let mut w = Watch::start(root, &["case-a"]);
    // src/ is not in the paths any more: no rerun
    write(root, "src/x.js", "export const x = 2;\n");
    write(root, "fixtures/users/one.txt", "not json\n");
    w.settle(Duration::from_millis(2500));
    assert!(w.of_type("watch-trigger").is_empty(), "{:#?}", w.seen);
    write(root, "fixtures/users/one.json", "{\"edited\": true}\n");
    let trigger = w.wait_for("watch-trigger", 1);
    assert_eq!(
        trigger["paths"],
        serde_json::json!(["fixtures/users/one.json"])
    );
    assert_eq!(
        trigger["cases"],
        serde_json::json!(["ai/backend/s/basic/case-a"])
    );
    w.wait_for("summary", 1);
    assert_eq!(w.stop(), 0);
}

#[test]
fn a_rerun_in_flight_is_cancelled_and_restarted() {
    // the runner and a child of it record their pids, then take long
    let ws = tests_workspace("echo $$ >> pids.txt; sleep 30 & echo $! >> pids.txt; wait");
    let root = ws.path();
    let mut w = Watch::start(root, &["case-a"]);
    let pids = root.join("pids.txt");
    let wait_pids = |n: usize| {
        let end = Instant::now() + Duration::from_secs(10);
        while common::fs::lines(&pids).len() < n {
            assert!(
                Instant::now() < end,
                "runner did not start: {:?}",
                common::fs::lines(&pids)
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        common::fs::lines(&pids)
    };
    write(root, "tests/ai/backend/s/basic/case-a.test.ts", "// one\n");
    w.wait_for("runner-start", 1);
    let first = wait_pids(2);
    assert!(first.iter().all(|p| signalable(p)));
    // saved again while the first rerun runs
    write(root, "tests/ai/backend/s/basic/case-a.test.ts", "// two\n");
    let cancel = w.wait_for("watch-cancel", 1);
    assert_eq!(
        cancel["cases"],
        serde_json::json!(["ai/backend/s/basic/case-a"])
    );
    w.wait_for("watch-trigger", 2);
    // the first rerun's process group is gone before the new one starts
    // (a moment for init to reap the orphaned grandchild)
    let end = Instant::now() + Duration::from_millis(500);
    while first.iter().any(|p| signalable(p)) && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        first.iter().all(|p| !signalable(p)),
        "first run still alive: {first:?}"
    );
    w.wait_for("runner-start", 2);
    let both = wait_pids(4);
    let second = &both[2..];
    assert!(second.iter().all(|p| signalable(p)));
    let trig = w.of_type("watch-trigger");
    assert_eq!(trig.len(), 2);
    assert_eq!(
        trig[1]["cases"],
        serde_json::json!(["ai/backend/s/basic/case-a"])
    );
    // stopping the watch ends the rerun in flight: no process outlives testdeck
    w.stop();
    let end = Instant::now() + Duration::from_millis(500);
    while second.iter().any(|p| signalable(p)) && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        second.iter().all(|p| !signalable(p)),
        "second run outlived the watch"
    );
}

const CATALOG: &str = "categories:\n  - id: MAIN\n    title: main\nrisks: [readonly, mutating]\ndefault_max_risk: mutating\nauthorize:\n  mutating: TD_W_MUTATING\ngates:\n  billing: TD_W_BILLING\nid_pattern: \"TC-[A-Z]+-[0-9]{3}\"\n";

fn catalog_case(id: &str, risk: &str, gate: Option<&str>, marker: &str) -> String {
    let tag = if risk == "readonly" { "smoke" } else { "full" };
    let gate = gate.map_or_else(String::new, |g| format!("    gate: {g}\n"));
    format!(
        "  - id: {id}\n    category: MAIN\n    title: t\n    what: w\n    lifecycle: active\n    tag: {tag}\n    risk: {risk}\n{gate}    driver: script\n    how:\n      run: touch {marker}\n    expected:\n      - kind: script-exit\n        value: 0\n"
    )
}

fn authorization_workspace() -> tempfile::TempDir {
    let dir = tests_workspace("echo \"$*\" >> asked.txt");
    let root = dir.path();
    write(root, ".pouch/tester/catalog.yaml", CATALOG);
    write(
        root,
        ".pouch/tester/cases/main.yaml",
        &format!(
            "category: MAIN\ncases:\n{}{}{}",
            catalog_case("TC-MAIN-001", "readonly", None, "ran-readonly"),
            catalog_case("TC-MAIN-002", "mutating", None, "ran-mutating"),
            catalog_case("TC-MAIN-003", "mutating", Some("billing"), "ran-gated"),
        ),
    );
    dir
}

#[test]
fn no_rerun_without_authorization() {
    let ws = authorization_workspace();
    let root = ws.path();
    let mut w = Watch::start(root, &["MAIN", "case-l"]);
    append(root, ".pouch/tester/cases/main.yaml", "# edited\n");
    append(
        root,
        "tests/ai/backend/s/live/case-l.test.ts",
        "// edited\n",
    );
    let trigger = w.wait_for("watch-trigger", 1);
    let mut cases: Vec<&str> = trigger["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    cases.sort_unstable();
    assert_eq!(
        cases,
        [
            "TC-MAIN-001",
            "TC-MAIN-002",
            "TC-MAIN-003",
            "ai/backend/s/live/case-l"
        ]
    );
    let skipped: Vec<(&str, &str)> = trigger["skipped"]
        .as_array()
        .expect("skipped")
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap_or(""),
                s["reason"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(skipped.len(), 3, "{skipped:?}");
    assert!(skipped.contains(&(
        "ai/backend/s/live/case-l",
        "live case (calls a real model): needs --allow-live"
    )));
    for id in ["TC-MAIN-002", "TC-MAIN-003"] {
        assert!(
            skipped
                .iter()
                .any(|(i, r)| *i == id && r.starts_with("mutating is not authorized")),
            "{skipped:?}"
        );
    }
    let summary = w.wait_for("summary", 1);
    let ids: Vec<&str> = summary["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(ids, ["TC-MAIN-001"]);
    w.settle(Duration::from_millis(800));
    assert!(root.join("ran-readonly").exists());
    assert!(
        !root.join("ran-mutating").exists(),
        "a mutating case ran unauthorized"
    );
    assert!(
        !root.join("ran-gated").exists(),
        "a gated case ran unauthorized"
    );
    assert!(
        !root.join("asked.txt").exists(),
        "a live case ran unauthorized"
    );
    assert_eq!(w.of_type("summary").len(), 1);
    w.stop();

    // mutating and live authorized, the gate not: only the gated case stays out
    let mut w = Watch::start(
        root,
        &["MAIN", "case-l", "--authorize", "mutating", "--allow-live"],
    );
    append(root, ".pouch/tester/cases/main.yaml", "# edited again\n");
    append(
        root,
        "tests/ai/backend/s/live/case-l.test.ts",
        "// edited again\n",
    );
    let trigger = w.wait_for("watch-trigger", 1);
    let skipped = &trigger["skipped"];
    assert_eq!(skipped.as_array().map(Vec::len), Some(1), "{skipped}");
    assert_eq!(skipped[0]["id"], "TC-MAIN-003");
    assert!(
        skipped[0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("gate billing")),
        "{skipped}"
    );
    w.wait_for("summary", 1);
    assert!(root.join("ran-mutating").exists());
    assert!(
        !root.join("ran-gated").exists(),
        "a gated case ran unauthorized"
    );
    assert_eq!(
        common::fs::lines(&root.join("asked.txt")),
        ["--domain ai --layer backend --suite s --group live --case case-l"]
    );
    w.stop();

    // and with the gate too
    let mut w = Watch::start(
        root,
        &[
            "TC-MAIN-003",
            "--authorize",
            "mutating",
            "--gate",
            "billing",
        ],
    );
    append(
        root,
        ".pouch/tester/cases/main.yaml",
        "# edited a third time\n",
    );
    let trigger = w.wait_for("watch-trigger", 1);
    assert_eq!(trigger["cases"], serde_json::json!(["TC-MAIN-003"]));
    assert_eq!(trigger["skipped"], serde_json::json!([]));
    w.wait_for("summary", 1);
    assert!(root.join("ran-gated").exists());
    w.stop();
}

#[test]
fn targets_that_match_nothing_are_a_usage_error() {
    let ws = tests_workspace("true");
    let out = common::cli::at(ws.path())
        .args(["watch", "no-such-case"])
        .output()
        .expect("watch");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-case"));
}
