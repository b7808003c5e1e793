//! The workspace generator (`examples/gen-workspace.rs`) writes the counts it is
//! asked for, in a shape testdeck reads without problems, and the same seed gives
//! the same bytes.

// the example's own source: its `main` is unused here
use crate::gen_workspace;

use gen_workspace::{Options, generate};
use std::path::Path;
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::logs::RunStatus;

fn opts(out: &Path, cases: usize, runs: usize, catalog: usize) -> Options {
    Options {
        out: out.to_path_buf(),
        cases,
        runs,
        catalog,
        seed: 7,
    }
}

#[test]
fn writes_the_requested_counts() {
    let tmp = crate::common::fs::scratch_dir();
    let out = tmp.path().join("ws");
    let s = generate(&opts(&out, 200, 800, 12)).expect("generate");
    assert_eq!(s.cases, 200);
    assert_eq!(s.runs, 800);
    assert_eq!(s.temp_cases, 2);
    assert_eq!(s.in_progress_runs, 2);
    assert_eq!(s.passed_runs + s.failed_runs + s.in_progress_runs, 800);
    assert!(s.failed_runs > 0 && s.orphan_runs > 0 && s.unregistered_cases > 0);

    let ws = Workspace::load(&out).expect("load");
    assert_eq!(ws.tests.cases.len(), 200);
    assert_eq!(ws.tests.cases.iter().filter(|c| c.temp).count(), 2);
    assert_eq!(
        ws.tests.cases.iter().filter(|c| !c.registered).count(),
        s.unregistered_cases
    );
    assert!(ws.tests.cases.iter().any(|c| c.live));
    assert_eq!(ws.logs.runs.len(), 800);
    let count = |st: RunStatus| ws.logs.runs.iter().filter(|r| r.status == st).count();
    assert_eq!(count(RunStatus::Passed), s.passed_runs);
    assert_eq!(count(RunStatus::Failed), s.failed_runs);
    assert_eq!(count(RunStatus::InProgress), s.in_progress_runs);
    // every run folder keeps the contract: no problem at all outside the catalog
    let problems: Vec<_> = ws
        .problems
        .iter()
        .filter(|p| !p.file.starts_with(".pouch/"))
        .collect();
    assert!(
        problems.is_empty(),
        "{:?}",
        &problems[..problems.len().min(5)]
    );
    for cat in ["cli", "api", "web", "app"] {
        let text = std::fs::read_to_string(out.join(format!(".pouch/tester/cases/{cat}.yaml")))
            .expect("category file");
        assert_eq!(text.matches("  - id: TC-").count(), 3, "{cat}");
    }
    assert!(out.join(".pouch/tester/catalog.yaml").is_file());
}

#[test]
fn same_seed_same_bytes() {
    let tmp = crate::common::fs::scratch_dir();
    let a = tmp.path().join("a");
    let b = tmp.path().join("b");
    generate(&opts(&a, 40, 120, 4)).expect("a");
    generate(&opts(&b, 40, 120, 4)).expect("b");
    let mut n = 0;
    let mut stack = vec![a.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("read_dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(&a).expect("under a");
                let other = std::fs::read(b.join(rel)).expect("same file in b");
                assert_eq!(std::fs::read(&p).expect("file"), other, "{}", rel.display());
                n += 1;
            }
        }
    }
    assert!(n > 500, "{n} files compared");
}

#[test]
fn refuses_a_non_empty_folder() {
    let tmp = crate::common::fs::scratch_dir();
    std::fs::write(tmp.path().join("keep.txt"), "mine").expect("write");
    assert!(generate(&opts(tmp.path(), 1, 1, 0)).is_err());
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("keep.txt")).expect("kept"),
        "mine"
    );
}
