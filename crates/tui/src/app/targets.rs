//! The marked cases, and what `r` and `w` act on: the marks of both sources, or
//! else the selection (a folder or a category: every case under it).

use super::{App, CaseRef, CaseRow, NodeKind, Tab};
use std::collections::{HashMap, HashSet};

impl App {
    /// What `r` launches: the marked cases, or else the selection.
    pub(super) fn launch_targets(&self) -> (Vec<(String, Option<String>)>, Vec<String>) {
        let mut tests = Vec::new();
        let mut catalog = Vec::new();
        let by_key: HashMap<&str, &CaseRow> = self
            .tests
            .cases()
            .iter()
            .map(|c| (c.key.as_str(), c))
            .collect();
        let add_case = |c: &CaseRow, tests: &mut Vec<(String, Option<String>)>| {
            if !c.orphan() {
                tests.push((c.scope.clone(), Some(c.case_id.clone())));
            }
        };
        if !self.marks.is_empty() {
            for m in &self.marks {
                if let Some(id) = m.catalog_id() {
                    catalog.push(id.to_owned());
                } else if let Some(c) = by_key.get(m.target().as_str()) {
                    add_case(c, &mut tests);
                }
            }
            return (tests, catalog);
        }
        match self.tab {
            Tab::Tests => match self
                .tests
                .selected_node()
                .map(|n| (n.kind.clone(), n.key.clone()))
            {
                Some((NodeKind::Case(c), _)) => add_case(&self.tests.cases()[c], &mut tests),
                Some((NodeKind::Folder, key)) => tests.push((key, None)),
                None => {}
            },
            Tab::Catalog => {
                let cat = self.ws.as_ref().and_then(|w| w.catalog.as_ref());
                catalog.extend(cat.and_then(|cat| self.catalog.launch_id(cat)));
            }
            Tab::Runs => {
                if let Some(c) = self
                    .selected_run()
                    .and_then(|r| by_key.get(r.key().as_str()))
                {
                    add_case(c, &mut tests);
                }
            }
        }
        (tests, catalog)
    }

    /// The cases `w` acts on: the marked ones, or the selection (a folder or category:
    /// every case under it).
    pub(super) fn watch_targets(&self) -> Vec<CaseRef> {
        if !self.marks.is_empty() {
            let known: HashSet<CaseRef> = self
                .tests
                .cases()
                .iter()
                .filter(|c| !c.orphan())
                .map(CaseRow::case_ref)
                .collect();
            return self
                .marks
                .iter()
                .filter(|m| m.catalog_id().is_some() || known.contains(m))
                .cloned()
                .collect();
        }
        let Some(ws) = &self.ws else {
            return Vec::new();
        };
        match self.tab {
            Tab::Tests => {
                let Some(&ni) = self.tests.visible().get(self.tests.list().cursor) else {
                    return Vec::new();
                };
                self.tests
                    .cases_under(ni, false)
                    .into_iter()
                    .map(CaseRow::case_ref)
                    .collect()
            }
            Tab::Catalog => ws.catalog.as_ref().map_or_else(Vec::new, |cat| {
                self.catalog
                    .selected_ids(cat)
                    .into_iter()
                    .map(CaseRef::Catalog)
                    .collect()
            }),
            Tab::Runs => self
                .selected_run()
                .and_then(|r| self.tests.case(&r.key()))
                .filter(|c| !c.orphan())
                .map(CaseRow::case_ref)
                .into_iter()
                .collect(),
        }
    }

    /// `m`: mark or unmark the catalog case, or every case under the tree node
    /// (all marked already: unmarked), and go on to the next row.
    pub(super) fn mark_selected(&mut self) {
        if self.tab == Tab::Catalog {
            if let Some(id) = self
                .selected_catalog_case()
                .map(|c| CaseRef::Catalog(c.id.clone()))
            {
                if !self.marks.remove(&id) {
                    self.marks.insert(id);
                }
            }
            self.move_by(1);
            return;
        }
        if self.tab != Tab::Tests {
            return;
        }
        let Some(&ni) = self.tests.visible().get(self.tests.list().cursor) else {
            return;
        };
        let keys: Vec<CaseRef> = self
            .tests
            .cases_under(ni, true)
            .into_iter()
            .map(CaseRow::case_ref)
            .collect();
        let all = keys.iter().all(|k| self.marks.contains(k));
        for k in keys {
            if all {
                self.marks.remove(&k);
            } else {
                self.marks.insert(k);
            }
        }
        self.move_by(1);
    }
}
