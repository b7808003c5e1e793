//! Statistics (seed 000 §7): historical and latest pass rates for every node of the
//! tree, from `tests/logs/` alone; temp and in-progress runs excluded.

use super::config::Insights;
use super::insights::{CaseFigures, ChangeTimes, figures};
use super::logs::{Logs, RawRun, RunStatus};
use super::run_tests::TestCounts;
use super::tree::TestsTree;
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
/// The level of a statistics node: the root, a scope's folders (seed 000's `<domain>/<layer>/<suite>/<groups...>`), a case.
pub enum NodeKind {
    /// Every run of the workspace.
    Root,
    /// The first folder of a scope.
    Domain,
    /// The second folder of a scope.
    Layer,
    /// The third folder of a scope.
    Suite,
    /// A deeper folder of a scope.
    Group,
    /// One case.
    Case,
}

impl NodeKind {
    /// The kind of a folder at a depth below the root (1 = domain).
    pub(crate) fn of_depth(depth: usize) -> NodeKind {
        match depth {
            0 => NodeKind::Root,
            1 => NodeKind::Domain,
            2 => NodeKind::Layer,
            3 => NodeKind::Suite,
            _ => NodeKind::Group,
        }
    }
    /// The name shown and written in JSON (`root`, `domain`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Root => "root",
            NodeKind::Domain => "domain",
            NodeKind::Layer => "layer",
            NodeKind::Suite => "suite",
            NodeKind::Group => "group",
            NodeKind::Case => "case",
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
/// Every finished run under a node.
pub struct Historical {
    /// Finished runs.
    pub total_runs: u64,
    /// Runs whose `meta.json` says `passed`.
    pub passed_runs: u64,
    /// Runs whose `meta.json` says `failed`.
    pub failed_runs: u64,
    /// `passed_runs / total_runs`, `None` without runs.
    pub historical_success_rate: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
/// The newest finished run of each case under a node.
pub struct Latest {
    /// Cases with a finished run.
    pub latest_case_count: u64,
    /// Cases whose newest finished run passed.
    pub latest_passed_cases: u64,
    /// Cases whose newest finished run failed.
    pub latest_failed_cases: u64,
    /// `latest_passed_cases / latest_case_count`, `None` without cases.
    pub latest_success_rate: Option<f64>,
}

/// One node of the statistics tree.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeStats {
    /// `""` for the root, the scope for folders, `scope/caseId` for cases.
    pub path: String,
    /// Its level.
    pub kind: NodeKind,
    /// Over every finished run.
    pub historical: Historical,
    /// Over each case's newest finished run.
    pub latest: Latest,
    /// Flaky cases: a flaky score above the threshold of `[insights]` (by
    /// default: both outcomes in the last 10 finished runs); 1 or 0 for a case.
    pub flaky_cases: u64,
    /// Cases whose files changed after their latest run started (1 or 0 for a case).
    pub stale_cases: u64,
    /// For a case: its logs exist but its test file is gone.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub orphan: bool,
    /// The tests inside the case files, over each case's newest finished run
    /// (SPEC §1.2 *Tests inside a case file*): `None` where no such run says
    /// how many tests it held.
    pub tests: Option<TestCounts>,
    /// How many cases' newest runs add to `tests`.
    #[serde(skip)]
    pub tests_cases: u64,
    /// For a case: what its history says (durations, flips, failing streak, stale).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub figures: Option<CaseFigures>,
}

/// A percentage with one decimal, or `None` when there is nothing to divide.
pub(crate) fn rate(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| ((part as f64) * 1000.0 / (whole as f64)).round() / 10.0)
}

/// `70.2%`, or `—` for no rate.
pub fn fmt_rate(r: Option<f64>) -> String {
    r.map_or_else(|| "—".to_owned(), |r| format!("{r:.1}%"))
}

/// Options of a statistics computation.
#[derive(Debug, Clone, Default)]
pub struct Window {
    /// Only runs that started at or after this time.
    pub since: Option<DateTime<Utc>>,
    /// Only nodes at or under this scope (the root then sums that scope).
    pub scope: Option<String>,
}

impl Window {
    fn admits(&self, run: &RawRun) -> bool {
        !run.is_temp() && self.admits_any(run)
    }

    /// [`Window::admits`] for temp runs too (a case outside the tree's).
    fn admits_any(&self, run: &RawRun) -> bool {
        if !run.status.is_finished() {
            return false;
        }
        if let Some(scope) = &self.scope {
            let key = run.key();
            if !under(&key, scope) {
                return false;
            }
        }
        match self.since {
            Some(since) => run.start_time().is_some_and(|t| t >= since),
            None => true,
        }
    }
}

/// `path` is `scope` or below it.
pub fn under(path: &str, scope: &str) -> bool {
    let scope = scope.trim_matches('/');
    scope.is_empty()
        || path == scope
        || (path.starts_with(scope) && path.as_bytes().get(scope.len()) == Some(&b'/'))
}

/// One case's contribution: its chain of nodes, counts, latest status, figures,
/// orphan, its latest run's tests.
type Update = (
    Vec<Vec<String>>,
    Historical,
    Option<RunStatus>,
    CaseFigures,
    bool,
    Option<TestCounts>,
);

#[derive(Default)]
struct Acc {
    kind: Option<NodeKind>,
    h: Historical,
    l: Latest,
    flaky: u64,
    stale: u64,
    orphan: bool,
    figures: Option<CaseFigures>,
    tests: Option<TestCounts>,
    tests_cases: u64,
}

/// A run's outcome in the pass rates: a run that ran no test is no pass (it
/// counts failed, as the frameworks exit for it).
fn outcome(r: &RawRun) -> RunStatus {
    if r.status == RunStatus::Passed && r.no_tests().is_none() {
        RunStatus::Passed
    } else {
        RunStatus::Failed
    }
}

/// One case's counts, latest status and figures over `group`, its runs the
/// window admits (oldest first): the one home of what a case adds to its nodes.
fn case_figures(
    group: &[&RawRun],
    key: &str,
    settings: &Insights,
    changes: Option<&ChangeTimes>,
) -> (Historical, Option<RunStatus>, CaseFigures) {
    let mut h = Historical::default();
    for r in group {
        h.total_runs += 1;
        if outcome(r) == RunStatus::Passed {
            h.passed_runs += 1;
        } else {
            h.failed_runs += 1;
        }
    }
    let latest = group.last().map(|r| outcome(r));
    let mut f = figures(group, settings);
    f.stale = changes.is_some_and(|c| c.stale(key, f.latest_start));
    (h, latest, f)
}

/// The figures of each case outside the tree (SPEC §1.1a): in no pass rate
/// and no node of [`compute_with`], but insights include them, by their
/// `scope/caseId` (under `temp/outside/`), in logs order.
pub fn outside_figures(
    logs: &Logs,
    window: &Window,
    settings: &Insights,
    changes: Option<&ChangeTimes>,
) -> Vec<(String, CaseFigures)> {
    logs.runs
        .chunk_by(|a, b| a.scope == b.scope && a.case_id == b.case_id)
        .filter(|g| crate::outside::is_outside_scope(&g[0].scope))
        .filter_map(|g| {
            let admitted: Vec<&RawRun> = g.iter().filter(|r| window.admits_any(r)).collect();
            if admitted.is_empty() {
                return None;
            }
            let key = g[0].key();
            let (_, _, f) = case_figures(&admitted, &key, settings, changes);
            Some((key, f))
        })
        .collect()
}

/// The node of one case as [`compute_with`] (no window) gives it: from `runs`,
/// every run of the case (oldest first); `known` when the tests tree holds the
/// case (not under `temp/`). `None` when it has no node: an orphan without a
/// finished run, or a temp case.
pub fn case_node(
    key: &str,
    runs: &[RawRun],
    known: bool,
    settings: &Insights,
    changes: Option<&ChangeTimes>,
) -> Option<NodeStats> {
    let window = Window::default();
    let group: Vec<&RawRun> = runs.iter().filter(|r| window.admits(r)).collect();
    if group.is_empty() && !known {
        return None;
    }
    let tests = group.last().and_then(|r| r.test_counts()).copied();
    let (mut h, latest, f) = if group.is_empty() {
        (Historical::default(), None, CaseFigures::default())
    } else {
        case_figures(&group, key, settings, changes)
    };
    let mut l = Latest::default();
    add_latest(&mut l, latest, 1);
    h.historical_success_rate = rate(h.passed_runs, h.total_runs);
    l.latest_success_rate = rate(l.latest_passed_cases, l.latest_case_count);
    Some(NodeStats {
        path: key.to_owned(),
        kind: NodeKind::Case,
        historical: h,
        latest: l,
        flaky_cases: u64::from(f.flaky),
        stale_cases: u64::from(f.stale),
        orphan: !known,
        figures: Some(f),
        tests,
        tests_cases: u64::from(tests.is_some()),
    })
}

/// Count a case's latest status into `l`, `sign` times (-1 takes it out).
fn add_latest(l: &mut Latest, latest: Option<RunStatus>, sign: i64) {
    let add = |n: &mut u64| *n = n.saturating_add_signed(sign);
    if let Some(s) = latest {
        add(&mut l.latest_case_count);
        if s == RunStatus::Passed {
            add(&mut l.latest_passed_cases);
        } else {
            add(&mut l.latest_failed_cases);
        }
    }
}

/// Put a case's node `new` (from [`case_node`]) in place of the one `nodes`
/// holds for it (`key`: `scope/caseId`), and change each of its folders and the
/// root by the difference: no other case is looked at. A folder left with no
/// case below it goes, as in [`compute_with`].
pub fn apply_case<S: std::hash::BuildHasher>(
    nodes: &mut std::collections::HashMap<String, NodeStats, S>,
    key: &str,
    new: Option<NodeStats>,
) {
    let old = nodes.remove(key).filter(|n| n.kind == NodeKind::Case);
    if old.is_none() && new.is_none() {
        return;
    }
    let scope = key.rsplit_once('/').map_or("", |(s, _)| s);
    let segs: Vec<&str> = scope.split('/').filter(|s| !s.is_empty()).collect();
    let mut chain = vec![String::new()];
    for d in 1..=segs.len() {
        chain.push(segs[..d].join("/"));
    }
    for (d, path) in chain.iter().enumerate() {
        let n = nodes.entry(path.clone()).or_insert_with(|| NodeStats {
            path: path.clone(),
            kind: NodeKind::of_depth(d),
            historical: Historical::default(),
            latest: Latest::default(),
            flaky_cases: 0,
            stale_cases: 0,
            orphan: false,
            figures: None,
            tests: None,
            tests_cases: 0,
        });
        for (c, sign) in [(&old, -1i64), (&new, 1)] {
            let Some(c) = c else { continue };
            let add = |n: &mut u64, v: u64| {
                *n = if sign < 0 {
                    n.saturating_sub(v)
                } else {
                    n.saturating_add(v)
                };
            };
            add(&mut n.historical.total_runs, c.historical.total_runs);
            add(&mut n.historical.passed_runs, c.historical.passed_runs);
            add(&mut n.historical.failed_runs, c.historical.failed_runs);
            add(&mut n.latest.latest_case_count, c.latest.latest_case_count);
            add(
                &mut n.latest.latest_passed_cases,
                c.latest.latest_passed_cases,
            );
            add(
                &mut n.latest.latest_failed_cases,
                c.latest.latest_failed_cases,
            );
            add(&mut n.flaky_cases, c.flaky_cases);
            add(&mut n.stale_cases, c.stale_cases);
            add(&mut n.tests_cases, c.tests_cases);
            if let Some(t) = &c.tests {
                let mut sum = n.tests.unwrap_or_default();
                add(&mut sum.total, t.total);
                add(&mut sum.passed, t.passed);
                add(&mut sum.failed, t.failed);
                add(&mut sum.skipped, t.skipped);
                n.tests = Some(sum);
            }
        }
        if n.tests_cases == 0 {
            n.tests = None;
        }
        n.historical.historical_success_rate =
            rate(n.historical.passed_runs, n.historical.total_runs);
        n.latest.latest_success_rate =
            rate(n.latest.latest_passed_cases, n.latest.latest_case_count);
    }
    if let Some(n) = new {
        nodes.insert(key.to_owned(), n);
    } else {
        // a folder (never the root) with no case below it any more goes
        for path in chain.iter().skip(1).rev() {
            let prefix = format!("{path}/");
            if !nodes.keys().any(|k| k.starts_with(&prefix)) {
                nodes.remove(path);
            }
        }
    }
}

/// Compute every node with the default `[insights]` and no staleness. Nodes
/// come in tree order (root, then depth first).
pub fn compute(tree: &TestsTree, logs: &Logs, window: &Window) -> Vec<NodeStats> {
    compute_with(tree, logs, window, &Insights::default(), None)
}

/// Compute every node, each case with its figures ([`super::insights`]) under
/// `settings`, stale where `changes` says its files changed after its latest run.
#[expect(
    clippy::too_many_lines,
    reason = "one pass over the history accumulating every statistic together"
)]
pub fn compute_with(
    tree: &TestsTree,
    logs: &Logs,
    window: &Window,
    settings: &Insights,
    changes: Option<&ChangeTimes>,
) -> Vec<NodeStats> {
    let mut nodes: BTreeMap<Vec<String>, Acc> = BTreeMap::new();
    nodes.entry(Vec::new()).or_default().kind = Some(NodeKind::Root);
    let mut touch = |scope: &str, case_id: &str| -> Vec<Vec<String>> {
        // the chain of nodes from the root down to the case
        let segs: Vec<String> = scope
            .split('/')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        let mut chain = vec![Vec::new()];
        for d in 1..=segs.len() {
            let k = segs[..d].to_vec();
            let acc = nodes.entry(k.clone()).or_default();
            acc.kind.get_or_insert(NodeKind::of_depth(d));
            chain.push(k);
        }
        let mut k = segs;
        k.push(format!("\u{0}{case_id}"));
        nodes.entry(k.clone()).or_default().kind = Some(NodeKind::Case);
        chain.push(k);
        chain
    };
    // cases of the tree, so a case without runs still has its (empty) node
    let mut known = std::collections::HashSet::new();
    for c in &tree.cases {
        if c.temp {
            continue;
        }
        if let Some(scope) = &window.scope {
            if !under(&c.key(), scope) {
                continue;
            }
        }
        known.insert(c.key());
        touch(&c.scope, &c.case_id);
    }
    // runs: grouped by case (logs are sorted by scope, caseId, runId)
    let mut i = 0;
    let runs = &logs.runs;
    let mut updates: Vec<Update> = Vec::new();
    while i < runs.len() {
        let mut j = i;
        while j < runs.len() && runs[j].scope == runs[i].scope && runs[j].case_id == runs[i].case_id
        {
            j += 1;
        }
        let group: Vec<&RawRun> = runs[i..j].iter().filter(|r| window.admits(r)).collect();
        let first = &runs[i];
        i = j;
        if group.is_empty() {
            continue;
        }
        let key = first.key();
        let (h, latest, f) = case_figures(&group, &key, settings, changes);
        let orphan = !known.contains(&key);
        let tests = group.last().and_then(|r| r.test_counts()).copied();
        updates.push((
            touch(&first.scope, &first.case_id),
            h,
            latest,
            f,
            orphan,
            tests,
        ));
    }
    for (chain, h, latest, f, orphan, tests) in updates {
        let (flaky, stale) = (f.flaky, f.stale);
        let mut f = Some(f);
        let last = chain.len() - 1;
        for (n, k) in chain.into_iter().enumerate() {
            let acc = nodes.entry(k).or_default();
            acc.h.total_runs += h.total_runs;
            acc.h.passed_runs += h.passed_runs;
            acc.h.failed_runs += h.failed_runs;
            add_latest(&mut acc.l, latest, 1);
            acc.flaky += u64::from(flaky);
            acc.stale += u64::from(stale);
            if let Some(t) = &tests {
                acc.tests.get_or_insert_with(TestCounts::default).add(t);
                acc.tests_cases += 1;
            }
            if n == last {
                acc.orphan = orphan;
                acc.figures = f.take();
            }
        }
    }
    nodes
        .into_iter()
        .filter(|(k, _)| {
            // with a scope, keep the root and the nodes at or below the scope
            window
                .scope
                .as_deref()
                .is_none_or(|s| k.is_empty() || under(&path_of(k), s))
        })
        .map(|(k, mut a)| {
            let kind = a.kind.unwrap_or(NodeKind::Group);
            if kind == NodeKind::Case && a.figures.is_none() {
                // a case without runs in the window: its figures say so
                a.figures = Some(CaseFigures::default());
            }
            a.h.historical_success_rate = rate(a.h.passed_runs, a.h.total_runs);
            a.l.latest_success_rate = rate(a.l.latest_passed_cases, a.l.latest_case_count);
            NodeStats {
                path: path_of(&k),
                kind,
                historical: a.h,
                latest: a.l,
                flaky_cases: a.flaky,
                stale_cases: a.stale,
                orphan: a.orphan,
                figures: a.figures,
                tests: a.tests,
                tests_cases: a.tests_cases,
            }
        })
        .collect()
}

/// The cases that are flaky (their last 10 finished runs hold both outcomes), by
/// `scope/caseId`: the one rule the tree's `~flaky` and `testdeck list` share.
/// The case nodes of [`compute`] that count a flaky case, each case's runs
/// judged alone: no node of a folder is built (`list` wants only this set,
/// and every node's statistics were a third of its peak memory). A case
/// without runs is never flaky, so the tree adds nothing to it.
pub fn flaky_cases(_tree: &TestsTree, logs: &Logs) -> std::collections::HashSet<String> {
    let window = Window::default();
    let settings = Insights::default();
    logs.runs
        .chunk_by(|a, b| a.scope == b.scope && a.case_id == b.case_id)
        .filter_map(|g| {
            let group: Vec<&RawRun> = g.iter().filter(|r| window.admits(r)).collect();
            (!group.is_empty() && figures(&group, &settings).flaky).then(|| g[0].key())
        })
        .collect()
}

fn path_of(k: &[String]) -> String {
    k.iter()
        .map(|s| s.trim_start_matches('\u{0}'))
        .collect::<Vec<_>>()
        .join("/")
}

/// The 通过率 block of seed 000 §7 for one node, as `stats --markdown` prints it.
pub fn markdown_block(n: &NodeStats) -> String {
    let r = |x: Option<f64>| x.map_or_else(|| "—".to_owned(), |v| format!("{v:.1}%"));
    format!(
        "- 历史总数据:\n  - totalRuns: {}\n  - passedRuns: {}\n  - failedRuns: {}\n  - historicalSuccessRate: {}\n- 最新总数据:\n  - latestCaseCount: {}\n  - latestPassedCases: {}\n  - latestFailedCases: {}\n  - latestSuccessRate: {}\n",
        n.historical.total_runs,
        n.historical.passed_runs,
        n.historical.failed_runs,
        r(n.historical.historical_success_rate),
        n.latest.latest_case_count,
        n.latest.latest_passed_cases,
        n.latest.latest_failed_cases,
        r(n.latest.latest_success_rate),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::RawRun;
    use crate::meta::MetaSummary;

    #[test]
    fn outside_cases_have_figures_for_insights_and_other_temp_runs_none() {
        use RunStatus::{Failed, InProgress, Passed};
        let logs = Logs {
            runs: vec![
                run("ai/backend/tools", "a", "20260101-000000-000", Failed),
                run("temp", "t", "20260101-000000-000", Passed),
                run("temp/outside/src", "x", "20260101-000000-000", Passed),
                run("temp/outside/src", "x", "20260102-000000-000", Failed),
                run("temp/outside/src", "x", "20260103-000000-000", Passed),
                run("temp/outside/src", "x", "20260104-000000-000", InProgress),
            ],
        };
        let all = outside_figures(&logs, &Window::default(), &Insights::default(), None);
        assert_eq!(all.len(), 1);
        let (key, f) = &all[0];
        assert_eq!(key, "temp/outside/src/x");
        assert_eq!((f.recent_runs, f.flips), (3, 2));
        assert!(f.flaky);
        let elsewhere = Window {
            since: None,
            scope: Some("ai".into()),
        };
        assert!(outside_figures(&logs, &elsewhere, &Insights::default(), None).is_empty());
    }

    fn run(scope: &str, case: &str, id: &str, status: RunStatus) -> RawRun {
        RawRun {
            run_id: id.into(),
            case_id: case.into(),
            scope: scope.into(),
            path: String::new(),
            status,
            meta: (status != RunStatus::InProgress).then(MetaSummary::default),
            meta_broken: false,
            has_timeline: true,
            has_runtime_events: true,
            has_artifacts_json: true,
            has_artifacts_dir: false,
            tests: None,
        }
    }

    #[test]
    fn rates_round_to_one_decimal() {
        assert_eq!(rate(2, 3), Some(66.7));
        assert_eq!(rate(1, 1), Some(100.0));
        assert_eq!(rate(0, 0), None);
        assert_eq!(fmt_rate(Some(70.0)), "70.0%");
        assert_eq!(fmt_rate(None), "—");
    }

    /// The flaky set judged case by case is the set of case nodes of the
    /// whole statistics that count a flaky case.
    #[test]
    fn flaky_cases_are_the_flaky_case_nodes() {
        use RunStatus::{Failed, InProgress, Passed};
        let mut rng = fastrand::Rng::with_seed(43);
        let mut runs = Vec::new();
        for scope in [
            "ai/backend/tools",
            "ai/e2e/chat/basic",
            "temp",
            "temp/x",
            "kb",
        ] {
            for case in ["a", "b", "c", "d"] {
                for day in 1..=rng.usize(0..14) {
                    let status = [Passed, Passed, Failed, InProgress][rng.usize(..4)];
                    let id = format!("202601{day:02}-000000-000");
                    runs.push(run(scope, case, &id, status));
                }
            }
        }
        let logs = Logs { runs };
        let nodes = compute(&TestsTree::default(), &logs, &Window::default());
        let want: std::collections::HashSet<String> = nodes
            .into_iter()
            .filter(|n| n.kind == NodeKind::Case && n.flaky_cases > 0)
            .map(|n| n.path)
            .collect();
        assert!(!want.is_empty());
        assert_eq!(flaky_cases(&TestsTree::default(), &logs), want);
    }

    #[test]
    fn historical_latest_flaky_temp_in_progress() {
        use RunStatus::{Failed, InProgress, Passed};
        let logs = Logs {
            runs: vec![
                run("ai/backend/tools", "a", "20260101-000000-000", Failed),
                run("ai/backend/tools", "a", "20260102-000000-000", Passed),
                run("ai/backend/tools", "a", "20260103-000000-000", InProgress),
                run("ai/backend/tools", "b", "20260101-000000-000", Failed),
                run("temp", "t", "20260101-000000-000", Passed),
            ],
        };
        let nodes = compute(&TestsTree::default(), &logs, &Window::default());
        let get = |p: &str| nodes.iter().find(|n| n.path == p).expect(p);
        let root = get("");
        assert_eq!(root.kind, NodeKind::Root);
        assert_eq!(
            (root.historical.total_runs, root.historical.passed_runs),
            (3, 1)
        );
        assert_eq!(root.historical.historical_success_rate, Some(33.3));
        assert_eq!(
            (
                root.latest.latest_case_count,
                root.latest.latest_passed_cases
            ),
            (2, 1)
        );
        assert_eq!(root.latest.latest_success_rate, Some(50.0));
        let a = get("ai/backend/tools/a");
        assert_eq!(a.kind, NodeKind::Case);
        assert_eq!(a.flaky_cases, 1);
        assert!(a.orphan);
        assert_eq!(get("ai/backend").kind, NodeKind::Layer);
        assert!(nodes.iter().all(|n| !n.path.starts_with("temp")));
        let since = Window {
            since: Some(run_time("2026-01-02T00:00:00Z")),
            scope: None,
        };
        let nodes = compute(&TestsTree::default(), &logs, &since);
        assert_eq!(nodes[0].historical.total_runs, 1);
    }

    fn run_time(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s)
            .expect("time")
            .with_timezone(&Utc)
    }
}
