//! Launching: the runner for the tests tree, catalog cases, processes,
//! authorization policy, probes, expectations, run records. The TUI and
//! `testdeck run` both call [`launch`] and receive the same [`ExecEvent`]s.

#![warn(missing_docs)]

pub mod catalog_run;
pub mod failed;
pub mod guard;
pub mod http;
pub mod junit;
pub mod own_children;
pub mod policy;
pub mod process;
pub mod record;
pub mod sweep;
pub mod sys;
pub mod tests_run;
pub mod watch_mode;

use process::{Cancel, Stream};
use record::Verdict;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;
use std::thread::JoinHandle;
use testdeck_core::workspace::run_tests::TestCounts;

pub use catalog_run::CatalogPlan;
pub use policy::{Decision, GrantSource, Grantable, Grants, Prompt, Risk};
use testdeck_core::workspace::config::RunnerEnv as _;
pub use tests_run::TestsTarget;

/// Where a launch sends its events (called from the launch's threads).
pub type Sink = Arc<dyn Fn(ExecEvent) + Send + Sync>;

/// One line of a summary, and the payload of `case-end`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResultLine {
    /// A catalog case id, `scope/caseId` of a tests run, or `runner`.
    pub id: String,
    /// The case's verdict.
    pub verdict: Verdict,
    /// Why, when the verdict says little by itself.
    pub reason: Option<String>,
    /// How long it ran, in milliseconds.
    pub duration_ms: u64,
    /// The process's exit code, when it exited.
    pub exit_code: Option<i32>,
    /// The runId of a tests run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The tests inside a tests run's case file (SPEC §1.2): `null` where its
    /// run says nothing of them (a catalog case, an older reporter).
    pub tests: Option<TestCounts>,
}

impl ResultLine {
    /// The line of `id` when nothing ran: no time, no exit code, no run folder.
    pub(crate) fn unrun(id: impl Into<String>, verdict: Verdict, reason: String) -> Self {
        ResultLine {
            id: id.into(),
            verdict,
            reason: Some(reason),
            duration_ms: 0,
            exit_code: None,
            run_id: None,
            tests: None,
        }
    }
}

/// The summary line of a catalog case's result.
impl From<&record::CaseResult> for ResultLine {
    fn from(res: &record::CaseResult) -> Self {
        ResultLine {
            id: res.id.clone(),
            verdict: res.verdict,
            reason: res.reason.clone(),
            duration_ms: res.duration_ms,
            exit_code: res.exit_code,
            run_id: None,
            tests: None,
        }
    }
}

/// What a launch reports, as it happens. `testdeck run --json` prints each as
/// one JSON line; the TUI turns each into an action.
#[derive(Debug, Clone, Serialize)]
#[serde(
    tag = "type",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum ExecEvent {
    /// A catalog run record was opened.
    RunStart {
        /// The record's runId.
        run_id: String,
        /// The record's path, relative to the workspace root.
        record: String,
    },
    /// The tests runner is starting with this argv.
    RunnerStart {
        /// The argv.
        command: Vec<String>,
    },
    /// A category's `status_probe` (null when it has none).
    Probe {
        /// The category id.
        category: String,
        /// The probe's result.
        probe: Option<http::ProbeResult>,
    },
    /// A case starts.
    CaseStart {
        /// The case: a catalog case id or `scope/caseId`.
        id: String,
        /// `tests` or `catalog`.
        source: String,
        /// The case's title.
        title: Option<String>,
        /// The catalog case's category.
        category: Option<String>,
        /// The catalog case's risk.
        risk: Option<Risk>,
        /// The expanded command, shown before it runs.
        command: Option<String>,
        /// A tests run's runId and folder.
        run_id: Option<String>,
        /// The run folder, relative to the workspace root.
        path: Option<String>,
    },
    /// One line a case's process wrote.
    Output {
        /// The case.
        id: String,
        /// Which pipe.
        stream: Stream,
        /// The line, as written.
        line: String,
    },
    /// One event of a followed `timeline.jsonl`.
    Timeline {
        /// The run's runId.
        run_id: String,
        /// The case, `scope/caseId`.
        id: String,
        /// The 1-based line of `timeline.jsonl`.
        lineno: u64,
        /// The event.
        event: Box<testdeck_core::workspace::timeline::TimelineEvent>,
        /// What is wrong with the line, if anything.
        issues: Vec<String>,
    },
    /// A case ended, with its result.
    CaseEnd(ResultLine),
    /// The tests runner ended; `reason` says so when it wrote no run.
    RunnerExit {
        /// The runner's exit code, when it exited.
        exit_code: Option<i32>,
        /// The signal that ended it, when one did.
        signal: Option<i32>,
        /// The run folders it wrote.
        runs: Vec<String>,
        /// Why the runner wrote no run.
        reason: Option<String>,
    },
    /// The launch ended: every result.
    Summary(Summary),
}

/// The end of a launch.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// The catalog run record's runId (null when no catalog case ran).
    pub run_id: Option<String>,
    /// The record's path, relative to the workspace root.
    pub record: Option<String>,
    /// One line per case, in the order they ended.
    pub results: Vec<ResultLine>,
    /// The tests of every result that counted them, added up (`null`: none did).
    pub tests: Option<TestCounts>,
}

impl Summary {
    /// The tests of the results that counted them, added up (`None`: none did).
    pub fn count_tests(&self) -> Option<TestCounts> {
        TestCounts::sum(self.results.iter().map(|r| r.tests.as_ref()))
    }
    /// Whether any result is `fail` or `environment-fail` (exit 1).
    pub fn failed(&self) -> bool {
        self.results.iter().any(|r| r.verdict.is_failure())
    }
}

/// Cases picked from both sources (what `F` reruns, what a watch reruns): tests-tree
/// cases as `T`, catalog case ids, each in its source's order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CaseSet<T> {
    /// The tests-tree cases.
    pub tests: Vec<T>,
    /// The catalog case ids.
    pub catalog: Vec<String>,
}

impl<T> CaseSet<T> {
    /// Whether no case is picked.
    pub fn is_empty(&self) -> bool {
        self.tests.is_empty() && self.catalog.is_empty()
    }
}

// by hand: an empty set needs no `T: Default`
impl<T> Default for CaseSet<T> {
    fn default() -> Self {
        CaseSet {
            tests: Vec::new(),
            catalog: Vec::new(),
        }
    }
}

/// What to launch.
#[derive(Debug, Clone, Default)]
pub struct LaunchPlan {
    /// Tests-tree targets (folders and cases).
    pub tests: Vec<TestsTarget>,
    /// `--runs N` for the tests runner.
    pub runs: Option<u32>,
    /// Headless: what would be asked is skipped instead.
    pub headless: bool,
    /// Authorizations of this session (flags or prompts).
    pub grants: Grants,
    /// Catalog cases (none: no catalog part, no run record).
    pub catalog: CatalogPlan,
}

/// The id of the result line of a launch that panicked.
pub const INTERNAL_ID: &str = "testdeck";

/// A running launch.
pub struct LaunchHandle {
    cancel: Cancel,
    thread: Option<JoinHandle<Summary>>,
    record: catalog_run::RecordSlot,
}

impl LaunchHandle {
    /// Stop: SIGTERM to the running process group, SIGKILL after 3 s; cases not
    /// yet started are not started.
    pub fn cancel(&self) {
        self.cancel.cancel();
    }
    /// A clone of the cancel switch (for a signal handler).
    pub fn canceller(&self) -> Cancel {
        self.cancel.clone()
    }
    pub(crate) fn is_finished(&self) -> bool {
        self.thread.as_ref().is_none_or(JoinHandle::is_finished)
    }
    /// Record a person's verdict (with an optional note) for a catalog case of
    /// this launch's run record. False when the case is not in the record.
    pub fn judge(
        &self,
        case_id: &str,
        verdict: Verdict,
        note: Option<String>,
    ) -> std::io::Result<bool> {
        match self.record.lock() {
            Ok(mut slot) => match slot.as_mut() {
                Some(w) => w.judge(case_id, verdict, note),
                None => Ok(false),
            },
            Err(_) => Ok(false),
        }
    }
    /// The run record's path, once the catalog part has started.
    pub fn record_path(&self) -> Option<PathBuf> {
        self.record
            .lock()
            .ok()
            .and_then(|s| s.as_ref().map(|w| w.path.clone()))
    }
    /// Wait for the end and return the summary. A launch that panicked ends
    /// with an `environment-fail` line of id [`INTERNAL_ID`] (so `run` exits 1,
    /// never 0), after its processes were ended as at any end.
    pub fn wait(&mut self) -> Summary {
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(s)) => s,
            Some(Err(panic)) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                Summary {
                    run_id: None,
                    record: None,
                    tests: None,
                    results: vec![ResultLine::unrun(
                        INTERNAL_ID,
                        Verdict::EnvironmentFail,
                        format!(
                            "internal error: the launch stopped with a panic ({what}); a bug, please report it"
                        ),
                    )],
                }
            }
            None => Summary::default(),
        }
    }
}

impl Drop for LaunchHandle {
    /// No process outlives the launch that started it.
    fn drop(&mut self) {
        if let Some(t) = self.thread.take() {
            self.cancel.cancel();
            let _ = t.join();
        }
    }
}

/// What a launch needs from the workspace (owned: it runs on its own thread).
#[derive(Debug, Clone)]
pub struct LaunchContext {
    /// The workspace root.
    pub root: PathBuf,
    /// The tests runner command (`testdeck.toml` `[runner] command`).
    pub runner: Vec<String>,
    /// What the runner's process is given besides the inherited environment
    /// (`[runner] env`, see [`testdeck_core::workspace::config::Runner::process_env`]).
    pub runner_env: Vec<(String, String)>,
    /// The tester catalog, when there is one.
    pub catalog: Option<testdeck_core::workspace::catalog::Catalog>,
    /// Where the runs this launch cancels are recorded (see
    /// [`testdeck_core::workspace::cancelled`]); `None`: nowhere (no state folder).
    pub cancelled: Option<PathBuf>,
    /// The store that reads the run folders the launch writes: the cockpit's
    /// (woken by its workspace watcher, shared with its live pane), or `None`
    /// for one of the launch's own that polls (a headless `run`).
    pub runs: Option<testdeck_core::tail::store::RunStore>,
}

impl LaunchContext {
    /// What a launch needs from the workspace `ws`.
    pub fn of(ws: &testdeck_core::workspace::Workspace) -> Self {
        Self {
            root: ws.root.clone(),
            runner: ws.config.runner.command.clone(),
            runner_env: ws.config.runner.process_env(&ws.root),
            catalog: ws.catalog.clone(),
            cancelled: testdeck_core::workspace::cancelled::file(&ws.root),
            runs: None,
        }
    }

    /// The HOST every case of this launch addresses, tests-tree cases included.
    pub fn host(&self) -> String {
        resolved_host(self.catalog.as_ref())
    }
}

/// HOST as cases see it: process environment > local.yaml > catalog vars >
/// `127.0.0.1` (the environment alone when there is no catalog).
pub fn resolved_host(catalog: Option<&testdeck_core::workspace::catalog::Catalog>) -> String {
    use testdeck_core::workspace::vars::{self, Vars};
    match catalog {
        Some(cat) => Vars::resolve(cat, &vars::process_env).host().to_owned(),
        None => vars::process_env(vars::HOST).unwrap_or_else(|| vars::DEFAULT_HOST.to_owned()),
    }
}

/// Start a launch on a background thread; events go to `sink`, the last one a
/// [`ExecEvent::Summary`].
pub fn launch(ctx: LaunchContext, plan: LaunchPlan, sink: Sink) -> LaunchHandle {
    launch_with(ctx, plan, sink, Cancel::default())
}

/// [`launch`] with a cancel switch made beforehand (e.g. one a signal handler holds).
pub fn launch_with(
    ctx: LaunchContext,
    plan: LaunchPlan,
    sink: Sink,
    cancel: Cancel,
) -> LaunchHandle {
    let c2 = cancel.clone();
    let record: catalog_run::RecordSlot = Arc::default();
    let slot = record.clone();
    let thread = std::thread::spawn(move || {
        let mut summary = Summary::default();
        let mut targets = Vec::new();
        let host = ctx.host();
        for t in tests_run::merge_targets(plan.tests.clone()) {
            match tests_live_decision(&t, &plan, &host) {
                Some(reason) => {
                    let r = ResultLine::unrun(t.label(), Verdict::Skipped, reason);
                    sink(ExecEvent::CaseEnd(r.clone()));
                    summary.results.push(r);
                }
                None => targets.push(t),
            }
        }
        summary.results.extend(tests_run::launch_tests(
            &ctx.root,
            &tests_run::Runner {
                command: &ctx.runner,
                env: &ctx.runner_env,
                runs: ctx.runs.as_ref(),
            },
            &targets,
            plan.runs,
            ctx.cancelled.as_deref(),
            &c2,
            &sink,
        ));
        if let (Some(cat), false) = (&ctx.catalog, plan.catalog.ids.is_empty()) {
            let (results, rec) = catalog_run::launch_catalog(
                &ctx.root,
                cat,
                &plan.catalog,
                &plan.grants,
                plan.headless,
                &c2,
                &sink,
                &slot,
            );
            summary.results.extend(results);
            if let Some((run_id, path)) = rec {
                summary.run_id = Some(run_id);
                summary.record = Some(path);
            }
        }
        summary.tests = summary.count_tests();
        sink(ExecEvent::Summary(summary.clone()));
        summary
    });
    LaunchHandle {
        cancel,
        thread: Some(thread),
        record,
    }
}

/// Every policy decision of a plan before it is launched, tests targets first,
/// then catalog cases in execution order. The TUI asks what is `NeedsPrompt`,
/// adds the answers to `plan.grants`, and launches; headless, `NeedsPrompt`
/// never appears (it is a `Skip` with the reason).
pub fn decisions(ctx: &LaunchContext, plan: &LaunchPlan) -> Vec<(String, Decision)> {
    let host = ctx.host();
    let mut out: Vec<(String, Decision)> = tests_run::merge_targets(plan.tests.clone())
        .iter()
        .map(|t| {
            (
                t.label(),
                tests_decision(t, &plan.grants, plan.headless, &host),
            )
        })
        .collect();
    if let (Some(cat), false) = (&ctx.catalog, plan.catalog.ids.is_empty()) {
        out.extend(catalog_run::decisions(
            cat,
            &plan.catalog,
            &plan.grants,
            plan.headless,
        ));
    }
    out
}

/// The policy for one tests target: a live scope or case needs a live grant,
/// and every target the remote grant when `host` is not loopback.
pub(crate) fn tests_decision(
    t: &TestsTarget,
    grants: &Grants,
    headless: bool,
    host: &str,
) -> Decision {
    let session = policy::Session {
        headless,
        max_risk: Risk::Destructive,
        host: host.to_owned(),
        authorize: std::collections::BTreeMap::new(),
        gates: std::collections::BTreeMap::new(),
        switches: std::collections::BTreeMap::new(),
        grants: grants.clone(),
    };
    let facts = policy::CaseFacts {
        id: t.label(),
        live: t.is_live(),
        ..policy::CaseFacts::default()
    };
    policy::decide(&session, &facts)
}

/// `Some(reason)` when a tests target must be skipped at launch.
fn tests_live_decision(t: &TestsTarget, plan: &LaunchPlan, host: &str) -> Option<String> {
    // at launch, what was not granted is not asked again
    match tests_decision(t, &plan.grants, true, host) {
        Decision::Allowed(_) => None,
        Decision::Skip(r) => Some(r),
        Decision::NeedsPrompt(p) => Some(p.headless_reason()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launch_that_panics_is_a_failure_not_a_pass() {
        let dir = tempfile::tempdir().expect("tmp");
        let ctx = LaunchContext {
            root: dir.path().to_path_buf(),
            runner: vec!["sh".into(), "-c".into(), "echo out".into()],
            runner_env: Vec::new(),
            catalog: None,
            cancelled: None,
            runs: None,
        };
        let plan = LaunchPlan {
            tests: vec![TestsTarget::Scope("a".into())],
            ..LaunchPlan::default()
        };
        let sink: Sink = Arc::new(|ev| {
            // called on the launch's own thread
            if matches!(ev, ExecEvent::RunnerExit { .. }) {
                panic!("a sink that breaks");
            }
        });
        let summary = launch(ctx, plan, sink).wait();
        assert!(summary.failed(), "{summary:?}");
        assert!(summary.results.iter().any(|r| r.id == INTERNAL_ID));
    }
}
