//! The cockpit as a live window on the workspace (issue 14): a run another
//! process writes appears and is followed live, is marked external and never
//! counted in a launch of the cockpit; new test files and catalog edits appear
//! without a restart; Ctrl-R reads everything again.

use crate::common;
use common::Session;
use common::fs::write;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn runner() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/exec/slow-runner.sh")
}

/// Two cases of one suite; the runner is the slow `sh` runner fixture.
fn workspace() -> tempfile::TempDir {
    let d = crate::common::fs::scratch_dir();
    let root = d.path();
    write(root, "tests/ai/backend/tools/case-a.test.ts", "// case\n");
    write(root, "tests/ai/backend/tools/case-b.test.ts", "// case\n");
    let r = runner().display().to_string().replace('\\', "\\\\");
    write(
        root,
        "testdeck.toml",
        &format!("[runner]\ncommand = [\"sh\", \"{r}\"]\n"),
    );
    d
}

/// Another terminal runs case `case_id` meanwhile: a real `sh` writing its run
/// folder line by line (`pace` seconds between lines), meta.json last.
fn other_process_runs(root: &Path, case_id: &str, pace: &str) -> Child {
    Command::new("sh")
        .arg(runner())
        .args(["--domain", "ai", "--layer", "backend", "--suite", "tools"])
        .args(["--case", case_id])
        .current_dir(root)
        .env("RUNNER_SLEEP", pace)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the other process")
}

/// The moment the run folder of `case_id` is there on disk.
fn folder_appears(root: &Path, case_id: &str) -> Instant {
    let dir = root.join("tests/logs/ai/backend/tools").join(case_id);
    let start = Instant::now();
    loop {
        if std::fs::read_dir(&dir).is_ok_and(|mut d| d.next().is_some()) {
            return Instant::now();
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the other process wrote no run"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn wait_child(mut c: Child) {
    assert!(c.wait().expect("wait").success());
}

#[test]
fn a_run_written_by_another_process_appears_and_is_followed_live() {
    let ws = workspace();
    let root = ws.path();
    let cfg = crate::common::fs::scratch_dir();
    let s = Session::start(root, cfg.path());
    s.wait_text("Tests · 2");
    // one line every 1.5 s: each one is seen arriving, not all at the end
    let other = other_process_runs(root, "case-b", "1.5");
    let appeared = folder_appears(root, "case-b");
    s.wait_for("the external run's first event, live", |sc| {
        let t = sc.contents();
        t.contains("step one") && t.contains("● live") && t.contains("external")
    });
    let first = appeared.elapsed();
    eprintln!(
        "external run: first event on screen {} ms after its folder appeared",
        first.as_millis()
    );
    assert!(
        !s.screen().screen().contents().contains("step three"),
        "the run was shown only once it had ended"
    );
    s.wait_text("step two");
    s.wait_text("step three");
    wait_child(other);
    // meta.json arrives: the run has ended, its badge says so
    s.wait_for("the run ended", |sc| !sc.contents().contains("● live"));
    s.quit();
}

#[test]
fn a_run_of_another_process_during_a_launch_is_not_counted_in_it() {
    let ws = workspace();
    let root = ws.path();
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start_with(root, cfg.path(), &[("RUNNER_SLEEP", "1.0")]);
    s.wait_text("Tests · 2");
    s.find("'case-a");
    s.send("r");
    s.wait_text("step one");
    let other = other_process_runs(root, "case-b", "0.2");
    wait_child(other);
    s.wait_text("launch done:");
    let text = s.screen().screen().contents();
    assert!(text.contains("launch done: 1 pass"), "{text}");
    // the other run is in the Runs tab, marked as another process's
    s.send("3");
    // the Runs list's title, not only the two names (the Tests tab shows them too)
    s.wait_for("both runs in the Runs tab", |sc| {
        let t = sc.contents();
        t.contains("╭ Runs · ") && t.contains("case-a") && t.contains("case-b")
    });
    let text = s.screen().screen().contents();
    // the Runs list is the left pane: each screen line up to the pane's border
    let row = |case: &str| {
        text.lines()
            .map(|l| l.split("││").next().unwrap_or(l))
            .find(|l| l.contains(case))
            .unwrap_or_else(|| panic!("no {case} row:\n{text}"))
            .to_owned()
    };
    assert!(row("case-b").contains("external"), "{text}");
    assert!(!row("case-a").contains("external"), "{text}");
    s.quit();
}

#[test]
fn new_test_files_and_catalog_edits_appear_and_ctrl_r_reads_the_rest() {
    let ws = common::fs::demo_copy();
    let root = ws.path();
    let cfg = crate::common::fs::scratch_dir();
    let state = crate::common::fs::scratch_dir();
    let st = state.path().to_str().expect("utf-8");
    let mut s = Session::start_with(root, cfg.path(), &[("XDG_STATE_HOME", st)]);
    s.wait_text("Tests · 21");
    s.wait_text("71 runs");
    // a new case file, then a removed one
    write(
        root,
        "tests/kb/backend/search/basic/kb-live-new.test.ts",
        "",
    );
    s.wait_text("Tests · 22");
    std::fs::remove_file(root.join("tests/kb/backend/search/basic/kb-live-new.test.ts"))
        .expect("rm");
    s.wait_text("Tests · 21");
    // a catalog edit
    let cases = root.join(".pouch/tester/cases/api.yaml");
    let text = std::fs::read_to_string(&cases).expect("cases");
    assert!(text.contains("title: 健康检查"));
    std::fs::write(&cases, text.replace("title: 健康检查", "title: edited-x")).expect("edit");
    s.send("2");
    s.wait_text("edited-x");
    // what no file of the workspace tells: testdeck's own record of a run it
    // cancelled (in its state folder) is read by Ctrl-R
    s.send("1");
    let run =
        "tests/logs/kb-search/backend/query/boundary/kb-search-empty-result/20990101-000000-000";
    write(root, &format!("{run}/timeline.jsonl"), "");
    s.wait_text("72 runs");
    s.find("'kb-search-empty-result");
    s.wait_text("running ");
    s.wait_text("● live");
    testdeck_core::workspace::cancelled::record(
        &testdeck_core::workspace::cancelled::file_in(&state.path().join("testdeck"), root),
        root,
        &[run.to_owned()],
    )
    .expect("record");
    s.send("\x12");
    s.wait_for(
        "the cancelled badge after Ctrl-R, the live pane ended",
        |sc| {
            let t = sc.contents();
            t.contains("cancelled ")
                && t.contains("ended · cancelled")
                && !t.contains("running ")
                && !t.contains("● live")
        },
    );
    s.quit();
}

#[test]
fn a_run_record_another_process_writes_appears_in_the_runs_tab() {
    let ws = common::fs::demo_copy();
    let root = ws.path();
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start(root, cfg.path());
    s.wait_text("Tests · 21");
    s.wait_text("71 runs");
    s.send("3");
    s.wait_text("smoke");
    assert!(!s.screen().screen().contents().contains("nightly-x"));
    // a headless `testdeck run` in another terminal writes its record
    let runs = root.join(".pouch/tester/runs");
    let old =
        std::fs::read_to_string(runs.join("20261126T091502Z-smoke-4be21c.yaml")).expect("record");
    let new = old
        .replace(
            "20261126T091502Z-smoke-4be21c",
            "20261127T080000Z-nightly-x-0a0b0c",
        )
        .replace("label: smoke", "label: nightly-x")
        .replace("2026-11-26T09:15", "2026-11-27T08:00");
    std::fs::write(runs.join("20261127T080000Z-nightly-x-0a0b0c.yaml"), new).expect("write");
    s.wait_text("nightly-x");
    s.quit();
}

#[test]
fn past_the_watch_budget_a_run_of_another_process_appears_and_is_said_once() {
    let ws = common::fs::demo_copy();
    let root = ws.path();
    let cfg = crate::common::fs::scratch_dir();
    // a budget of 8 watches: the demo's logs are polled
    let mut s = Session::start_with(root, cfg.path(), &[("TESTDECK_WATCH_BUDGET", "8")]);
    s.wait_text("Tests · 21");
    s.wait_text("71 runs");
    // another process writes a whole run of a case that has run before
    let run =
        "tests/logs/kb-search/backend/query/boundary/kb-search-empty-result/20990101-000000-000";
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "mkdir -p {run} && printf '{{}}\\n' > {run}/timeline.jsonl && \
             printf '{{\"schemaVersion\":4,\"status\":\"passed\"}}' > {run}/meta.json"
        ))
        .current_dir(root)
        .status()
        .expect("sh");
    assert!(status.success());
    s.wait_text("72 runs");
    // said once in the problems list, never in the status line
    s.send("p");
    s.wait_text("polled every");
    let text = s.screen().screen().contents();
    assert_eq!(text.matches("polled every").count(), 1, "{text}");
    s.send("\x1b");
    s.wait_for("the status line keeps its counts", |sc| {
        let t = sc.contents();
        t.contains("72 runs") && !t.contains("polled") && !t.contains("cannot watch")
    });
    s.quit();
}
