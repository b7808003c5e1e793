//! Moving about: the focused list (or the details' scroll) by rows and pages,
//! keeping every cursor in view, panes and tabs, folding the tests tree, Enter on
//! a row, and jumping to a case (the finder's pick).

use super::super::action::Command;
use super::list::ListPane;
use super::{App, CaseRef, Effect, Overlay, PANES, Pane, Tab, tests_tab};

impl App {
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
    pub(super) fn tab_list(&mut self) -> &mut dyn ListPane {
        match self.tab {
            Tab::Tests => &mut self.tests,
            Tab::Catalog => &mut self.catalog,
            Tab::Runs => &mut self.runs,
        }
    }

    pub(super) fn set_tab(&mut self, t: Tab) {
        self.tab = t;
        self.focus = Pane::Tree;
    }

    /// A cursor key: the pane under the focus takes it; the App then keeps
    /// every cursor in view. The effects what it published leads to.
    pub(super) fn focused_key(&mut self, c: Command, page: isize) -> Vec<Effect> {
        if self.focus == Pane::Tree {
            self.details.top();
        }
        let took = match (self.tab, self.focus) {
            (_, Pane::Details) => {
                let ((), fx) = answer!(self.details, |d, cx| {
                    super::pane::Component::command(d, c, page, &mut cx);
                });
                return fx;
            }
            (_, Pane::Live) => self.live.handle(c, page, true),
            (_, Pane::Artifacts) => self.live.handle_artifacts(c, page),
            (_, Pane::Tree) => self.tab_list().handle(c, page),
        };
        if took {
            self.clamp();
        }
        Vec::new()
    }

    /// Move the focused list (or scroll the details pane) by `d` rows.
    pub(super) fn move_by(&mut self, d: isize) {
        if self.focus == Pane::Tree {
            self.details.top();
        }
        match (self.tab, self.focus) {
            (_, Pane::Details) => {
                self.details.step(d);
                return;
            }
            (_, Pane::Live) => {
                self.live.step(d);
            }
            (_, Pane::Artifacts) => {
                self.live.step_artifact(d);
            }
            (_, Pane::Tree) => self.tab_list().step(d),
        }
        self.clamp();
    }

    /// Keep cursors in range and scroll offsets so the cursor is visible.
    pub(super) fn clamp(&mut self) {
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

    pub(super) fn collapse(&mut self) {
        if self.tab == Tab::Tests && self.focus == Pane::Tree {
            self.tests.collapse();
            self.clamp();
        }
    }

    /// `L` / `H`: every folder of the tests tree open (`open`) or closed.
    pub(super) fn fold_all(&mut self, open: bool) {
        if self.tab != Tab::Tests {
            return;
        }
        if open {
            self.tests.expand_all();
        } else {
            self.tests.collapse_all();
        }
        self.clamp();
    }

    pub(super) fn expand(&mut self) {
        if self.tab != Tab::Tests || self.focus != Pane::Tree {
            return;
        }
        match self.tests.expand() {
            tests_tab::Expand::Rebuilt => self.clamp(),
            tests_tab::Expand::Down => self.move_by(1),
            tests_tab::Expand::Case => self.focus = Pane::Live,
            tests_tab::Expand::Nothing => {}
        }
    }

    pub(super) fn open(&mut self) -> Vec<Effect> {
        match (self.tab, self.focus) {
            (_, Pane::Live) => {
                if let Some((title, lines)) = self.live.data() {
                    self.layers.open(Overlay::Data {
                        title,
                        lines,
                        scroll: 0,
                    });
                }
            }
            (_, Pane::Artifacts) => {
                // a trace opens in the trace pane (`o` still hands it to its opener)
                return answer!(self, |cx| super::features::open_trace(&mut cx)).1;
            }
            (Tab::Tests, _) => match self.tests.toggle() {
                tests_tab::Expand::Case => self.focus = Pane::Live,
                tests_tab::Expand::Rebuilt => self.clamp(),
                _ => {}
            },
            (Tab::Runs, _) => self.focus = Pane::Live,
            (Tab::Catalog, _) => {}
        }
        self.selection_changed()
    }

    /// Put the cursor on the tree node `key` (a folder scope or `scope/caseId`),
    /// opening its folders.
    pub fn jump_to(&mut self, key: &str) -> bool {
        if !self.tests.jump_to(key) {
            return false;
        }
        self.tab = Tab::Tests;
        self.focus = Pane::Tree;
        self.clamp();
        true
    }

    /// Put the cursor on case `c`, in its own tab.
    pub fn jump_to_case(&mut self, c: &CaseRef) -> bool {
        let CaseRef::Catalog(id) = c else {
            return self.jump_to(&c.target());
        };
        let Some(cat) = self.domain.ws().and_then(|w| w.catalog.as_ref()) else {
            return false;
        };
        if !self.catalog.jump_to(cat, id) {
            return false;
        }
        self.tab = Tab::Catalog;
        self.focus = Pane::Tree;
        self.clamp();
        true
    }
}
