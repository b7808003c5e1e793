//! The one colour decision for everything testdeck prints (headless output and the cockpit).
//!
//! `--color` wins; with `auto` the conventions decide, in the order anstream uses:
//! `NO_COLOR` (set, not empty) turns colour off, then `CLICOLOR_FORCE` (not `0`) turns
//! it on even into a pipe, then `CLICOLOR=0` or `TERM=dumb` turn it off, and otherwise
//! a terminal gets colour and a pipe or file does not. `--json` never carries colour:
//! its callers do not ask.

use std::io::IsTerminal;
use std::sync::OnceLock;

/// `--color auto|always|never`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum ColorChoice {
    /// Colour on a terminal, unless the environment says otherwise.
    #[default]
    Auto,
    /// Always colour, even into a pipe or file (and despite NO_COLOR).
    Always,
    /// Never colour.
    Never,
}

/// The environment variables the decision reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ColorEnv {
    pub no_color: Option<String>,
    pub(crate) clicolor: Option<String>,
    pub(crate) clicolor_force: Option<String>,
    pub(crate) term: Option<String>,
}

impl ColorEnv {
    /// This process's environment.
    pub(crate) fn from_process() -> ColorEnv {
        let var = |k: &str| std::env::var_os(k).map(|v| v.to_string_lossy().into_owned());
        ColorEnv {
            no_color: var("NO_COLOR"),
            clicolor: var("CLICOLOR"),
            clicolor_force: var("CLICOLOR_FORCE"),
            term: var("TERM"),
        }
    }
}

/// Whether output to a terminal (`tty`) or not gets colour.
pub(crate) fn decide(choice: ColorChoice, env: &ColorEnv, tty: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            if env.no_color.as_deref().is_some_and(|v| !v.is_empty()) {
                false
            } else if env
                .clicolor_force
                .as_deref()
                .is_some_and(|v| !v.is_empty() && v != "0")
            {
                true
            } else if env.clicolor.as_deref() == Some("0") || env.term.as_deref() == Some("dumb") {
                false
            } else {
                tty
            }
        }
    }
}

static CHOICE: OnceLock<ColorChoice> = OnceLock::new();

/// Set `--color` once, before anything prints (later calls are ignored).
pub fn set_choice(choice: ColorChoice) {
    let _ = CHOICE.set(choice);
}

/// The `--color` in force (`auto` when none was set).
pub(crate) fn choice() -> ColorChoice {
    CHOICE.get().copied().unwrap_or_default()
}

/// Whether what goes to stdout gets colour (decided once per process).
pub fn stdout() -> bool {
    static STDOUT: OnceLock<bool> = OnceLock::new();
    *STDOUT.get_or_init(|| {
        decide(
            choice(),
            &ColorEnv::from_process(),
            std::io::stdout().is_terminal(),
        )
    })
}

/// Whether the cockpit, always drawn on a terminal, uses colour.
pub fn cockpit() -> bool {
    decide(choice(), &ColorEnv::from_process(), true)
}

#[cfg(test)]
mod tests {
    use super::{ColorChoice, ColorEnv, decide};

    fn env(pairs: &[(&str, &str)]) -> ColorEnv {
        let get = |k: &str| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| (*v).to_owned())
        };
        ColorEnv {
            no_color: get("NO_COLOR"),
            clicolor: get("CLICOLOR"),
            clicolor_force: get("CLICOLOR_FORCE"),
            term: get("TERM"),
        }
    }

    #[test]
    fn auto_follows_the_terminal_and_the_conventions() {
        use ColorChoice::{Always, Auto, Never};
        let none = env(&[]);
        assert!(decide(Auto, &none, true));
        assert!(!decide(Auto, &none, false));
        assert!(!decide(Auto, &env(&[("NO_COLOR", "1")]), true));
        // an empty NO_COLOR is no request (no-color.org)
        assert!(decide(Auto, &env(&[("NO_COLOR", "")]), true));
        assert!(!decide(Auto, &env(&[("CLICOLOR", "0")]), true));
        assert!(decide(Auto, &env(&[("CLICOLOR", "1")]), true));
        assert!(!decide(Auto, &env(&[("TERM", "dumb")]), true));
        assert!(decide(Auto, &env(&[("CLICOLOR_FORCE", "1")]), false));
        assert!(!decide(Auto, &env(&[("CLICOLOR_FORCE", "0")]), false));
        assert!(decide(
            Auto,
            &env(&[("CLICOLOR_FORCE", "1"), ("TERM", "dumb")]),
            false
        ));
        // NO_COLOR wins over CLICOLOR_FORCE, as in anstream
        assert!(!decide(
            Auto,
            &env(&[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")]),
            true
        ));
        // the flag wins over every variable
        assert!(decide(
            Always,
            &env(&[("NO_COLOR", "1"), ("TERM", "dumb")]),
            false
        ));
        assert!(!decide(Never, &env(&[("CLICOLOR_FORCE", "1")]), true));
    }
}
