//! `testdeck report`: a domain's formal report (seed 000 §7) from the logs — the
//! draft of a new one, or an existing one brought back to the logs.

use super::{EXIT_FOUND, print_json, usage};
use serde_json::json;
use std::process::ExitCode;
use testdeck_core::sanitize::escape_keep_newlines;
use testdeck_core::workspace::{Workspace, report};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The whole report of DOMAIN from the logs, a person's parts as placeholders.
    #[arg(
        long,
        value_name = "DOMAIN",
        conflicts_with = "update",
        required_unless_present = "update"
    )]
    pub(crate) draft: Option<String>,
    /// The report of DOMAIN brought back to the logs: its numbers, 通过率 blocks and
    /// evidence lists; every other line as written. Prints a unified diff.
    #[arg(long, value_name = "DOMAIN")]
    pub(crate) update: Option<String>,
    /// Write it: a draft only where no report is; an update over the report,
    /// atomically.
    #[arg(long)]
    pub(crate) write: bool,
    /// One JSON document.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &Args, ws: &Workspace) -> ExitCode {
    match (&args.draft, &args.update) {
        (Some(d), _) => draft(args, ws, d),
        (None, Some(d)) => update(args, ws, d),
        (None, None) => usage("report: --draft DOMAIN or --update DOMAIN"),
    }
}

fn draft(args: &Args, ws: &Workspace, domain: &str) -> ExitCode {
    let d = match report::draft(ws, domain) {
        Ok(d) => d,
        Err(e) => return usage(&format!("report: {e}")),
    };
    let mut written = false;
    if args.write {
        if let Err(e) = d.write(&ws.root) {
            return usage(&format!("report: {e}"));
        }
        written = true;
    }
    if args.json {
        let unwritten: Vec<u32> = d
            .text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.contains(report::PLACEHOLDER))
            .map(|(i, _)| i as u32 + 1)
            .collect();
        print_json(&json!({
            "domain": d.domain,
            "file": d.file,
            "exists": d.exists,
            "written": written,
            "text": d.text,
            "unwritten": unwritten,
        }));
    } else if written {
        crate::outln!(
            "wrote {}: the parts marked {} are a person's to write",
            escape_keep_newlines(&d.file),
            report::PLACEHOLDER
        );
    } else {
        crate::out!("{}", escape_keep_newlines(&d.text));
    }
    ExitCode::SUCCESS
}

fn update(args: &Args, ws: &Workspace, domain: &str) -> ExitCode {
    let u = match report::update(ws, domain) {
        Ok(u) => u,
        Err(e) => return usage(&format!("report: {e}")),
    };
    let mut written = false;
    if args.write && u.changed {
        if let Err(e) = u.write(&ws.root) {
            return usage(&format!("report: {e}"));
        }
        written = true;
    }
    if args.json {
        print_json(&json!({
            "domain": u.domain,
            "file": u.file,
            "changed": u.changed,
            "written": written,
            "changes": u.changes,
            "diff": u.diff,
        }));
    } else if written {
        crate::outln!(
            "updated {}: {} changes",
            escape_keep_newlines(&u.file),
            u.changes.len()
        );
    } else if u.changed {
        crate::out!("{}", escape_keep_newlines(&u.diff));
    } else {
        crate::outln!(
            "{}: every number and evidence line matches the logs",
            escape_keep_newlines(&u.file)
        );
    }
    // like `diff`: 1 when the report differs from the logs and was not written
    if u.changed && !written {
        ExitCode::from(EXIT_FOUND)
    } else {
        ExitCode::SUCCESS
    }
}
