//! The binary: parse the command line, then run a headless command (`cli`) or open
//! the cockpit (`tui`). Only this file knows both shells; they never import each other.

use clap::Parser;
use std::process::ExitCode;
use testdeck_cli::{self as cli, Outcome};

fn main() -> ExitCode {
    match cli::dispatch(cli::Cli::parse()) {
        Outcome::Exit(code) => code,
        Outcome::Cockpit {
            root,
            theme,
            keymap,
            demo,
            no_cache,
        } => {
            let root = match testdeck_core::workspace::resolve_root(root.as_deref()) {
                Ok(r) => r,
                Err(e) => return cli::usage(&e),
            };
            let shown = testdeck_core::sanitize::escape(&root.display().to_string()).into_owned();
            if demo {
                // the cockpit takes the whole screen: say where the copy is before and after
                eprintln!("testdeck: demo workspace copied to {shown}");
            }
            // the history cache: the person's cache folder, unless `--no-cache`
            let cache = if no_cache {
                None
            } else {
                // a cache folder that is not the person's own is not used
                testdeck_core::workspace::history_cache::checked_default_dir().unwrap_or_else(|w| {
                    eprintln!("testdeck: warning: {w}");
                    None
                })
            };
            let code = match testdeck_tui::open(&root, theme.as_deref(), keymap.as_deref(), cache) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => cli::usage(&e),
            };
            if demo {
                eprintln!("testdeck: the demo workspace stays in {shown} (delete it when done)");
            }
            code
        }
    }
}
