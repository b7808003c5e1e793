//! The details pane's own state: its scroll, how far the last frame let it
//! scroll, and what it shows — a new subject (tab, selection, a finder jump, a
//! click) starts from the top. It answers its cursor keys and the changes it
//! subscribes to; what it draws is the snapshot's (`snapshot::Details`).

use super::super::action::Command;
use super::Tab;
use super::list::{ListState, rows_for};
use super::pane::{Component, Ctx, Published, Shared};

/// What the details pane shows: its scroll starts again when this changes.
type Subject = (Tab, usize, Option<String>);

#[derive(Debug)]
pub struct DetailsPane {
    scroll: ListState,
    /// The last scroll row at the last frame (`None` before one).
    max: Option<usize>,
    subject: Subject,
}

impl Default for DetailsPane {
    fn default() -> DetailsPane {
        DetailsPane {
            scroll: ListState::default(),
            max: None,
            subject: (Tab::Tests, 0, None),
        }
    }
}

impl DetailsPane {
    /// The scroll.
    pub fn scroll(&self) -> &ListState {
        &self.scroll
    }

    /// Scroll by `d` rows, bounded by the last frame (the view clamps what it
    /// shows either way).
    pub fn step(&mut self, d: isize) {
        let rows = self.max.map_or(10_000, |m| m + 1);
        self.scroll.step(d, rows);
    }

    /// Back to the top (the list beside it moved).
    pub fn top(&mut self) {
        self.scroll.reset();
    }

    /// What the last frame measured: the last scroll row (wrapped text).
    pub fn fit(&mut self, max: usize) {
        self.max = Some(max);
        self.scroll.cursor = self.scroll.cursor.min(max);
    }
}

/// What the details pane shows for the selection in `s`.
fn subject(s: &Shared) -> Subject {
    match s.tab {
        Tab::Tests => (s.tab, 0, s.selected_node().map(|n| n.key.clone())),
        Tab::Catalog => (s.tab, s.catalog.list().cursor, None),
        Tab::Runs => (s.tab, s.runs.list().cursor, None),
    }
}

impl DetailsPane {
    /// A cursor key (`page`: its rows a page) scrolls the details; whether it took it.
    pub fn key(&mut self, c: Command, page: isize) -> bool {
        rows_for(c, page).map(|d| self.step(d)).is_some()
    }
}

impl Component for DetailsPane {
    fn subscribes(&self, e: &Published) -> bool {
        matches!(e, Published::Changed)
    }

    /// A new subject shows its details from the top.
    fn on_event(&mut self, _: &Published, cx: &mut Ctx) {
        let s = subject(&cx.shared);
        if s != self.subject {
            self.scroll.reset();
            self.subject = s;
        }
    }

    fn command(&mut self, c: Command, page: isize, _: &mut Ctx) -> bool {
        self.key(c, page)
    }
}
