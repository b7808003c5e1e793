//! `testdeck runs`: historical runs of both sources, newest first.

use super::print_json;
use serde_json::{Value, json};
use std::io::Write;
use std::process::ExitCode;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::stats::under;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only runs of this caseId (tests) or case id (catalog).
    #[arg(long = "case")]
    pub(crate) case_id: Option<String>,
    /// Only runs at or below this scope.
    #[arg(long)]
    pub(crate) scope: Option<String>,
    /// One JSON document.
    #[arg(long)]
    pub json: bool,
    /// Also write the listed runs as JUnit XML to FILE (tests runs and catalog verdicts).
    #[arg(long, value_name = "FILE")]
    pub(crate) junit: Option<std::path::PathBuf>,
}

/// The tests-tree runs of `case_id` and under `scope`, newest first (ties by runId).
fn selected_runs<'a>(
    ws: &'a Workspace,
    case_id: Option<&str>,
    scope: Option<&str>,
) -> Vec<&'a testdeck_core::workspace::logs::RawRun> {
    let mut runs: Vec<_> = ws
        .logs
        .runs
        .iter()
        .filter(|r| case_id.is_none_or(|c| *r.case_id == *c))
        .filter(|r| scope.is_none_or(|s| under(&r.scope, s)))
        .collect();
    runs.sort_by(|a, b| {
        b.start_time()
            .cmp(&a.start_time())
            .then_with(|| b.run_id.cmp(&a.run_id))
    });
    runs
}

/// Tests-tree runs as JSON, newest first.
pub(crate) fn tests_runs(ws: &Workspace, case_id: Option<&str>, scope: Option<&str>) -> Vec<Value> {
    let runs = selected_runs(ws, case_id, scope);
    runs.iter()
        .map(|r| {
            json!({
                "source": "tests",
                "runId": r.run_id,
                "caseId": r.case_id,
                "scope": r.scope,
                "status": r.status.as_str(),
                "startedAt": r.started_at(),
                "finishedAt": r.finished_at(),
                "durationMs": r.duration_ms(),
                "path": r.path,
                "metaBroken": r.meta_broken,
            })
        })
        .collect()
}

/// Catalog run records as JSON, newest first: counts per verdict instead of one
/// status; with `case_id`, only records holding that case (and its verdict).
pub(crate) fn catalog_runs(ws: &Workspace, case_id: Option<&str>) -> Vec<Value> {
    let mut out = Vec::new();
    for (path, rec) in testdeck_exec::record::list_records(&ws.root)
        .into_iter()
        .rev()
    {
        let rel = ws.rel(&path);
        let r = match rec {
            Ok(r) => r,
            Err(p) => {
                if case_id.is_none() {
                    out.push(json!({
                        "source": "catalog",
                        "runId": path.file_stem().map(|s| s.to_string_lossy().into_owned()),
                        "path": rel,
                        "problem": p.to_string(),
                    }));
                }
                continue;
            }
        };
        let case = case_id.and_then(|id| r.results.iter().find(|c| c.id == id));
        if case_id.is_some() && case.is_none() {
            continue;
        }
        let mut v = json!({
            "source": "catalog",
            "runId": r.run_id,
            "caseId": case_id,
            "scope": null,
            "status": null,
            "startedAt": r.started_at,
            "finishedAt": r.finished_at,
            "durationMs": r.results.iter().map(|c| c.duration_ms).sum::<u64>(),
            "path": rel,
            "label": r.label,
            "host": r.host,
            "counts": r.counts(),
        });
        if let Some(c) = case {
            v["verdict"] = json!(c.verdict);
            v["reason"] = json!(c.reason);
        }
        out.push(v);
    }
    out
}

/// When a listed run started: its `startedAt`, else (a run in progress) the time
/// in its runId, so a run still going sorts as the newest it is.
fn start_of(v: &Value) -> Option<chrono::DateTime<chrono::Utc>> {
    v.get("startedAt")
        .and_then(Value::as_str)
        .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.with_timezone(&chrono::Utc))
        .or_else(|| {
            v.get("runId")
                .and_then(Value::as_str)
                .and_then(testdeck_core::workspace::logs::run_id_time)
        })
}

/// The runs `runs` lists, as JUnit cases: every tests run (newest first), then each
/// readable catalog record's verdicts (newest record first; with `case_id`, that case's).
pub(crate) fn junit_cases(
    ws: &Workspace,
    case_id: Option<&str>,
    scope: Option<&str>,
) -> Vec<testdeck_exec::junit::Case> {
    use testdeck_exec::junit::{catalog_case, tests_case};
    let runs = selected_runs(ws, case_id, scope);
    let mut cases: Vec<_> = runs
        .into_iter()
        .map(|r| {
            let mut c = tests_case(r);
            // a failed run says why as `run --junit` does: the failed assertion's
            // message, and its digest as the body
            if r.status == testdeck_core::workspace::logs::RunStatus::Failed {
                let d = testdeck_core::workspace::failure::Digest::read(
                    &ws.root,
                    &ws.root.join(&r.path),
                );
                if let Some(reason) = d.reason() {
                    c.reason = Some(reason);
                }
                c.detail = Some(d.text());
            }
            c
        })
        .collect();
    if scope.is_none() {
        for (_, rec) in testdeck_exec::record::list_records(&ws.root)
            .into_iter()
            .rev()
        {
            let Ok(rec) = rec else { continue };
            cases.extend(
                rec.results
                    .iter()
                    .filter(|c| case_id.is_none_or(|id| c.id == id))
                    .map(|c| catalog_case(&rec, c)),
            );
        }
    }
    cases
}

pub fn run(args: &Args, ws: &testdeck_core::workspace::Workspace) -> ExitCode {
    if let Some(file) = &args.junit {
        let cases = junit_cases(ws, args.case_id.as_deref(), args.scope.as_deref());
        if let Err(e) = testdeck_exec::junit::write(file, &cases) {
            return super::usage(&e);
        }
    }
    let mut runs = tests_runs(ws, args.case_id.as_deref(), args.scope.as_deref());
    if args.scope.is_none() {
        runs.extend(catalog_runs(ws, args.case_id.as_deref()));
    }
    // newest first across both sources
    runs.sort_by_key(|v| std::cmp::Reverse(start_of(v)));
    if args.json {
        print_json(&json!({ "runs": runs }));
        return ExitCode::SUCCESS;
    }
    let mut out = std::io::stdout().lock();
    for r in &runs {
        let s = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("");
        // the start in the zone shown, with the date when not today
        let started = testdeck_core::clock::when_text(s("startedAt")).unwrap_or_else(|| "—".into());
        if s("source") == "tests" {
            // a closed pipe (`| head`) ends the listing quietly
            let _ = writeln!(
                out,
                "tests    {:<20} {started:<19} {:<11} {:>8} {:<36} {}",
                escape(s("runId")),
                s("status"),
                r["durationMs"]
                    .as_u64()
                    .map_or("—".into(), |d| format!("{d}ms")),
                escape(s("caseId")),
                escape(s("scope")),
            );
        } else {
            let _ = writeln!(
                out,
                "catalog  {:<36} {started:<19} {}",
                escape(s("runId")),
                escape(&r.get("counts").map(ToString::to_string).unwrap_or_default()),
            );
        }
    }
    ExitCode::SUCCESS
}
