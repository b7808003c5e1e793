//! `testdeck demo`.

use super::Ctx;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: &Args, _ctx: &Ctx) -> ExitCode {
    super::usage("demo: not built yet")
}
