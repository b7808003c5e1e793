//! The ratatui shell over the core.

use crate::cli::Ctx;
use std::process::ExitCode;

/// Open the cockpit. (Until the TUI lands: print the workspace summary.)
pub fn open(ctx: &Ctx) -> ExitCode {
    match ctx.workspace() {
        Ok(ws) => {
            crate::cli::list::print_summary(&ws);
            ExitCode::SUCCESS
        }
        Err(code) => code,
    }
}
