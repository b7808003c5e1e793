//! `testdeck verdict`: a person's verdict for a case of a catalog run record — the
//! headless twin of the cockpit's verdict prompt, through the same record function.

use super::{Ctx, print_json, usage};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use testdeck_core::sanitize::escape;
use testdeck_exec::record::{self, RUNS_DIR, Verdict};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The run record: its runId, or its file (relative to the root or absolute).
    #[arg(value_name = "RECORD")]
    pub(crate) record: String,
    /// The catalog case id.
    #[arg(value_name = "CASE")]
    pub(crate) case_id: String,
    /// The verdict.
    #[arg(value_name = "VERDICT", value_parser = ["pass", "fail", "environment-fail", "skipped", "not-run"])]
    pub(crate) verdict: String,
    /// What the person saw.
    #[arg(long, value_name = "TEXT")]
    pub(crate) note: Option<String>,
    /// One JSON document.
    #[arg(long)]
    pub json: bool,
}

/// The record file `arg` names: a file as given, or `<runId>.yaml` in the runs folder.
fn record_file(root: &Path, arg: &str) -> PathBuf {
    let given = if Path::new(arg).is_absolute() {
        PathBuf::from(arg)
    } else {
        root.join(arg)
    };
    if given.is_file() {
        return given;
    }
    root.join(RUNS_DIR).join(format!("{arg}.yaml"))
}

pub fn run(args: &Args, ctx: &Ctx) -> ExitCode {
    let root = match testdeck_core::workspace::resolve_root(ctx.root.as_deref()) {
        Ok(r) => r,
        Err(e) => return usage(&e),
    };
    let Some(verdict) = Verdict::parse(&args.verdict) else {
        return usage(&format!("unknown verdict {:?}", args.verdict));
    };
    let file = record_file(&root, &args.record);
    let rel = testdeck_core::workspace::rel(&root, &file);
    let note = args
        .note
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_owned);
    match record::judge_file(&root, &file, &args.case_id, verdict, note.clone()) {
        Err(p) => usage(&p.to_string()),
        Ok(false) => usage(&format!("{}: not in the run record {rel}", args.case_id)),
        Ok(true) => {
            if args.json {
                print_json(&json!({
                    "record": rel,
                    "caseId": args.case_id,
                    "verdict": verdict.as_str(),
                    "judgedBy": "person",
                    "note": note,
                }));
            } else {
                crate::outln!(
                    "{}: {} recorded in the run record {}",
                    escape(&args.case_id),
                    verdict.as_str(),
                    escape(&rel)
                );
            }
            ExitCode::SUCCESS
        }
    }
}
