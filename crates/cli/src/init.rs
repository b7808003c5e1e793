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

#[expect(
    clippy::too_many_lines,
    reason = "the init steps in the order they run, each reporting its own outcome"
)]
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
    let first_file = say_outside(&root, &found);
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
        if let Some(f) = &first_file {
            crate::outln!(
                "  testdeck run {:<41} run one of your tests and follow its timeline",
                escape(f)
            );
        } else {
            crate::outln!(
                "  testdeck run <caseId>                                  run it and follow its timeline"
            );
        }
        crate::outln!("  testdeck                                               open the cockpit");
    }
    ExitCode::from(EXIT_OK)
}

/// Say which of the project's own test files were found, where and for which
/// tool (SPEC §1.1a), and where a static read of the configs was not sure;
/// returns the first file, for the example of `next:`.
fn say_outside(root: &std::path::Path, found: &init::Found) -> Option<String> {
    use testdeck_core::workspace::outside::discover::{self, Patterns, Tool};
    if !(found.vitest || found.playwright) {
        return None;
    }
    let mut ignored = Vec::new();
    let patterns = Patterns::new(&found.outside, &mut ignored);
    let files = discover::files(root, &patterns, &mut ignored);
    // per top folder: (vitest, Playwright)
    let mut by_top: std::collections::BTreeMap<String, (usize, usize)> =
        std::collections::BTreeMap::new();
    for (f, tool) in &files {
        let top = f
            .split_once('/')
            .map_or_else(|| "./".to_owned(), |(t, _)| format!("{t}/"));
        let e = by_top.entry(top).or_default();
        match tool {
            Tool::Vitest => e.0 += 1,
            Tool::Playwright => e.1 += 1,
        }
    }
    let places: Vec<String> = by_top
        .iter()
        .map(|(top, (v, p))| {
            let mut kinds = Vec::new();
            if *v > 0 {
                kinds.push(format!("{v} vitest"));
            }
            if *p > 0 {
                kinds.push(format!("{p} Playwright"));
            }
            format!("{} ({})", escape(top), kinds.join(", "))
        })
        .collect();
    let n = files.len();
    if n == 0 {
        crate::outln!("found no test file of the project's own outside tests/<domain>/<layer>/");
    } else {
        crate::outln!(
            "found {n} test file{} of the project's own: {}",
            if n == 1 { "" } else { "s" },
            places.join(", ")
        );
        crate::outln!(
            "  each is a case outside the tree (scope temp/outside/<its folder>): listed, runnable, never gating; written into testdeck.toml [outside]"
        );
    }
    for u in &found.unsure {
        crate::outln!("  not sure from the config's text: {}", escape(u));
    }
    files.first().map(|(f, _)| f.clone())
}
