//! What the app's unit tests share: an app as the shell builds it (the built-in
//! keymap, nothing read from the environment) and a timeline step.

use super::{App, Options};
use crate::keymap::Keymap;
use testdeck_core::workspace::timeline::TimelineEvent;

pub fn app() -> App {
    App::new(
        Options::default(),
        Keymap::builtin("default").unwrap_or_default(),
    )
}

/// A passed step named `name`.
pub fn step(name: &str) -> TimelineEvent {
    super::launch::runner_output::note("step", name, "ok", String::new())
}
