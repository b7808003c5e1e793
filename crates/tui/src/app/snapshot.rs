//! What a frame is drawn from: the components, read-only, and what the panes
//! derived from the domain once per change ([`Derived`]: the duration chart,
//! a catalog case's verdicts, the live run's end and the runs other processes
//! write). A view takes a [`Snapshot`], never the App, and runs no domain query:
//! each query goes through this file, where a test counts them.

use super::launch::Launch;
use super::layout::Areas;
use super::{
    App, Candidate, CaseRef, CaseRow, CatalogTab, Live, Options, Pane, PreviewTarget, RunsTab, Tab,
    TestsTab, TreeNode, add_case, changes, compare, contract, overlay, preview, watch, why,
};
use crate::graphics::Graphics;
use crate::keymap::Keymap;
use std::collections::BTreeSet;
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::logs::{Meta, RawRun, RunStatus};
use testdeck_exec::record::{PastVerdict, RunRecord};

/// How many past verdicts a catalog case's details list.
pub const LAST_VERDICTS: usize = 5;

/// Runs the duration chart shows at most (the newest).
const CHART_RUNS: usize = 50;

#[cfg(any(test, feature = "test-support"))]
thread_local! {
    static QUERIES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The domain queries this thread ran for the views so far (tests only: a
/// frame drawn adds none).
#[cfg(any(test, feature = "test-support"))]
pub fn domain_queries() -> usize {
    QUERIES.with(std::cell::Cell::get)
}

fn counted() {
    #[cfg(any(test, feature = "test-support"))]
    QUERIES.with(|q| q.set(q.get() + 1));
}

/// The last `n` verdicts of catalog case `id` over the run records, newest first.
pub fn last_verdicts(runs: &RunsTab, id: &str, n: usize) -> Vec<PastVerdict> {
    counted();
    runs.last_verdicts(id, n)
}

/// What the duration chart draws.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub passed: Vec<(f64, f64)>,
    pub failed: Vec<(f64, f64)>,
    pub median: Option<[(f64, f64); 2]>,
    /// The x range: the runs' places.
    pub last_x: f64,
    /// The y range's top, in ms.
    pub top: u64,
    pub first_date: String,
    pub last_date: String,
}

/// The series of a case's runs (oldest first), with its median duration from the
/// core's figures; `None` below two finished runs with a duration.
pub fn series(runs: &[RawRun], median: Option<u64>) -> Option<Series> {
    counted();
    let done: Vec<(&RawRun, u64)> = runs
        .iter()
        .filter(|r| r.status.is_finished())
        .filter_map(|r| Some((r, r.duration_ms()?)))
        .collect();
    let done = &done[done.len().saturating_sub(CHART_RUNS)..];
    if done.len() < 2 {
        return None;
    }
    let max = done.iter().map(|(_, d)| *d).max().unwrap_or(0);
    let top = max.max(median.unwrap_or(0)).max(1);
    let mut s = Series {
        passed: Vec::new(),
        failed: Vec::new(),
        median: None,
        last_x: (done.len() - 1) as f64,
        top,
        first_date: date(done[0].0),
        last_date: date(done[done.len() - 1].0),
    };
    for (i, (r, d)) in done.iter().enumerate() {
        let p = (i as f64, *d as f64);
        if r.status == RunStatus::Passed {
            s.passed.push(p);
        } else {
            s.failed.push(p);
        }
    }
    s.median = median.map(|m| [(0.0, m as f64), (s.last_x, m as f64)]);
    Some(s)
}

fn date(r: &RawRun) -> String {
    r.start_time()
        .map_or_else(|| "?".to_owned(), |t| t.format("%m-%d").to_string())
}

/// What the panes derived from the domain for the frames to come: computed once
/// per change (after an update that changed something), read by every frame.
#[derive(Debug, Default)]
pub struct Derived {
    /// The duration chart of the tests case selected (Tests tab).
    pub chart: Option<Series>,
    /// The catalog case selected (Catalog tab): its last verdicts, newest first.
    pub verdicts: Vec<PastVerdict>,
    /// How the run the live pane shows ended when the index says it ended
    /// without a `meta.json`.
    pub live_ended: Option<&'static str>,
    /// Runs other processes are writing now.
    pub live_external: usize,
}

impl Derived {
    /// The derived values of `app` as it is now.
    pub(super) fn of(app: &App) -> Derived {
        let ws = app.domain.ws();
        let chart = match (app.tab, ws, app.shared().selected_case()) {
            (Tab::Tests, Some(ws), Some(c)) => {
                let runs = ws
                    .logs
                    .runs
                    .get(c.run_range.0..c.run_range.1)
                    .unwrap_or(&[]);
                let median = app.tests.figures(&c.key).and_then(|f| f.duration_ms.median);
                series(runs, median)
            }
            _ => None,
        };
        let verdicts = match (app.tab, app.shared().selected_catalog_case()) {
            (Tab::Catalog, Some(c)) => last_verdicts(&app.runs, &c.id, LAST_VERDICTS),
            _ => Vec::new(),
        };
        let live_ended = app.live.run().and_then(|r| {
            counted();
            app.domain.ended_without_meta(&r.path)
        });
        let live_external = ws.map_or(0, |ws| {
            counted();
            app.changes.live_external(ws)
        });
        Derived {
            chart,
            verdicts,
            live_ended,
            live_external,
        }
    }
}

/// What the badges are read from: the features' components and the workspace.
#[derive(Clone, Copy)]
pub struct Badges<'a> {
    pub ws: Option<&'a Workspace>,
    pub tests: &'a TestsTab,
    pub watch: &'a watch::Watch,
    pub compare: &'a compare::Compare,
    pub contract: &'a contract::Contract,
    pub changes: &'a changes::Changes,
}

/// What the tabs' lists (tree, catalog, runs) are drawn with besides their own
/// component.
pub struct TabCtx<'a> {
    pub ws: Option<&'a Workspace>,
    pub load_error: Option<&'a String>,
    pub loading: bool,
    pub spinner: &'static str,
    /// The list has the keys.
    pub focused: bool,
    pub marks: &'a BTreeSet<CaseRef>,
    pub badges: Badges<'a>,
}

/// What the status bar says.
pub struct Status<'a> {
    pub opts: &'a Options,
    pub launch: &'a Launch,
    pub badges: Badges<'a>,
    pub notice: Option<&'a String>,
    pub loading: bool,
    pub indexing: bool,
    pub spinner: &'static str,
    pub history_progress: Option<(usize, usize)>,
    pub pending_keys: String,
    /// Every run, as the Runs tab counts them (tests runs and run records).
    pub runs: usize,
    /// Runs another process is writing now.
    pub external_runs: usize,
}

/// What the live pane shows besides its run, from elsewhere in the cockpit.
pub struct Around {
    /// How the run ended when the index says it ended without a `meta.json`.
    pub ended: Option<&'static str>,
    /// The run was started outside the cockpit.
    pub external: bool,
    /// The events filter line is being edited.
    pub editing: bool,
    pub focused: bool,
    /// A tests-tree case is selected (its empty state says `r` runs it).
    pub case_selected: bool,
}

/// What the details pane is drawn from.
pub struct Details<'a> {
    pub ws: Option<&'a Workspace>,
    pub tab: Tab,
    /// The failed run selected: its digest's summary rows (empty otherwise).
    pub why: Vec<why::Row>,
    pub node: Option<&'a TreeNode>,
    pub tests: &'a TestsTab,
    pub badges: Badges<'a>,
    pub run: Option<(&'a RawRun, Option<&'a Meta>)>,
    pub record: Option<(&'a str, &'a Result<RunRecord, String>)>,
    pub catalog: &'a CatalogTab,
    /// The catalog case selected: its last verdicts, newest first.
    pub verdicts: &'a [PastVerdict],
    /// The duration chart of the tests case selected.
    pub chart: Option<&'a Series>,
    /// The scroll row asked for.
    pub scroll: usize,
    /// What the pane says when nothing is selected, and how to get something.
    pub empty: [&'static str; 2],
    pub focused: bool,
}

/// Everything one frame shows, read-only: what the panes handed over.
pub struct Snapshot<'a> {
    pub size: (u16, u16),
    pub areas: Areas,
    pub tab: Tab,
    pub opts: &'a Options,
    pub keymap: &'a Keymap,
    pub layers: &'a overlay::Layers,
    pub tests: &'a TestsTab,
    pub adding: &'a add_case::AddCase,
    pub catalog: &'a CatalogTab,
    pub runs: &'a RunsTab,
    pub live: &'a Live,
    pub marks: &'a BTreeSet<CaseRef>,
    pub candidates: &'a [Candidate],
    pub launch: &'a Launch,
    /// Watch mode's reruns in flight.
    pub reruns: usize,
    pub previews: &'a preview::Previews,
    pub graphics: &'a Graphics,
    pub preview_target: PreviewTarget,
    pub key_hints: Option<Vec<(String, String)>>,
    pub tab_ctx: TabCtx<'a>,
    pub status: Status<'a>,
    pub around: Around,
    pub details: Details<'a>,
    focus: Pane,
}

impl Snapshot<'_> {
    /// Pane `p` has the keys (and no overlay is over it): drawn in the focus colour.
    pub fn has_keys(&self, p: Pane) -> bool {
        self.focus == p && self.layers.overlay().is_none()
    }

    /// The tests case a finder candidate `key` names: its latest status.
    pub fn case_row(&self, key: &CaseRef) -> Option<&CaseRow> {
        self.tests.cases().iter().find(|c| c.case_ref() == *key)
    }
}

impl<'a> Snapshot<'a> {
    /// What the next frame of `app` shows: its components read-only, and what
    /// was derived at the last change. No domain query runs here.
    pub(super) fn of(app: &'a App) -> Snapshot<'a> {
        let badges = badges(app);
        let d = &app.derived;
        let live_path = app.live.run().map(|r| r.path.as_str());
        Snapshot {
            size: app.size,
            areas: app.areas(),
            tab: app.tab,
            opts: &app.opts,
            keymap: &app.keymap,
            layers: &app.layers,
            tests: &app.tests,
            adding: &app.adding,
            catalog: &app.catalog,
            runs: &app.runs,
            live: &app.live,
            marks: &app.marks,
            candidates: app.domain.candidates(),
            launch: &app.launch,
            reruns: app.watch.reruns(),
            previews: &app.previews,
            graphics: &app.graphics,
            preview_target: super::preview::target(&app.live, &app.opts.root),
            key_hints: app
                .key_hints
                .then(|| super::hints::key_hints(&app.keymap, &app.layers, (app.tab, app.focus))),
            tab_ctx: TabCtx {
                ws: app.domain.ws(),
                load_error: app.domain.load_error(),
                loading: app.domain.loading(),
                spinner: app.spinner(),
                focused: app.has_keys(Pane::Tree),
                marks: &app.marks,
                badges,
            },
            status: Status {
                opts: &app.opts,
                launch: &app.launch,
                badges,
                notice: app.notice.as_ref(),
                loading: app.domain.loading(),
                indexing: app.domain.indexing(),
                spinner: app.spinner(),
                history_progress: app.domain.history_progress(),
                pending_keys: app.pending_keys(),
                runs: app.runs.total(app.domain.ws()),
                external_runs: d.live_external,
            },
            around: Around {
                ended: d.live_ended,
                external: live_path.is_some_and(|p| app.changes.is_external(p)),
                editing: app.layers.input() == Some(overlay::InputTarget::EventsFilter),
                focused: app.has_keys(Pane::Live),
                case_selected: app.shared().selected_case().is_some(),
            },
            details: details_of(app, badges),
            focus: app.focus,
        }
    }
}

/// What the badges are read from.
fn badges(app: &App) -> Badges<'_> {
    Badges {
        ws: app.domain.ws(),
        tests: &app.tests,
        watch: &app.watch,
        compare: &app.compare,
        contract: &app.contract,
        changes: &app.changes,
    }
}

/// What the details pane is drawn from.
fn details_of<'a>(app: &'a App, badges: Badges<'a>) -> Details<'a> {
    let why = app
        .shared()
        .failed_run()
        .map(|run| why::summary(app.why.digest(run)))
        .unwrap_or_default();
    Details {
        ws: app.domain.ws(),
        tab: app.tab,
        why,
        node: app.shared().selected_node(),
        tests: &app.tests,
        badges,
        run: app
            .shared()
            .selected_run()
            .map(|r| (r, app.run_meta.get(r))),
        record: app.runs.selected_record(),
        catalog: &app.catalog,
        verdicts: &app.derived.verdicts,
        chart: app.derived.chart.as_ref(),
        scroll: app.details.scroll().cursor,
        empty: details_empty(app.tab),
        focused: app.has_keys(Pane::Details),
    }
}

/// What the details pane says when nothing is selected: what it would show
/// and how to get it, for the tab shown.
fn details_empty(tab: Tab) -> [&'static str; 2] {
    match tab {
        Tab::Tests => [
            "Details of the selected case or folder: fields, history, statistics",
            "A case is tests/<domain>/<layer>/<suite>/…/<name>.test.ts",
        ],
        Tab::Catalog => [
            "Details of the selected catalog case: what, how, expected, verdicts",
            "A catalog lives in .pouch/tester/catalog.yaml",
        ],
        Tab::Runs => [
            "Details of the selected run: its meta, summary and failure",
            "A run appears when a case runs: r in the Tests tab",
        ],
    }
}
