//! The cockpit's incremental model against a fresh install: the random
//! sequences of [`testdeck_core::testkit::random_changes`] (test files, folders,
//! runs starting, ending and deleted, plan and catalog edits), each read as the
//! watcher reads it and applied by the app as a change — the case rows, the
//! tree, every node's statistics, the finder's candidates and the Runs tab
//! compared with an app that installed a fresh load, after every step. The
//! history streamed in chunks is compared the same way. `TESTDECK_SEED=n` runs
//! one sequence again.

use super::test_support::app;
use super::{Action, App};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;
use testdeck_core::testkit::random_changes::{World, write};
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::changes::{Change, Reader, classify};

/// What the views derive from the model, as text two equal views share.
fn render(a: &mut App) -> String {
    // every folder open: the rows shown are the whole order
    a.tests.expand_all();
    let mut out = String::new();
    for c in a.tests.cases() {
        let _ = writeln!(out, "row {c:?}");
    }
    for n in a.tests.nodes() {
        let _ = writeln!(out, "node {n:?}");
    }
    let _ = writeln!(out, "shown {:?}", a.tests.visible());
    let mut stats: Vec<String> = a.tests.stats().values().map(|n| format!("{n:?}")).collect();
    stats.sort();
    for n in stats {
        let _ = writeln!(out, "stats {n}");
    }
    for c in a.domain.candidates() {
        let _ = writeln!(out, "candidate {c:?}");
    }
    let ws = a.domain.ws().expect("ws");
    for r in a.runs.visible() {
        let what = match *r {
            super::RunRow::Tests(i) => ws.logs.runs.get(i).map(|r| r.path.clone()),
            super::RunRow::Record(i) => a.runs.records().get(i).map(|r| r.0.clone()),
        };
        let _ = writeln!(out, "run {what:?}");
    }
    out
}

/// An app that installed a fresh load of `root`, sorted as `like`.
fn fresh(root: &Path, like: &App) -> App {
    let mut b = app();
    b.opts.root = root.to_path_buf();
    b.update(Action::Loaded(Box::new(
        Workspace::load(root).expect("load"),
    )));
    while b.tests.sort() != like.tests.sort() {
        b.tests.cycle_sort();
    }
    b
}

fn sequence(seed: u64, steps: usize) {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path();
    write(root, "tests/shop/backend/cart/add.test.ts", "");
    let mut world = World::new(seed);
    // a history to stream: some steps done before the app opens
    for _ in 0..steps / 2 {
        world.step(root);
    }
    let mut a = app();
    a.opts.root = root.to_path_buf();
    // the tree as the cockpit gets it: the walk's first rows after every
    // folder under tests/, then the whole tree
    let whole = Workspace::load_tree_staged(root, &mut |_, part| {
        a.update(Action::TreePart(Box::new(part())));
    })
    .expect("tree");
    a.update(Action::TreeLoaded(Box::new(whole)));
    let config = a.domain.ws().expect("ws").config.clone();
    let mut history = testdeck_core::workspace::HistoryLoader::new(root, &config.runs);
    for chunk in history.by_ref() {
        a.update(Action::HistoryChunk(Box::new(chunk)));
    }
    a.update(Action::HistoryDone);
    // a third of the sequences keep the tree sorted by something else than names
    for _ in 0..seed % 3 * 2 {
        a.tests.cycle_sort();
    }
    let (x, y) = (render(&mut a), render(&mut fresh(root, &a)));
    assert!(
        x == y,
        "seed {seed}: the history streamed in chunks:\n{x}\nbut a fresh install:\n{y}"
    );
    let reader = Reader::new(root, &config);
    let mut done = Vec::new();
    // one to four steps read as one burst (several runs new at once are
    // merged into the history in one pass)
    let mut burst = fastrand::Rng::with_seed(seed);
    for _ in 0..steps {
        let mut changes: BTreeSet<Change> = BTreeSet::new();
        for _ in 0..burst.usize(1..=4) {
            let (what, paths) = world.step(root);
            done.push(what);
            changes.extend(paths.iter().filter_map(|p| classify(root, &root.join(p))));
        }
        a.update(Action::Changed(reader.read(&changes)));
        let (x, y) = (render(&mut a), render(&mut fresh(root, &a)));
        assert!(
            x == y,
            "seed {seed}: after\n  {}\nthe views updated change by change:\n{x}\nbut a fresh install:\n{y}",
            done.join("\n  ")
        );
    }
}

#[test]
fn the_views_updated_change_by_change_equal_a_fresh_install() {
    if let Some(seed) = std::env::var("TESTDECK_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        sequence(seed, 80);
        return;
    }
    for seed in 0..30 {
        sequence(seed, 40);
    }
}
