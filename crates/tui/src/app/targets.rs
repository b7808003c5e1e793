//! The marked cases, and what `r` and `w` act on: the marks of both sources, or
//! else the selection (a folder or a category: every case under it).

use super::pane::Shared;
use super::{CaseRef, CaseRow, NodeKind, Tab};
use std::collections::{BTreeSet, HashMap, HashSet};

/// The cases of both sources marked.
pub(super) type Marks = BTreeSet<CaseRef>;

/// What `r` launches: the `marks`, or else the selection in `s`.
pub(super) fn launch_targets(
    marks: &Marks,
    s: &Shared,
) -> (Vec<(String, Option<String>)>, Vec<String>) {
    let mut tests = Vec::new();
    let mut catalog = Vec::new();
    let by_key: HashMap<&str, &CaseRow> = s
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
    if !marks.is_empty() {
        for m in marks {
            if let Some(id) = m.catalog_id() {
                catalog.push(id.to_owned());
            } else if let Some(c) = by_key.get(m.target().as_str()) {
                add_case(c, &mut tests);
            }
        }
        return (tests, catalog);
    }
    match s.tab {
        Tab::Tests => match s
            .tests
            .selected_node()
            .map(|n| (n.kind.clone(), n.key.clone()))
        {
            Some((NodeKind::Case(c), _)) => add_case(&s.tests.cases()[c], &mut tests),
            Some((NodeKind::Folder, key)) => tests.push((key, None)),
            None => {}
        },
        Tab::Catalog => {
            let cat = s.ws.and_then(|w| w.catalog.as_ref());
            catalog.extend(cat.and_then(|cat| s.catalog.launch_id(cat)));
        }
        Tab::Runs => {
            if let Some(c) = s.selected_run().and_then(|r| by_key.get(r.key().as_str())) {
                add_case(c, &mut tests);
            }
        }
    }
    (tests, catalog)
}

/// The cases `w` acts on: the `marks`, or the selection in `s` (a folder or
/// category: every case under it).
pub(super) fn watch_targets(marks: &Marks, s: &Shared) -> Vec<CaseRef> {
    if !marks.is_empty() {
        let known: HashSet<CaseRef> = s
            .tests
            .cases()
            .iter()
            .filter(|c| !c.orphan())
            .map(CaseRow::case_ref)
            .collect();
        return marks
            .iter()
            .filter(|m| m.catalog_id().is_some() || known.contains(m))
            .cloned()
            .collect();
    }
    let Some(ws) = s.ws else {
        return Vec::new();
    };
    match s.tab {
        Tab::Tests => {
            let Some(&ni) = s.tests.visible().get(s.tests.list().cursor) else {
                return Vec::new();
            };
            s.tests
                .cases_under(ni, false)
                .into_iter()
                .map(CaseRow::case_ref)
                .collect()
        }
        Tab::Catalog => ws.catalog.as_ref().map_or_else(Vec::new, |cat| {
            s.catalog
                .selected_ids(cat)
                .into_iter()
                .map(CaseRef::Catalog)
                .collect()
        }),
        Tab::Runs => s
            .selected_run()
            .and_then(|r| s.tests.case(&r.key()))
            .filter(|c| !c.orphan())
            .map(CaseRow::case_ref)
            .into_iter()
            .collect(),
    }
}

/// `m`: the cases to mark or unmark — the catalog case selected, or every case
/// under the tree node — or `None` when the tab has nothing to mark.
pub(super) fn to_mark(s: &Shared) -> Option<Vec<CaseRef>> {
    match s.tab {
        Tab::Catalog => Some(
            s.selected_catalog_case()
                .map(|c| CaseRef::Catalog(c.id.clone()))
                .into_iter()
                .collect(),
        ),
        Tab::Tests => {
            let &ni = s.tests.visible().get(s.tests.list().cursor)?;
            Some(
                s.tests
                    .cases_under(ni, true)
                    .into_iter()
                    .map(CaseRow::case_ref)
                    .collect(),
            )
        }
        Tab::Runs => None,
    }
}

/// Mark `keys`, or unmark them when all are marked already.
pub(super) fn toggle(marks: &mut Marks, keys: Vec<CaseRef>) {
    let all = keys.iter().all(|k| marks.contains(k));
    for k in keys {
        if all {
            marks.remove(&k);
        } else {
            marks.insert(k);
        }
    }
}
