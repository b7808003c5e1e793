//! The incremental model against a fresh load: random sequences of what a person
//! and their runner do to a workspace (test files written, renamed and deleted,
//! folders moved in and out, runs starting, ending and deleted, plan and catalog
//! edits), each applied as the watcher reports it — the changed paths classified,
//! read and applied — and the model compared with `Workspace::load` after every
//! step. The seed of a failing sequence is in the message (`TESTDECK_SEED=n` runs
//! that one again).

use super::{Change, Reader, classify};
use crate::testkit::random_changes::{World, write};
use crate::workspace::Workspace;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The model as a text that two equal models share: the cases, the runs with
/// what the views show of them, the plan's files, the catalog's presence and
/// the problems, each sorted.
fn render(ws: &Workspace) -> String {
    let mut out = String::new();
    let mut cases: Vec<String> = ws
        .tests
        .cases
        .iter()
        .map(|c| {
            format!(
                "{} {} {} temp={} live={} registered={}",
                c.scope, c.case_id, c.path, c.temp, c.live, c.registered
            )
        })
        .collect();
    cases.sort();
    let mut runs: Vec<String> = ws
        .logs
        .runs
        .iter()
        .map(|r| {
            format!(
                "{} {}/{}/{} {:?} meta={:?} broken={} files={}{}{}",
                r.path,
                r.scope,
                r.case_id,
                r.run_id,
                r.status,
                r.meta,
                r.meta_broken,
                u8::from(r.has_timeline),
                u8::from(r.has_runtime_events),
                u8::from(r.has_artifacts_json),
            )
        })
        .collect();
    runs.sort();
    let mut problems: Vec<String> = ws.problems.iter().map(|p| format!("{p:?}")).collect();
    problems.sort();
    let _ = writeln!(out, "cases:\n  {}", cases.join("\n  "));
    let _ = writeln!(out, "runs:\n  {}", runs.join("\n  "));
    let _ = writeln!(out, "plan: {:?}", ws.plan.files);
    let _ = writeln!(out, "catalog: {}", ws.catalog.is_some());
    let _ = writeln!(out, "problems:\n  {}", problems.join("\n  "));
    out
}

fn sequence(seed: u64, steps: usize) {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path();
    write(root, "tests/shop/backend/cart/add.test.ts", "");
    let mut ws = Workspace::load(root).expect("load");
    let reader = Reader::new(root, &ws.config);
    let mut world = World::new(seed);
    let mut done = Vec::new();
    for _ in 0..steps {
        let (what, paths) = world.step(root);
        done.push(what);
        let changes: BTreeSet<Change> = paths
            .iter()
            .filter_map(|p| classify(root, &root.join(p)))
            .collect();
        ws.apply(reader.read(&changes));
        let fresh = Workspace::load(root).expect("load");
        let (a, b) = (render(&ws), render(&fresh));
        assert!(
            a == b,
            "seed {seed}: after\n  {}\nthe model applied step by step:\n{a}\nbut a fresh load:\n{b}",
            done.join("\n  ")
        );
    }
}

#[test]
fn the_model_applied_change_by_change_equals_a_fresh_load() {
    if let Some(seed) = std::env::var("TESTDECK_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        sequence(seed, 60);
        return;
    }
    for seed in 0..40 {
        sequence(seed, 30);
    }
}
