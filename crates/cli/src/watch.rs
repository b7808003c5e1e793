//! `testdeck watch`: rerun cases when their files change, streaming as `run`
//! does (a thin adapter over [`testdeck_exec::watch_mode`]).

use super::usage;
use std::fmt::Write as _;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use testdeck_core::sanitize::escape;
use testdeck_exec::process::Cancel;
use testdeck_exec::watch_mode::{self, WatchEvent, WatchNote, WatchOptions, WatchSink};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Catalog ids or categories, tests-tree caseIds (or scope/caseId) and scopes; none: every case.
    #[arg(value_name = "ID|SCOPE")]
    pub(crate) targets: Vec<String>,
    #[command(flatten)]
    pub(crate) auth: super::run::AuthFlags,
    /// Watch the cases whose test file, plan entry, catalog case file or watched
    /// source differ from REV in git (default: the working tree and index
    /// against HEAD); write `--changed=REV` before other arguments.
    #[arg(long, value_name = "REV", num_args = 0..=1, default_missing_value = "HEAD")]
    pub(crate) changed: Option<String>,
    /// The run records' label (letters, digits, - _ .).
    #[arg(long, default_value = "watch")]
    pub(crate) label: String,
    /// Passed to the tests runner as --runs N (1 or more).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) runs: Option<u32>,
    /// Wait for a burst of saves to be quiet this long (milliseconds) before
    /// rerunning. Without it the first change after a quiet spell reruns at
    /// once, and changes within 300 ms of it wait for their burst's end.
    #[arg(long, value_name = "MS")]
    pub(crate) debounce_ms: Option<u64>,
    /// JSON Lines, one event a line (the lines of `run`, plus watch-start,
    /// watch-trigger, watch-cancel and watch-error).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &Args, ws: &testdeck_core::workspace::Workspace) -> ExitCode {
    let (max_risk, grants) = match args.auth.checked(&args.label) {
        Ok(v) => v,
        Err(e) => return usage(&e),
    };
    let mut targets = args.targets.clone();
    let json_out = args.json;
    if let Some(rev) = &args.changed {
        let changed = match super::changed_cases(ws, rev) {
            Ok(c) => c,
            Err(code) => return code,
        };
        if !json_out {
            for n in &changed.notes {
                crate::outln!("{}", escape(n));
            }
        }
        if changed.tests.is_empty() && changed.catalog.is_empty() && targets.is_empty() {
            crate::outln!("nothing differs from {}: nothing to watch", escape(rev));
            return ExitCode::SUCCESS;
        }
        targets.extend(changed.tests);
        targets.extend(changed.catalog);
    }
    let opts = WatchOptions {
        targets,
        grants,
        max_risk,
        label: args.label.clone(),
        runs: args.runs,
        quiet: args.debounce_ms.map(std::time::Duration::from_millis),
        cache: super::cache_dir(),
    };
    let json = args.json;
    let sink: WatchSink = Arc::new(move |ev: WatchEvent| print_event(&ev, json));
    let stop = Cancel::default();
    // SIGINT / SIGTERM stop the watch; the rerun in flight is cancelled and its
    // process groups are gone before testdeck exits
    let on_signal = stop.clone();
    super::run::on_termination_signal(move || on_signal.cancel());
    // the one workspace watcher of this process; watch mode subscribes to it
    let (watcher, _model) = testdeck_core::workspace::watch::WorkspaceWatcher::start(&ws.root);
    let changes = watcher.subscribe();
    match watch_mode::watch(&ws.root, &opts, &sink, &stop, &changes) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => usage(&format!("watch: {e}")),
    }
}

/// Print one event: a JSON line, or human text; flushed at once.
pub(crate) fn print_event(ev: &WatchEvent, json: bool) {
    match ev {
        WatchEvent::Exec(e) => super::run::print_event(e, json),
        WatchEvent::Note(n) => {
            let mut out = std::io::stdout().lock();
            if json {
                if let Ok(s) = testdeck_core::sanitize::to_json(n, false) {
                    let _ = writeln!(out, "{s}");
                }
            } else {
                let _ = writeln!(out, "{}", human(n));
            }
            let _ = out.flush();
        }
    }
}

fn list(v: &[String]) -> String {
    v.iter()
        .map(|s| escape(s).into_owned())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The human form of a watch note (paths and ids escaped).
pub(crate) fn human(n: &WatchNote) -> String {
    match n {
        WatchNote::WatchStart {
            folders,
            tests,
            catalog,
        } => {
            let n = |k: usize, what: &str| format!("{k} {what}{}", if k == 1 { "" } else { "s" });
            format!(
                "watching {} ({}, {}); Ctrl-C stops",
                list(folders),
                n(tests.len(), "case"),
                n(catalog.len(), "catalog case")
            )
        }
        WatchNote::WatchTrigger {
            paths,
            cases,
            skipped,
            notes,
        } => {
            let to = if cases.is_empty() {
                "no case".to_owned()
            } else {
                list(cases)
            };
            let mut s = format!("⟳ {} changed → {to}", list(paths));
            for n in notes {
                let _ = write!(s, "\n  {}", escape(n));
            }
            for k in skipped {
                let _ = write!(s, "\n  - {} skipped: {}", escape(&k.id), escape(&k.reason));
            }
            s
        }
        WatchNote::WatchCancel { cases } => format!("✕ cancelled to restart: {}", list(cases)),
        WatchNote::WatchError { message } => format!("watch: {}", escape(message)),
    }
}
