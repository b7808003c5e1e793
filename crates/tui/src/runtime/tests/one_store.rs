//! Issue 41, one store for runs: a run the cockpit launches reaches the live
//! pane with its files read a bounded number of times, and one inotify
//! instance in the whole process while it is followed. Counted with the
//! bounded reader's counting hook (`read::count`) and `/proc/self/fd`.

use super::launch::{CASE, CASE_RUN, workspace_with_runner};
use super::*;
use testdeck_core::workspace::read::count::{self, Opens};

/// The runs of these tests count the inotify instances of the whole process:
/// each runs alone, in a process of its own (this test binary started again
/// with its name), where no other test makes a watcher meanwhile.
const ALONE: &str = "TESTDECK_TEST_ALONE";

/// Run the test `name` (this module's) in a process of its own; `true` when
/// this is that process (the caller then does the test's work).
fn alone(name: &str) -> bool {
    if std::env::var_os(ALONE).is_some() {
        return true;
    }
    let exe = std::env::current_exe().expect("the test binary");
    let out = std::process::Command::new(exe)
        .args([
            &format!("runtime::tests::one_store::{name}"),
            "--exact",
            "--test-threads=1",
            "--nocapture",
        ])
        .env(ALONE, "1")
        .output()
        .expect("the test binary started again");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{text}");
    assert!(out.status.success(), "{name} failed alone");
    assert!(
        text.contains("1 passed"),
        "{name} did not run alone: {text}"
    );
    false
}

/// The inotify instances this process holds now.
fn inotify_instances() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .expect("/proc/self/fd")
        .flatten()
        .filter(|e| {
            std::fs::read_link(e.path())
                .is_ok_and(|l| l.to_string_lossy().contains("anon_inode:inotify"))
        })
        .count()
}

/// What launching `CASE` with `r` cost, the run shown in the live pane
/// (`status`: what its `meta.json` says).
struct Cost {
    timeline: Opens,
    meta: Opens,
    /// The most inotify instances seen while the run was followed.
    inotify: usize,
    /// Every notice the status line showed meanwhile.
    notices: Vec<String>,
}

fn launch_and_follow(status: &str) -> Cost {
    let failed = if status == "failed" {
        "printf '{\"type\":\"assertion\",\"name\":\"the total\",\"status\":\"failed\",\"message\":\"expected 3, received 2\"}\\n' >> $d/timeline.jsonl\n"
    } else {
        ""
    };
    let (_d, root) = workspace_with_runner(&format!(
        "d={CASE_RUN}\n\
         mkdir -p $d\n\
         for i in 1 2 3 4 5 6 7 8; do\n\
           printf '{{\"type\":\"step\",\"name\":\"step-%s\",\"status\":\"ok\"}}\\n' $i >> $d/timeline.jsonl\n\
           sleep 0.15\n\
         done\n\
         {failed}\
         printf '{{\"schemaVersion\":4,\"runId\":\"20260401-120000-000\",\"caseId\":\"add\",\"scope\":\"shop/backend/cart\",\"status\":\"{status}\"}}' > $d/meta.json\n"
    ));
    let mut c = Cockpit::open(&root);
    let counting = count::opens_under(&root);
    assert!(c.app.jump_to(CASE), "no case {CASE}");
    c.launch_selected();
    let mut notices: Vec<String> = Vec::new();
    let mut inotify = 0;
    let want = match status {
        "failed" => testdeck_core::workspace::logs::RunStatus::Failed,
        _ => testdeck_core::workspace::logs::RunStatus::Passed,
    };
    let end = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let a = &c.app;
        if let Some(n) = a.notice() {
            if notices.last() != Some(n) {
                notices.push(n.clone());
            }
        }
        // while the launch runs (its run followed by it and by the pane)
        if a.launch().running() > 0
            || a.live()
                .run()
                .is_some_and(|r| r.path == CASE_RUN && r.in_progress)
        {
            inotify = inotify.max(inotify_instances());
        }
        let done = a.launch().running() == 0
            && a.live()
                .run()
                .is_some_and(|r| r.path == CASE_RUN && !r.in_progress)
            && a.tests()
                .cases()
                .iter()
                .any(|r| r.key == CASE && r.latest == Some(want));
        if done {
            break;
        }
        assert!(
            std::time::Instant::now() < end,
            "never shown ended; notice {:?}",
            a.notice()
        );
        if let Ok(a) = c.rx.recv_timeout(Duration::from_millis(20)) {
            c.remember(&a);
            let fx = c.app.update(a);
            c.apply(fx);
        }
    }
    // what is still on its way once the pane shows the end (a reread of the
    // artifacts, the index's end) is counted too
    let settle = std::time::Instant::now() + Duration::from_millis(1500);
    while std::time::Instant::now() < settle {
        if let Ok(a) = c.rx.recv_timeout(Duration::from_millis(50)) {
            c.remember(&a);
            let fx = c.app.update(a);
            c.apply(fx);
        }
        if let Some(n) = c.app.notice() {
            if notices.last() != Some(n) {
                notices.push(n.clone());
            }
        }
    }
    let files = counting.files();
    eprintln!("opens under the workspace ({status} run):");
    for (f, o) in &files {
        eprintln!(
            "  {}: {} found, {} missing",
            f.display(),
            o.found,
            o.missing
        );
    }
    let run = Path::new(CASE_RUN);
    let cost = Cost {
        timeline: counting.of(&run.join("timeline.jsonl")),
        meta: counting.of(&run.join("meta.json")),
        inotify,
        notices,
    };
    eprintln!(
        "{status}: timeline.jsonl {:?}, meta.json {:?}, inotify instances {}, notices {:?}",
        cost.timeline, cost.meta, cost.inotify, cost.notices
    );
    cost
}

fn check(cost: &Cost) {
    assert!(cost.inotify >= 1, "the run was never seen followed");
    assert!(
        cost.timeline.found + cost.timeline.missing <= 2,
        "timeline.jsonl opened {:?}",
        cost.timeline
    );
    assert!(cost.meta.found <= 2, "meta.json opened {:?}", cost.meta);
    assert!(
        cost.meta.missing <= 5,
        "meta.json polled before it existed {:?}",
        cost.meta
    );
    assert_eq!(
        cost.inotify, 1,
        "inotify instances while the run was followed"
    );
    assert!(
        !cost.notices.iter().any(|n| n.contains("another process")),
        "the cockpit's own launch announced as another process's: {:?}",
        cost.notices
    );
}

#[test]
fn a_launched_passing_run_is_read_once_per_change_with_one_watcher() {
    if alone("a_launched_passing_run_is_read_once_per_change_with_one_watcher") {
        check(&launch_and_follow("passed"));
    }
}

#[test]
fn a_launched_failing_run_is_read_once_per_change_with_one_watcher() {
    if alone("a_launched_failing_run_is_read_once_per_change_with_one_watcher") {
        check(&launch_and_follow("failed"));
    }
}
