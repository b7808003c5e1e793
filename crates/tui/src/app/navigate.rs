//! Moving about: the deck — the tab shown, the pane with the keys, zoom and the
//! tree's width, the terminal's size — with the panes it arranges, lent by the
//! App for one call (`deck!`). It moves the focused list (or the details'
//! scroll) by rows and pages, keeps every cursor in view, switches panes and
//! tabs, folds the tests tree, answers Enter on a row and the mouse, and jumps
//! to a case (the finder's pick). Each pane changes through its own methods.

use super::super::action::Command;
use super::details::DetailsPane;
use super::layout::{self, Areas};
use super::list::ListPane;
use super::{CaseRef, CatalogTab, Live, PANES, Pane, RunsTab, Tab, TestsTab, tests_tab};
use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Position;
use std::path::Path;
use testdeck_core::workspace::Workspace;

/// The panes on screen and where the keys are, lent by the App for one call.
pub struct Deck<'a> {
    pub tab: &'a mut Tab,
    pub focus: &'a mut Pane,
    pub sizing: &'a mut layout::Sizing,
    /// The terminal's size (columns, rows).
    pub size: (u16, u16),
    pub tests: &'a mut TestsTab,
    pub catalog: &'a mut CatalogTab,
    pub runs: &'a mut RunsTab,
    pub live: &'a mut Live,
    pub details: &'a mut DetailsPane,
    pub ws: Option<&'a Workspace>,
    /// What else the layout reads: the HOST banner and the hints line shown,
    /// the workspace root (a screenshot previewed grows its pane).
    pub banner: bool,
    pub hints: bool,
    pub root: &'a Path,
}

/// What the deck made of a command.
pub enum Answer {
    /// Not the deck's: the App's table routes it.
    NotMine,
    Done,
    /// Done, and the status line says this.
    Say(String),
}

/// What Enter on the focused row asks of the App.
pub enum Opened {
    /// The event's data, full (an overlay).
    Data(String, Vec<String>),
    /// The artifact selected (a trace opens in the trace pane).
    Artifact,
    /// The selection may have moved.
    Moved,
}

/// What a mouse event asks of the App.
pub enum Mouse {
    /// Over an overlay or a screen, the wheel is this cursor key.
    Key(Command),
    /// The selection may have moved.
    Moved,
    Nothing,
}

impl Deck<'_> {
    /// Where every pane goes now.
    pub fn areas(&self) -> Areas {
        let look = layout::Look {
            banner: self.banner,
            hints: self.hints,
            sizing: *self.sizing,
            focus: *self.focus,
            live: self.live,
            root: self.root,
        };
        layout::areas(self.size.0, self.size.1, &look)
    }

    /// The panes of the current tab, in Tab order.
    pub fn panes(&self) -> Vec<Pane> {
        let a = self.areas();
        PANES
            .iter()
            .copied()
            .filter(|&p| a.panes.focusable(p))
            .collect()
    }

    /// The tab shown, as the list pane it is.
    fn tab_list(&mut self) -> &mut dyn ListPane {
        match *self.tab {
            Tab::Tests => self.tests,
            Tab::Catalog => self.catalog,
            Tab::Runs => self.runs,
        }
    }

    /// Tab `t` shown, its tree focused.
    pub fn set_tab(&mut self, t: Tab) {
        *self.tab = t;
        *self.focus = Pane::Tree;
    }

    /// The panes' own commands: cursor keys, folding, panes and tabs, the
    /// timeline's toggles and failures, zoom and widths, the tree's order.
    pub fn command(&mut self, c: Command) -> Answer {
        let page = (self.size.1 / 2).max(1) as isize;
        match c {
            Command::MoveDown
            | Command::MoveUp
            | Command::PageDown
            | Command::PageUp
            | Command::GoTop
            | Command::GoBottom => self.focused_key(c, page),
            Command::Collapse | Command::Expand | Command::ExpandAll | Command::CollapseAll => {
                self.fold(c);
            }
            Command::NextPane | Command::PrevPane => self.cycle(c == Command::NextPane),
            Command::TabTests => self.set_tab(Tab::Tests),
            Command::TabCatalog => self.set_tab(Tab::Catalog),
            Command::TabRuns => self.set_tab(Tab::Runs),
            Command::Follow
            | Command::FailuresOnly
            | Command::CycleType
            | Command::ToggleEvents
            | Command::ToggleOutput => {
                self.live.handle(c, page, *self.focus == Pane::Live);
                // a filter changes the row count: the window re-fitted to it
                self.fit();
            }
            Command::ScrollLeft | Command::ScrollRight => {
                if !self.live.handle(c, page, *self.focus == Pane::Live) {
                    return Answer::Say("< and > scroll the timeline sideways: Tab to it".into());
                }
            }
            Command::NextFailure | Command::PrevFailure => {
                return self.jump_failure(c == Command::NextFailure);
            }
            Command::Zoom => {
                self.sizing.zoom = !self.sizing.zoom;
                self.fit();
            }
            Command::WiderTree | Command::NarrowerTree => {
                let step = if c == Command::WiderTree { 5 } else { -5 };
                self.sizing.widen(step, self.size);
                self.fit();
            }
            Command::Sort => {
                let s = self.tests.cycle_sort();
                *self.tab = Tab::Tests;
                return Answer::Say(format!("tree sorted by {}", s.name()));
            }
            _ => return Answer::NotMine,
        }
        Answer::Done
    }

    /// A cursor key: the pane under the focus takes it; every cursor kept in view.
    fn focused_key(&mut self, c: Command, page: isize) {
        if *self.focus == Pane::Tree {
            self.details.top();
        }
        let took = match *self.focus {
            Pane::Details => {
                self.details.key(c, page);
                return;
            }
            Pane::Live => self.live.handle(c, page, true),
            Pane::Artifacts => self.live.handle_artifacts(c, page),
            Pane::Tree => self.tab_list().handle(c, page),
        };
        if took {
            self.fit();
        }
    }

    /// Move the focused list (or scroll the details pane) by `d` rows.
    pub fn move_by(&mut self, d: isize) {
        if *self.focus == Pane::Tree {
            self.details.top();
        }
        match *self.focus {
            Pane::Details => {
                self.details.step(d);
                return;
            }
            Pane::Live => self.live.step(d),
            Pane::Artifacts => self.live.step_artifact(d),
            Pane::Tree => self.tab_list().step(d),
        }
        self.fit();
    }

    /// Keep cursors in range and scroll offsets so the cursor is visible.
    pub fn fit(&mut self) {
        let a = self.areas();
        let tree_h = a.panes.tree.height.saturating_sub(2) as usize;
        // a zoomed-away tree keeps its place for when it comes back
        if tree_h > 0 {
            self.tests.fit(tree_h);
            self.runs.fit(tree_h);
            self.catalog.fit(tree_h);
        }
        // the timeline has its header row over the events
        let header = usize::from(!self.live.show_events());
        let live_h = a
            .panes
            .live
            .map_or(10, |r| r.height.saturating_sub(2) as usize)
            .saturating_sub(header);
        self.live.fit(live_h);
    }

    /// `h` / `l` on the tests tree: a folder closed or opened (a case: its run
    /// focused); `L` / `H`: every folder open or closed.
    fn fold(&mut self, c: Command) {
        if *self.tab != Tab::Tests {
            return;
        }
        match c {
            Command::ExpandAll => self.tests.expand_all(),
            Command::CollapseAll => self.tests.collapse_all(),
            _ if *self.focus != Pane::Tree => return,
            Command::Collapse => self.tests.collapse(),
            _ => match self.tests.expand() {
                tests_tab::Expand::Rebuilt => {}
                tests_tab::Expand::Down => return self.move_by(1),
                tests_tab::Expand::Case => return *self.focus = Pane::Live,
                tests_tab::Expand::Nothing => return,
            },
        }
        self.fit();
    }

    /// Enter on the focused row.
    pub fn open(&mut self) -> Opened {
        match (*self.tab, *self.focus) {
            (_, Pane::Live) => {
                if let Some((title, lines)) = self.live.data() {
                    return Opened::Data(title, lines);
                }
            }
            (_, Pane::Artifacts) => return Opened::Artifact,
            (Tab::Tests, _) => match self.tests.toggle() {
                tests_tab::Expand::Case => *self.focus = Pane::Live,
                tests_tab::Expand::Rebuilt => self.fit(),
                _ => {}
            },
            (Tab::Runs, _) => *self.focus = Pane::Live,
            (Tab::Catalog, _) => {}
        }
        Opened::Moved
    }

    /// Put the cursor on the tree node `key` (a folder scope or `scope/caseId`),
    /// opening its folders.
    pub fn jump_to(&mut self, key: &str) -> bool {
        if !self.tests.jump_to(key) {
            return false;
        }
        self.set_tab(Tab::Tests);
        self.fit();
        true
    }

    /// Put the cursor on case `c`, in its own tab.
    pub fn jump_to_case(&mut self, c: &CaseRef) -> bool {
        let CaseRef::Catalog(id) = c else {
            return self.jump_to(&c.target());
        };
        let Some(cat) = self.ws.and_then(|w| w.catalog.as_ref()) else {
            return false;
        };
        if !self.catalog.jump_to(cat, id) {
            return false;
        }
        self.set_tab(Tab::Catalog);
        self.fit();
        true
    }

    /// Tab / Shift-Tab: the focus to the next (or previous) pane shown.
    fn cycle(&mut self, next: bool) {
        let panes = self.panes();
        let i = panes.iter().position(|p| p == self.focus).unwrap_or(0);
        let n = panes.len();
        let j = if next { (i + 1) % n } else { (i + n - 1) % n };
        *self.focus = panes[j];
    }

    /// `n` / `N`: the timeline's next (or previous) failure, focused.
    fn jump_failure(&mut self, next: bool) -> Answer {
        match self.live.jump_failure(next) {
            Some(true) => {
                *self.focus = Pane::Live;
                self.fit();
            }
            Some(false) => return Answer::Say("no more failures".into()),
            None => {}
        }
        Answer::Done
    }

    /// Mouse input (`layered`: an overlay or a screen is over the panes, where
    /// the wheel is a cursor key): a click focuses the pane under it and
    /// selects the row (the pane's own click), the wheel scrolls the pane under
    /// it, a click on the tab bar switches tabs.
    pub fn mouse(&mut self, m: MouseEvent, layered: bool) -> Mouse {
        if layered {
            return match m.kind {
                MouseEventKind::ScrollDown => Mouse::Key(Command::MoveDown),
                MouseEventKind::ScrollUp => Mouse::Key(Command::MoveUp),
                _ => Mouse::Nothing,
            };
        }
        let a = self.areas();
        let pos = Position::new(m.column, m.row);
        let pane = PANES
            .into_iter()
            .find_map(|p| a.panes.get(p).filter(|r| r.contains(pos)).map(|r| (r, p)));
        let Some((rect, pane)) = pane else {
            if m.kind == MouseEventKind::Down(MouseButton::Left) && m.row == a.tabs.y {
                // the tab bar: " 1 Tests  2 Catalog  3 Runs "
                self.set_tab(match m.column {
                    0..=9 => Tab::Tests,
                    10..=21 => Tab::Catalog,
                    _ => Tab::Runs,
                });
                return Mouse::Moved;
            }
            return Mouse::Nothing;
        };
        match m.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                *self.focus = pane;
                self.move_by(if m.kind == MouseEventKind::ScrollDown {
                    3
                } else {
                    -3
                });
            }
            MouseEventKind::Down(MouseButton::Left) => {
                *self.focus = pane;
                let row = m.row.saturating_sub(rect.y + 1) as usize;
                if m.row > rect.y && m.row + 1 < rect.y + rect.height {
                    match pane {
                        // the tests tree has a header row (the list pane knows)
                        Pane::Tree => self.tab_list().click(row),
                        // the live pane has a header row
                        Pane::Live => self.live.click(row.saturating_sub(1)),
                        // the artifacts list does not scroll
                        Pane::Artifacts => self.live.click_artifact(row),
                        Pane::Details => {}
                    }
                }
                self.fit();
            }
            _ => return Mouse::Nothing,
        }
        Mouse::Moved
    }
}
