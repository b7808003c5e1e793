//! `testdeck validate`: every rule, as `file:line:col severity rule message`.

use super::{EXIT_FOUND, print_json};
use serde_json::json;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// One JSON document.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &Args, ctx: &super::Ctx) -> ExitCode {
    // one pass over the files: the load checks the run folders' contract as it reads them
    let mut contract = Vec::new();
    let ws = match ctx.workspace_with(Some(&mut contract)) {
        Ok(ws) => ws,
        Err(code) => return code,
    };
    let problems = testdeck_core::workspace::validate::validate_with(&ws, contract);
    let errors = problems.iter().filter(|p| p.is_error()).count();
    if args.json {
        print_json(&json!({ "problems": problems }));
    } else {
        for p in &problems {
            crate::outln!("{p}");
        }
        crate::outln!("{} errors, {} warnings", errors, problems.len() - errors);
    }
    if errors > 0 {
        ExitCode::from(EXIT_FOUND)
    } else {
        ExitCode::SUCCESS
    }
}
