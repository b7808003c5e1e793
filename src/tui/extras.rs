//! The cockpit's watch mode (`w`), rerun failed (`F`), run comparison (`c`), contract
//! badges and the domain report (`R`): their state, the work they ask for off the UI
//! thread (`Job`), and what comes back (`Done`).

use super::action::{Action, Command};
use super::app::{App, CatRow, Effect, NodeKind, RunRow, Tab};
use super::launch::Asking;
use crate::exec::process::Cancel;
use crate::exec::watch::{WatchEvent, WatchNote, WatchOptions, Watched};
use crate::sanitize::escape;
use crate::workspace::diff::RunDiff;
use crate::workspace::logs::RawRun;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The launch number watch reruns report under (they have no handle of the app's).
pub const WATCH_LAUNCH: usize = usize::MAX;
/// A report is hand-written markdown; a bigger file is refused unread.
/// Runs of the selected case's history whose contract is checked.
const HISTORY_CHECKED: usize = super::view::details::HISTORY;

/// Work for these features, done off the UI thread.
#[derive(Debug, Clone)]
pub enum Job {
    /// (Re)start watching with these options (generation `.0`); `None`: stop watching.
    Watch(u64, Option<Box<WatchOptions>>),
    /// Compare two run folders (relative to the root).
    Compare { a: String, b: String },
    /// Read `tests/report/<domain>/report.md`.
    Report { domain: String },
    /// The contract checks of these runs.
    Contract(Vec<RawRun>),
    /// Decode a screenshot (`file`: inside its run folder; `label`: its run-relative path).
    Preview { file: PathBuf, label: String },
}

/// What a `Job` gives back.
#[derive(Debug)]
pub enum Done {
    /// An event of the watch of generation `generation`.
    Watch {
        generation: u64,
        event: Box<WatchEvent>,
    },
    /// The watch of generation `generation` ended (with the reason when it failed).
    WatchEnded {
        generation: u64,
        error: Option<String>,
    },
    Compare(Result<Box<RunDiff>, String>),
    Report {
        domain: String,
        file: String,
        text: Result<String, String>,
    },
    /// (run folder, number of contract warnings).
    Contract(Vec<(String, usize)>),
    Preview {
        file: PathBuf,
        preview: Result<super::image::Preview, String>,
    },
}

/// A full view over the panes: it takes the keys until closed.
#[derive(Debug, Clone)]
pub enum Screen {
    Compare(Box<super::view::compare::CompareView>),
    Report(Box<super::view::report::ReportView>),
    /// A screenshot full screen (`file` inside its run folder, `label` its path in the run).
    Image {
        file: PathBuf,
        label: String,
    },
}

/// The state of these features inside the App.
#[derive(Debug, Default)]
pub struct Extras {
    /// Watched cases: tests keys `scope/caseId` and `catalog:ID`.
    pub watched: BTreeSet<String>,
    /// The watch is armed (its folders are being watched).
    pub watch_armed: bool,
    /// Reruns of the watch in flight.
    pub reruns: usize,
    /// The generation of the current watch (events of older ones are dropped).
    pub watch_gen: u64,
    /// The cases a `w` is asking authorization for (prompts on screen).
    pub watch_asking: Option<Vec<String>>,
    /// The run picked as A by `c` (folder, relative to the root).
    pub pick: Option<String>,
    /// Contract warnings per run folder, for the runs checked so far.
    pub contract: HashMap<String, usize>,
    contract_asked: HashSet<String>,
    pub screen: Option<Screen>,
    /// Screenshot previews decoded (or being decoded), by file.
    pub previews: super::image::Cache,
}

/// What the artifacts pane can preview for the selected artifact.
#[derive(Debug, Clone)]
pub enum PreviewTarget {
    /// Not an image: nothing to preview.
    None,
    /// An image that is never read, and why.
    Refused(String),
    /// An image inside its run folder: the file and its run-relative path.
    File(PathBuf, String),
}

impl App {
    /// `w`, `F`, `c`, `R`.
    pub(crate) fn extra_command(&mut self, c: Command) -> Vec<Effect> {
        if self.ws.is_none() {
            self.notice = Some("still indexing".into());
            return Vec::new();
        }
        match c {
            Command::Watch => self.watch_toggle(),
            Command::RerunFailed => self.rerun_failed(),
            Command::Compare => self.compare(),
            Command::Report => self.open_report(),
            _ => Vec::new(),
        }
    }

    /// A key while a screen is open.
    pub(crate) fn screen_command(&mut self, c: Command) -> Vec<Effect> {
        let page = (self.size.1 / 2).max(1) as isize;
        let Some(screen) = self.x.screen.as_mut() else {
            return Vec::new();
        };
        let (scroll, len, next): (&mut usize, usize, Option<usize>) = match screen {
            Screen::Compare(v) => {
                let next = v.next_difference();
                (&mut v.scroll, v.rows.len(), next)
            }
            Screen::Report(v) => {
                let next = v.next_stale();
                (&mut v.scroll, v.lines.len(), next)
            }
            Screen::Image { .. } => {
                if matches!(c, Command::Close | Command::Quit | Command::Confirm) {
                    self.x.screen = None;
                }
                return Vec::new();
            }
        };
        let max = len.saturating_sub(1) as isize;
        let to = |s: usize, d: isize| (s as isize).saturating_add(d).clamp(0, max.max(0)) as usize;
        match c {
            Command::Close | Command::Quit | Command::Confirm => self.x.screen = None,
            Command::MoveDown => *scroll = to(*scroll, 1),
            Command::MoveUp => *scroll = to(*scroll, -1),
            Command::PageDown => *scroll = to(*scroll, page),
            Command::PageUp => *scroll = to(*scroll, -page),
            Command::GoTop => *scroll = 0,
            Command::GoBottom => *scroll = max.max(0) as usize,
            Command::NextFailure => match next {
                Some(n) => *scroll = n,
                None => self.notice = Some("no more differences".into()),
            },
            _ => {}
        }
        Vec::new()
    }

    /// A background result of these features.
    pub(crate) fn extra_done(&mut self, d: Done) -> Vec<Effect> {
        match d {
            Done::Watch { generation, event } => {
                if generation != self.x.watch_gen {
                    return Vec::new();
                }
                self.watch_event(*event)
            }
            Done::WatchEnded { generation, error } => {
                if generation == self.x.watch_gen {
                    self.x.watch_armed = false;
                    self.x.reruns = 0;
                    if let Some(e) = error {
                        // nothing is watched any more: no badge may say otherwise
                        self.x.watched.clear();
                        self.notice = Some(format!("watch stopped: {}", escape(&e)));
                    }
                }
                Vec::new()
            }
            Done::Compare(Ok(d)) => {
                self.notice = None;
                self.x.screen = Some(Screen::Compare(Box::new(
                    super::view::compare::CompareView::new(&d),
                )));
                Vec::new()
            }
            Done::Compare(Err(e)) => {
                self.notice = Some(format!("compare: {}", escape(&e)));
                Vec::new()
            }
            Done::Report { domain, file, text } => {
                match text {
                    Ok(text) => {
                        let by_path: HashMap<&str, &crate::workspace::stats::NodeStats> =
                            self.stats.iter().map(|(k, v)| (k.as_str(), v)).collect();
                        let problems =
                            crate::workspace::report::check_report(&file, &domain, &text, &by_path);
                        self.x.screen = Some(Screen::Report(Box::new(
                            super::view::report::ReportView::new(&file, &text, &problems),
                        )));
                    }
                    Err(e) => self.notice = Some(escape(&e).into_owned()),
                }
                Vec::new()
            }
            Done::Contract(v) => {
                self.x.contract.extend(v);
                Vec::new()
            }
            Done::Preview { file, preview } => {
                self.x.previews.put(file, preview);
                Vec::new()
            }
        }
    }

    // ---- screenshot previews -------------------------------------------------------

    /// The selected artifact as something to preview.
    pub fn preview_target(&self) -> PreviewTarget {
        let Some(run) = &self.live.run else {
            return PreviewTarget::None;
        };
        let Some(a) = run.artifacts.get(self.live.artifact_cursor) else {
            return PreviewTarget::None;
        };
        if !super::image::is_image(a) {
            return PreviewTarget::None;
        }
        // `file()` is the one way to a path: it gives none that leaves the run folder
        let Some(file) = a.file(&self.opts.root.join(&run.path)) else {
            return PreviewTarget::Refused(format!(
                "refused: {} leaves the run folder",
                escape(&a.path)
            ));
        };
        if !a.exists {
            return PreviewTarget::Refused(format!("missing: {}", escape(&a.path)));
        }
        PreviewTarget::File(file, a.path.clone())
    }

    /// The decode the selected screenshot needs, once per file.
    pub(crate) fn preview_job(&mut self) -> Option<Effect> {
        let PreviewTarget::File(file, label) = self.preview_target() else {
            return None;
        };
        self.x
            .previews
            .want(&file)
            .then_some(Effect::Extra(Job::Preview { file, label }))
    }

    /// `i`: the selected screenshot full screen.
    pub(crate) fn preview_open(&mut self) -> Vec<Effect> {
        match self.preview_target() {
            PreviewTarget::None => {
                self.notice = Some("the selected artifact is not an image".into());
            }
            PreviewTarget::Refused(why) => self.notice = Some(why),
            PreviewTarget::File(file, label) => {
                self.x.screen = Some(Screen::Image { file, label });
            }
        }
        Vec::new()
    }

    // ---- rerun failed -------------------------------------------------------------

    /// `F`: every case whose latest run failed (tests) or whose latest verdict failed
    /// (catalog), through the prompts of `r`. On the Runs tab with a filter, only the
    /// failed cases the filter shows.
    fn rerun_failed(&mut self) -> Vec<Effect> {
        let Some(ws) = &self.ws else {
            return Vec::new();
        };
        let set = crate::exec::failed::failed_set(ws);
        let shown: Option<HashSet<String>> =
            (self.tab == Tab::Runs && !self.runs.filter.is_empty()).then(|| {
                self.runs
                    .visible
                    .iter()
                    .filter_map(|r| match r {
                        RunRow::Tests(i) => ws.logs.runs.get(*i).map(RawRun::key),
                        RunRow::Record(_) => None,
                    })
                    .collect()
            });
        let tests: Vec<(String, Option<String>)> = set
            .tests
            .iter()
            .filter(|c| shown.as_ref().is_none_or(|s| s.contains(&c.key())))
            .map(|c| (c.scope.clone(), Some(c.case_id.clone())))
            .collect();
        let catalog = if shown.is_some() {
            Vec::new()
        } else {
            set.catalog
        };
        if tests.is_empty() && catalog.is_empty() {
            self.notice = Some("no failed case to rerun".into());
            return Vec::new();
        }
        let n = tests.len() + catalog.len();
        let a = self.asking(&tests, &catalog);
        let fx = self.ask_or_launch(a);
        if fx.iter().any(|e| matches!(e, Effect::Launch { .. })) {
            let prev = self.notice.take().unwrap_or_default();
            self.notice = Some(format!("rerun failed ({n}): {prev}"));
        }
        fx
    }

    /// A launch to ask about, as `r` builds it.
    fn asking(&self, tests: &[(String, Option<String>)], catalog: &[String]) -> Asking {
        let risk = self
            .max_risk
            .and_then(crate::exec::Risk::parse)
            .unwrap_or_default();
        let plan = match &self.ws {
            Some(ws) => super::launch::plan_for(ws, tests, catalog, risk, &self.grants),
            None => crate::exec::LaunchPlan::default(),
        };
        Asking {
            plan,
            prompt: crate::exec::Prompt::Live {
                case: String::new(),
            },
            typed: String::new(),
            declined: Vec::new(),
            skipped: Vec::new(),
        }
    }

    // ---- watch ----------------------------------------------------------------------

    /// The cases `w` acts on: the marked ones, or the selection (a folder or category:
    /// every case under it).
    fn watch_targets(&self) -> Vec<String> {
        if !self.marks.is_empty() {
            let known: HashSet<&str> = self
                .cases
                .iter()
                .filter(|c| !c.orphan())
                .map(|c| c.key.as_str())
                .collect();
            return self
                .marks
                .iter()
                .filter(|m| m.starts_with("catalog:") || known.contains(m.as_str()))
                .cloned()
                .collect();
        }
        let Some(ws) = &self.ws else {
            return Vec::new();
        };
        let case_key = |ci: usize| {
            let c = &self.cases[ci];
            (!c.orphan()).then(|| c.key.clone())
        };
        match self.tab {
            Tab::Tests => {
                let Some(&ni) = self.visible.get(self.cursor) else {
                    return Vec::new();
                };
                let n = &self.nodes[ni];
                match n.kind {
                    NodeKind::Case(ci) => case_key(ci).into_iter().collect(),
                    NodeKind::Folder => self.nodes[ni + 1..]
                        .iter()
                        .take_while(|m| m.depth > n.depth)
                        .filter_map(|m| match m.kind {
                            NodeKind::Case(ci) => case_key(ci),
                            NodeKind::Folder => None,
                        })
                        .collect(),
                }
            }
            Tab::Catalog => {
                let Some(cat) = ws.catalog.as_ref() else {
                    return Vec::new();
                };
                match self.cat_rows.get(self.cat_cursor) {
                    Some(CatRow::Case(i)) => vec![format!("catalog:{}", cat.cases[*i].id)],
                    Some(CatRow::Category(i)) => {
                        let id = &cat.categories[*i].id;
                        cat.cases
                            .iter()
                            .filter(|c| &c.category == id)
                            .map(|c| format!("catalog:{}", c.id))
                            .collect()
                    }
                    None => Vec::new(),
                }
            }
            Tab::Runs => self
                .selected_run()
                .map(RawRun::key)
                .filter(|k| self.cases.iter().any(|c| &c.key == k && !c.orphan()))
                .into_iter()
                .collect(),
        }
    }

    /// `w`: watch what is selected (asking what `r` would ask first), or stop watching
    /// it when all of it is watched already.
    fn watch_toggle(&mut self) -> Vec<Effect> {
        let keys = self.watch_targets();
        if keys.is_empty() {
            self.notice = Some("nothing to watch here (an orphan has no test file)".into());
            return Vec::new();
        }
        if keys.iter().all(|k| self.x.watched.contains(k)) {
            for k in &keys {
                self.x.watched.remove(k);
            }
            self.notice = Some(format!(
                "unwatched {}; watching {}",
                keys.len(),
                self.x.watched.len()
            ));
            return vec![self.watch_job()];
        }
        let tests: Vec<(String, Option<String>)> = keys
            .iter()
            .filter_map(|k| self.cases.iter().find(|c| &c.key == k))
            .map(|c| (c.scope.clone(), Some(c.case_id.clone())))
            .collect();
        let catalog: Vec<String> = keys
            .iter()
            .filter_map(|k| k.strip_prefix("catalog:").map(str::to_owned))
            .collect();
        let a = self.asking(&tests, &catalog);
        self.x.watch_asking = Some(keys);
        self.ask_or_launch(a)
    }

    /// Called where a launch would start once its prompts are answered: when the
    /// prompts were a watch's, start watching what was authorized instead.
    pub(crate) fn watch_ready(&mut self, a: &Asking) -> Option<Vec<Effect>> {
        let keys = self.x.watch_asking.take()?;
        let ws = self.ws.as_ref()?;
        let asked = Watched {
            tests: keys
                .iter()
                .filter(|k| !k.starts_with("catalog:"))
                .cloned()
                .collect(),
            catalog: keys
                .iter()
                .filter_map(|k| k.strip_prefix("catalog:").map(str::to_owned))
                .collect(),
        };
        // the watch decides each rerun by this very policy with these grants: what
        // it would skip is not watched at all
        let opts = self.watch_options(a.plan.grants.clone(), Vec::new());
        let (_, skipped) = crate::exec::watch::plan_for(ws, &opts, &asked);
        let refused: HashMap<&str, &str> = skipped
            .iter()
            .map(|s| (s.id.as_str(), s.reason.as_str()))
            .collect();
        let mut not = Vec::new();
        let mut added = 0;
        for k in &keys {
            let id = k.strip_prefix("catalog:").unwrap_or(k);
            match refused.get(id) {
                Some(r) => not.push(format!("{id} ({r})")),
                None => {
                    added += usize::from(self.x.watched.insert(k.clone()));
                }
            }
        }
        self.marks.clear();
        let mut msg = format!(
            "watching {} (+{added}): a change to their files reruns them",
            self.x.watched.len()
        );
        if !not.is_empty() {
            msg = format!("{msg}; not watched, not authorized: {}", not.join(", "));
        }
        self.notice = Some(escape(&msg).into_owned());
        Some(vec![self.watch_job()])
    }

    fn watch_options(&self, grants: crate::exec::Grants, targets: Vec<String>) -> WatchOptions {
        WatchOptions {
            targets,
            grants,
            max_risk: self.max_risk.and_then(crate::exec::Risk::parse),
            label: "tui-watch".into(),
            runs: None,
            quiet: None,
        }
    }

    /// Restart the watch on the watched set (or stop it when the set is empty).
    fn watch_job(&mut self) -> Effect {
        self.x.watch_gen += 1;
        self.x.reruns = 0;
        self.x.watch_armed = false;
        let targets: Vec<String> = self
            .x
            .watched
            .iter()
            .map(|k| k.strip_prefix("catalog:").unwrap_or(k).to_owned())
            .collect();
        // an empty target list would mean "everything" to the watch: stop instead
        let opts = (!targets.is_empty())
            .then(|| Box::new(self.watch_options(self.grants.clone(), targets)));
        Effect::Extra(Job::Watch(self.x.watch_gen, opts))
    }

    fn watch_event(&mut self, ev: WatchEvent) -> Vec<Effect> {
        let list = |v: &[String]| escape(&v.join(", ")).into_owned();
        match ev {
            WatchEvent::Note(WatchNote::WatchStart { tests, catalog, .. }) => {
                self.x.watch_armed = true;
                self.notice = Some(format!(
                    "watching {} cases: a change to their files reruns them",
                    tests.len() + catalog.len()
                ));
            }
            WatchEvent::Note(WatchNote::WatchTrigger {
                paths,
                cases,
                skipped,
            }) => {
                if cases.len() > skipped.len() {
                    self.x.reruns += 1;
                }
                let more = if paths.len() > 1 {
                    format!(" (+{})", paths.len() - 1)
                } else {
                    String::new()
                };
                self.notice = Some(format!(
                    "changed {}{more}: rerunning {}",
                    list(&paths[..paths.len().min(1)]),
                    list(&cases)
                ));
            }
            WatchEvent::Note(WatchNote::WatchCancel { cases }) => {
                self.x.reruns = self.x.reruns.saturating_sub(1);
                self.notice = Some(format!("rerun cancelled, restarting: {}", list(&cases)));
            }
            WatchEvent::Note(WatchNote::WatchError { message }) => {
                self.notice = Some(format!("watch: {}", escape(&message)));
            }
            WatchEvent::Exec(crate::exec::ExecEvent::Summary(s)) => {
                self.x.reruns = self.x.reruns.saturating_sub(1);
                let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
                for r in &s.results {
                    *counts.entry(r.verdict.as_str()).or_default() += 1;
                }
                let text: Vec<String> = counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
                self.notice = Some(format!("watch rerun done: {}", text.join(", ")));
                return vec![Effect::Reload];
            }
            WatchEvent::Exec(e) => return self.exec_event(WATCH_LAUNCH, e),
        }
        Vec::new()
    }

    // ---- compare --------------------------------------------------------------------

    /// `c`: pick run A, then B (same case); on a case with no pick, its default pair.
    fn compare(&mut self) -> Vec<Effect> {
        let Some(ws) = &self.ws else {
            return Vec::new();
        };
        let key_of = |path: &str| {
            ws.logs
                .runs
                .iter()
                .find(|r| r.path == path)
                .map(RawRun::key)
        };
        match self.tab {
            Tab::Runs => {
                let Some(run) = self.selected_run() else {
                    self.notice = Some("no run selected".into());
                    return Vec::new();
                };
                let (path, key, id) = (
                    run.path.clone(),
                    run.key(),
                    escape(&run.run_id).into_owned(),
                );
                match self.x.pick.take() {
                    Some(p) if p == path => {
                        self.notice = Some("compare: pick cleared".into());
                    }
                    Some(p) if key_of(&p).as_deref() == Some(key.as_str()) => {
                        return self.open_compare(p, path);
                    }
                    other => {
                        let again = if other.is_some() {
                            "another case: "
                        } else {
                            ""
                        };
                        self.notice = Some(format!(
                            "compare: {again}A = {id}; c on another run of {} for B",
                            escape(&key)
                        ));
                        self.x.pick = Some(path);
                    }
                }
                Vec::new()
            }
            Tab::Tests => {
                let Some(c) = self.selected_case() else {
                    self.notice = Some("compare: select a case or a run".into());
                    return Vec::new();
                };
                let key = c.key.clone();
                let shown = self.live.run.as_ref().map(|r| r.path.clone());
                if let (Some(p), Some(s)) = (self.x.pick.clone(), shown) {
                    if p != s
                        && key_of(&p).as_deref() == Some(key.as_str())
                        && key_of(&s).as_deref() == Some(key.as_str())
                    {
                        self.x.pick = None;
                        return self.open_compare(p, s);
                    }
                }
                match crate::workspace::diff::default_pair(ws, &key) {
                    Ok((passed, failed)) => self.open_compare(passed, failed),
                    Err(e) => {
                        self.notice = Some(format!("compare: {}", escape(&e.to_string())));
                        Vec::new()
                    }
                }
            }
            Tab::Catalog => {
                self.notice =
                    Some("compare works on tests runs: the Runs tab or a tests case".into());
                Vec::new()
            }
        }
    }

    fn open_compare(&mut self, a: String, b: String) -> Vec<Effect> {
        self.notice = Some("comparing…".into());
        vec![Effect::Extra(Job::Compare { a, b })]
    }

    // ---- report ---------------------------------------------------------------------

    /// `R`: the domain's report of the selected node, beside the tree.
    fn open_report(&mut self) -> Vec<Effect> {
        let scope = match self.tab {
            Tab::Tests => self.selected_node().map(|n| n.key.clone()),
            Tab::Runs => self.selected_run().map(|r| r.scope.clone()),
            Tab::Catalog => None,
        };
        let Some(domain) = scope
            .as_deref()
            .and_then(|s| s.split('/').next())
            .filter(|d| !d.is_empty() && *d != "temp")
            .map(str::to_owned)
        else {
            self.notice = Some("report: select a domain of the tests tree".into());
            return Vec::new();
        };
        vec![Effect::Extra(Job::Report { domain })]
    }

    // ---- contract badges ------------------------------------------------------------

    /// Ask for the contract checks of the runs on screen that were not checked yet:
    /// the Runs tab's rows, the tree's cases' latest runs, the selected case's history.
    pub(crate) fn contract_job(&mut self, reloaded: bool) -> Option<Effect> {
        if reloaded {
            self.x.contract.clear();
            self.x.contract_asked.clear();
        }
        let ws = self.ws.as_ref()?;
        if self.indexing || ws.logs.runs.is_empty() {
            return None;
        }
        let h = self.areas().tree.height as usize;
        let mut want: Vec<usize> = Vec::new();
        match self.tab {
            Tab::Runs => want.extend(
                self.runs
                    .visible
                    .iter()
                    .skip(self.runs.offset)
                    .take(h)
                    .filter_map(|r| match r {
                        RunRow::Tests(i) => Some(*i),
                        RunRow::Record(_) => None,
                    }),
            ),
            Tab::Tests => {
                for &ni in self.visible.iter().skip(self.offset).take(h) {
                    if let NodeKind::Case(ci) = self.nodes[ni].kind {
                        let (s, e) = self.cases[ci].run_range;
                        if e > s {
                            want.push(e - 1);
                        }
                    }
                }
                if let Some(c) = self.selected_case() {
                    let (s, e) = c.run_range;
                    want.extend(e.saturating_sub(HISTORY_CHECKED).max(s)..e);
                }
            }
            Tab::Catalog => {}
        }
        let runs: Vec<RawRun> = want
            .into_iter()
            .filter_map(|i| ws.logs.runs.get(i))
            .filter(|r| r.status.is_finished() && !self.x.contract_asked.contains(&r.path))
            .cloned()
            .collect();
        if runs.is_empty() {
            return None;
        }
        for r in &runs {
            self.x.contract_asked.insert(r.path.clone());
        }
        Some(Effect::Extra(Job::Contract(runs)))
    }
}

/// Do a job that ends by itself (all but `Watch`) and give its result.
pub fn run_now(job: Job, root: &Path) -> Option<Done> {
    match job {
        Job::Watch(..) => None,
        Job::Compare { a, b } => Some(Done::Compare(
            crate::workspace::diff::diff_runs(root, &root.join(&a), &root.join(&b)).map(Box::new),
        )),
        Job::Report { domain } => {
            let file = format!("tests/report/{domain}/report.md");
            Some(Done::Report {
                text: read_report(root, &file),
                domain,
                file,
            })
        }
        Job::Contract(runs) => Some(Done::Contract(
            runs.iter()
                .map(|r| {
                    (
                        r.path.clone(),
                        crate::workspace::contract::check_run(root, r).len(),
                    )
                })
                .collect(),
        )),
        Job::Preview { file, label } => Some(Done::Preview {
            preview: super::image::load(&file, &label),
            file,
        }),
    }
}

fn read_report(root: &Path, file: &str) -> Result<String, String> {
    use crate::workspace::read;
    let p = root.join(file);
    // the report stays in its domain's folder under tests/report (no link out)
    let within = p.parent().and_then(Path::parent).unwrap_or(root);
    match read::read_lossy(&p, Some(within), read::Kind::Markdown) {
        Ok(text) => Ok(text),
        Err(e) if e.is_missing() => Err(format!("{file}: no report for this domain")),
        Err(e) => Err(format!("{file}: {e}")),
    }
}

/// Sends an action to the app's loop.
pub type ActionSink = Arc<dyn Fn(Action) + Send + Sync>;

/// The event loop's side of these features: the watch thread, and threads for jobs.
#[derive(Default)]
pub struct Runtime {
    watch: Option<(Cancel, std::thread::JoinHandle<()>)>,
    /// Watches being stopped (joined before the app ends, so no rerun outlives it).
    stopping: Vec<std::thread::JoinHandle<()>>,
}

impl Runtime {
    pub fn run(&mut self, job: Job, root: &Path, send: ActionSink) {
        match job {
            Job::Watch(generation, opts) => {
                if let Some((c, h)) = self.watch.take() {
                    c.cancel();
                    self.stopping.push(h);
                }
                let Some(opts) = opts else { return };
                let cancel = Cancel::default();
                let stop = cancel.clone();
                let root = root.to_path_buf();
                let h = std::thread::spawn(move || {
                    let s = send.clone();
                    let sink: crate::exec::watch::WatchSink = Arc::new(move |ev| {
                        s(Action::Extra(Box::new(Done::Watch {
                            generation,
                            event: Box::new(ev),
                        })));
                    });
                    let r = crate::exec::watch::watch(&root, &opts, &sink, &stop);
                    send(Action::Extra(Box::new(Done::WatchEnded {
                        generation,
                        error: r.err(),
                    })));
                });
                self.watch = Some((cancel, h));
            }
            other => {
                let root = root.to_path_buf();
                std::thread::spawn(move || {
                    if let Some(d) = run_now(other, &root) {
                        send(Action::Extra(Box::new(d)));
                    }
                });
            }
        }
    }

    /// Stop the watch and wait for its rerun's processes to be gone.
    pub fn stop(&mut self) {
        if let Some((c, h)) = self.watch.take() {
            c.cancel();
            self.stopping.push(h);
        }
        for h in self.stopping.drain(..) {
            let _ = h.join();
        }
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.stop();
    }
}
