//! `testdeck explain`: why a run failed — the failure digest of the core
//! ([`testdeck_core::workspace::failure`]) as text for a person or one JSON document.

use super::{print_json, usage};
use std::path::PathBuf;
use std::process::ExitCode;
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::diff::resolve_run;
use testdeck_core::workspace::failure::Digest;
use testdeck_core::workspace::logs::RawRun;
use testdeck_core::workspace::run_tests::RunTestsRead as _;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A run folder (relative to the root or absolute), a runId, or a case
    /// (scope/caseId or caseId: its latest finished run). None: the latest
    /// finished run that failed.
    #[arg(value_name = "RUN_PATH|CASE")]
    pub target: Option<String>,
    /// One JSON document.
    #[arg(long)]
    pub json: bool,
}

/// The run folder `target` names (see [`Args::target`]).
fn run_dir(ws: &Workspace, target: Option<&str>) -> Result<PathBuf, String> {
    let Some(target) = target else {
        // the newest failure of the whole workspace: what a person just saw fail
        return ws
            .logs
            .runs
            .iter()
            .filter(|r| r.status == testdeck_core::workspace::logs::RunStatus::Failed)
            .max_by(|a, b| a.run_id.cmp(&b.run_id))
            .map(|r| ws.root.join(&r.path))
            .ok_or_else(|| "explain: no failed run in tests/logs/".to_owned());
    };
    if let Ok(dir) = resolve_run(ws, target) {
        return Ok(dir);
    }
    let case = target.trim_matches('/');
    // a case's file, as a person names one of the project's own tests (as `run` takes it)
    let by_file = ws
        .tests
        .cases
        .iter()
        .find(|c| c.path == case)
        .map(testdeck_core::workspace::tree::TestCase::key);
    let case = by_file.as_deref().unwrap_or(case);
    let by_key: Vec<&RawRun> = ws.logs.runs.iter().filter(|r| r.key() == case).collect();
    let runs = if by_key.is_empty() {
        ws.logs
            .runs
            .iter()
            .filter(|r| *r.case_id == *case)
            .collect()
    } else {
        by_key
    };
    let mut keys: Vec<String> = runs.iter().map(|r| r.key()).collect();
    keys.dedup();
    match keys.as_slice() {
        [] => Err(format!(
            "explain: {target}: no run folder, runId or case with runs"
        )),
        [_] => runs
            .iter()
            .filter(|r| r.status.is_finished())
            .max_by(|a, b| a.run_id.cmp(&b.run_id))
            .map(|r| ws.root.join(&r.path))
            .ok_or_else(|| format!("explain: {target}: no finished run yet")),
        many => Err(format!(
            "explain: {target} is a caseId of several scopes: {}",
            many.join(", ")
        )),
    }
}

pub fn run(args: &Args, ws: &Workspace) -> ExitCode {
    let dir = match run_dir(ws, args.target.as_deref()) {
        Ok(d) => d,
        Err(e) => return usage(&e),
    };
    let digest = Digest::read(&ws.root, &dir);
    // a run that ran no test says why (SPEC §1.3: no pass, no duration sample)
    let no_tests = testdeck_core::workspace::run_tests::RunTests::read(&dir).no_tests;
    if args.json {
        match serde_json::to_value(&digest) {
            Ok(serde_json::Value::Object(mut m)) => {
                m.insert("noTests".into(), no_tests.into());
                print_json(&serde_json::Value::Object(m));
            }
            _ => print_json(&digest),
        }
    } else {
        if let Some(why) = &no_tests {
            crate::outln!("ran no test: {}", testdeck_core::sanitize::escape(why));
        }
        crate::outln!("{}", digest.text());
    }
    ExitCode::SUCCESS
}
