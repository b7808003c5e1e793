//! Figures per case from its history (durations, regressions, flips and the
//! flaky score, failing streaks, staleness) and the ranked lists of `insights`.
//!
//! The runs are those the statistics count ([`crate::stats`]): finished, not
//! temp, inside the analysis window, oldest first. The figures are computed in
//! the statistics' own pass over the history ([`crate::stats::compute_with`]).

use super::config::Insights as Settings;
use super::logs::{RawRun, RunStatus};
use crate::plan::TestPlan;
use crate::tree::TestsTree;
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::HashMap;

/// Durations of a case's last N runs that have one (`meta.json` `stats.durationMs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Durations {
    /// The latest run's.
    pub last: Option<u64>,
    /// The middle value (the mean of the two middle ones, rounded, for an even count).
    pub median: Option<u64>,
    /// The nearest-rank 90th percentile: the smallest value at least 90% of them do not exceed.
    pub p90: Option<u64>,
}

/// The latest run slower than the runs before it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Regression {
    /// The latest run's duration.
    pub last_ms: u64,
    /// The median duration of the runs before it in the last N.
    pub median_before_ms: u64,
    /// `last_ms / median_before_ms` (two decimals), `None` when that median is 0.
    pub ratio: Option<f64>,
}

/// What a case's history says, beside its pass rates.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseFigures {
    /// How many runs (n ≤ N) the durations and flips are over.
    #[serde(skip)]
    pub recent_runs: u64,
    /// Durations over the last N runs.
    pub duration_ms: Durations,
    /// Set when the latest run regressed (see [`Settings`]).
    #[serde(skip)]
    pub regression: Option<Regression>,
    /// Pass↔fail switches between consecutive runs of the last N.
    pub flips: u64,
    /// `flips / (n − 1)` over the last n ≤ N runs (three decimals); `None` below two runs.
    pub flaky_score: Option<f64>,
    /// The score is above the flaky threshold.
    #[serde(skip)]
    pub flaky: bool,
    /// The runId of the first run of the current failing streak (the latest run failed).
    pub failing_since: Option<String>,
    /// How many runs the current failing streak holds (0: the latest run passed).
    #[serde(skip)]
    pub failing_streak: u64,
    /// The latest run failed and the one before it passed.
    #[serde(skip)]
    pub new_failure: bool,
    /// The latest run ran no test: why (`No tests found.`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_tests: Option<String>,
    /// The case's files changed after its latest run started.
    pub stale: bool,
    /// The latest run's runId.
    #[serde(skip)]
    pub latest_run: Option<String>,
    /// When the latest run started.
    #[serde(skip)]
    pub latest_start: Option<DateTime<Utc>>,
}

/// The middle value of sorted values (mean of the two middle ones, rounded half up).
fn median(sorted: &[u64]) -> Option<u64> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => {
            let (a, b) = (sorted[n / 2 - 1], sorted[n / 2]);
            Some(a / 2 + b / 2 + (a % 2 + b % 2).div_ceil(2))
        }
    }
}

/// The nearest-rank percentile `pct` (1–100) of sorted values.
fn percentile(sorted: &[u64], pct: usize) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (sorted.len() * pct).div_ceil(100).max(1);
    sorted.get(rank - 1).copied()
}

fn sorted(v: impl Iterator<Item = u64>) -> Vec<u64> {
    let mut v: Vec<u64> = v.collect();
    v.sort_unstable();
    v
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Whether two runs ran the same code: both recorded it (`run/start`'s
/// `data.code`) and the commit and the uncommitted changes agree, or either has
/// no record (compared as if on the same code, as before the record existed).
pub fn same_code(a: &RawRun, b: &RawRun) -> bool {
    match (a.code(), b.code()) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    }
}

/// The figures of one case from its admitted runs (finished, not temp, in the
/// window), oldest first. `stale` is left false: see [`ChangeTimes`].
///
/// A run that ran no test ([`RawRun::no_tests`]) is no outcome here: no
/// duration sample, no pass and no fail (it neither flips, nor starts or
/// breaks a failing streak); the latest one says why in `no_tests`.
pub fn figures(runs: &[&RawRun], s: &Settings) -> CaseFigures {
    let mut f = CaseFigures::default();
    let Some(latest) = runs.last() else {
        return f;
    };
    f.latest_run = Some(latest.run_id.clone());
    f.latest_start = latest.start_time();
    f.no_tests = latest.no_tests().map(str::to_owned);
    let judged: Vec<&RawRun> = runs
        .iter()
        .copied()
        .filter(|r| r.no_tests().is_none())
        .collect();
    let recent = &judged[judged.len().saturating_sub(s.window.max(1))..];
    f.recent_runs = recent.len() as u64;
    // durations: the latest run's only when it ran tests
    let last_ms = if latest.no_tests().is_none() {
        latest.duration_ms()
    } else {
        None
    };
    let all = sorted(recent.iter().filter_map(|r| r.duration_ms()));
    f.duration_ms = Durations {
        last: last_ms,
        median: median(&all),
        p90: percentile(&all, 90),
    };
    if let (Some(last), Some((_, before))) = (last_ms, recent.split_last()) {
        let before = sorted(before.iter().filter_map(|r| r.duration_ms()));
        if let Some(m) = median(&before) {
            #[allow(clippy::cast_precision_loss)]
            let slower = (last as f64) > s.regression_ratio * (m as f64);
            if slower && last.saturating_sub(m) >= s.regression_floor_ms && last > m {
                #[allow(clippy::cast_precision_loss)]
                let ratio = (m > 0).then(|| ((last as f64 / m as f64) * 100.0).round() / 100.0);
                f.regression = Some(Regression {
                    last_ms: last,
                    median_before_ms: m,
                    ratio,
                });
            }
        }
    }
    // flips and the score: only between consecutive runs on the same code (a
    // change of outcome across a change of code is a regression or a fix)
    f.flips = recent
        .windows(2)
        .filter(|w| w[0].status != w[1].status && same_code(w[0], w[1]))
        .count() as u64;
    #[allow(clippy::cast_precision_loss)]
    {
        f.flaky_score =
            (recent.len() >= 2).then(|| round3(f.flips as f64 / (recent.len() - 1) as f64));
    }
    f.flaky = f.flaky_score.is_some_and(|x| x > s.flaky_threshold);
    // the failing streak, over every run of the window that ran tests
    let streak: Vec<&&RawRun> = judged
        .iter()
        .rev()
        .take_while(|r| r.status == RunStatus::Failed)
        .collect();
    f.failing_streak = streak.len() as u64;
    f.failing_since = streak.last().map(|r| r.run_id.clone());
    // new: the latest run failed and the one before it passed (a case whose
    // only run failed is a failing case, not a new failure)
    let before_streak = judged.len().checked_sub(streak.len() + 1);
    f.new_failure = f.failing_streak == 1
        && latest.no_tests().is_none()
        && before_streak.is_some_and(|i| judged[i].status == RunStatus::Passed);
    f
}

/// When each case's files last changed: its test file and its plan entry's
/// file, by their modification time, or where the workspace is a git checkout
/// and the file is clean, by the time of the last commit that touched it.
#[derive(Debug, Clone, Default)]
pub struct ChangeTimes {
    /// `scope/caseId` → the newest change of its files.
    by_case: HashMap<String, DateTime<Utc>>,
}

impl ChangeTimes {
    /// Each tests case's own files (`scope/caseId`, its test file and its plan
    /// entry's file), relative to the root: what the store's
    /// `ChangeTimes::read_files` reads. No I/O, so a shell can take it to
    /// another thread.
    pub fn files_of(tests: &TestsTree, plan: &TestPlan) -> Vec<(String, Vec<String>)> {
        let mut files: Vec<(String, Vec<String>)> = Vec::new();
        for c in &tests.cases {
            if c.temp {
                continue;
            }
            let mut own = vec![c.path.clone()];
            if let Some(e) = plan.entry(&c.case_id) {
                own.push(e.file);
            }
            files.push((c.key(), own));
        }
        files
    }

    /// Times given directly: the store's reads and the tests.
    pub fn from_map(by_case: HashMap<String, DateTime<Utc>>) -> ChangeTimes {
        ChangeTimes { by_case }
    }

    /// When the files of `key` (`scope/caseId`) last changed, when known.
    pub fn of(&self, key: &str) -> Option<DateTime<Utc>> {
        self.by_case.get(key).copied()
    }

    /// Whether a case whose latest run started at `started` is stale.
    pub fn stale(&self, key: &str, started: Option<DateTime<Utc>>) -> bool {
        matches!((self.of(key), started), (Some(changed), Some(started)) if changed > started)
    }
}

/// One entry of a ranked list: the case and the figure that ranks it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry<T: Serialize> {
    /// `scope/caseId`.
    pub path: String,
    /// The figure.
    #[serde(flatten)]
    pub figure: T,
}

/// The first `top` of a ranked list, as entries.
fn first<T: Serialize>(top: usize, ranked: Vec<(&str, T)>) -> Vec<Entry<T>> {
    ranked
        .into_iter()
        .take(top)
        .map(|(p, figure)| Entry {
            path: p.to_owned(),
            figure,
        })
        .collect()
}

/// `slowest`: by the median duration of the last N runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Slow {
    /// The durations (`median` ranks).
    pub duration_ms: Durations,
}

/// `flakiest`: by score, then flips.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Flaky {
    /// flips / (n − 1).
    pub flaky_score: f64,
    /// Pass↔fail switches in the last N runs.
    pub flips: u64,
    /// How many runs (n ≤ N) the score is over.
    pub runs: u64,
}

/// `newFailures` and `failingStreaks`: the current failing streak.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Failing {
    /// The first run of the streak.
    pub failing_since: String,
    /// Its length in runs.
    pub streak: u64,
    /// The latest (failed) run.
    pub latest_run: String,
}

/// `stale`: the case's files changed after its latest run started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stale {
    /// When its files last changed (RFC 3339, UTC).
    pub changed_at: String,
    /// When its latest run started.
    pub latest_started_at: String,
    /// The latest run.
    pub latest_run: String,
}

/// The ranked lists of `testdeck insights`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Lists {
    /// Slowest by median duration, then p90.
    pub slowest: Vec<Entry<Slow>>,
    /// Biggest regressions by ratio (a zero median first), then by the time added.
    pub regressions: Vec<Entry<Regression>>,
    /// Flakiest by score (only those above the threshold), then flips.
    pub flakiest: Vec<Entry<Flaky>>,
    /// Latest run failed, the one before passed: newest first.
    pub new_failures: Vec<Entry<Failing>>,
    /// Longest failing streaks (two runs or more).
    pub failing_streaks: Vec<Entry<Failing>>,
    /// Stale results, the longest-changed-after first.
    pub stale: Vec<Entry<Stale>>,
}

/// How many entries each list keeps by default.
pub const DEFAULT_TOP: usize = 20;

fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// The ranked lists from the case nodes' figures (`path`, figures), `top` each.
#[expect(
    clippy::too_many_lines,
    reason = "every insight list built in one pass over the same history"
)]
pub fn lists<'a>(
    cases: impl Iterator<Item = (&'a str, &'a CaseFigures)>,
    changes: Option<&ChangeTimes>,
    top: usize,
) -> Lists {
    let cases: Vec<(&str, &CaseFigures)> = cases.collect();
    let mut l = Lists::default();
    // slowest
    let mut slow: Vec<_> = cases
        .iter()
        .filter(|(_, f)| f.duration_ms.median.is_some())
        .collect();
    slow.sort_by(|a, b| {
        (b.1.duration_ms.median, b.1.duration_ms.p90, a.0).cmp(&(
            a.1.duration_ms.median,
            a.1.duration_ms.p90,
            b.0,
        ))
    });
    l.slowest = slow
        .into_iter()
        .take(top)
        .map(|(p, f)| Entry {
            path: (*p).to_owned(),
            figure: Slow {
                duration_ms: f.duration_ms,
            },
        })
        .collect();
    // regressions
    let mut reg: Vec<(&str, Regression)> = cases
        .iter()
        .filter_map(|(p, f)| f.regression.map(|r| (*p, r)))
        .collect();
    let key = |r: &Regression| r.ratio.unwrap_or(f64::INFINITY);
    reg.sort_by(|a, b| {
        key(&b.1)
            .total_cmp(&key(&a.1))
            .then((b.1.last_ms - b.1.median_before_ms).cmp(&(a.1.last_ms - a.1.median_before_ms)))
            .then(a.0.cmp(b.0))
    });
    l.regressions = first(top, reg);
    // flakiest
    let mut flaky: Vec<(&str, Flaky)> = cases
        .iter()
        .filter(|(_, f)| f.flaky)
        .filter_map(|(p, f)| {
            Some((
                *p,
                Flaky {
                    flaky_score: f.flaky_score?,
                    flips: f.flips,
                    runs: f.recent_runs,
                },
            ))
        })
        .collect();
    flaky.sort_by(|a, b| {
        b.1.flaky_score
            .total_cmp(&a.1.flaky_score)
            .then(b.1.flips.cmp(&a.1.flips))
            .then(a.0.cmp(b.0))
    });
    l.flakiest = first(top, flaky);
    // failing
    let failing = |f: &CaseFigures| -> Option<Failing> {
        Some(Failing {
            failing_since: f.failing_since.clone()?,
            streak: f.failing_streak,
            latest_run: f.latest_run.clone()?,
        })
    };
    let mut new: Vec<(&str, Failing)> = cases
        .iter()
        .filter(|(_, f)| f.new_failure)
        .filter_map(|(p, f)| failing(f).map(|x| (*p, x)))
        .collect();
    new.sort_by(|a, b| b.1.latest_run.cmp(&a.1.latest_run).then(a.0.cmp(b.0)));
    l.new_failures = first(top, new);
    let mut streaks: Vec<(&str, Failing)> = cases
        .iter()
        .filter(|(_, f)| f.failing_streak >= 2)
        .filter_map(|(p, f)| failing(f).map(|x| (*p, x)))
        .collect();
    streaks.sort_by(|a, b| {
        b.1.streak
            .cmp(&a.1.streak)
            .then(a.1.failing_since.cmp(&b.1.failing_since))
            .then(a.0.cmp(b.0))
    });
    l.failing_streaks = first(top, streaks);
    // stale
    if let Some(ch) = changes {
        let mut stale: Vec<(&str, DateTime<Utc>, DateTime<Utc>, &str)> = cases
            .iter()
            .filter(|(_, f)| f.stale)
            .filter_map(|(p, f)| Some((*p, ch.of(p)?, f.latest_start?, f.latest_run.as_deref()?)))
            .collect();
        stale.sort_by(|a, b| (b.1 - b.2).cmp(&(a.1 - a.2)).then(a.0.cmp(b.0)));
        l.stale = stale
            .into_iter()
            .take(top)
            .map(|(p, changed, started, run)| Entry {
                path: p.to_owned(),
                figure: Stale {
                    changed_at: rfc3339(changed),
                    latest_started_at: rfc3339(started),
                    latest_run: run.to_owned(),
                },
            })
            .collect();
    }
    l
}

#[cfg(test)]
mod tests;
