//! `testdeck stats`: the statistics of every node, as a tree, JSON or report blocks.

use super::{Ctx, print_json, usage};
use serde_json::json;
use std::process::ExitCode;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::insights::ChangeTimes;
use testdeck_core::workspace::insights::ChangeTimesRead as _;
use testdeck_core::workspace::stats::{self, NodeKind, Window, fmt_rate};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only nodes at or below this scope (e.g. `ai/backend`).
    #[arg(long)]
    pub(crate) scope: Option<String>,
    /// Only runs started on or after this date (`YYYY-MM-DD` or RFC 3339).
    #[arg(long)]
    pub(crate) since: Option<String>,
    /// Print the 通过率 blocks of the report format.
    #[arg(long, conflicts_with = "json")]
    pub(crate) markdown: bool,
    /// One JSON document.
    #[arg(long)]
    pub json: bool,
}

/// Parse `--since`: a date (midnight UTC) or an RFC 3339 time.
pub(crate) fn parse_since(s: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&chrono::Utc));
    }
    chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc())
}

/// The statistics' window from `--scope` and `--since`, or the usage error.
pub(crate) fn window(scope: Option<&String>, since: Option<&str>) -> Result<Window, ExitCode> {
    let since = match since.map(|s| (s, parse_since(s))) {
        None => None,
        Some((_, Some(t))) => Some(t),
        Some((s, None)) => {
            return Err(usage(&format!(
                "--since {s:?}: expected YYYY-MM-DD or an RFC 3339 time"
            )));
        }
    };
    Ok(Window {
        since,
        scope: scope.cloned(),
    })
}

pub fn run(args: &Args, ctx: &Ctx) -> ExitCode {
    let window = match window(args.scope.as_ref(), args.since.as_deref()) {
        Ok(w) => w,
        Err(code) => return code,
    };
    let ws = match ctx.workspace() {
        Ok(ws) => ws,
        Err(code) => return code,
    };
    // the case nodes carry their figures, stale ones marked (`[insights]`)
    let changes = args
        .json
        .then(|| ChangeTimes::read_in(&ws, crate::cache_dir().as_deref()));
    let nodes = stats::compute_with(
        &ws.tests,
        &ws.logs,
        &window,
        &ws.config.insights,
        changes.as_ref(),
    );
    if args.json {
        print_json(&json!({ "nodes": nodes }));
    } else if args.markdown {
        // folder names come from the disk: escape them, keep the line breaks
        crate::out!(
            "{}",
            testdeck_core::sanitize::escape_keep_newlines(
                &testdeck_core::workspace::report::markdown(&ws, &nodes)
            )
        );
    } else {
        crate::outln!(
            "{:<56} {:>6} {:>6} {:>6} {:>8}   {:>7} {:>8} {:>13}",
            "node",
            "runs",
            "pass",
            "fail",
            "hist",
            "latest",
            "rate",
            "tests ✓/all"
        );
        for n in &nodes {
            let depth = n.path.split('/').filter(|s| !s.is_empty()).count();
            let name = if n.kind == NodeKind::Root {
                "(all)".to_owned()
            } else {
                n.path.rsplit('/').next().unwrap_or("").to_owned()
            };
            let mut label = format!("{}{}", "  ".repeat(depth.saturating_sub(1)), escape(&name));
            if n.kind == NodeKind::Case && n.flaky_cases > 0 {
                label.push_str(" ~flaky");
            }
            if n.orphan {
                label.push_str(" (orphan)");
            }
            if n.figures.as_ref().is_some_and(|f| f.no_tests.is_some()) {
                label.push_str(" (ran no test)");
            }
            // the tests inside the files, by each case's newest run
            let tests = n
                .tests
                .map_or_else(|| "—".to_owned(), |t| format!("{}/{}", t.passed, t.total));
            crate::outln!(
                "{:<56} {:>6} {:>6} {:>6} {:>8}   {:>3}/{:<3} {:>8} {:>13}",
                label,
                n.historical.total_runs,
                n.historical.passed_runs,
                n.historical.failed_runs,
                fmt_rate(n.historical.historical_success_rate),
                n.latest.latest_passed_cases,
                n.latest.latest_case_count,
                fmt_rate(n.latest.latest_success_rate),
                tests,
            );
        }
    }
    ExitCode::SUCCESS
}
