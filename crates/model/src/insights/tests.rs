use super::*;
use crate::meta::{Meta, MetaStats, MetaSummary};
use RunStatus::{Failed, Passed};

fn run(id: &str, status: RunStatus, ms: Option<u64>) -> RawRun {
    let meta = Meta {
        status: Some(if status == Passed { "passed" } else { "failed" }.into()),
        stats: MetaStats {
            duration_ms: ms,
            ..MetaStats::default()
        },
        ..Meta::default()
    };
    RawRun {
        run_id: id.into(),
        case_id: "c".into(),
        scope: "d/l/s".into(),
        path: String::new(),
        status,
        meta: Some(MetaSummary::of(&meta)),
        meta_broken: false,
        has_timeline: true,
        has_runtime_events: true,
        has_artifacts_json: true,
        has_artifacts_dir: false,
        tests: None,
    }
}

/// Runs from a pattern like `PFPFF`, one a day, each `ms[i]` long.
fn history(pattern: &str, ms: &[u64]) -> Vec<RawRun> {
    pattern
        .chars()
        .enumerate()
        .map(|(i, c)| {
            run(
                &format!("202601{:02}-000000-000", i + 1),
                if c == 'P' { Passed } else { Failed },
                ms.get(i).copied(),
            )
        })
        .collect()
}

fn figs(runs: &[RawRun], s: &Settings) -> CaseFigures {
    let refs: Vec<&RawRun> = runs.iter().collect();
    figures(&refs, s)
}

#[test]
fn median_and_p90_by_nearest_rank() {
    assert_eq!(median(&[]), None);
    assert_eq!(median(&[5]), Some(5));
    assert_eq!(median(&[1, 2, 3]), Some(2));
    assert_eq!(median(&[1, 2]), Some(2)); // 1.5 rounds half up
    assert_eq!(median(&[10, 20, 30, 41]), Some(25));
    assert_eq!(percentile(&[7], 90), Some(7));
    let ten: Vec<u64> = (1..=10).collect();
    assert_eq!(percentile(&ten, 90), Some(9));
    let eleven: Vec<u64> = (1..=11).collect();
    assert_eq!(percentile(&eleven, 90), Some(10));
    assert_eq!(percentile(&[1, 2, 3], 90), Some(3));
}

#[test]
fn no_runs_one_run() {
    let s = Settings::default();
    assert_eq!(figures(&[], &s), CaseFigures::default());
    let one = figs(&history("F", &[40]), &s);
    assert_eq!(
        one.duration_ms,
        Durations {
            last: Some(40),
            median: Some(40),
            p90: Some(40)
        }
    );
    assert_eq!((one.flips, one.flaky_score, one.flaky), (0, None, false));
    assert_eq!(one.failing_since.as_deref(), Some("20260101-000000-000"));
    assert_eq!(one.failing_streak, 1);
    // the legend: the one before passed — a case whose only run failed is not new✗
    assert!(!one.new_failure);
    assert_eq!(one.regression, None);
}

#[test]
fn all_pass_all_fail() {
    let s = Settings::default();
    let pass = figs(&history("PPPPP", &[10, 20, 30, 40, 50]), &s);
    assert_eq!(
        (pass.flips, pass.flaky_score, pass.flaky),
        (0, Some(0.0), false)
    );
    assert_eq!((pass.failing_since, pass.failing_streak), (None, 0));
    assert!(!pass.new_failure);
    assert_eq!(pass.duration_ms.median, Some(30));
    assert_eq!(pass.duration_ms.p90, Some(50));
    let fail = figs(&history("FFFF", &[]), &s);
    assert_eq!((fail.flips, fail.flaky), (0, false));
    assert_eq!(fail.failing_streak, 4);
    assert_eq!(fail.failing_since.as_deref(), Some("20260101-000000-000"));
    assert!(!fail.new_failure);
    assert_eq!(fail.duration_ms, Durations::default());
}

#[test]
fn flips_and_transition_score() {
    let s = Settings::default();
    // Buildkite's examples, scored over N − 1 transitions
    let ppfff = figs(&history("PPFFF", &[]), &s);
    assert_eq!((ppfff.flips, ppfff.flaky_score), (1, Some(0.25)));
    let pfpff = figs(&history("PFPFF", &[]), &s);
    assert_eq!((pfpff.flips, pfpff.flaky_score), (3, Some(0.75)));
    assert!(pfpff.flaky);
    // only the last N: a switch before the window does not count
    let s3 = Settings {
        window: 3,
        ..Settings::default()
    };
    let before = figs(&history("FPPPP", &[]), &s3);
    assert_eq!(
        (before.flips, before.flaky_score, before.flaky),
        (0, Some(0.0), false)
    );
    // the default threshold is the old rule: both outcomes in the last 10
    let old = figs(&history("FPPPPPPPPPP", &[]), &s);
    assert!(!old.flaky, "the failure is 11 runs back");
    let recent = figs(&history("PFPPPPPPPPP", &[]), &s);
    assert!(recent.flaky);
    assert_eq!((recent.flips, recent.flaky_score), (1, Some(0.111)));
    let strict = Settings {
        flaky_threshold: 0.3,
        ..Settings::default()
    };
    assert!(!figs(&history("PFPPPPPPPPP", &[]), &strict).flaky);
    assert!(figs(&history("PFPF", &[]), &strict).flaky);
}

#[test]
fn failing_streak_new_and_known() {
    let s = Settings::default();
    let new = figs(&history("PPPF", &[]), &s);
    assert!(new.new_failure);
    assert_eq!(new.failing_streak, 1);
    assert_eq!(new.failing_since.as_deref(), Some("20260104-000000-000"));
    let known = figs(&history("PFFF", &[]), &s);
    assert!(!known.new_failure);
    assert_eq!(known.failing_streak, 3);
    assert_eq!(known.failing_since.as_deref(), Some("20260102-000000-000"));
    // the streak counts every run of the window, beyond the last N
    let s2 = Settings {
        window: 2,
        ..Settings::default()
    };
    assert_eq!(figs(&history("PFFFF", &[]), &s2).failing_streak, 4);
    let back = figs(&history("FFP", &[]), &s);
    assert_eq!((back.failing_since, back.failing_streak), (None, 0));
}

#[test]
fn regression_needs_the_ratio_and_the_floor() {
    let s = Settings::default(); // 1.5×, 100 ms
    let r = figs(&history("PPPP", &[100, 110, 90, 400]), &s);
    assert_eq!(
        r.regression,
        Some(Regression {
            last_ms: 400,
            median_before_ms: 100,
            ratio: Some(4.0)
        })
    );
    // slower by the ratio but not by the floor
    assert_eq!(figs(&history("PPP", &[10, 10, 40]), &s).regression, None);
    // slower by the floor but not by the ratio
    assert_eq!(
        figs(&history("PPP", &[1000, 1000, 1400]), &s).regression,
        None
    );
    // exactly the ratio is not above it
    let at = Settings {
        regression_floor_ms: 0,
        ..Settings::default()
    };
    assert_eq!(figs(&history("PP", &[200, 300]), &at).regression, None);
    assert!(figs(&history("PP", &[200, 301]), &at).regression.is_some());
    // one run: nothing before it
    assert_eq!(figs(&history("P", &[9000]), &s).regression, None);
    // a latest run without a duration: no regression
    assert_eq!(figs(&history("PP", &[100]), &s).regression, None);
    // a zero median: no ratio, still a regression past the floor
    let z = figs(&history("PP", &[0, 500]), &s)
        .regression
        .expect("regression");
    assert_eq!(z.ratio, None);
}

#[test]
fn stale_by_change_time() {
    let t = |s: &str| {
        DateTime::parse_from_rfc3339(s)
            .expect("time")
            .with_timezone(&Utc)
    };
    let ch = ChangeTimes::from_map(HashMap::from([(
        "d/l/s/c".to_owned(),
        t("2026-01-02T00:00:00Z"),
    )]));
    assert!(ch.stale("d/l/s/c", Some(t("2026-01-01T00:00:00Z"))));
    assert!(!ch.stale("d/l/s/c", Some(t("2026-01-02T00:00:00Z"))));
    assert!(!ch.stale("d/l/s/c", None));
    assert!(!ch.stale("d/l/s/other", Some(t("2026-01-01T00:00:00Z"))));
}

#[test]
fn unfinished_and_temp_runs_count_nowhere() {
    use crate::stats::{NodeKind, Window, compute_with};
    let mut runs = history("PFP", &[10, 20, 30]);
    let extra = |id: &str, st: RunStatus| {
        let mut r = run(id, Passed, Some(99_999));
        r.status = st;
        if st != Passed {
            r.meta = None;
        }
        r
    };
    // in progress, cancelled and abandoned after the last finished run
    runs.push(extra("20260104-000000-000", RunStatus::InProgress));
    runs.push(extra("20260105-000000-000", RunStatus::Cancelled));
    runs.push(extra("20260106-000000-000", RunStatus::Abandoned));
    let mut temp = extra("20260107-000000-000", Failed);
    temp.scope = "temp/x".into();
    temp.status = Failed;
    let logs = crate::logs::Logs {
        runs: {
            let mut v = runs;
            v.push(temp);
            v
        },
    };
    let nodes = compute_with(
        &crate::tree::TestsTree::default(),
        &logs,
        &Window::default(),
        &Settings::default(),
        None,
    );
    assert!(nodes.iter().all(|n| !n.path.starts_with("temp")));
    let c = nodes
        .iter()
        .find(|n| n.kind == NodeKind::Case)
        .and_then(|n| n.figures.clone())
        .expect("case");
    assert_eq!(c.duration_ms.last, Some(30));
    assert_eq!(c.duration_ms.median, Some(20));
    assert_eq!((c.flips, c.flaky_score), (2, Some(1.0)));
    assert_eq!(c.failing_since, None);
    assert_eq!(c.latest_run.as_deref(), Some("20260103-000000-000"));
    // the flaky mark of the statistics is the score's
    let node = nodes
        .iter()
        .find(|n| n.kind == NodeKind::Case)
        .expect("case");
    assert_eq!(node.flaky_cases, 1);
    let strict = Settings {
        flaky_threshold: 1.0,
        ..Settings::default()
    };
    let nodes = compute_with(
        &crate::tree::TestsTree::default(),
        &logs,
        &Window::default(),
        &strict,
        None,
    );
    assert_eq!(nodes[0].flaky_cases, 0);
}
