//! The headless commands: each file is a thin adapter from core results to text or JSON.

pub mod catalog;
pub mod demo;
pub mod diff;
pub mod list;
pub mod run;
pub mod runs;
pub mod select;
pub mod stats;
pub mod tail;
pub mod validate;
pub mod verdict;
pub mod watch;

use crate::workspace::Workspace;
use clap::{Parser, Subcommand};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit status: 0 success, 1 found failures or problems, 2 usage or unreadable workspace.
pub const EXIT_OK: u8 = 0;
pub const EXIT_FOUND: u8 = 1;
pub const EXIT_USAGE: u8 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "testdeck",
    version,
    about = "A keyboard-driven terminal test cockpit"
)]
pub struct Cli {
    /// Workspace root (default: walk up from the current folder).
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Theme name (a file of themes/ or $XDG_CONFIG_HOME/testdeck/).
    #[arg(long, global = true)]
    pub theme: Option<String>,
    /// Keymap name (a file of keymaps/ or $XDG_CONFIG_HOME/testdeck/).
    #[arg(long, global = true)]
    pub keymap: Option<String>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Every case of both sources.
    List(list::Args),
    /// Check every rule of the workspace; problems as file:line:col rule message.
    Validate(validate::Args),
    /// The catalog selection: run_together expanded, execution order, probes, exclusions.
    Select(select::Args),
    /// Launch cases without a TUI, streaming events.
    Run(run::Args),
    /// Historical runs of both sources.
    Runs(runs::Args),
    /// Pass-rate statistics for every node of the tree.
    Stats(stats::Args),
    /// Pretty-print a timeline.jsonl and keep following it.
    Tail(tail::Args),
    /// Tester catalog utilities.
    Catalog(catalog::Args),
    /// Open the TUI on the bundled demo workspace (a temporary copy).
    Demo(demo::Args),
    /// Two runs of a case side by side: first divergence, changed fields, step durations.
    Diff(diff::Args),
    /// Rerun cases when their files change, streaming as run does (same authorization rules).
    Watch(watch::Args),
    /// A person's verdict for a case of a catalog run record (as the cockpit's prompt gives it).
    Verdict(verdict::Args),
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
        let root = crate::workspace::resolve_root(self.root.as_deref()).map_err(|e| usage(&e))?;
        Workspace::load(&root).map_err(|e| usage(&e.to_string()))
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

/// Print a usage or workspace error and return exit 2.
pub fn usage(msg: &str) -> ExitCode {
    eprintln!("testdeck: {}", crate::sanitize::escape(msg));
    ExitCode::from(EXIT_USAGE)
}

/// Print one JSON document on stdout.
pub fn print_json<T: serde::Serialize>(v: &T) {
    let mut out = std::io::stdout().lock();
    // a closed pipe is not an error worth reporting
    if let Ok(text) = crate::sanitize::to_json(v, true) {
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
    },
}

pub fn dispatch(cli: Cli) -> Outcome {
    let ctx = Ctx {
        root: cli.root,
        theme: cli.theme,
        keymap: cli.keymap,
    };
    if matches!(
        cli.command,
        Some(
            Command::List(_)
                | Command::Validate(_)
                | Command::Select(_)
                | Command::Runs(_)
                | Command::Stats(_)
                | Command::Catalog(_)
        )
    ) {
        die_on_broken_pipe();
    }
    let code = match cli.command {
        Some(Command::List(a)) => with_workspace(&ctx, |ws| list::run(&a, &ws)),
        Some(Command::Validate(a)) => with_workspace(&ctx, |ws| validate::run(&a, &ws)),
        Some(Command::Select(a)) => with_workspace(&ctx, |ws| select::run(&a, &ws)),
        Some(Command::Run(a)) => with_workspace(&ctx, |ws| run::run(&a, &ws)),
        Some(Command::Runs(a)) => with_workspace(&ctx, |ws| runs::run(&a, &ws)),
        Some(Command::Stats(a)) => stats::run(&a, &ctx),
        Some(Command::Tail(a)) => tail::run(&a, &ctx),
        Some(Command::Catalog(a)) => with_workspace(&ctx, |ws| catalog::run(&a, &ws)),
        Some(Command::Demo(a)) => match demo::run(&a) {
            Ok(dir) => {
                return Outcome::Cockpit {
                    root: Some(dir),
                    theme: ctx.theme,
                    keymap: ctx.keymap,
                    demo: true,
                };
            }
            Err(code) => code,
        },
        Some(Command::Diff(a)) => with_workspace(&ctx, |ws| diff::run(&a, &ws)),
        Some(Command::Watch(a)) => with_workspace(&ctx, |ws| watch::run(&a, &ws)),
        Some(Command::Verdict(a)) => verdict::run(&a, &ctx),
        None => {
            return Outcome::Cockpit {
                root: ctx.root,
                theme: ctx.theme,
                keymap: ctx.keymap,
                demo: false,
            };
        }
    };
    Outcome::Exit(code)
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
