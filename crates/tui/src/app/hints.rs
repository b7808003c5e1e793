//! The key-hint line: the keys that act on the focused pane (or on the overlay,
//! prompt or screen that has the keys), from the active keymap.

use super::super::action::Command;
use super::{App, Pane, Tab};

/// The normal mode's commands that act on each pane, the most used first (the
/// line drops what does not fit from its end).
fn pane_commands(tab: Tab, pane: Pane) -> &'static [Command] {
    use Command as C;
    match (pane, tab) {
        (Pane::Tree, Tab::Tests) => &[
            C::Run,
            C::Mark,
            C::Find,
            C::Why,
            C::Expand,
            C::ExpandAll,
            C::CollapseAll,
            C::Watch,
            C::Edit,
            C::Report,
            C::NextPane,
            C::Help,
            C::Quit,
        ],
        (Pane::Tree, Tab::Catalog) => &[
            C::Run,
            C::Mark,
            C::Find,
            C::Edit,
            C::MaxRisk,
            C::NextPane,
            C::Help,
            C::Quit,
        ],
        (Pane::Tree, Tab::Runs) => &[
            C::Filter,
            C::Why,
            C::Compare,
            C::CopyRunId,
            C::Edit,
            C::NextPane,
            C::Help,
            C::Quit,
        ],
        (Pane::Details, _) => &[
            C::PageDown,
            C::Why,
            C::Edit,
            C::Zoom,
            C::NextPane,
            C::Help,
            C::Quit,
        ],
        (Pane::Live, _) => &[
            C::Open,
            C::FailuresOnly,
            C::NextFailure,
            C::Follow,
            C::CycleType,
            C::ScrollLeft,
            C::ScrollRight,
            C::ToggleOutput,
            C::ToggleEvents,
            C::Filter,
            C::NextPane,
            C::Help,
            C::Quit,
        ],
        (Pane::Artifacts, _) => &[
            C::OpenArtifact,
            C::Open,
            C::PreviewImage,
            C::NextPane,
            C::Help,
            C::Quit,
        ],
    }
}

impl App {
    /// The key-hint line's (key, words) pairs, or `None` when the person hid it
    /// (`[ui] key_hints = false`). Normal mode: the focused pane's keys; any
    /// other mode (finder, prompt, overlay, trace…): its keys in the keymap's order.
    pub fn key_hints(&self) -> Option<Vec<(String, String)>> {
        if !self.key_hints {
            return None;
        }
        let mode = self.layers.mode();
        if mode == "overlay" && !matches!(self.layers.screen(), Some(super::Screen::Report(_))) {
            // the report screen's own keys only on it
            let cmds: Vec<Command> = self
                .keymap
                .bindings(mode)
                .iter()
                .map(|b| b.run)
                .filter(|c| !matches!(c, Command::ReportUpdate | Command::Apply | Command::Noop))
                .fold(Vec::new(), |mut v, c| {
                    if !v.contains(&c) {
                        v.push(c);
                    }
                    v
                });
            return Some(self.keymap.hints(mode, &cmds));
        }
        let cmds = if mode == "normal" {
            pane_commands(self.tab, self.focus)
        } else {
            &[]
        };
        Some(self.keymap.hints(mode, cmds))
    }
}
