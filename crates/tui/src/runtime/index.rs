//! Indexing the workspace in stages: the tree first, then the history by
//! domain (from the history cache when one is kept), then the run records.

use crate::action::Action;
use std::path::Path;
use std::time::Duration;
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::config::ConfigLoad as _;
use testdeck_core::workspace::plan::PlanLoad as _;

/// The most differences a check of the history cache hands the app as changes:
/// the runs new to it are merged into the history in one pass and each view
/// takes only the cases they touch, but past this many (a history mostly
/// rewritten since the last open) the history goes whole, made on this task.
/// (When each difference was an insert into the history and a rebuild of the
/// views, 100 of them cost 300 ms at 50k runs and the limit was 16: the
/// in-progress runs alone, never cached, went past it.)
pub(super) const APPLY_AT_MOST: usize = 1024;

/// How many cases the walk's first results hold at least before they are
/// handed on alone (`Action::TreePart`): more than a screen of rows, so the
/// first frame is full. A walk that ends before is handed on whole. (Each
/// install of a part rebuilds the tree's rows: one part, not a stream of them.)
pub const FIRST_ROWS: usize = 64;

/// How often the streamed history is handed to the app at most (after its first domain).
const CHUNK_EVERY: Duration = Duration::from_millis(250);

/// Index the workspace at `root` in stages, each said as an action: the walk's
/// first results (`TreePart`: the first rows of the tree, as soon as the
/// folders under `tests/` walked so far hold [`FIRST_ROWS`] cases), the
/// whole tests tree and the catalog (`TreeLoaded`, before any history work), the history's
/// total from the directory entries (`HistoryStarted`), each domain's runs
/// (`HistoryChunk`; domains read within [`CHUNK_EVERY`] of the last one handed
/// on go together), the end (`HistoryDone`), then the catalog's run records.
/// `gate` is called before each stage of the history (the walk, each domain): a
/// test holds the history there while it looks at the first frames. No history
/// cache is read or written.
pub fn index_staged(root: &Path, send: &dyn Fn(Action), gate: &dyn Fn()) {
    index_staged_cached(root, None, send, gate);
}

/// [`index_staged`] with the history cache in the folder `cache`: when it holds
/// one for this workspace, the whole cached history comes at once after the
/// tree (`HistoryStarted`, one `HistoryChunk`: not a `meta.json` read), then
/// what its check against the folders found (`HistoryVerified`: only new or
/// changed run folders read), then `HistoryDone`. Without one (or with one to
/// ignore) the history is read in full as [`index_staged`] reads it. Either way
/// the cache is written afterwards, on this task, when it changed.
pub fn index_staged_cached(
    root: &Path,
    cache: Option<&Path>,
    send: &dyn Fn(Action),
    gate: &dyn Fn(),
) {
    use testdeck_core::workspace::history_cache::{Builder, HistoryCache};
    // the walk's first results go at once, as soon as they fill the tree's
    // first screen; the rest, the catalog and the candidates come after
    let mut sent = false;
    let mut part = |n: usize, ws: &dyn Fn() -> Workspace| {
        if !sent && n >= FIRST_ROWS {
            send(Action::TreePart(Box::new(ws())));
            sent = true;
        }
    };
    let ws = match Workspace::load_tree_staged(root, &mut part) {
        Ok(ws) => ws,
        Err(e) => {
            send(Action::LoadFailed(e.to_string()));
            return;
        }
    };
    let runs = ws.config.runs.clone();
    send(Action::TreeLoaded(Box::new(ws)));
    gate();
    if let Some(dir) = cache {
        if let Some(cached) = HistoryCache::load(dir, root) {
            let chunk = cached.history();
            send(Action::HistoryStarted {
                total: chunk.runs.len(),
                problems: Vec::new(),
            });
            send(Action::HistoryChunk(Box::new(chunk)));
            gate();
            let judge = testdeck_core::workspace::logs::Judge::load(root, &runs);
            let v = cached.verify(root, &judge);
            // the app applies a change at a time: past a few, the history
            // whole in place of the cached one costs it less
            let mut fresh = if v.updates.len() > APPLY_AT_MOST {
                send(Action::HistoryRebuilt(Box::new(v.history())));
                v.cache
            } else {
                send(Action::HistoryVerified {
                    updates: v.updates,
                    problems: v.problems,
                });
                v.cache
            };
            send(Action::HistoryDone);
            send(Action::Records(read_records(root)));
            let _ = fresh.store(dir, root);
            return;
        }
    }
    super::count_full_load(root);
    // what the cache is made of is read from here on: a folder changed since is
    // not vouched for
    let since = std::time::SystemTime::now();
    let mut history = testdeck_core::workspace::HistoryLoader::new(root, &runs);
    let mut building = cache.map(|_| Builder::new(since));
    let problems = history.take_problems();
    if let Some(b) = &mut building {
        b.add_problems(problems.iter().cloned());
    }
    send(Action::HistoryStarted {
        total: history.total(),
        problems,
    });
    // every chunk the app takes rebuilds its tree, statistics and finder: the
    // first domain goes at once, the next ones together at most every
    // CHUNK_EVERY (a history of many small domains would rebuild them per domain)
    let mut held: Option<testdeck_core::workspace::logs::Chunk> = None;
    let mut sent: Option<std::time::Instant> = None;
    loop {
        gate();
        let Some(chunk) = history.next() else { break };
        if let Some(b) = &mut building {
            b.add_runs(&chunk.runs);
            b.add_problems(chunk.problems.iter().cloned());
        }
        let chunk = match held.take() {
            Some(mut h) => {
                h.merge(chunk);
                h
            }
            None => chunk,
        };
        if sent.is_some_and(|t| t.elapsed() < CHUNK_EVERY) {
            held = Some(chunk);
        } else {
            send(Action::HistoryChunk(Box::new(chunk)));
            sent = Some(std::time::Instant::now());
        }
    }
    if let Some(h) = held {
        send(Action::HistoryChunk(Box::new(h)));
    }
    send(Action::HistoryDone);
    send(Action::Records(read_records(root)));
    if let (Some(dir), Some(b)) = (cache, building) {
        let _ = b.finish(root).store(dir, root);
    }
}

/// The workspace with its tests tree and plan only (no logs, no catalog): the first
/// frame's tree while the full index is built.
pub fn tree_only(root: &Path) -> Option<Workspace> {
    use testdeck_core::workspace::{config, logs, outside, plan, tree};
    if !root.is_dir() {
        return None;
    }
    let mut problems = Vec::new();
    let config = config::Config::load(root, &mut problems);
    let plan = plan::TestPlan::load(root, &mut problems);
    let patterns = tree::CasePatterns::new(&config.tests.patterns, &mut problems);
    let table = config.outside.as_ref();
    let tests = outside::scan_tests(root, &plan, &patterns, table, &mut problems);
    Some(Workspace {
        root: root.to_path_buf(),
        config,
        tests,
        logs: logs::Logs::default(),
        plan,
        catalog: None,
        problems: Vec::new(),
    })
}

/// The catalog's run records, each relative to the root, or why it cannot be read.
pub fn read_records(
    root: &Path,
) -> Vec<(String, Result<testdeck_exec::record::RunRecord, String>)> {
    testdeck_exec::record::list_records(root)
        .into_iter()
        .map(|(p, r)| {
            (
                testdeck_core::workspace::rel(root, &p),
                r.map_err(|e| e.to_string()),
            )
        })
        .collect()
}
