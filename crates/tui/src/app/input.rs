//! Typed input: the finder's keys and query, the filter lines, the text of a typed
//! authorization or a verdict's note.

use super::super::action::Command;
use super::{App, Effect, Finder, InputTarget, Overlay, Prompt};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

impl App {
    pub(super) fn finder_command(&mut self, mut f: Finder, c: Command) -> Vec<Effect> {
        match c {
            Command::Close => return Vec::new(),
            Command::Confirm => {
                if let Some(key) = f.selected_key(self.domain.candidates()) {
                    self.jump_to_case(&key);
                }
                return self.selection_changed();
            }
            Command::MoveDown => f.down(),
            Command::MoveUp => f.up(),
            Command::Mark => {
                if let Some(key) = f.selected_key(self.domain.candidates()) {
                    if !self.marks.remove(&key) {
                        self.marks.insert(key);
                    }
                }
                f.down();
            }
            Command::ClearInput => {
                f.clear();
                f.refind(self.domain.candidates());
            }
            _ => {}
        }
        self.layers.open(Overlay::Finder(f));
        Vec::new()
    }

    pub(super) fn text_key(&mut self, k: KeyEvent) {
        let ch = match k.code {
            KeyCode::Char(c)
                if !k
                    .modifiers
                    .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
            {
                Some(c)
            }
            KeyCode::Backspace => None,
            _ => return,
        };
        let edit = |s: &mut String| match ch {
            Some(c) => s.push(c),
            None => {
                s.pop();
            }
        };
        match self.layers.take() {
            Some(Overlay::Finder(mut f)) => {
                f.type_char(ch);
                f.refind(self.domain.candidates());
                self.layers.open(Overlay::Finder(f));
                return;
            }
            Some(Overlay::Prompt(Prompt::Authorize(mut a))) if a.typed() => {
                edit(&mut a.typed);
                self.layers.open(Overlay::Prompt(Prompt::Authorize(a)));
                return;
            }
            Some(Overlay::Prompt(Prompt::Judge(mut j))) if j.editing_note => {
                edit(&mut j.note);
                self.layers.open(Overlay::Prompt(Prompt::Judge(j)));
                return;
            }
            other => self.layers.put(other),
        }
        if let Some(t) = self.layers.input() {
            edit(self.filter_mut(t));
            self.refilter_target(t);
        }
    }

    pub(super) fn filter_mut(&mut self, t: InputTarget) -> &mut String {
        match t {
            InputTarget::RunsFilter => self.runs.filter_mut(),
            InputTarget::EventsFilter => self.live.events_filter_mut(),
            InputTarget::NewCase => self.adding.typed_mut(),
        }
    }

    pub(super) fn refilter_target(&mut self, t: InputTarget) {
        match t {
            InputTarget::RunsFilter => self.runs.refilter_in(self.domain.ws()),
            InputTarget::EventsFilter => {
                self.live.refilter();
                self.clamp();
            }
            InputTarget::NewCase => {}
        }
    }
}
