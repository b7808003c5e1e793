//! `testdeck run`: launch without a TUI, streaming events as they happen; a thin
//! adapter over [`testdeck_exec::launch`]. Never runs an unauthorized case.

use super::{EXIT_FOUND, usage};
use std::fmt::Write as _;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use testdeck_core::sanitize::{escape, sgr_text};
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::failure::{self, Digest};
use testdeck_core::workspace::stats::under;
use testdeck_exec::process::Stream;
use testdeck_exec::record::Verdict;
use testdeck_exec::{
    self as exec, ExecEvent, GrantSource, Grantable, Grants, LaunchContext, LaunchPlan, Risk,
    TestsTarget,
};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Catalog ids, tests-tree caseIds (or scope/caseId) and scopes (folders).
    #[arg(value_name = "ID|SCOPE")]
    pub(crate) targets: Vec<String>,
    /// Add the cases whose latest run failed.
    #[arg(long)]
    pub(crate) failed: bool,
    /// Add the cases whose test file, plan entry, catalog case file or watched
    /// source differ from REV in git (default: the working tree and index
    /// against HEAD); write `--changed=REV` before other arguments.
    #[arg(long, value_name = "REV", num_args = 0..=1, default_missing_value = "HEAD")]
    pub(crate) changed: Option<String>,
    #[command(flatten)]
    pub(crate) auth: AuthFlags,
    /// The run record's label (letters, digits, - _ .).
    #[arg(long, default_value = "run")]
    pub(crate) label: String,
    /// Passed to the tests runner as --runs N (1 or more).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) runs: Option<u32>,
    /// When every case was skipped and nothing ran: fail (exit 4), warn (exit 0
    /// with a warning on stderr) or pass (exit 0).
    #[arg(long, value_name = "WHAT", default_value = "fail")]
    pub(crate) no_tests: NoTests,
    /// JSON Lines, one event a line.
    #[arg(long)]
    pub json: bool,
    /// Also write the launch's cases as JUnit XML to FILE.
    #[arg(long, value_name = "FILE")]
    pub(crate) junit: Option<std::path::PathBuf>,
}

/// `--no-tests`: what a launch in which nothing ran (every case skipped) exits with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum NoTests {
    /// Exit 4: a run that tested nothing is not a pass.
    Fail,
    /// Exit 0, with a warning on stderr.
    Warn,
    /// Exit 0.
    Pass,
}

/// What the arguments select from the tests tree.
pub(crate) fn tests_targets(
    ws: &Workspace,
    args: &[String],
    failed: bool,
) -> (Vec<TestsTarget>, Vec<String>) {
    let mut targets = Vec::new();
    let mut unmatched = Vec::new();
    for a in args {
        let a = a.trim_matches('/');
        let by_key: Vec<_> = ws.tests.cases.iter().filter(|c| c.key() == a).collect();
        let by_id: Vec<_> = ws.tests.cases.iter().filter(|c| c.case_id == a).collect();
        // a case's file, as a person names one of the project's own tests
        let by_path: Vec<_> = ws.tests.cases.iter().filter(|c| c.path == a).collect();
        let cases = if !by_key.is_empty() {
            by_key
        } else if !by_path.is_empty() {
            by_path
        } else {
            by_id
        };
        if !cases.is_empty() {
            for c in cases {
                targets.push(TestsTarget::Cases {
                    scope: c.scope.clone(),
                    case_ids: vec![c.case_id.clone()],
                });
            }
        } else if !a.is_empty() && ws.tests.cases.iter().any(|c| under(&c.scope, a)) {
            targets.push(TestsTarget::Scope(a.to_owned()));
        } else {
            unmatched.push(a.to_owned());
        }
    }
    if failed {
        for c in testdeck_exec::failed::failed_set(ws).tests {
            targets.push(TestsTarget::Cases {
                scope: c.scope,
                case_ids: vec![c.case_id],
            });
        }
    }
    (targets, unmatched)
}

/// Catalog cases whose latest verdict is `fail` or `environment-fail`
/// (see [`testdeck_exec::failed::failed_set`]).
pub(crate) fn failed_catalog_ids(ws: &Workspace) -> Vec<String> {
    testdeck_exec::failed::failed_set(ws).catalog
}

/// Run `then` once on SIGINT or SIGTERM, from a thread of its own; returns when
/// the handlers are in place (before anything is launched).
pub(crate) fn on_termination_signal(then: impl FnOnce() + Send + 'static) {
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            let _ = ready_tx.send(());
            return;
        };
        rt.block_on(async {
            use tokio::signal::unix::{SignalKind, signal};
            let (Ok(mut int), Ok(mut term)) = (
                signal(SignalKind::interrupt()),
                signal(SignalKind::terminate()),
            ) else {
                let _ = ready_tx.send(());
                return;
            };
            let _ = ready_tx.send(());
            tokio::select! {
                _ = int.recv() => {}
                _ = term.recv() => {}
            }
            then();
        });
    });
    let _ = ready_rx.recv();
}

/// The authorization flags `run` and `watch` take alike.
#[derive(Debug, clap::Args)]
pub(crate) struct AuthFlags {
    /// Authorize a risk for these runs.
    #[arg(long = "authorize", value_name = "RISK")]
    pub(crate) authorize: Vec<Risk>,
    /// Authorize a gate for these runs.
    #[arg(long = "gate", value_name = "G")]
    pub(crate) gate: Vec<String>,
    /// The highest risk that may run (default: the catalog's default_max_risk).
    #[arg(long, value_name = "R")]
    pub(crate) max_risk: Option<Risk>,
    /// Allow live cases of the tests tree (they call a real model).
    #[arg(long)]
    pub(crate) allow_live: bool,
    /// Allow a non-loopback HOST.
    #[arg(long)]
    pub(crate) allow_remote: bool,
}

impl AuthFlags {
    /// The session's grants from the flags.
    pub(crate) fn grants(&self) -> Grants {
        grants_of(
            &self.authorize,
            &self.gate,
            self.allow_live,
            self.allow_remote,
        )
    }

    /// The flags read, with the run record's `--label`: the max risk (none when
    /// not given) and the session's grants.
    pub(crate) fn checked(&self, label: &str) -> Result<(Option<Risk>, Grants), String> {
        if !testdeck_exec::record::valid_label(label) {
            return Err(format!("--label {label}: use letters, digits, - _ . only"));
        }
        Ok((self.max_risk, self.grants()))
    }
}

/// Grants from `--authorize RISK…`, `--gate G…`, `--allow-live`, `--allow-remote`
/// spelled as text (the risks are checked here).
pub fn grants_from_flags(
    authorize: &[String],
    gate: &[String],
    allow_live: bool,
    allow_remote: bool,
) -> Result<Grants, String> {
    let risks = authorize
        .iter()
        .map(|r| {
            Risk::parse(r)
                .ok_or_else(|| format!("--authorize {r}: not a risk ({})", Risk::choices()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(grants_of(&risks, gate, allow_live, allow_remote))
}

/// The grants of the flags `run` and `watch` share.
fn grants_of(authorize: &[Risk], gate: &[String], allow_live: bool, allow_remote: bool) -> Grants {
    let mut g = Grants::default();
    for &risk in authorize {
        g.grant(Grantable::Risk(risk), GrantSource::Flag);
    }
    for name in gate {
        g.grant(Grantable::Gate(name.clone()), GrantSource::Flag);
    }
    if allow_live {
        g.grant(Grantable::Live, GrantSource::Flag);
    }
    if allow_remote {
        g.grant(Grantable::Remote, GrantSource::Flag);
    }
    g
}

#[expect(
    clippy::too_many_lines,
    reason = "the run command's steps in order: select, authorize, launch, print, exit code"
)]
pub fn run(args: &Args, ws: &testdeck_core::workspace::Workspace) -> ExitCode {
    let (max_risk, grants) = match args.auth.checked(&args.label) {
        Ok(v) => v,
        Err(e) => return usage(&e),
    };
    // catalog ids and category ids first (exact only: launching never guesses)
    let mut catalog_ids = Vec::new();
    let mut rest = Vec::new();
    for a in &args.targets {
        let known = ws
            .catalog
            .as_ref()
            .is_some_and(|c| c.case(a).is_some() || c.categories.iter().any(|k| &k.id == a));
        if known {
            catalog_ids.push(a.clone());
        } else {
            rest.push(a.clone());
        }
    }
    if args.failed {
        catalog_ids.extend(failed_catalog_ids(ws));
    }
    let (mut tests, unmatched) = tests_targets(ws, &rest, args.failed);
    if let Some(rev) = &args.changed {
        let changed = match super::changed_cases(ws, rev) {
            Ok(c) => c,
            Err(code) => return code,
        };
        // what each change reaches (`src/unused.ts changed: reaches no case`), or
        // why every case; on stderr under --json, whose stdout is the events
        for n in &changed.notes {
            if args.json {
                eprintln!("{}", escape(n));
            } else {
                crate::outln!("{}", escape(n));
            }
        }
        for c in ws.tests.cases.iter().filter(|c| changed.has_test(&c.key())) {
            tests.push(TestsTarget::Cases {
                scope: c.scope.clone(),
                case_ids: vec![c.case_id.clone()],
            });
        }
        catalog_ids.extend(changed.catalog);
    }
    if !unmatched.is_empty() {
        return usage(&format!(
            "no case or scope matches: {}",
            unmatched.join(", ")
        ));
    }
    if tests.is_empty() && catalog_ids.is_empty() {
        if let Some(rev) = &args.changed {
            crate::outln!("nothing differs from {}: nothing to run", escape(rev));
            return ExitCode::SUCCESS;
        }
        if args.failed {
            crate::outln!("nothing failed last time: nothing to run");
            return ExitCode::SUCCESS;
        }
        return usage("nothing selected: name catalog ids, caseIds or scopes, or use --failed");
    }
    let plan = LaunchPlan {
        tests,
        runs: args.runs,
        headless: true,
        grants,
        catalog: exec::CatalogPlan {
            ids: catalog_ids,
            max_risk,
            label: args.label.clone(),
        },
    };
    let json = args.json;
    // the run folder of each tests case, for --junit
    let folders = Arc::new(std::sync::Mutex::new(Vec::<(String, String)>::new()));
    let seen = folders.clone();
    let sink: exec::Sink = Arc::new(move |ev: ExecEvent| {
        if let ExecEvent::CaseStart {
            id, path: Some(p), ..
        } = &ev
            && let Ok(mut f) = seen.lock()
        {
            f.push((id.clone(), p.clone()));
        }
        print_event(&ev, json);
    });
    let cancel = exec::process::Cancel::default();
    let cancelled = Arc::new(std::sync::atomic::AtomicBool::new(false));
    // SIGINT / SIGTERM end the children's process groups, then testdeck; the
    // handlers are in place before anything is launched
    let flag = cancelled.clone();
    let on_signal = cancel.clone();
    on_termination_signal(move || {
        flag.store(true, std::sync::atomic::Ordering::SeqCst);
        on_signal.cancel();
    });
    let mut handle = exec::launch_with(LaunchContext::of(ws), plan, sink, cancel);
    let summary = handle.wait();
    // a run record that could not be written is an error of testdeck, not of a
    // case: say so on stderr too (the events on stdout may be JSON for a program)
    for r in summary
        .results
        .iter()
        .filter(|r| r.id == "record" || r.id == exec::INTERNAL_ID)
    {
        if let Some(reason) = &r.reason {
            eprintln!("testdeck: {}", escape(reason));
        }
    }
    if let Some(file) = &args.junit {
        let folders = folders.lock().map(|f| f.clone()).unwrap_or_default();
        let cases = junit_cases(ws, &summary, &folders);
        if let Err(e) = exec::junit::write(file, &cases) {
            eprintln!("testdeck: {}", escape(&e));
            return ExitCode::from(super::EXIT_USAGE);
        }
    }
    if summary.failed() || cancelled.load(std::sync::atomic::Ordering::SeqCst) {
        return ExitCode::from(EXIT_FOUND);
    }
    if nothing_ran(&summary) {
        match args.no_tests {
            NoTests::Fail => {
                eprintln!("testdeck: every case was skipped: nothing ran (--no-tests=fail)");
                return ExitCode::from(super::EXIT_NO_TESTS);
            }
            NoTests::Warn => eprintln!("testdeck: warning: every case was skipped: nothing ran"),
            NoTests::Pass => {}
        }
    }
    ExitCode::SUCCESS
}

/// Whether nothing ran: every result is skipped or not run.
fn nothing_ran(summary: &exec::Summary) -> bool {
    summary
        .results
        .iter()
        .all(|r| matches!(r.verdict, Verdict::Skipped | Verdict::NotRun))
}

/// The launch's results as JUnit cases: catalog verdicts with their record's details,
/// tests runs with their folder, the runner's and testdeck's own lines as they are.
fn junit_cases(
    ws: &Workspace,
    summary: &exec::Summary,
    folders: &[(String, String)],
) -> Vec<exec::junit::Case> {
    use exec::junit::{Case, TESTS_SUITE, catalog_case};
    let record = summary
        .record
        .as_ref()
        .and_then(|r| testdeck_exec::record::read_record(&ws.root, &ws.root.join(r)).ok());
    summary
        .results
        .iter()
        .map(|r| {
            if let Some((rec, c)) = record
                .as_ref()
                .and_then(|rec| rec.results.iter().find(|c| c.id == r.id).map(|c| (rec, c)))
            {
                return catalog_case(rec, c);
            }
            let path = folders
                .iter()
                .rev()
                .find(|(id, _)| *id == r.id)
                .map(|(_, p)| p.clone());
            let log = path
                .as_ref()
                .map(|p| format!("{p}/timeline.jsonl"))
                .filter(|l| ws.root.join(l).is_file());
            // a failed run's body is its digest: the message, the diff, the failing line
            let detail = path
                .as_ref()
                .filter(|_| r.verdict == Verdict::Fail)
                .map(|p| Digest::read(&ws.root, &ws.root.join(p)).text());
            Case {
                suite: TESTS_SUITE.into(),
                name: r.id.clone(),
                classname: r
                    .id
                    .rsplit_once('/')
                    .map_or_else(String::new, |(scope, _)| scope.to_owned()),
                verdict: r.verdict,
                reason: r.reason.clone(),
                duration_ms: Some(r.duration_ms),
                run_id: r.run_id.clone(),
                path,
                log,
                started_at: None,
                detail,
                tests: Vec::new(),
            }
            // the tests inside its file, one testcase each (SPEC §1.2)
            .with_tests(&ws.root)
        })
        .collect()
}

/// Print one event: a JSON line, or human text. Every line is flushed at once.
pub(crate) fn print_event(ev: &ExecEvent, json: bool) {
    let mut out = std::io::stdout().lock();
    if json {
        if let Ok(s) = testdeck_core::sanitize::to_json(ev, false) {
            let _ = writeln!(out, "{s}");
        }
        let _ = out.flush();
        return;
    }
    let text = human(ev);
    if !text.is_empty() {
        let _ = writeln!(out, "{text}");
    }
    let _ = out.flush();
}

fn mark(v: Verdict) -> &'static str {
    match v {
        Verdict::Pass => "✓",
        Verdict::Fail => "✗",
        Verdict::EnvironmentFail => "!",
        Verdict::Skipped => "-",
        Verdict::NotRun => "·",
    }
}

/// The human form of an event (all text from files and processes escaped).
#[expect(
    clippy::too_many_lines,
    reason = "one arm per exec event, each one formatted line"
)]
pub(crate) fn human(ev: &ExecEvent) -> String {
    match ev {
        ExecEvent::RunStart { run_id, record } => {
            format!("run {} → {}", escape(run_id), escape(record))
        }
        ExecEvent::RunnerStart { command } => {
            format!("$ {}", escape(&command.join(" ")))
        }
        ExecEvent::Probe { category, probe } => match probe {
            None => format!("probe {}: none", escape(category)),
            Some(p) if p.ok => format!("probe {}: ok ({})", escape(category), escape(&p.url)),
            Some(p) => format!(
                "probe {}: stopped: {}",
                escape(category),
                escape(p.reason.as_deref().unwrap_or(""))
            ),
        },
        ExecEvent::CaseStart {
            id,
            title,
            risk,
            command,
            run_id,
            ..
        } => {
            let mut s = format!("▶ {}", escape(id));
            if let Some(t) = title {
                let _ = write!(s, "  {}", escape(t));
            }
            if let Some(r) = risk {
                let _ = write!(s, "  [{r}]");
            }
            if let Some(r) = run_id {
                let _ = write!(s, "  run {}", escape(r));
            }
            if let Some(c) = command {
                // a multi-line script is shown line by line, each escaped
                for (i, line) in c.lines().enumerate() {
                    let lead = if i == 0 { "$" } else { " " };
                    let _ = write!(s, "\n  {lead} {}", escape(line));
                }
            }
            s
        }
        ExecEvent::Output { id, stream, line } => {
            let bar = if *stream == Stream::Stderr {
                "!"
            } else {
                "│"
            };
            // the runner's colours: drawn when colour is on, dropped otherwise (never `\e[` text)
            format!(
                "  {bar} {}: {}",
                escape(id),
                sgr_text(line, testdeck_core::color::stdout())
            )
        }
        // a failure in one short line (no stack of node_modules frames): the
        // whole is `explain`'s
        ExecEvent::Timeline { id, event, .. } => format!(
            "  {}  {}",
            escape(id),
            testdeck_core::tail::pretty_line(
                failure::short_event(event).as_ref().unwrap_or(event),
                testdeck_core::tail::color_wanted()
            )
        ),
        ExecEvent::CaseEnd(r) => format!(
            "{} {} {}{} {}ms",
            mark(r.verdict),
            escape(&r.id),
            r.verdict,
            r.reason
                .as_deref()
                .map_or_else(String::new, |x| format!(" ({})", escape(x))),
            r.duration_ms
        ),
        ExecEvent::RunnerExit {
            exit_code, reason, ..
        } => {
            let mut s = format!(
                "runner exited{}",
                exit_code.map_or_else(String::new, |c| format!(" with status {c}"))
            );
            if let Some(r) = reason {
                let _ = write!(s, ": {}", escape(r));
            }
            s
        }
        ExecEvent::Summary(sm) => {
            let n = |v: Verdict| sm.results.iter().filter(|r| r.verdict == v).count() as u64;
            // the cases by verdict, then the tests inside their files (SPEC §1.2)
            let others: Vec<String> = Verdict::ALL
                .iter()
                .filter(|v| !matches!(v, Verdict::Pass | Verdict::Fail) && n(**v) > 0)
                .map(|v| format!("{} {v}", n(*v)))
                .collect();
            let mut s = format!(
                "summary: {}",
                testdeck_core::workspace::run_tests::cases_and_tests(
                    sm.results.len() as u64,
                    n(Verdict::Pass),
                    n(Verdict::Fail),
                    &others,
                    sm.tests.as_ref(),
                )
            );
            if let Some(r) = &sm.record {
                let _ = write!(s, "\nrecord: {}", escape(r));
            }
            s
        }
    }
}
