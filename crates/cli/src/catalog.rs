//! `testdeck catalog csv`: writes `.pouch/tester/cases.csv` from `cases/*.yaml`.

use super::{EXIT_FOUND, print_json};
use serde_json::json;
use std::process::ExitCode;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::catalog::{DIR, csv};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub(crate) command: Sub,
}

#[derive(Debug, clap::Subcommand)]
pub enum Sub {
    /// Write .pouch/tester/cases.csv (one row per case) from cases/*.yaml.
    Csv {
        /// One JSON document.
        #[arg(long)]
        json: bool,
    },
}

/// Rules that mean a catalog file was not read at all: its cases would be missing
/// from the CSV, so none is written.
const UNREAD: [&str; 5] = [
    "not-a-regular-file",
    "yaml-syntax",
    "yaml-limit",
    "file-too-large",
    "file-unreadable",
];

pub fn run(args: &Args, ws: &testdeck_core::workspace::Workspace) -> ExitCode {
    let Sub::Csv { json } = args.command;
    let Some(cat) = &ws.catalog else {
        return super::usage("no tester catalog here (.pouch/tester/)");
    };
    let unread: Vec<_> = ws
        .problems
        .iter()
        .filter(|p| p.file.starts_with(DIR) && UNREAD.contains(&p.rule.as_str()))
        .collect();
    let rel = format!("{DIR}/cases.csv");
    if !unread.is_empty() {
        if json {
            print_json(&json!({ "path": rel, "written": false, "problems": unread }));
        } else {
            for p in &unread {
                eprintln!("{p}");
            }
            eprintln!("testdeck: cases.csv not written: fix the files above first");
        }
        return ExitCode::from(EXIT_FOUND);
    }
    let text = csv::to_csv(cat);
    let path = ws.root.join(&rel);
    if let Err(e) = testdeck_core::workspace::read::write_atomic(&path, text.as_bytes()) {
        return super::usage(&format!("{rel}: {e}"));
    }
    if json {
        print_json(&json!({ "path": rel, "written": true, "rows": cat.cases.len() }));
    } else {
        crate::outln!("wrote {} ({} cases)", escape(&rel), cat.cases.len());
    }
    ExitCode::SUCCESS
}
