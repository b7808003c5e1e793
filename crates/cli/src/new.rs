//! `testdeck new` and `testdeck promote`: the core's `NewCase` (plan entry first, then
//! the test file) with the person's editor opened on the entry in between.

use super::{EXIT_OK, print_json, usage};
use crate::adopt::{open_editor, refused};
use std::path::Path;
use std::process::ExitCode;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::new_case::{NewCase, Refusal};

#[derive(Debug, clap::Args)]
pub struct NewArgs {
    /// `tests/<domain>/<layer>/<suite>/<groups…>/<caseId>`.
    #[arg(value_name = "PATH")]
    pub(crate) path: String,
    /// One JSON document.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct PromoteArgs {
    /// The temp case's file, `tests/temp/…`.
    #[arg(value_name = "TEMP_PATH")]
    pub(crate) temp: String,
    /// Where it goes: `tests/<domain>/<layer>/<suite>/<groups…>/` (its caseId kept) or
    /// `…/<caseId>` (renamed).
    #[arg(value_name = "PATH")]
    pub(crate) target: String,
    /// One JSON document.
    #[arg(long)]
    pub json: bool,
}

pub fn new(args: &NewArgs, ctx: &super::Ctx) -> ExitCode {
    let root = match testdeck_core::workspace::resolve_root(ctx.root.as_deref()) {
        Ok(r) => r,
        Err(e) => return usage(&e),
    };
    let made = load(&root).and_then(|ws| NewCase::prepare(&ws, &args.path));
    finish(&root, made, args.json)
}

pub fn promote(args: &PromoteArgs, ctx: &super::Ctx) -> ExitCode {
    let root = match testdeck_core::workspace::resolve_root(ctx.root.as_deref()) {
        Ok(r) => r,
        Err(e) => return usage(&e),
    };
    let ws = match load(&root) {
        Ok(ws) => ws,
        Err(r) => return refused(&r, args.json),
    };
    // the move of `adopt`: imports rewritten, runs moved to the new scope
    let plan = [(args.temp.clone(), args.target.clone())];
    crate::adopt::carry_out(&ws, &plan, false, args.json, crate::adopt::Mode::Promote)
}

fn load(root: &Path) -> Result<testdeck_core::workspace::Workspace, Refusal> {
    testdeck_core::workspace::Workspace::load_tree(root)
        .map_err(|e| Refusal::Io(root.display().to_string(), e.to_string()))
}

fn finish(root: &Path, made: Result<NewCase, Refusal>, json: bool) -> ExitCode {
    let mut case = match made {
        Ok(c) => c,
        Err(r) => return refused(&r, json),
    };
    let mut edited = None;
    let done = case.create(root, |c| edited = open_editor(root, c, json));
    if let Err(r) = done {
        return refused(&r, json);
    }
    if json {
        let mut v = serde_json::to_value(&case).unwrap_or_default();
        v["planEntry"] = if case.plan_existed {
            "existing".into()
        } else {
            "written".into()
        };
        print_json(&v);
    } else {
        let at = case.plan_line.map(|l| format!(":{l}")).unwrap_or_default();
        if case.plan_existed {
            crate::outln!(
                "plan entry of {} is there: {}{at}",
                escape(&case.case_id),
                escape(&case.plan_file)
            );
        } else {
            crate::outln!(
                "wrote the plan entry of {}: {}{at} (fill in What / Why / How / Oracle / Not)",
                escape(&case.case_id),
                escape(&case.plan_file)
            );
        }
        if let Some(e) = edited {
            crate::outln!("{}", escape(&e));
        }
        if let Some(from) = &case.promoted_from {
            crate::outln!("moved {} to {}", escape(from), escape(&case.test_file));
        } else {
            crate::outln!("wrote {} ({})", escape(&case.test_file), case.framework);
        }
        crate::outln!("next: testdeck run {}", escape(&case.case_id));
    }
    ExitCode::from(EXIT_OK)
}
