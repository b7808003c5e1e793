//! Launching tests-tree cases (SPEC §3.1): the runner command with the seed's
//! filters, run folders that appear under `tests/logs/`, their timelines
//! followed as they grow, and the final status from `meta.json`.

use super::process::{self, Cancel, Program, Spec, Stream};
use super::record::Verdict;
use super::{ExecEvent, ResultLine, Sink};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use testdeck_core::tail::store::{RunChange, RunFollow, RunLine, RunStore};
use testdeck_core::workspace::config::ConfigLoad as _;
use testdeck_core::workspace::failure::Digest;
use testdeck_core::workspace::logs::parse_meta;
use testdeck_core::workspace::run_folder;
use testdeck_core::workspace::run_tests::RunTests;

/// How often `tests/logs/` is looked at while the runner works.
pub(crate) const POLL: Duration = Duration::from_millis(100);
/// Within a poll, how often a cancelled launch looks whether its runner has
/// ended (a quit waits on the launch: it should not wait out a whole poll).
const CANCEL_STEP: Duration = Duration::from_millis(5);
/// After the runner exits, how long to wait for the last files of its runs.
const SETTLE: Duration = Duration::from_millis(500);
/// The id under which the runner's own output is streamed.
pub const RUNNER_ID: &str = "runner";

/// What to run from the tests tree.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum TestsTarget {
    /// A folder node: `domain/layer/suite/groups…` (a prefix of it is fine).
    Scope(String),
    /// Cases of one scope, by caseId.
    Cases {
        /// The scope.
        scope: String,
        /// The caseIds.
        case_ids: Vec<String>,
    },
}

impl TestsTarget {
    /// The scope, or `scope/caseId` of a single case, or `scope/{a,b}`.
    pub fn label(&self) -> String {
        match self {
            TestsTarget::Scope(s) => s.clone(),
            TestsTarget::Cases { scope, case_ids } if case_ids.len() == 1 => {
                testdeck_core::workspace::tree::key(scope, &case_ids[0])
            }
            TestsTarget::Cases { scope, case_ids } => {
                testdeck_core::workspace::tree::key(scope, &format!("{{{}}}", case_ids.join(",")))
            }
        }
    }
    /// Under a `live/` folder (below the domain): calls a real model.
    pub(crate) fn is_live(&self) -> bool {
        let scope = match self {
            TestsTarget::Scope(s) | TestsTarget::Cases { scope: s, .. } => s,
        };
        is_live_scope(scope)
    }
}

/// Whether `scope` is under a `live/` folder below the domain: its cases call a
/// real model, and the runner leaves them out of a folder above it.
pub fn is_live_scope(scope: &str) -> bool {
    scope.split('/').skip(1).any(|p| p == "live")
}

/// The seed's filters for a scope: `--domain --layer --suite --group…`.
pub(crate) fn scope_filters(scope: &str) -> Vec<String> {
    let parts: Vec<&str> = scope.split('/').filter(|p| !p.is_empty()).collect();
    let mut out = Vec::new();
    let temp = parts.first() == Some(&"temp");
    for (i, p) in parts.iter().enumerate() {
        // temp cases have no layer or suite: everything under temp/ is a group
        let flag = match (temp, i) {
            (_, 0) => "--domain",
            (false, 1) => "--layer",
            (false, 2) => "--suite",
            _ => "--group",
        };
        out.push(flag.to_owned());
        out.push((*p).to_owned());
    }
    out
}

/// The runner's arguments for one target (appended to the configured command).
pub fn runner_args(target: &TestsTarget, runs: Option<u32>) -> Vec<String> {
    let mut out = match target {
        TestsTarget::Scope(s) => scope_filters(s),
        TestsTarget::Cases { scope, case_ids } => {
            let mut v = scope_filters(scope);
            for c in case_ids {
                v.push("--case".into());
                v.push(c.clone());
            }
            v
        }
    };
    if let Some(n) = runs {
        out.push("--runs".into());
        out.push(n.to_string());
    }
    out
}

/// The runner's arguments for `target` in the workspace at `root`: a case
/// outside the tree (SPEC §1.1a) by its file, `--case <path>` (see
/// docs/per-test-events.md), every other by the seed's filters. A folder at or
/// above `temp/outside` adds its outside cases by their files.
pub fn launch_args(root: &Path, target: &TestsTarget, runs: Option<u32>) -> Vec<String> {
    use testdeck_core::workspace::outside;
    let runs_args = |out: &mut Vec<String>| {
        if let Some(n) = runs {
            out.push("--runs".into());
            out.push(n.to_string());
        }
    };
    match target {
        TestsTarget::Cases { scope, case_ids } if outside::is_outside_scope(scope) => {
            let folder = scope
                .strip_prefix(outside::SCOPE_PREFIX)
                .unwrap_or_default()
                .trim_start_matches('/');
            let mut out = Vec::new();
            for id in case_ids {
                out.push("--case".into());
                // a file that is gone: its folder and caseId, which the runner
                // says it cannot find
                out.push(outside_file(root, folder, id).unwrap_or_else(|| {
                    format!("{folder}/{id}").trim_start_matches('/').to_owned()
                }));
            }
            runs_args(&mut out);
            out
        }
        TestsTarget::Scope(s) => {
            let s = s.trim_matches('/');
            let holds = |scope: &str| {
                !s.is_empty()
                    && (scope == s || scope.strip_prefix(s).is_some_and(|r| r.starts_with('/')))
            };
            let mut ignored = Vec::new();
            let config = testdeck_core::workspace::config::Config::load(root, &mut ignored);
            let files: Vec<String> = match &config.outside {
                Some(table) if holds(outside::SCOPE_PREFIX) || outside::is_outside_scope(s) => {
                    outside::cases(root, table, &mut ignored)
                        .into_iter()
                        .filter(|c| holds(&c.scope))
                        .map(|c| c.path)
                        .collect()
                }
                _ => Vec::new(),
            };
            // a folder below temp/outside holds only outside cases
            let mut out = if outside::is_outside_scope(s) && !files.is_empty() {
                let mut v = Vec::new();
                runs_args(&mut v);
                v
            } else {
                runner_args(target, runs)
            };
            for f in files {
                out.push("--case".into());
                out.push(f);
            }
            out
        }
        TestsTarget::Cases { .. } => runner_args(target, runs),
    }
}

/// The file of the outside case `case_id` in `folder` (relative to `root`).
fn outside_file(root: &Path, folder: &str, case_id: &str) -> Option<String> {
    let dir = root.join(folder);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .ok()?
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| testdeck_core::workspace::outside::file_case_id(n) == case_id)
        .collect();
    names.sort();
    let name = names.into_iter().next()?;
    Some(if folder.is_empty() {
        name
    } else {
        format!("{folder}/{name}")
    })
}

/// The runner's arguments for every target of a launch: one target by
/// [`launch_args`] (the seed's filters); several (scopes and cases of several
/// scopes, which no one set of filters names) by their case files,
/// `--case <path>` each, as the runner would select them: a scope's cases
/// without its live ones (unless it is a live folder) and temp ones (unless
/// it is under `temp/`), an e2e scope's domain backend first (seed 000 §4).
/// Also returns the keys (`scope/caseId`) of asked-for cases whose file is gone.
pub fn selection_args(
    root: &Path,
    targets: &[TestsTarget],
    runs: Option<u32>,
) -> (Vec<String>, Vec<String>) {
    if let [one] = targets {
        return (launch_args(root, one, runs), Vec::new());
    }
    let (files, gone) = selection_files(root, targets);
    let mut out = Vec::new();
    for f in files {
        out.push("--case".into());
        out.push(f);
    }
    if let Some(n) = runs {
        out.push("--runs".into());
        out.push(n.to_string());
    }
    (out, gone)
}

/// The case files (relative to `root`) `targets` select, each once, in the
/// targets' order; and the keys of named cases without a file.
fn selection_files(root: &Path, targets: &[TestsTarget]) -> (Vec<String>, Vec<String>) {
    use testdeck_core::workspace::{config::Config, outside, plan::TestPlan, tree};
    let mut ignored = Vec::new();
    let config = Config::load(root, &mut ignored);
    let patterns = tree::CasePatterns::new(&config.tests.patterns, &mut ignored);
    let cases = outside::scan_tests(
        root,
        &TestPlan::default(),
        &patterns,
        config.outside.as_ref(),
        &mut ignored,
    )
    .cases;
    let under = |scope: &str, top: &str| {
        top.is_empty()
            || scope == top
            || scope.strip_prefix(top).is_some_and(|r| r.starts_with('/'))
    };
    let mut files: Vec<String> = Vec::new();
    let mut gone = Vec::new();
    let mut add = |f: &str| {
        if !files.iter().any(|x| x == f) {
            files.push(f.to_owned());
        }
    };
    for t in targets {
        match t {
            TestsTarget::Cases { scope, case_ids } => {
                let scope = scope.trim_matches('/');
                for id in case_ids {
                    match cases.iter().find(|c| c.scope == scope && c.case_id == *id) {
                        Some(c) => add(&c.path),
                        None => gone.push(tree::key(scope, id)),
                    }
                }
            }
            TestsTarget::Scope(top) => {
                let top = top.trim_matches('/');
                let mut parts = top.split('/');
                let (domain, layer) = (parts.next().unwrap_or_default(), parts.next());
                let temp_top = domain == "temp";
                let live_top = is_live_scope(top);
                // an e2e request first runs the same domain's backend
                if layer == Some("e2e") && !domain.is_empty() {
                    let backend = format!("{domain}/backend");
                    for c in cases
                        .iter()
                        .filter(|c| !c.live && !c.temp && under(&c.scope, &backend))
                    {
                        add(&c.path);
                    }
                }
                for c in cases.iter().filter(|c| under(&c.scope, top)) {
                    let wanted = if c.outside {
                        !top.is_empty()
                    } else {
                        (!c.live || live_top) && (!c.temp || temp_top)
                    };
                    if wanted {
                        add(&c.path);
                    }
                }
            }
        }
    }
    (files, gone)
}

/// Group targets: cases of the same scope go together (one target each scope).
pub fn merge_targets(targets: Vec<TestsTarget>) -> Vec<TestsTarget> {
    let mut scopes = BTreeSet::new();
    let mut cases: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for t in targets {
        match t {
            TestsTarget::Scope(s) => {
                scopes.insert(s);
            }
            TestsTarget::Cases { scope, case_ids } => {
                let v = cases.entry(scope).or_default();
                for c in case_ids {
                    if !v.contains(&c) {
                        v.push(c);
                    }
                }
            }
        }
    }
    let mut out: Vec<TestsTarget> = scopes.into_iter().map(TestsTarget::Scope).collect();
    out.extend(
        cases
            .into_iter()
            .map(|(scope, case_ids)| TestsTarget::Cases { scope, case_ids }),
    );
    out
}

pub use testdeck_core::workspace::run_folder::run_folders;

/// One run folder being followed.
struct Followed {
    key: String,
    run_id: String,
    rel: String,
    dir: PathBuf,
    /// The run as the store reads it (its timeline's lines, its end).
    run: RunFollow,
    started: Instant,
    ended: bool,
    /// `run/finish`'s `data.environment`: why nothing could run here (a
    /// browser not installed), which makes the run environment-fail.
    environment: Option<String>,
}

/// The runner: its command (the filters are appended) and what its process
/// is given besides the inherited environment (`[runner] env`).
pub(crate) struct Runner<'a> {
    pub(crate) command: &'a [String],
    pub(crate) env: &'a [(String, String)],
    /// The store that reads its runs (`None`: one of the launch's own, polled).
    pub(crate) runs: Option<&'a RunStore>,
}

/// Run the runner once for every target and follow every run it writes.
/// Returns one result per run (and one for a runner that wrote none).
pub(crate) fn launch_tests(
    root: &Path,
    runner: &Runner<'_>,
    targets: &[TestsTarget],
    runs: Option<u32>,
    cancelled: Option<&Path>,
    cancel: &Cancel,
    sink: &Sink,
) -> Vec<ResultLine> {
    let mut results = Vec::new();
    if targets.is_empty() {
        return results;
    }
    let Runner {
        command,
        env,
        runs: store,
    } = *runner;
    // a runner that is not there: say what testdeck expected, never spawn it
    if let Some(reason) = testdeck_core::workspace::runner::missing(root, command) {
        sink(ExecEvent::RunnerStart {
            command: command.to_vec(),
        });
        sink(ExecEvent::RunnerExit {
            exit_code: None,
            signal: None,
            runs: Vec::new(),
            reason: Some(reason.clone()),
        });
        results.push(ResultLine {
            id: RUNNER_ID.into(),
            verdict: Verdict::EnvironmentFail,
            reason: Some(reason),
            duration_ms: 0,
            exit_code: None,
            run_id: None,
            tests: None,
        });
        return results;
    }
    // one runner call for every target (issue 40): it starts each test tool once
    let (args, gone) = selection_args(root, targets, runs);
    for key in gone {
        // named, but its file is no longer there: nothing to run for it
        let r = ResultLine::unrun(
            key,
            Verdict::EnvironmentFail,
            "its test file is gone (the tests tree changed since it was chosen)".to_owned(),
        );
        sink(ExecEvent::CaseEnd(r.clone()));
        results.push(r);
    }
    if targets.len() > 1 && !args.iter().any(|a| a == "--case") {
        // several targets and not one case file among them: nothing to start
        // the runner for (without a filter it would run the whole tree)
        if results.is_empty() {
            results.push(ResultLine::unrun(
                RUNNER_ID.to_owned(),
                Verdict::NotRun,
                "no case file matches the selection".to_owned(),
            ));
        }
        return results;
    }
    if cancel.is_cancelled() {
        return results;
    }
    let mut argv = command.to_vec();
    argv.extend(args);
    let call = Call { argv, env };
    // no store handed over (a headless run): one of the launch's own, polled
    let own;
    let store = if let Some(s) = store {
        s
    } else {
        own = RunStore::new(POLL);
        &own
    };
    results.extend(run_one(root, targets, call, cancelled, store, cancel, sink));
    results
}

/// The domain a target's runs are written under (an e2e run first runs the
/// same domain's backend): only that part of tests/logs is watched.
fn domain_of(target: &TestsTarget) -> String {
    match target {
        TestsTarget::Scope(s) | TestsTarget::Cases { scope: s, .. } => {
            s.split('/').next().unwrap_or_default().to_owned()
        }
    }
}

/// The folders of `tests/logs/` (`logs`) below which `target`'s runs are
/// written (see [`asked_for`]): each case's folder, or the scope's (and the
/// domain's backend for an e2e scope); the whole domain (`domain`) when the
/// target names no scope.
fn target_folders(logs: &Path, target: &TestsTarget, domain: &str) -> Vec<PathBuf> {
    // a name that is no plain folder name (`..`, absolute) never leads the walk
    // out of the logs: the domain's folder is walked instead
    let plain = |s: &str| {
        Path::new(s)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
    };
    let named = match target {
        TestsTarget::Cases { scope, case_ids } => {
            plain(scope) && case_ids.iter().all(|c| plain(c) && !c.contains('/'))
        }
        TestsTarget::Scope(top) => plain(top),
    };
    if !named || !plain(domain) {
        return vec![if domain.is_empty() || !plain(domain) {
            logs.to_path_buf()
        } else {
            logs.join(domain)
        }];
    }
    match target {
        TestsTarget::Cases { scope, case_ids } => {
            let scope = scope.trim_matches('/');
            case_ids.iter().map(|c| logs.join(scope).join(c)).collect()
        }
        TestsTarget::Scope(top) => {
            let top = top.trim_matches('/');
            if top.is_empty() {
                return vec![if domain.is_empty() {
                    logs.to_path_buf()
                } else {
                    logs.join(domain)
                }];
            }
            let mut out = vec![logs.join(top)];
            let mut parts = top.split('/');
            if let (Some(d), Some("e2e")) = (parts.next(), parts.next()) {
                out.push(logs.join(d).join("backend"));
            }
            out
        }
    }
}

/// Whether a run of `scope`/`case_id` is one the runner was asked for by
/// `target`: its scope (or one below it) and, for cases, one of its caseIds. An
/// e2e request without `--case` first runs the same domain's backend (seed 000
/// §4), so that backend's runs belong to it too. Any other run that appears
/// meanwhile was started by someone else: an external run, never counted.
pub fn asked_for(target: &TestsTarget, scope: &str, case_id: &str) -> bool {
    let under = |s: &str, top: &str| {
        top.is_empty() || s == top || s.strip_prefix(top).is_some_and(|r| r.starts_with('/'))
    };
    match target {
        TestsTarget::Scope(top) => {
            let top = top.trim_matches('/');
            if under(scope, top) {
                return true;
            }
            let mut parts = top.split('/');
            let (domain, layer) = (parts.next().unwrap_or_default(), parts.next());
            layer == Some("e2e") && !domain.is_empty() && under(scope, &format!("{domain}/backend"))
        }
        TestsTarget::Cases { scope: s, case_ids } => {
            scope == s.trim_matches('/') && case_ids.iter().any(|c| c == case_id)
        }
    }
}

/// One runner call: its argv and its process's added environment.
struct Call<'a> {
    argv: Vec<String>,
    env: &'a [(String, String)],
}

/// Sleep `poll`, in steps of [`CANCEL_STEP`], or until `done`.
fn pause(poll: Duration, done: impl Fn() -> bool) {
    let until = Instant::now() + poll;
    loop {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() || done() {
            return;
        }
        std::thread::sleep(left.min(CANCEL_STEP));
    }
}

#[expect(
    clippy::too_many_lines,
    reason = "one test's life in order: spawn, stream, settle, record; its locals live across every stage"
)]
fn run_one(
    root: &Path,
    targets: &[TestsTarget],
    call: Call<'_>,
    cancelled: Option<&Path>,
    store: &RunStore,
    cancel: &Cancel,
    sink: &Sink,
) -> Vec<ResultLine> {
    let logs = root.join("tests/logs");
    // only where the runs asked for are written is looked at, and a folder
    // only listed again when it changed: a poll of a large history is a stat
    // per folder of the target
    let mut folders: Vec<PathBuf> = Vec::new();
    for t in targets {
        for f in target_folders(&logs, t, &domain_of(t)) {
            if !folders.contains(&f) {
                folders.push(f);
            }
        }
    }
    let mut scan = run_folder::RunScan::new(folders);
    // every run folder seen (there before, followed, or external): not read again
    let mut known = scan.poll().clone();
    let Call { argv, env } = call;
    sink(ExecEvent::RunnerStart {
        command: argv.clone(),
    });
    let spec = Spec {
        program: Program::Argv(argv),
        cwd: root.to_path_buf(),
        env: env.to_vec(),
        timeout: None,
        log: None,
    };
    // the runner's lines wait for the look at its runs that follows them: the
    // runs it began and ended before printing them are reported first, so the
    // output reads case by case (a case's `run/finish` before the line the
    // runner prints as it starts the next case)
    let (out_tx, out_rx) = std::sync::mpsc::channel::<(Stream, String)>();
    let cancel2 = cancel.clone();
    let proc_thread = std::thread::spawn(move || {
        process::run(&spec, &cancel2, &mut |stream: Stream, line: &str| {
            let _ = out_tx.send((stream, line.to_owned()));
        })
    });
    let say = |lines: Vec<(Stream, String)>| {
        for (stream, line) in lines {
            sink(ExecEvent::Output {
                id: RUNNER_ID.into(),
                stream,
                line,
            });
        }
    };
    let mut followed: BTreeMap<PathBuf, Followed> = BTreeMap::new();
    let mut results = Vec::new();
    let mut exited_at: Option<Instant> = None;
    loop {
        let finished = proc_thread.is_finished();
        if finished && exited_at.is_none() {
            exited_at = Some(Instant::now());
        }
        // what the runner said before this look at its runs
        let said: Vec<(Stream, String)> = out_rx.try_iter().collect();
        // runs already followed first, so one that ended before the next
        // began is reported in that order
        for f in followed.values_mut().filter(|f| !f.ended) {
            if let Some(r) = step(root, f, sink, cancel) {
                results.push(r);
            }
        }
        let fresh: Vec<PathBuf> = scan.poll().difference(&known).cloned().collect();
        for dir in &fresh {
            known.insert(dir.clone());
            let ident = testdeck_core::workspace::logs::FolderIdent::of(&logs, dir);
            if !targets
                .iter()
                .any(|t| asked_for(t, &ident.scope, &ident.case_id))
            {
                // an external run: the workspace watch shows it, the launch not
                continue;
            }
            let mut f = start_following(root, &logs, dir, store, sink);
            if let Some(r) = step(root, &mut f, sink, cancel) {
                results.push(r);
            }
            followed.insert(dir.clone(), f);
        }
        // …said after the runs it had begun and ended by then
        say(said);
        let all_ended = followed.values().all(|f| f.ended);
        if let Some(t) = exited_at {
            // cancelled: what the runs wrote after it is not waited for
            if all_ended || cancel.is_cancelled() || t.elapsed() >= SETTLE {
                break;
            }
        }
        pause(POLL, || cancel.is_cancelled() && proc_thread.is_finished());
    }
    let outcome = proc_thread.join().unwrap_or_else(|_| process::Outcome {
        spawn_error: Some("internal error: the runner's supervisor panicked (a bug)".into()),
        ..process::Outcome::default()
    });
    say(out_rx.try_iter().collect());
    // runs still without meta.json when the runner is gone
    if outcome.cancelled {
        // testdeck ended them: say so where every reader (and a later testdeck)
        // finds it, so they never look like running again
        let open: Vec<String> = followed
            .values()
            .filter(|f| !f.ended && !run_folder::state(&f.dir).ended())
            .map(|f| f.rel.clone())
            .collect();
        let recorded = match cancelled {
            Some(file) => testdeck_core::workspace::cancelled::record(file, root, &open),
            None if open.is_empty() => Ok(()),
            None => Err(std::io::Error::other(
                "no state folder (set XDG_STATE_HOME or HOME)",
            )),
        };
        if let Err(e) = recorded {
            sink(ExecEvent::Output {
                id: RUNNER_ID.into(),
                stream: Stream::Stderr,
                line: format!("testdeck: cannot record the cancelled runs: {e}"),
            });
        }
    }
    for f in followed.values_mut().filter(|f| !f.ended) {
        drain(f, sink, cancel);
        f.ended = true;

        let (verdict, reason) = if outcome.cancelled {
            (Verdict::NotRun, "cancelled".to_owned())
        } else {
            (
                Verdict::EnvironmentFail,
                "the runner exited and the run has no meta.json".to_owned(),
            )
        };
        let r = ResultLine {
            id: f.key.clone(),
            verdict,
            reason: Some(reason),
            duration_ms: f.started.elapsed().as_millis() as u64,
            exit_code: None,
            run_id: Some(f.run_id.clone()),
            tests: None,
        };
        sink(ExecEvent::CaseEnd(r.clone()));
        results.push(r);
    }
    let runs: Vec<String> = followed.values().map(|f| f.rel.clone()).collect();
    let reason = if let Some(e) = &outcome.spawn_error {
        Some(format!("the runner could not start: {e}"))
    } else if outcome.cancelled {
        Some("cancelled".to_owned())
    } else if runs.is_empty() {
        Some(format!(
            "the runner exited{} without writing a run{}",
            outcome
                .exit_code
                .map_or_else(String::new, |c| format!(" with status {c}")),
            if outcome.exit_code == Some(0) {
                String::new()
            } else {
                format!("; {}", testdeck_core::workspace::runner::NO_RUN_HINT)
            }
        ))
    } else {
        None
    };
    sink(ExecEvent::RunnerExit {
        exit_code: outcome.exit_code,
        signal: outcome.signal,
        runs,
        reason: reason.clone(),
    });
    if followed.is_empty() {
        let verdict = if outcome.cancelled {
            Verdict::NotRun
        } else if outcome.exit_code == Some(0) {
            // nothing matched the filters: nothing failed, nothing ran
            Verdict::NotRun
        } else {
            Verdict::EnvironmentFail
        };
        results.push(ResultLine {
            id: RUNNER_ID.into(),
            verdict,
            reason,
            duration_ms: outcome.duration.as_millis() as u64,
            exit_code: outcome.exit_code,
            run_id: None,
            tests: None,
        });
    }
    results
}

fn start_following(
    root: &Path,
    logs: &Path,
    dir: &Path,
    store: &RunStore,
    sink: &Sink,
) -> Followed {
    let testdeck_core::workspace::logs::FolderIdent {
        scope,
        case_id,
        run_id,
    } = testdeck_core::workspace::logs::FolderIdent::of(logs, dir);
    let key = testdeck_core::workspace::tree::key(&scope, &case_id);
    let rel = testdeck_core::workspace::rel(root, dir);
    // the run folder this launch made, said before it is read: the shell
    // follows it from the same store (one reading for both)
    sink(ExecEvent::CaseStart {
        id: key.clone(),
        source: "tests".into(),
        title: None,
        category: None,
        risk: None,
        command: None,
        run_id: Some(run_id.clone()),
        path: Some(rel.clone()),
    });
    Followed {
        key,
        run_id,
        rel,
        dir: dir.to_path_buf(),
        run: store.follow(dir),
        started: Instant::now(),
        ended: false,
        environment: None,
    }
}

fn emit(f: &mut Followed, lines: Vec<RunLine>, sink: &Sink) {
    for RunLine {
        lineno,
        event,
        issues,
    } in lines
    {
        if event.kind == "run" && event.name == "run/finish" {
            f.environment = event.data["environment"]
                .as_str()
                .filter(|s| !s.is_empty())
                .map(str::to_owned);
        }
        sink(ExecEvent::Timeline {
            run_id: f.run_id.clone(),
            id: f.key.clone(),
            lineno,
            event: Box::new(event),
            issues,
        });
    }
}

/// What the timeline holds now, read through the store on this thread (so a
/// run's lines come before the runner's output that followed them; a flood
/// one batch a look), and what the store read meanwhile; whether the run's
/// end came with it. A cancel ends it at once.
fn drain(f: &mut Followed, sink: &Sink, cancel: &Cancel) -> bool {
    let mut finished = false;
    if cancel.is_cancelled() {
        return finished;
    }
    // a few looks: the last lines, then the end they came before (a flood
    // goes on at the next step)
    for _ in 0..LOOKS {
        f.run.look_now();
        let changes = f.run.changes();
        if changes.is_empty() {
            break;
        }
        for c in changes {
            if cancel.is_cancelled() {
                return finished;
            }
            finished |= take(f, c, sink);
        }
        if finished {
            break;
        }
    }
    finished
}

/// The most looks at a run in one step.
const LOOKS: usize = 4;

/// Say a change's lines; whether the run ended with it.
fn take(f: &mut Followed, c: RunChange, sink: &Sink) -> bool {
    // truncated, replaced, unreadable: the lines that follow say it
    let RunChange {
        lines, finished, ..
    } = c;
    emit(f, lines, sink);
    finished
}

/// Stream the new timeline lines; end the run when its `meta.json` reads.
fn step(root: &Path, f: &mut Followed, sink: &Sink, cancel: &Cancel) -> Option<ResultLine> {
    let finished = drain(f, sink, cancel) || f.run.snapshot().ended;
    if !finished {
        return None;
    }
    let snap = f.run.snapshot();
    // refused unread (a link out, a FIFO): no status to take, as a run
    // without meta.json when the runner is gone
    let text = String::from_utf8_lossy(snap.meta.as_deref()?).into_owned();
    let (meta, _) = parse_meta(&format!("{}/{}", f.rel, run_folder::META), &text).ok()?;
    f.ended = true;
    let status = meta.status.clone().unwrap_or_default();
    let (verdict, reason) = match status.as_str() {
        // nothing could run here (the runner said why): not the tests' failure
        _ if f.environment.is_some() => (Verdict::EnvironmentFail, f.environment.clone()),
        "passed" => (Verdict::Pass, None),
        // the failed assertion's own message is the reason a person and a CI page need
        "failed" => (
            Verdict::Fail,
            Some(
                Digest::of_snapshot(root, &snap)
                    .reason()
                    .unwrap_or_else(|| "meta.json status failed".to_owned()),
            ),
        ),
        other => (
            Verdict::Fail,
            Some(format!("meta.json status {other:?} is not passed")),
        ),
    };
    // the tests inside the file, as its timeline counts them (SPEC §1.2)
    let tests = RunTests::of_events(snap.events()).counts;
    let r = ResultLine {
        id: f.key.clone(),
        verdict,
        reason,
        duration_ms: meta
            .stats
            .duration_ms
            .unwrap_or_else(|| f.started.elapsed().as_millis() as u64),
        exit_code: None,
        run_id: Some(f.run_id.clone()),
        tests,
    };
    sink(ExecEvent::CaseEnd(r.clone()));
    Some(r)
}

#[cfg(test)]
mod tests;
