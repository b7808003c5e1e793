//! The case rows every shell shows: the tests tree's cases plus orphans (logged cases
//! whose test file is gone), with what the logs say about each, and the tree of them.

use super::Workspace;
use super::logs::RunStatus;
use crate::sanitize::escape;

/// A case of either source, as every shell names it: a tests-tree case by its scope
/// and caseId, or a catalog case (or category) by its id.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CaseRef {
    /// A tests-tree case.
    Tests {
        /// Its scope: its folders under `tests/`.
        scope: String,
        /// Its caseId.
        case_id: String,
    },
    /// A catalog case (or category) by its id.
    Catalog(String),
}

impl CaseRef {
    /// The tests case of key `scope/caseId` (the caseId is the last segment).
    pub fn tests_key(key: &str) -> CaseRef {
        let (scope, case_id) = key.rsplit_once('/').unwrap_or(("", key));
        CaseRef::Tests {
            scope: scope.to_owned(),
            case_id: case_id.to_owned(),
        }
    }

    /// The catalog id, for a catalog case.
    pub fn catalog_id(&self) -> Option<&str> {
        match self {
            CaseRef::Catalog(id) => Some(id),
            CaseRef::Tests { .. } => None,
        }
    }

    /// `scope/caseId` for a tests case, the id for a catalog case: what `run` and
    /// `watch` take on their command line.
    pub fn target(&self) -> String {
        match self {
            CaseRef::Tests { scope, case_id } => super::tree::key(scope, case_id),
            CaseRef::Catalog(id) => id.clone(),
        }
    }
}

impl CaseRow {
    /// This row as a case reference.
    pub fn case_ref(&self) -> CaseRef {
        CaseRef::Tests {
            scope: self.scope.clone(),
            case_id: self.case_id.clone(),
        }
    }
}

/// One case of the tests tree, with what the logs say about it.
#[derive(Debug, Clone)]
pub struct CaseRow {
    /// `scope/caseId`.
    pub key: String,
    /// The case's `caseId`.
    pub case_id: String,
    /// The scope: the case's folder under `tests/`, with `/`.
    pub scope: String,
    /// Index into `ws.tests.cases`; `None` for an orphan (logs without a test file).
    pub test: Option<usize>,
    /// Under `tests/temp/`: non-gating, in no statistic.
    pub temp: bool,
    /// Under a `live/` folder: calls a real model, needs explicit confirmation.
    pub live: bool,
    /// Its caseId appears in `doc/test-plan/**`.
    pub registered: bool,
    /// The status of its newest finished run, if any.
    pub latest: Option<RunStatus>,
    /// Finished runs.
    pub runs: usize,
    /// Index range into `ws.logs.runs` (oldest first).
    pub run_range: (usize, usize),
}

impl CaseRow {
    /// Whether its logs have no test file (the case was removed).
    pub fn orphan(&self) -> bool {
        self.test.is_none()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
/// What a [`TreeNode`] is.
pub enum NodeKind {
    /// A folder of the tests tree (a scope or part of one).
    Folder,
    /// A case: an index into the case rows.
    Case(usize),
}

/// One row of the tests tree (depth-first order).
#[derive(Debug, Clone)]
pub struct TreeNode {
    /// The scope for a folder, `scope/caseId` for a case (the stats path).
    pub key: String,
    /// Sanitized display name.
    pub label: String,
    /// Nesting depth, 0 at the top.
    pub depth: usize,
    /// The index of the parent folder's node, `None` at the top.
    pub parent: Option<usize>,
    /// Folder or case.
    pub kind: NodeKind,
    /// Cases under a folder.
    pub count: usize,
    /// Cases under a folder whose latest run failed.
    pub failing: usize,
}

/// The cases of the tests tree plus orphans (logged cases whose file is gone).
pub fn case_rows(ws: &Workspace) -> Vec<CaseRow> {
    let runs = &ws.logs.runs;
    let range_of = |scope: &str, case_id: &str| run_range(runs, scope, case_id);
    let summary_of = |range: (usize, usize)| summary(&runs[range.0..range.1]);
    let mut rows = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, c) in ws.tests.cases.iter().enumerate() {
        let key = c.key();
        if !seen.insert(key.clone()) {
            continue;
        }
        let range = range_of(&c.scope, &c.case_id);
        let (latest, n) = summary_of(range);
        rows.push(CaseRow {
            key,
            case_id: c.case_id.clone(),
            scope: c.scope.clone(),
            test: Some(i),
            temp: c.temp,
            live: c.live,
            registered: c.registered,
            latest,
            runs: n,
            run_range: range,
        });
    }
    for range in orphan_ranges(ws) {
        let r = &runs[range.0];
        let (latest, n) = summary_of(range);
        rows.push(CaseRow {
            key: r.key(),
            case_id: r.case_id.to_string(),
            scope: r.scope.to_string(),
            test: None,
            temp: r.is_temp(),
            live: r.scope.split('/').skip(1).any(|s| s == "live"),
            registered: r.is_temp() || ws.plan.is_registered(&r.case_id),
            latest,
            runs: n,
            run_range: range,
        });
    }
    rows
}

/// The index range in `runs` (sorted as [`super::logs::Logs::runs`]) of the
/// runs of the case `scope` / `case_id`.
pub fn run_range(runs: &[super::logs::RawRun], scope: &str, case_id: &str) -> (usize, usize) {
    let s = runs.partition_point(|r| (&*r.scope, &*r.case_id) < (scope, case_id));
    let e = s + runs[s..]
        .iter()
        .take_while(|r| &*r.scope == scope && &*r.case_id == case_id)
        .count();
    (s, e)
}

/// What a case's row says of its runs (oldest first): the status its badge
/// shows and how many finished.
pub fn summary(runs: &[super::logs::RawRun]) -> (Option<RunStatus>, usize) {
    let latest = runs
        .iter()
        .rev()
        .find(|r| r.status.is_finished())
        .map(|r| r.status);
    // the newest run without an outcome (running, cancelled, abandoned) is
    // what the badge says; the rate still comes from finished runs only
    let latest = match runs.last() {
        Some(r) if !r.status.is_finished() => Some(r.status),
        _ => latest,
    };
    (
        latest,
        runs.iter().filter(|r| r.status.is_finished()).count(),
    )
}

/// The orphans: logged cases whose test file is gone, each as the index range of
/// its runs in `ws.logs.runs` (oldest first), in the logs' order.
pub fn orphan_ranges(ws: &Workspace) -> Vec<(usize, usize)> {
    let known: std::collections::HashSet<String> = ws
        .tests
        .cases
        .iter()
        .map(super::tree::TestCase::key)
        .collect();
    let runs = &ws.logs.runs;
    let mut out = Vec::new();
    let mut i = 0;
    while i < runs.len() {
        let r = &runs[i];
        let s = runs.partition_point(|x| (&*x.scope, &*x.case_id) < (&*r.scope, &*r.case_id));
        let e = s + ws.logs.of_case(&r.scope, &r.case_id).count();
        let range = (s, e);
        i = e.max(i + 1);
        if !known.contains(&r.key()) {
            out.push(range);
        }
    }
    out
}

/// The tree in depth-first order: folders before the cases beside them.
pub fn build_tree(cases: &[CaseRow]) -> Vec<TreeNode> {
    let sort_key = |c: &CaseRow| -> Vec<String> {
        let mut v: Vec<String> = c
            .scope
            .split('/')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        // a case sorts after the sub-folders of its folder
        v.push(format!("\u{10ffff}{}", c.case_id));
        v
    };
    let mut order: Vec<(Vec<String>, usize)> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| (sort_key(c), i))
        .collect();
    order.sort();
    let mut nodes: Vec<TreeNode> = Vec::new();
    let mut stack: Vec<(String, usize)> = Vec::new(); // (segment, node index)
    for (segs, ci) in order {
        let folders = &segs[..segs.len() - 1];
        let common = stack
            .iter()
            .zip(folders)
            .take_while(|((s, _), f)| s == *f)
            .count();
        stack.truncate(common);
        for (d, seg) in folders.iter().enumerate().skip(common) {
            let key = folders[..=d].join("/");
            nodes.push(TreeNode {
                key,
                label: escape(seg).into_owned(),
                depth: d,
                parent: stack.last().map(|(_, i)| *i),
                kind: NodeKind::Folder,
                count: 0,
                failing: 0,
            });
            stack.push((seg.clone(), nodes.len() - 1));
        }
        for (_, i) in &stack {
            nodes[*i].count += 1;
        }
        let c = &cases[ci];
        nodes.push(TreeNode {
            key: c.key.clone(),
            label: escape(&c.case_id).into_owned(),
            depth: folders.len(),
            parent: stack.last().map(|(_, i)| *i),
            kind: NodeKind::Case(ci),
            count: 1,
            failing: 0,
        });
    }
    nodes
}

/// Count, in each folder, the cases under it whose latest run failed.
pub fn count_failing(nodes: &mut [TreeNode], cases: &[CaseRow]) {
    for n in nodes.iter_mut() {
        if n.kind == NodeKind::Folder {
            n.failing = 0;
        }
    }
    let failing: Vec<usize> = nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| match n.kind {
            NodeKind::Case(c) if cases[c].latest == Some(RunStatus::Failed) => Some(i),
            _ => None,
        })
        .collect();
    for i in failing {
        let mut p = nodes[i].parent;
        while let Some(j) = p {
            nodes[j].failing += 1;
            p = nodes[j].parent;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_ref_names_its_case_as_run_takes_it() {
        let t = CaseRef::tests_key("kb/backend/search/kb-search-empty");
        assert_eq!(
            t,
            CaseRef::Tests {
                scope: "kb/backend/search".into(),
                case_id: "kb-search-empty".into()
            }
        );
        assert_eq!(t.target(), "kb/backend/search/kb-search-empty");
        assert_eq!(t.catalog_id(), None);
        assert_eq!(CaseRef::tests_key("top").target(), "top");
        let c = CaseRef::Catalog("TC-CLI-001".into());
        assert_eq!(
            (c.target().as_str(), c.catalog_id()),
            ("TC-CLI-001", Some("TC-CLI-001"))
        );
    }

    #[test]
    fn tree_is_depth_first_with_counts() {
        let row = |scope: &str, id: &str| CaseRow {
            key: format!("{scope}/{id}"),
            case_id: id.into(),
            scope: scope.into(),
            test: Some(0),
            temp: false,
            live: false,
            registered: true,
            latest: None,
            runs: 0,
            run_range: (0, 0),
        };
        let cases = vec![row("a/b", "x"), row("a", "y"), row("a/b/c", "z")];
        let t = build_tree(&cases);
        let labels: Vec<(usize, &str, usize)> = t
            .iter()
            .map(|n| (n.depth, n.label.as_str(), n.count))
            .collect();
        assert_eq!(
            labels,
            [
                (0, "a", 3),
                (1, "b", 2),
                (2, "c", 1),
                (3, "z", 1),
                (2, "x", 1),
                (1, "y", 1)
            ]
        );
    }
}
