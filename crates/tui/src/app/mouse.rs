//! Mouse input: a click focuses the pane under it and selects the row, the wheel
//! scrolls the pane under it, a click on the tab bar switches tabs.

use super::super::action::Command;
use super::{App, Effect, ListState, Overlay, PANES, Pane, Screen, Tab};
use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Position;

impl App {
    pub(super) fn mouse(&mut self, m: MouseEvent) -> Vec<Effect> {
        if self.layers.overlay().is_some() || self.layers.screen().is_some() {
            let c = match m.kind {
                MouseEventKind::ScrollDown => Command::MoveDown,
                MouseEventKind::ScrollUp => Command::MoveUp,
                _ => return Vec::new(),
            };
            return self.command(c);
        }
        let a = self.areas();
        let pos = Position::new(m.column, m.row);
        let pane = PANES
            .into_iter()
            .find_map(|p| a.panes.get(p).filter(|r| r.contains(pos)).map(|r| (r, p)));
        let Some((rect, pane)) = pane else {
            if m.kind == MouseEventKind::Down(MouseButton::Left) && m.row == a.tabs.y {
                // the tab bar: " 1 Tests  2 Catalog  3 Runs "
                let t = match m.column {
                    0..=9 => Tab::Tests,
                    10..=21 => Tab::Catalog,
                    _ => Tab::Runs,
                };
                self.set_tab(t);
                return self.selection_changed();
            }
            return Vec::new();
        };
        match m.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                self.focus = pane;
                self.move_by(if m.kind == MouseEventKind::ScrollDown {
                    3
                } else {
                    -3
                });
            }
            MouseEventKind::Down(MouseButton::Left) => {
                self.focus = pane;
                let row = m.row.saturating_sub(rect.y + 1) as usize;
                if m.row > rect.y && m.row + 1 < rect.y + rect.height {
                    match pane {
                        // the tests tree has a header row (the list pane knows)
                        Pane::Tree => self.tab_list().click(row),
                        Pane::Live => {
                            // the live pane has a header row
                            self.live.click(row.saturating_sub(1));
                        }
                        Pane::Artifacts => {
                            // the artifacts list does not scroll
                            self.live.click_artifact(row);
                        }
                        Pane::Details => {}
                    }
                }
                self.clamp();
            }
            _ => return Vec::new(),
        }
        self.selection_changed()
    }
}

/// What a mouse event can change on screen: a mouse event draws a frame only
/// when this moved.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct ViewKey {
    place: (Tab, Pane),
    lists: [ListState; 6],
    follow: bool,
    overlay: Option<(u8, usize)>,
    screen: Option<(usize, usize)>,
    notice: Option<String>,
}

impl ViewKey {
    /// What a mouse event can move on screen: where the person is, every list
    /// position, the overlay's and the screen's scroll, the notice.
    pub(super) fn of(app: &App) -> ViewKey {
        let overlay = match app.layers.overlay() {
            None => None,
            Some(Overlay::Help { scroll } | Overlay::Data { scroll, .. }) => Some((0, *scroll)),
            Some(Overlay::Finder(f)) => Some((1, f.cursor())),
            Some(Overlay::Prompt(_)) => Some((2, 0)),
        };
        let screen = app.layers.screen().map(|s| match s {
            Screen::Compare(v) => (v.scroll, 0),
            Screen::Report(v) => (v.scroll, 0),
            Screen::Image { .. } => (0, 0),
            Screen::Trace(v) => (v.list(v.section()).cursor, 0),
            Screen::Why(v) => (v.scroll(), v.cursor()),
            Screen::Insights(v) => (v.scroll(), v.cursor_row().unwrap_or(0)),
        });
        ViewKey {
            place: (app.tab, app.focus),
            lists: [
                *app.tests.list(),
                *app.catalog.list(),
                *app.runs.list(),
                *app.live.list(),
                *app.live.artifacts(),
                *app.details.scroll(),
            ],
            follow: app.live.follow(),
            overlay,
            screen,
            notice: app.notice.clone(),
        }
    }
}
