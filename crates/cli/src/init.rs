//! `testdeck init`: the runner, the reporters, `testdeck.toml` and the test plan's
//! README for a vitest or Playwright project (templates in the core).

use super::{EXIT_OK, usage};
use std::process::ExitCode;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::init::{self, Step};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Write nothing: list what would be written.
    #[arg(long)]
    pub dry_run: bool,
    /// Write over existing files, keeping each as `<file>.bak`.
    #[arg(long)]
    pub force: bool,
    /// Also write seed 001's tester catalog under `.pouch/tester/`.
    #[arg(long)]
    pub catalog: bool,
}

pub fn run(args: &Args, ctx: &super::Ctx) -> ExitCode {
    let root = match &ctx.root {
        Some(r) => r.clone(),
        None => match std::env::current_dir() {
            Ok(d) => d,
            Err(e) => return usage(&format!("init: the current folder: {e}")),
        },
    };
    if !root.is_dir() {
        return usage(&format!("init: {}: not a folder", root.display()));
    }
    let found = init::detect(&root);
    let tools: Vec<&str> = [
        (found.vitest, "vitest"),
        (found.playwright, "@playwright/test"),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, n)| *n)
    .collect();
    if tools.is_empty() {
        crate::outln!(
            "testdeck init: neither vitest nor @playwright/test in package.json or a config file; writing the vitest setup"
        );
    } else {
        crate::outln!(
            "testdeck init: found {}{}",
            tools.join(" and "),
            if found.configs.is_empty() {
                String::new()
            } else {
                format!(" ({})", found.configs.join(", "))
            }
        );
    }
    if !found.env.is_empty() {
        let mut what: Vec<String> = found.env.vars.iter().map(|(k, _)| k.clone()).collect();
        what.extend(
            found
                .env
                .files
                .iter()
                .map(|f| format!("the dotenv file {f}")),
        );
        let scripts: Vec<String> = found
            .env
            .scripts
            .iter()
            .map(|s| format!("scripts.{s}"))
            .collect();
        crate::outln!(
            "package.json's {} set{} {}: testdeck.toml's [runner] {} give{} {} to the runner",
            escape(&scripts.join(", ")),
            if scripts.len() == 1 { "s" } else { "" },
            escape(&what.join(", ")),
            match (found.env.vars.is_empty(), found.env.files.is_empty()) {
                (false, false) => "env and env-files",
                (true, _) => "env-files",
                _ => "env",
            },
            if found.env.vars.is_empty() == found.env.files.is_empty() {
                ""
            } else {
                "s"
            },
            if what.len() == 1 { "it" } else { "them" },
        );
    }
    let files = init::files(&found, args.catalog);
    let steps = match init::apply(&root, &files, args.catalog, args.dry_run, args.force) {
        Ok(s) => s,
        Err(e) => return usage(&format!("init: {e}")),
    };
    let wrote = steps.iter().any(|s| !matches!(s, Step::Kept(_)));
    if steps.is_empty() {
        crate::outln!("nothing to do: every file init writes is there and current");
    }
    let verb = |done: &'static str, would: &'static str| if args.dry_run { would } else { done };
    for s in &steps {
        match s {
            Step::Write(f) => {
                crate::outln!("{} {}", verb("wrote", "would write"), escape(f));
            }
            Step::Replaced(f) => {
                crate::outln!(
                    "{} {} (the old one kept as {}.bak)",
                    verb("wrote", "would write"),
                    escape(f),
                    escape(f)
                );
            }
            Step::Kept(f) => {
                crate::outln!(
                    "left {} as it is: it exists and differs (--force writes it and keeps {}.bak)",
                    escape(f),
                    escape(f)
                );
            }
            Step::Ignore(l) => {
                crate::outln!("{} {} to .gitignore", verb("added", "would add"), escape(l));
            }
        }
    }
    if args.dry_run {
        crate::outln!("dry run: nothing written");
    }
    if wrote || steps.is_empty() {
        crate::outln!(
            "the runner gives vitest its reporter on the command line and Playwright a config of its own that imports yours: your vitest and Playwright configs are left as they are"
        );
        crate::outln!("next:");
        crate::outln!(
            "  testdeck validate                                      check the tree, the plan and the runs"
        );
        crate::outln!(
            "  testdeck run <caseId>                                  run it and follow its timeline"
        );
        crate::outln!("  testdeck                                               open the cockpit");
    }
    ExitCode::from(EXIT_OK)
}
