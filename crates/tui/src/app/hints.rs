//! The key-hint line: the keys that act on the focused pane (or on the overlay,
//! prompt or screen that has the keys), from the active keymap.

use super::super::action::Command;
use super::overlay::Layers;
use super::{Pane, Tab};
use crate::keymap::Keymap;

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

/// The key-hint line's (key, words) pairs in `keymap` for the mode of `layers`:
/// in normal mode the keys of pane `focus` of `tab`; in any other mode
/// (finder, prompt, overlay, trace…) its keys in the keymap's order.
pub fn key_hints(
    keymap: &Keymap,
    layers: &Layers,
    (tab, focus): (Tab, Pane),
) -> Vec<(String, String)> {
    let mode = layers.mode();
    if mode == "overlay" && !matches!(layers.screen(), Some(super::Screen::Report(_))) {
        // the report screen's own keys only on it
        let cmds: Vec<Command> = keymap
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
        return keymap.hints(mode, &cmds);
    }
    let cmds = if mode == "normal" {
        pane_commands(tab, focus)
    } else {
        &[]
    };
    keymap.hints(mode, cmds)
}
