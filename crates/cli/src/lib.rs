//! The headless commands: each file is a thin adapter from core results to text or JSON.

pub mod adopt;
pub mod catalog;
pub mod demo;
pub mod diff;
pub mod explain;
pub mod init;
pub mod insights;
pub mod list;
pub mod new;
mod progress;
pub mod report;
pub mod run;
pub mod runs;
pub mod select;
pub mod stats;
pub mod tail;
pub mod trace;
pub mod validate;
pub mod verdict;
pub mod watch;

use clap::{CommandFactory, Parser, Subcommand};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use testdeck_core::color::ColorChoice;
use testdeck_core::workspace::Workspace;

/// Exit status: 0 success, 1 found failures or problems, 2 usage or unreadable
/// workspace, 4 a `run` in which nothing ran.
pub(crate) const EXIT_OK: u8 = 0;
pub(crate) const EXIT_FOUND: u8 = 1;
pub(crate) const EXIT_USAGE: u8 = 2;
/// `run --no-tests=fail` when every case was skipped (nextest's status for it).
pub(crate) const EXIT_NO_TESTS: u8 = 4;

/// Examples under `testdeck --help`.
const MAIN_EXAMPLES: &str = "\
Examples:
  testdeck                          open the cockpit on the workspace here
  testdeck demo                     try it on a temporary copy of the demo workspace
  testdeck list --filter login      the cases whose id, title or path match
  testdeck run checkout/api --authorize mutating
  testdeck runs --case login-ok     the runs of one case, newest first
  testdeck completions bash > ~/.local/share/bash-completion/completions/testdeck
  testdeck man > ~/.local/share/man/man1/testdeck.1

Exit status: 0 success, 1 failures or problems found, 2 usage error or no workspace.";

#[derive(Debug, Parser)]
#[command(
    name = "testdeck",
    version,
    about = "A keyboard-driven terminal test cockpit",
    after_help = MAIN_EXAMPLES
)]
pub struct Cli {
    /// Workspace root (default: walk up from the current folder).
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// When to colour output: auto (a terminal, unless NO_COLOR, CLICOLOR=0 or
    /// TERM=dumb; CLICOLOR_FORCE=1 forces it), always, never.
    #[arg(long, global = true, value_name = "WHEN", default_value = "auto")]
    pub color: ColorChoice,
    #[command(flatten)]
    pub(crate) look: Look,
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
}

/// The cockpit's look: only where a cockpit opens (bare `testdeck`, `testdeck demo`).
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct Look {
    /// Theme name (a file of themes/ or $XDG_CONFIG_HOME/testdeck/).
    #[arg(long)]
    pub theme: Option<String>,
    /// Keymap name (a file of keymaps/ or $XDG_CONFIG_HOME/testdeck/).
    #[arg(long)]
    pub keymap: Option<String>,
    /// Neither read nor write the history cache ($XDG_CACHE_HOME/testdeck/history/):
    /// the whole history is read from the run folders.
    #[arg(long)]
    pub no_cache: bool,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Set a vitest or Playwright project up for testdeck: the runner, its
    /// reporters, testdeck.toml and the test plan's README (never over a file).
    #[command(after_help = "\
Examples:
  testdeck init              write what is missing, name what is there
  testdeck init --dry-run    list what would be written
  testdeck init --catalog    also the tester catalog under .pouch/tester/")]
    Init(init::Args),
    /// A new formal case: its test-plan entry first (What / Why / How / Oracle /
    /// Not, opened in $VISUAL or $EDITOR at a terminal), then its test file.
    #[command(after_help = "\
Examples:
  testdeck new tests/shop/backend/cart/basic/cart-empty      a vitest case (.test.ts)
  testdeck new tests/shop/e2e/checkout/basic/pay-by-card     a Playwright spec (.spec.ts)
  testdeck new tests/shop/backend/cart/basic/cart-empty --json

Refused: a path not under tests/, tests/temp/, fewer than domain, layer and
suite, a folder not in kebab-case, a caseId that exists already. Exit status 2.")]
    New(new::NewArgs),
    /// Make a temp case formal: its test-plan entry first, then the file moves from
    /// tests/temp/ into the tree (never over a file).
    #[command(after_help = "\
Examples:
  testdeck promote tests/temp/probe.test.ts tests/shop/backend/cart/basic/
  testdeck promote tests/temp/probe.test.ts tests/shop/backend/cart/basic/cart-rounding")]
    Promote(new::PromoteArgs),
    /// Make tests outside the tree formal: each file's test-plan entry first (its
    /// What listing the file's describe / test titles), then the file moves into
    /// the tree with its relative imports rewritten, then its earlier runs follow.
    #[command(after_help = "\
Examples:
  testdeck adopt test/query.test.ts --to tests/url/backend/query/
  testdeck adopt test/query.test.ts --to tests/url/backend/query/ --dry-run
  testdeck adopt --all --domain url        one suite per folder, edited first
  testdeck adopt --mapping .testdeck-adopt.txt

Path aliases (tsconfig paths, vite resolve.alias) stay as written; a file that
imports through one is refused, before anything moves, when tsconfig's include
would not cover its new place, with what to add. Refused: a file in the tree,
a target a file or caseId holds, a run still being written. Exit status 2.")]
    Adopt(adopt::Args),
    /// Every case of both sources.
    #[command(after_help = "\
Examples:
  testdeck list                      every case, one a line
  testdeck list --source catalog     only the tester catalog
  testdeck list --filter 'auth log'  fuzzy match over id, title and path
  testdeck list --json | jq '.cases[].caseId'")]
    List(list::Args),
    /// Check every rule of the workspace; problems as file:line:col rule message.
    #[command(after_help = "\
Examples:
  testdeck validate          problems as file:line:col severity rule message
  testdeck validate --json   one JSON document

Exit status: 0 no error, 1 an error-level problem, 2 no workspace.")]
    Validate(validate::Args),
    /// The catalog selection: run_together expanded, execution order, probes, exclusions.
    #[command(after_help = "\
Examples:
  testdeck select                             every catalog case
  testdeck select checkout --max-risk mutating
  testdeck select --tag smoke --json")]
    Select(select::Args),
    /// Launch cases without a TUI, streaming events.
    #[command(after_help = "\
Examples:
  testdeck run login-ok                        one tests-tree case
  testdeck run checkout/api                    every case of a scope
  testdeck run cat-orders --authorize mutating a catalog category
  testdeck run --failed --json                 what failed last time, JSON Lines

Exit status: 0 every case ran and passed, 1 a case failed (or was cancelled),
2 usage error or no workspace. When every case was skipped (nothing ran),
--no-tests decides: fail (the default) exits 4, warn and pass exit 0.")]
    Run(run::Args),
    /// Historical runs of both sources.
    #[command(after_help = "\
Examples:
  testdeck runs                       every run, newest first
  testdeck runs --case login-ok       the runs of one case
  testdeck runs --scope checkout --json")]
    Runs(runs::Args),
    /// Pass-rate statistics for every node of the tree.
    #[command(after_help = "\
Examples:
  testdeck stats --since 2026-01-01
  testdeck stats --scope checkout --markdown")]
    Stats(stats::Args),
    /// A domain's formal report from the logs (seed 000 §7): a draft, or the
    /// report brought back to the logs with a person's words kept.
    #[command(after_help = "\
Examples:
  testdeck report --draft checkout            print the draft
  testdeck report --draft checkout --write    write tests/report/checkout/report.md (never over one)
  testdeck report --update checkout           a unified diff of what the logs change
  testdeck report --update checkout --write   write it

Exit status: 0 done (or nothing to update), 1 --update without --write found
differences, 2 usage error, no workspace, no such domain or report.")]
    Report(report::Args),
    /// Ranked lists from the history: slowest, duration regressions, flakiest by
    /// score, new failures, failing streaks, stale results.
    #[command(after_help = "\
Examples:
  testdeck insights                       every list, 20 entries each
  testdeck insights --scope checkout --top 5
  testdeck insights --since 2026-01-01 --json

Thresholds and the window of runs: [insights] in testdeck.toml.")]
    Insights(insights::Args),
    /// Pretty-print a timeline.jsonl and keep following it.
    #[command(after_help = "\
Examples:
  testdeck tail tests/logs/checkout/api/login-ok/RUN/timeline.jsonl
  testdeck tail -f --from-start PATH   every event, then follow it")]
    Tail(tail::Args),
    /// A Playwright trace.zip: actions, errors, console and network.
    #[command(after_help = "\
Examples:
  testdeck trace tests/logs/shop/e2e/checkout/RUN/artifacts/playwright/trace.zip
  testdeck trace tests/logs/shop/e2e/checkout/RUN --json

Exit status: 0 read, nothing failed; 1 an action or the page failed, or a
problem was found; 2 not readable as a trace.")]
    Trace(trace::Args),
    /// Tester catalog utilities.
    Catalog(catalog::Args),
    /// Open the TUI on the bundled demo workspace (a temporary copy).
    Demo(demo::Args),
    /// Two runs of a case side by side: first divergence, changed fields, step durations.
    #[command(after_help = "\
Examples:
  testdeck diff --case login-ok        its last two runs
  testdeck diff RUN_A RUN_B --json")]
    Diff(diff::Args),
    /// Why a run failed: failed events with message, expected/received, stack frames
    /// with source snippets, the steps before, the artifacts bound to them.
    #[command(after_help = "\
Examples:
  testdeck explain                       the newest failed run
  testdeck explain cart-zero-quantity    the latest finished run of a case
  testdeck explain tests/logs/shop/backend/cart/basic/cart-total/RUN --json")]
    Explain(explain::Args),
    /// Rerun cases when their files change, streaming as run does (same authorization rules).
    #[command(after_help = "\
Examples:
  testdeck watch login-ok
  testdeck watch checkout --debounce-ms 1000 --json")]
    Watch(watch::Args),
    /// A person's verdict for a case of a catalog run record (as the cockpit's prompt gives it).
    Verdict(verdict::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) on stdout.
    #[command(after_help = "\
Examples:
  testdeck completions bash > ~/.local/share/bash-completion/completions/testdeck
  testdeck completions zsh > \"${fpath[1]}/_testdeck\"
  testdeck completions fish > ~/.config/fish/completions/testdeck.fish")]
    Completions {
        /// The shell to write the script for.
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) of testdeck, or of one of its commands, on stdout.
    #[command(after_help = "\
Examples:
  testdeck man | man -l -
  testdeck man > ~/.local/share/man/man1/testdeck.1
  testdeck man run > ~/.local/share/man/man1/testdeck-run.1")]
    Man {
        /// A command's own page (testdeck-COMMAND(1)); none: the main page.
        #[arg(value_name = "COMMAND")]
        command: Option<String>,
    },
}

/// Common context for the commands.
pub struct Ctx {
    pub root: Option<PathBuf>,
    pub theme: Option<String>,
    pub keymap: Option<String>,
}

impl Ctx {
    /// Find and load the workspace, or print why not (exit 2).
    pub fn workspace(&self) -> Result<Workspace, ExitCode> {
        self.workspace_with(None)
    }

    /// [`Ctx::workspace`] with the run folders' contract checks of the same pass
    /// (see [`Workspace::load_with`]).
    pub(crate) fn workspace_with(
        &self,
        contract: Option<&mut Vec<testdeck_core::problem::Problem>>,
    ) -> Result<Workspace, ExitCode> {
        let root =
            testdeck_core::workspace::resolve_root(self.root.as_deref()).map_err(|e| usage(&e))?;
        // a person at a terminal sees a count when indexing takes a while
        let _progress = crate::progress::start(if contract.is_some() {
            "validating"
        } else {
            "indexing"
        });
        Workspace::load_with(&root, contract).map_err(|e| usage(&e.to_string()))
    }
}

/// Whether the command writes JSON (then no progress line is ever drawn).
fn wants_json(command: Option<&Command>) -> bool {
    match command {
        Some(Command::List(a)) => a.json,
        Some(Command::Validate(a)) => a.json,
        Some(Command::Select(a)) => a.json,
        Some(Command::Run(a)) => a.json,
        Some(Command::Runs(a)) => a.json,
        Some(Command::Stats(a)) => a.json,
        Some(Command::Report(a)) => a.json,
        Some(Command::Insights(a)) => a.json,
        Some(Command::Tail(a)) => a.json,
        Some(Command::Trace(a)) => a.json,
        Some(Command::Diff(a)) => a.json,
        Some(Command::Explain(a)) => a.json,
        Some(Command::Watch(a)) => a.json,
        Some(Command::Verdict(a)) => a.json,
        Some(Command::New(a)) => a.json,
        Some(Command::Promote(a)) => a.json,
        Some(Command::Adopt(a)) => a.json,
        // the catalog utilities write files and JSON: never a progress line
        Some(Command::Catalog(_)) => true,
        _ => false,
    }
}

/// Open the workspace and run `f` on it; a root or workspace that cannot be
/// opened is the exit code (2) the commands that need one share.
fn with_workspace(ctx: &Ctx, f: impl FnOnce(Workspace) -> ExitCode) -> ExitCode {
    match ctx.workspace() {
        Ok(ws) => f(ws),
        Err(code) => code,
    }
}

/// `println!` that never panics: a closed pipe (`testdeck list | head`) just
/// drops the rest of the output.
#[macro_export]
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($t)*);
    }};
}

/// `print!` that never panics on a closed pipe.
#[macro_export]
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout().lock(), $($t)*);
    }};
}

/// `--changed [REV]`: the cases that differ from REV, or the message and exit 2
/// (not a git checkout, an unknown revision). The import graph starts from the
/// history cache's index: only the modules changed since are parsed.
pub(crate) fn changed_cases(
    ws: &Workspace,
    rev: &str,
) -> Result<testdeck_core::workspace::changed::Changed, ExitCode> {
    testdeck_core::workspace::changed::changed_in(ws, Some(rev), cache_dir().as_deref())
        .map_err(|e| usage(&e.to_string()))
}

/// The person's history cache folder, where the import graph's index is kept
/// (`None`: no home for it, or a folder that is not theirs: the graph parses
/// every module, as without an index).
pub(crate) fn cache_dir() -> Option<std::path::PathBuf> {
    testdeck_core::workspace::history_cache::checked_default_dir()
        .ok()
        .flatten()
}

/// Print a usage or workspace error and return exit 2.
pub fn usage(msg: &str) -> ExitCode {
    eprintln!("testdeck: {}", testdeck_core::sanitize::escape(msg));
    ExitCode::from(EXIT_USAGE)
}

/// Print one JSON document on stdout.
pub(crate) fn print_json<T: serde::Serialize>(v: &T) {
    let mut out = std::io::stdout().lock();
    // a closed pipe is not an error worth reporting
    if let Ok(text) = testdeck_core::sanitize::to_json(v, true) {
        let _ = writeln!(out, "{text}");
    }
}

/// What a parsed command line leaves to `main`.
pub enum Outcome {
    /// The command ran: exit with this.
    Exit(ExitCode),
    /// Open the cockpit (no subcommand, or `demo` on its fresh copy).
    Cockpit {
        /// `--root`, or the demo copy; `None`: look from the current folder up.
        root: Option<PathBuf>,
        theme: Option<String>,
        keymap: Option<String>,
        /// The cockpit is the demo's.
        demo: bool,
        /// `--no-cache`: no history cache read or written.
        no_cache: bool,
    },
}

pub fn dispatch(cli: Cli) -> Outcome {
    testdeck_core::color::set_choice(cli.color);
    // the person's config.toml: what it sets unless a flag says otherwise
    let (user, problems) =
        testdeck_core::userconfig::load(testdeck_core::userconfig::dir().as_deref());
    for p in &problems {
        eprintln!("testdeck: {}", testdeck_core::sanitize::escape(p));
    }
    if let Some(zone) = user.time {
        testdeck_core::clock::set_zone(zone);
    }
    let no_cache = cli.look.no_cache;
    let ctx = Ctx {
        root: cli.root,
        theme: cli.look.theme.or_else(|| user.theme.clone()),
        keymap: cli.look.keymap.or_else(|| user.keymap.clone()),
    };
    testdeck_core::userconfig::set_current(user);
    crate::progress::allow(wants_json(cli.command.as_ref()));
    if matches!(
        cli.command,
        Some(
            Command::List(_)
                | Command::Validate(_)
                | Command::Select(_)
                | Command::Runs(_)
                | Command::Stats(_)
                | Command::Report(_)
                | Command::Insights(_)
                | Command::Explain(_)
                | Command::Trace(_)
                | Command::Catalog(_)
                | Command::Completions { .. }
                | Command::Man { .. }
        )
    ) {
        die_on_broken_pipe();
    }
    let code = match cli.command {
        Some(Command::Init(a)) => init::run(&a, &ctx),
        Some(Command::New(a)) => new::new(&a, &ctx),
        Some(Command::Promote(a)) => new::promote(&a, &ctx),
        Some(Command::Adopt(a)) => adopt::run(&a, &ctx),
        Some(Command::List(a)) => with_workspace(&ctx, |ws| list::run(&a, &ws)),
        Some(Command::Validate(a)) => validate::run(&a, &ctx),
        Some(Command::Select(a)) => with_workspace(&ctx, |ws| select::run(&a, &ws)),
        Some(Command::Run(a)) => with_workspace(&ctx, |ws| run::run(&a, &ws)),
        Some(Command::Runs(a)) => with_workspace(&ctx, |ws| runs::run(&a, &ws)),
        Some(Command::Stats(a)) => stats::run(&a, &ctx),
        Some(Command::Report(a)) => with_workspace(&ctx, |ws| report::run(&a, &ws)),
        Some(Command::Insights(a)) => insights::run(&a, &ctx),
        Some(Command::Tail(a)) => tail::run(&a, &ctx),
        Some(Command::Trace(a)) => trace::run(&a),
        Some(Command::Catalog(a)) => with_workspace(&ctx, |ws| catalog::run(&a, &ws)),
        Some(Command::Demo(a)) => match demo::run(&a) {
            Ok(dir) => {
                return Outcome::Cockpit {
                    root: Some(dir),
                    // `testdeck demo --theme x` or `testdeck --theme x demo`
                    theme: a.look.theme.or(ctx.theme),
                    keymap: a.look.keymap.or(ctx.keymap),
                    demo: true,
                    no_cache: a.look.no_cache || no_cache,
                };
            }
            Err(code) => code,
        },
        Some(Command::Diff(a)) => with_workspace(&ctx, |ws| diff::run(&a, &ws)),
        Some(Command::Explain(a)) => with_workspace(&ctx, |ws| explain::run(&a, &ws)),
        Some(Command::Watch(a)) => with_workspace(&ctx, |ws| watch::run(&a, &ws)),
        Some(Command::Verdict(a)) => verdict::run(&a, &ctx),
        Some(Command::Completions { shell }) => {
            let mut out = std::io::stdout().lock();
            clap_complete::generate(shell, &mut Cli::command(), "testdeck", &mut out);
            ExitCode::SUCCESS
        }
        Some(Command::Man { command }) => man(command.as_deref()),
        None => {
            return Outcome::Cockpit {
                root: ctx.root,
                theme: ctx.theme,
                keymap: ctx.keymap,
                demo: false,
                no_cache,
            };
        }
    };
    Outcome::Exit(code)
}

/// `testdeck man [COMMAND]`: the manual page of testdeck or of one command, in roff.
fn man(command: Option<&str>) -> ExitCode {
    let mut cli = Cli::command();
    cli.build();
    let page = match command {
        None => cli,
        Some(name) => match cli.find_subcommand(name) {
            // built, its display name is testdeck-NAME: the page the main one lists
            Some(sub) => sub.clone().version(env!("CARGO_PKG_VERSION")),
            None => return usage(&format!("man: no command {name}")),
        },
    };
    let mut out = std::io::stdout().lock();
    match clap_mangen::Man::new(page).render(&mut out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => usage(&format!("man: {e}")),
    }
}

/// Let a closed stdout (`testdeck stats | head`) end a printing command the way it
/// ends `cat`: by SIGPIPE, quietly. Rust ignores SIGPIPE, so `println!` would panic
/// on the broken pipe instead (exit 101). Only for the commands that print and
/// then exit: `tail`, `run` and the TUI handle a closed pipe themselves.
#[cfg(unix)]
#[allow(unsafe_code)]
fn die_on_broken_pipe() {
    // SAFETY: `signal` with SIG_DFL installs no handler code, so nothing can run
    // in signal context; it only changes the process-wide disposition of SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn die_on_broken_pipe() {}
