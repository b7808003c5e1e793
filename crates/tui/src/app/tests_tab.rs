//! The Tests tab: the case rows and their tree, which folders are open, the rows
//! shown and the cursor over them, the order cases are shown in (`S`), and each
//! node's statistics with the figures of its history (stale by the change times
//! read off the loop).

use super::list::{ListPane, ListState};
use std::collections::{BTreeSet, HashMap};
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::cases::{self, CaseRow, NodeKind, TreeNode};
use testdeck_core::workspace::insights::{CaseFigures, ChangeTimes};
use testdeck_core::workspace::logs::{RunMoves, RunStatus};
use testdeck_core::workspace::stats::{self, NodeStats, Window};
use testdeck_core::workspace::tree;

#[derive(Debug, Default)]
pub struct TestsTab {
    cases: Vec<CaseRow>,
    nodes: Vec<TreeNode>,
    expanded: BTreeSet<String>,
    /// Indices into `nodes` shown, in order.
    visible: Vec<usize>,
    list: ListState,
    stats: HashMap<String, NodeStats>,
    /// When each case's files last changed (`None` until read off the loop).
    change_times: Option<ChangeTimes>,
    /// The order cases are shown in within each folder.
    sort: Sort,
    /// Indices into `nodes` in the order shown (depth first, each folder's cases
    /// sorted by `sort`; folders keep their place).
    order: Vec<usize>,
    /// Each case row by its key (`scope/caseId`).
    by_key: HashMap<String, usize>,
}

/// What orders the cases of each folder (`S` cycles them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Sort {
    /// The tree's own order (by file name).
    #[default]
    Name,
    /// Latest status: failed first, then abandoned, cancelled, running, passed, never run.
    Status,
    /// Median duration of the last runs, slowest first.
    Duration,
    /// Flaky score, flakiest first.
    Flakiness,
    /// When the latest run started, newest first.
    Recency,
}

impl Sort {
    /// The next sort of the cycle.
    #[must_use]
    pub fn next(self) -> Sort {
        match self {
            Sort::Name => Sort::Status,
            Sort::Status => Sort::Duration,
            Sort::Duration => Sort::Flakiness,
            Sort::Flakiness => Sort::Recency,
            Sort::Recency => Sort::Name,
        }
    }

    /// How the tree's title names it.
    pub fn name(self) -> &'static str {
        match self {
            Sort::Name => "name",
            Sort::Status => "status",
            Sort::Duration => "duration",
            Sort::Flakiness => "flakiness",
            Sort::Recency => "recency",
        }
    }
}

/// A case's rank under a sort: smaller first, ties in the tree's order.
fn rank(sort: Sort, c: &CaseRow, f: Option<&CaseFigures>) -> (u8, i64, i64) {
    let neg = |v: u64| -i64::try_from(v).unwrap_or(i64::MAX);
    match sort {
        Sort::Name => (0, 0, 0),
        Sort::Status => {
            let r = match c.latest {
                Some(RunStatus::Failed) => 0,
                Some(RunStatus::Abandoned) => 1,
                Some(RunStatus::Cancelled) => 2,
                Some(RunStatus::InProgress) => 3,
                Some(RunStatus::Passed) => 4,
                None => 5,
            };
            (r, 0, 0)
        }
        Sort::Duration => match f.and_then(|f| f.duration_ms.median) {
            Some(m) => (0, neg(m), 0),
            None => (1, 0, 0),
        },
        Sort::Flakiness => match f.and_then(|f| f.flaky_score) {
            // three decimals: a whole number keeps the order
            Some(s) => (
                0,
                -((s * 1000.0).round() as i64),
                neg(f.map_or(0, |f| f.flips)),
            ),
            None => (1, 0, 0),
        },
        Sort::Recency => match f.and_then(|f| f.latest_start) {
            Some(t) => (0, -t.timestamp_millis(), 0),
            None => (1, 0, 0),
        },
    }
}

/// What `l` / Enter did on the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expand {
    /// A folder opened or closed: the rows changed.
    Rebuilt,
    /// A folder already open: go down into it.
    Down,
    /// A case: its run is in the live pane.
    Case,
    Nothing,
}

impl TestsTab {
    /// The case rows (a case node holds an index into them).
    pub fn cases(&self) -> &[CaseRow] {
        &self.cases
    }

    /// The tree: folders and cases, depth first.
    pub fn nodes(&self) -> &[TreeNode] {
        &self.nodes
    }

    /// The keys of the open folders.
    pub fn expanded(&self) -> &BTreeSet<String> {
        &self.expanded
    }

    /// Indices into `nodes` shown, in order.
    pub fn visible(&self) -> &[usize] {
        &self.visible
    }

    /// The cursor and scroll over the rows shown.
    pub fn list(&self) -> &ListState {
        &self.list
    }

    /// Each node's statistics, by its key.
    pub fn stats(&self) -> &HashMap<String, NodeStats> {
        &self.stats
    }

    /// The figures of the case `key` (`scope/caseId`), when it has them.
    pub fn figures(&self, key: &str) -> Option<&CaseFigures> {
        self.stats.get(key)?.figures.as_ref()
    }

    /// When each case's files last changed (`None` until read).
    pub fn change_times(&self) -> Option<&ChangeTimes> {
        self.change_times.as_ref()
    }

    /// The order cases are shown in.
    pub fn sort(&self) -> Sort {
        self.sort
    }

    /// `S`: the next sort; the selection kept.
    pub fn cycle_sort(&mut self) -> Sort {
        self.sort = self.sort.next();
        self.reorder();
        self.sort
    }

    /// The change times read off the loop: the stale figures follow them.
    pub fn set_change_times(&mut self, ws: &Workspace, t: ChangeTimes) {
        self.change_times = Some(t);
        self.compute_stats(ws);
        self.reorder();
    }

    fn compute_stats(&mut self, ws: &Workspace) {
        let window = Window::default();
        let settings = &ws.config.insights;
        let changes = self.change_times.as_ref();
        self.stats = stats::compute_with(&ws.tests, &ws.logs, &window, settings, changes)
            .into_iter()
            .map(|n| (n.path.clone(), n))
            .collect();
    }

    /// The nodes in the order shown: each folder's children in the tree's order,
    /// its cases (in the places cases hold) sorted by `sort`.
    fn reorder(&mut self) {
        let n = self.nodes.len();
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
        for (i, node) in self.nodes.iter().enumerate() {
            children[node.parent.unwrap_or(n)].push(i);
        }
        if self.sort != Sort::Name {
            for kids in &mut children {
                let slots: Vec<usize> = (0..kids.len())
                    .filter(|&k| matches!(self.nodes[kids[k]].kind, NodeKind::Case(_)))
                    .collect();
                let mut cases: Vec<usize> = slots.iter().map(|&k| kids[k]).collect();
                cases.sort_by_key(|&i| match self.nodes[i].kind {
                    NodeKind::Case(c) => {
                        let row = &self.cases[c];
                        rank(self.sort, row, self.figures(&row.key))
                    }
                    NodeKind::Folder => (0, 0, 0),
                });
                for (k, i) in slots.into_iter().zip(cases) {
                    kids[k] = i;
                }
            }
        }
        self.order.clear();
        let mut stack: Vec<usize> = children[n].iter().rev().copied().collect();
        while let Some(i) = stack.pop() {
            self.order.push(i);
            stack.extend(children[i].iter().rev());
        }
        self.rebuild_visible();
    }

    /// Install a workspace's cases; a reload keeps the open folders and the selection.
    pub fn install(&mut self, ws: &Workspace, reload: bool) {
        self.install_as(ws, reload, false);
    }

    /// [`TestsTab::install`] of the tree whose first rows were installed (the
    /// walk's first results): the person's place and what they opened or
    /// closed kept, and the folders new to it opened as a first install opens
    /// them, so the whole tree shows as if it had come at once.
    pub fn install_grown(&mut self, ws: &Workspace) {
        self.install_as(ws, true, true);
    }

    fn install_as(&mut self, ws: &Workspace, reload: bool, grown: bool) {
        let keep_key = self.selected_node().map(|n| n.key.clone());
        let mut keep_expanded = std::mem::take(&mut self.expanded);
        let known: std::collections::HashSet<String> = if grown {
            self.nodes.iter().map(|n| n.key.clone()).collect()
        } else {
            std::collections::HashSet::new()
        };
        self.build_rows(ws);
        self.compute_stats(ws);
        if grown {
            keep_expanded.extend(
                self.nodes
                    .iter()
                    .filter(|n| {
                        n.kind == NodeKind::Folder && n.depth < 2 && !known.contains(&n.key)
                    })
                    .map(|n| n.key.clone()),
            );
        }
        if reload {
            self.expanded = keep_expanded;
            self.list.cursor = 0;
            self.reorder();
            if let Some(k) = keep_key {
                if let Some(p) = self.position(&k) {
                    self.list.cursor = p;
                }
            }
        } else {
            // open the first two levels so the first frame shows structure
            self.expanded = self
                .nodes
                .iter()
                .filter(|n| n.kind == NodeKind::Folder && n.depth < 2)
                .map(|n| n.key.clone())
                .collect();
            self.reorder();
            self.list.cursor = 0;
        }
    }

    /// The rows, their keys, the tree and its failing counts, from `ws`.
    fn build_rows(&mut self, ws: &Workspace) {
        self.cases = cases::case_rows(ws);
        self.by_key = self
            .cases
            .iter()
            .enumerate()
            .map(|(i, c)| (c.key.clone(), i))
            .collect();
        self.nodes = cases::build_tree(&self.cases);
        cases::count_failing(&mut self.nodes, &self.cases);
    }

    /// The cases of the tests tree changed (a case file came or went, the plan
    /// changed) and maybe the runs of `cases`, applied to `ws` already: the rows and
    /// the tree are built again (the open folders and the selection kept), the
    /// figures only of the cases that came, went, became or stopped being
    /// orphans, or whose runs changed — by the difference, as
    /// [`TestsTab::runs_changed`] does.
    pub fn reshape(&mut self, ws: &Workspace, cases: &BTreeSet<(String, String)>) {
        let keep_key = self.selected_node().map(|n| n.key.clone());
        let known = |c: &CaseRow| !c.orphan() && !c.temp;
        let before: HashMap<String, bool> = self
            .cases
            .iter()
            .map(|c| (c.key.clone(), known(c)))
            .collect();
        self.build_rows(ws);
        let mut keys: BTreeSet<String> = cases
            .iter()
            .map(|(scope, case_id)| tree::key(scope, case_id))
            .collect();
        for c in &self.cases {
            if before.get(&c.key) != Some(&known(c)) {
                keys.insert(c.key.clone());
            }
        }
        keys.extend(
            before
                .keys()
                .filter(|k| !self.by_key.contains_key(*k))
                .cloned(),
        );
        let settings = &ws.config.insights;
        for key in &keys {
            let node = self.by_key.get(key).and_then(|&i| {
                let row = &self.cases[i];
                let mine = &ws.logs.runs[row.run_range.0..row.run_range.1];
                stats::case_node(key, mine, known(row), settings, self.change_times.as_ref())
            });
            stats::apply_case(&mut self.stats, key, node);
        }
        self.list.cursor = 0;
        self.reorder();
        if let Some(p) = keep_key.and_then(|k| self.position(&k)) {
            self.list.cursor = p;
        }
    }

    fn position(&self, key: &str) -> Option<usize> {
        self.visible.iter().position(|&i| self.nodes[i].key == key)
    }

    /// The rows shown: every node whose folders are all open (the selection kept).
    pub fn rebuild_visible(&mut self) {
        let keep = self.selected_node().map(|n| n.key.clone());
        self.visible.clear();
        let mut skip_below: Option<usize> = None;
        for &i in &self.order {
            let n = &self.nodes[i];
            if let Some(d) = skip_below {
                if n.depth > d {
                    continue;
                }
                skip_below = None;
            }
            self.visible.push(i);
            if n.kind == NodeKind::Folder && !self.expanded.contains(&n.key) {
                skip_below = Some(n.depth);
            }
        }
        if let Some(p) = keep.and_then(|k| self.position(&k)) {
            self.list.cursor = p;
        }
        self.list.clamp_to(self.visible.len());
    }

    /// The tree node under the cursor.
    pub fn selected_node(&self) -> Option<&TreeNode> {
        self.visible
            .get(self.list.cursor)
            .and_then(|&i| self.nodes.get(i))
    }

    pub fn selected_case(&self) -> Option<&CaseRow> {
        match self.selected_node()?.kind {
            NodeKind::Case(c) => self.cases.get(c),
            NodeKind::Folder => None,
        }
    }

    /// `h`: close the folder, or go to the parent.
    pub fn collapse(&mut self) {
        let Some(n) = self.selected_node().cloned() else {
            return;
        };
        if n.kind == NodeKind::Folder && self.expanded.remove(&n.key) {
            self.rebuild_visible();
        } else if let Some(p) = n.parent {
            if let Some(pos) = self.visible.iter().position(|&i| i == p) {
                self.list.cursor = pos;
            }
        }
    }

    /// `L`: every folder open, the selection kept.
    pub fn expand_all(&mut self) {
        self.expanded = self
            .nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Folder)
            .map(|n| n.key.clone())
            .collect();
        self.rebuild_visible();
    }

    /// `H`: every folder closed; the cursor on the top-level folder that held
    /// the selection.
    pub fn collapse_all(&mut self) {
        let mut top = self.visible.get(self.list.cursor).copied();
        while let Some(p) = top.and_then(|i| self.nodes[i].parent) {
            top = Some(p);
        }
        self.expanded.clear();
        self.rebuild_visible();
        if let Some(pos) = top.and_then(|t| self.visible.iter().position(|&i| i == t)) {
            self.list.cursor = pos;
        }
    }

    /// `l`: open the folder (or go into an open one).
    pub fn expand(&mut self) -> Expand {
        let Some(n) = self.selected_node().cloned() else {
            return Expand::Nothing;
        };
        if n.kind != NodeKind::Folder {
            return Expand::Case;
        }
        if self.expanded.insert(n.key) {
            self.rebuild_visible();
            Expand::Rebuilt
        } else {
            Expand::Down
        }
    }

    /// Enter: open or close the folder; on a case, nothing changes here.
    pub fn toggle(&mut self) -> Expand {
        let Some(n) = self.selected_node().cloned() else {
            return Expand::Nothing;
        };
        if n.kind != NodeKind::Folder {
            return Expand::Case;
        }
        if !self.expanded.remove(&n.key) {
            self.expanded.insert(n.key);
        }
        self.rebuild_visible();
        Expand::Rebuilt
    }

    /// The cases under node `ni` (itself for a case), keeping orphans when `orphans`.
    pub fn cases_under(&self, ni: usize, orphans: bool) -> Vec<&CaseRow> {
        let n = &self.nodes[ni];
        let keep = |c: usize| Some(&self.cases[c]).filter(|c| orphans || !c.orphan());
        if let NodeKind::Case(c) = n.kind {
            return keep(c).into_iter().collect();
        }
        self.nodes[ni + 1..]
            .iter()
            .take_while(|m| m.depth > n.depth)
            .filter_map(|m| match m.kind {
                NodeKind::Case(c) => keep(c),
                NodeKind::Folder => None,
            })
            .collect()
    }

    /// Put the cursor on the node `key`, opening its folders.
    pub fn jump_to(&mut self, key: &str) -> bool {
        let Some(i) = self.nodes.iter().position(|n| n.key == key) else {
            return false;
        };
        let mut p = self.nodes[i].parent;
        while let Some(j) = p {
            self.expanded.insert(self.nodes[j].key.clone());
            p = self.nodes[j].parent;
        }
        self.rebuild_visible();
        if let Some(pos) = self.visible.iter().position(|&v| v == i) {
            self.list.cursor = pos;
        }
        true
    }

    /// A launch's case `id` started in tab `tab` and the live pane shows it: a
    /// cursor on a case (Tests tab) moves to it (the details and the timeline
    /// show the same case while a launch goes from case to case); on a folder
    /// it stays.
    pub fn follow_launch(&mut self, tab: super::Tab, id: &str) {
        if tab == super::Tab::Tests && self.selected_case().is_some() {
            self.jump_to(id);
        }
    }

    /// The case row of a tests key `scope/caseId`.
    pub fn case(&self, key: &str) -> Option<&CaseRow> {
        self.by_key.get(key).and_then(|&i| self.cases.get(i))
    }

    /// Whether the changed runs of `cases` (scope, caseId: `RunMoves::cases`,
    /// applied to `ws` already) can be taken by [`TestsTab::runs_changed`]:
    /// `false` when a case's row would come or go (an orphan's first run, or its last run deleted), which the
    /// tree's shape follows only by an install.
    pub fn takes_runs(&self, ws: &Workspace, cases: &BTreeSet<(String, String)>) -> bool {
        cases.iter().all(|(scope, case_id)| {
            let has_runs = ws.logs.of_case(scope, case_id).next().is_some();
            match self.by_key.get(&tree::key(scope, case_id)) {
                Some(&i) => has_runs || !self.cases[i].orphan(),
                None => !has_runs,
            }
        })
    }

    /// Runs changed as `moves` says, those of `cases` (applied to `ws` already;
    /// see [`TestsTab::takes_runs`]): each changed case's row, its statistics and
    /// those of its folders by the difference, the failing counts, the other
    /// rows' run ranges moved — no row, node or other case's figures built again.
    pub fn runs_changed(
        &mut self,
        ws: &Workspace,
        moves: &RunMoves,
        cases: &BTreeSet<(String, String)>,
    ) {
        let runs = &ws.logs.runs;
        let keys: std::collections::HashSet<String> = cases
            .iter()
            .map(|(scope, case_id)| tree::key(scope, case_id))
            .collect();
        // the other rows keep their runs, which moved when runs came or went
        if moves.moved() {
            let map = moves.map(moves.len_before(runs.len()));
            for row in &mut self.cases {
                if keys.contains(&row.key) {
                    continue;
                }
                let (s, e) = row.run_range;
                row.run_range = match (map.get(s).copied().flatten(), e.checked_sub(1)) {
                    (Some(ns), Some(last)) if e > s => {
                        let ne = map.get(last).copied().flatten().map_or(ns, |l| l + 1);
                        (ns, ne)
                    }
                    // no runs: its place among the runs now
                    _ => cases::run_range(runs, &row.scope, &row.case_id),
                };
            }
        }
        let settings = &ws.config.insights;
        let mut failing_changed = false;
        for key in &keys {
            let Some(&i) = self.by_key.get(key) else {
                continue;
            };
            let row = &mut self.cases[i];
            row.run_range = cases::run_range(runs, &row.scope, &row.case_id);
            let mine = &runs[row.run_range.0..row.run_range.1];
            let (latest, n) = cases::summary(mine);
            failing_changed |=
                (row.latest == Some(RunStatus::Failed)) != (latest == Some(RunStatus::Failed));
            row.latest = latest;
            row.runs = n;
            let known = !row.orphan() && !row.temp;
            let node = stats::case_node(key, mine, known, settings, self.change_times.as_ref());
            stats::apply_case(&mut self.stats, key, node);
        }
        if failing_changed {
            cases::count_failing(&mut self.nodes, &self.cases);
        }
        if self.sort != Sort::Name {
            self.reorder();
        }
    }
}

impl ListPane for TestsTab {
    fn list_mut(&mut self) -> &mut ListState {
        &mut self.list
    }

    fn rows(&self) -> usize {
        self.visible.len()
    }

    /// The tree has its column header over the rows.
    fn header_rows(&self) -> usize {
        1
    }
}
