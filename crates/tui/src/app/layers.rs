//! The overlay stack's answers through a [`Ctx`]: the finder's keys, and after
//! each change the trace screen's frames to decode and the quit question
//! answered once no run is live. (Apart from `overlay.rs`, which the shared
//! state names: no file of the stack reaches back to itself.)

use super::super::action::Command;
use super::finder::Finder;
use super::overlay::{Layers, Overlay, Prompt};
use super::pane::{Component, Ctx, Published};
use super::screen::Screen;

impl Layers {
    /// A command on the finder `f` (taken off the stack to answer it): Enter
    /// puts the cursor on the case under its own, Space marks that case, Esc
    /// closes it; anything else keeps it open.
    pub(in crate::app) fn finder_command(&mut self, mut f: Finder, c: Command, cx: &mut Ctx) {
        let candidates = cx.shared.candidates;
        match c {
            Command::Close => return,
            Command::Confirm => {
                if let Some(key) = f.selected_key(candidates) {
                    cx.publish(Published::SelectCase(key));
                }
                cx.reselect();
                return;
            }
            Command::MoveDown => f.down(),
            Command::MoveUp => f.up(),
            Command::Mark => {
                if let Some(key) = f.selected_key(candidates) {
                    let mut marks = cx.shared.marks.clone();
                    if !marks.remove(&key) {
                        marks.insert(key);
                    }
                    cx.publish(Published::Marks(marks));
                }
                f.down();
            }
            Command::ClearInput => {
                f.clear();
                f.refind(candidates);
            }
            _ => {}
        }
        self.open(Overlay::Finder(f));
    }
}

/// A subscriber: after each change, the trace screen's frames to decode, and
/// the quit question answered once no run is live.
impl Component for Layers {
    fn subscribes(&self, e: &Published) -> bool {
        matches!(e, Published::Changed)
            && (matches!(self.screen(), Some(Screen::Trace(_)))
                || matches!(self.overlay(), Some(Overlay::Prompt(Prompt::QuitLive))))
    }

    fn on_event(&mut self, _: &Published, cx: &mut Ctx) {
        if let Some(Screen::Trace(v)) = self.screen_mut() {
            cx.effect(v.frame_jobs(cx.shared.picture_background));
        }
        // asked to quit while runs were live, and they all ended meanwhile: the
        // only reason to ask is gone, so the person's `q` goes through
        if matches!(self.overlay(), Some(Overlay::Prompt(Prompt::QuitLive)))
            && cx.shared.runs_live == 0
        {
            self.take();
            cx.publish(Published::Quit);
        }
    }
}
