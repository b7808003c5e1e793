//! `testdeck insights --json` and the figures of `stats --json` case nodes,
//! checked against figures computed here from the run folders' `meta.json`
//! (median, p90, flips, failing streaks), on the demo and on a generated workspace.

use crate::common::cli;
use crate::gen_workspace::{Options, generate};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// One finished run as read here: runId, passed, duration.
type Run = (String, bool, Option<u64>);

/// Every finished, non-temp run under `tests/logs/`, per `scope/caseId`, oldest first.
fn finished_runs(root: &Path) -> BTreeMap<String, Vec<Run>> {
    let logs = root.join("tests/logs");
    let mut out: BTreeMap<String, Vec<Run>> = BTreeMap::new();
    let mut stack = vec![logs.clone()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.file_name().and_then(|n| n.to_str()) != Some("meta.json") {
                continue;
            }
            let Ok(meta) = serde_json::from_slice::<Value>(&std::fs::read(&p).expect("read"))
            else {
                continue; // a broken meta.json: in progress, counted nowhere
            };
            let folder = p.parent().expect("run folder");
            let rel = folder
                .strip_prefix(&logs)
                .expect("under logs")
                .to_string_lossy()
                .replace('\\', "/");
            let (case, run_id) = rel.rsplit_once('/').expect("case/run");
            if case == "temp" || case.starts_with("temp/") {
                continue;
            }
            let passed = meta["status"] == "passed";
            let ms = meta["stats"]["durationMs"].as_u64();
            out.entry(case.to_owned())
                .or_default()
                .push((run_id.to_owned(), passed, ms));
        }
    }
    for runs in out.values_mut() {
        runs.sort();
    }
    out
}

/// What the test expects of one case.
#[derive(Debug, PartialEq)]
struct Expected {
    last: Option<u64>,
    median: Option<u64>,
    p90: Option<u64>,
    flips: u64,
    score: Option<f64>,
    failing_since: Option<String>,
    streak: u64,
}

fn expected(runs: &[Run], window: usize) -> Expected {
    let recent = &runs[runs.len().saturating_sub(window)..];
    let mut d: Vec<u64> = recent.iter().filter_map(|r| r.2).collect();
    d.sort_unstable();
    let median = if d.is_empty() {
        None
    } else if d.len() % 2 == 1 {
        Some(d[d.len() / 2])
    } else {
        // the mean of the two middle values, half up
        let sum = d[d.len() / 2 - 1] + d[d.len() / 2];
        Some(sum.div_ceil(2))
    };
    // nearest rank: ceil(0.9 n)
    let p90 = (!d.is_empty()).then(|| d[(d.len() * 9).div_ceil(10) - 1]);
    let flips = recent.windows(2).filter(|w| w[0].1 != w[1].1).count() as u64;
    let score = (recent.len() >= 2)
        .then(|| ((flips as f64 / (recent.len() - 1) as f64) * 1000.0).round() / 1000.0);
    let streak: Vec<&Run> = runs.iter().rev().take_while(|r| !r.1).collect();
    Expected {
        last: runs.last().and_then(|r| r.2),
        median,
        p90,
        flips,
        score,
        failing_since: streak.last().map(|r| r.0.clone()),
        streak: streak.len() as u64,
    }
}

fn json_of(root: &Path, args: &[&str]) -> Value {
    let out = cli::at(root).args(args).output().expect("run");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON document")
}

fn paths(list: &Value) -> Vec<String> {
    list.as_array()
        .expect("a list")
        .iter()
        .map(|e| e["path"].as_str().expect("path").to_owned())
        .collect()
}

/// `stats --json` and `insights --json` on `root` against the figures from the run folders.
fn check(root: &Path) {
    let runs = finished_runs(root);
    assert!(!runs.is_empty());
    let stats = json_of(root, &["stats", "--json"]);
    let nodes: BTreeMap<String, &Value> = stats["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .filter(|n| n["kind"] == "case")
        .map(|n| (n["path"].as_str().expect("path").to_owned(), n))
        .collect();
    let mut want: BTreeMap<&str, Expected> = BTreeMap::new();
    for (case, rs) in &runs {
        let e = expected(rs, 10);
        let n = nodes
            .get(case)
            .unwrap_or_else(|| panic!("no stats node for {case}"));
        let got = Expected {
            last: n["durationMs"]["last"].as_u64(),
            median: n["durationMs"]["median"].as_u64(),
            p90: n["durationMs"]["p90"].as_u64(),
            flips: n["flips"].as_u64().expect("flips"),
            score: n["flakyScore"].as_f64(),
            failing_since: n["failingSince"].as_str().map(str::to_owned),
            streak: e.streak,
        };
        assert_eq!(got, e, "{case}");
        // the flaky mark is the score above 0: both outcomes in the last 10
        assert_eq!(
            n["flakyCases"].as_u64(),
            Some(u64::from(e.score.is_some_and(|s| s > 0.0))),
            "{case}"
        );
        assert!(n["stale"].is_boolean());
        want.insert(case, e);
    }
    let ins = json_of(root, &["insights", "--json", "--top", "100000"]);
    // slowest: every case with a duration, by median (then p90) descending
    let slow = paths(&ins["slowest"]);
    let mut by_median: Vec<(&str, &Expected)> = want
        .iter()
        .filter(|(_, e)| e.median.is_some())
        .map(|(k, e)| (*k, e))
        .collect();
    assert_eq!(slow.len(), by_median.len());
    by_median.sort_by(|a, b| (b.1.median, b.1.p90, a.0).cmp(&(a.1.median, a.1.p90, b.0)));
    let order: Vec<&str> = by_median.iter().map(|(k, _)| *k).collect();
    assert_eq!(slow, order);
    for e in ins["slowest"].as_array().expect("slowest") {
        let w = &want[e["path"].as_str().expect("path")];
        assert_eq!(e["durationMs"]["median"].as_u64(), w.median);
        assert_eq!(e["durationMs"]["p90"].as_u64(), w.p90);
    }
    // flakiest: exactly the cases with a flip in their last 10 runs, score descending
    let flaky = ins["flakiest"].as_array().expect("flakiest");
    let mut names: Vec<&str> = flaky
        .iter()
        .map(|e| e["path"].as_str().expect("p"))
        .collect();
    let scores: Vec<f64> = flaky
        .iter()
        .map(|e| e["flakyScore"].as_f64().expect("s"))
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    for e in flaky {
        let w = &want[e["path"].as_str().expect("path")];
        assert_eq!(e["flakyScore"].as_f64(), w.score);
        assert_eq!(e["flips"].as_u64(), Some(w.flips));
    }
    names.sort_unstable();
    let expect_flaky: Vec<&str> = want
        .iter()
        .filter(|(_, e)| e.flips > 0)
        .map(|(k, _)| *k)
        .collect();
    assert_eq!(names, expect_flaky);
    // new failures: a streak of one; failing streaks: two and more, longest first
    let mut new = paths(&ins["newFailures"]);
    new.sort();
    let expect_new: Vec<String> = want
        .iter()
        .filter(|(_, e)| e.streak == 1)
        .map(|(k, _)| (*k).to_owned())
        .collect();
    assert_eq!(new, expect_new);
    let streaks = ins["failingStreaks"].as_array().expect("streaks");
    let mut lens = Vec::new();
    for e in streaks {
        let w = &want[e["path"].as_str().expect("path")];
        assert_eq!(e["streak"].as_u64(), Some(w.streak));
        assert_eq!(e["failingSince"].as_str(), w.failing_since.as_deref());
        lens.push(w.streak);
    }
    assert!(lens.windows(2).all(|w| w[0] >= w[1]), "{lens:?}");
    assert_eq!(
        streaks.len(),
        want.values().filter(|e| e.streak >= 2).count()
    );
    // regressions: the latest run over 1.5× the median before it, and 100 ms more
    let mut reg = paths(&ins["regressions"]);
    reg.sort();
    let expect_reg: Vec<String> = runs
        .iter()
        .filter(|(_, rs)| {
            let recent = &rs[rs.len().saturating_sub(10)..];
            let Some((last, before)) = recent.split_last() else {
                return false;
            };
            let Some(l) = last.2 else { return false };
            let e = expected(
                &before
                    .iter()
                    .map(|r| (r.0.clone(), r.1, r.2))
                    .collect::<Vec<_>>(),
                10,
            );
            e.median
                .is_some_and(|m| (l as f64) > 1.5 * m as f64 && l >= m + 100)
        })
        .map(|(k, _)| k.clone())
        .collect();
    assert_eq!(reg, expect_reg);
}

#[test]
fn insights_json_on_the_demo_matches_its_run_folders() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo");
    check(&root);
    let ins = json_of(&root, &["insights", "--json"]);
    // the demo holds a flaky case and new failures
    assert!(
        paths(&ins["flakiest"])
            .contains(&"kb-search/backend/query/scenario/kb-search-multi-doc-ranking".to_owned())
    );
    assert!(!ins["newFailures"].as_array().expect("list").is_empty());
}

#[test]
fn insights_json_on_a_generated_workspace_matches_its_run_folders() {
    let tmp = crate::common::fs::scratch_dir();
    let out = tmp.path().join("ws");
    generate(&Options {
        out: out.clone(),
        cases: 150,
        runs: 2500,
        catalog: 0,
        seed: 11,
    })
    .expect("generate");
    check(&out);
    // its files were written now, its runs long before: every case with a test
    // file and a finished run is stale
    let ins = json_of(&out, &["insights", "--json", "--top", "100000"]);
    for k in ["slowest", "regressions", "flakiest", "newFailures"] {
        assert!(
            !paths(&ins[k]).is_empty(),
            "{k}: the generated history holds some"
        );
    }
    let stale = paths(&ins["stale"]);
    let runs = finished_runs(&out);
    let ws = testdeck_core::workspace::Workspace::load(&out).expect("load");
    let mut expect: Vec<String> = ws
        .tests
        .cases
        .iter()
        .filter(|c| !c.temp && runs.contains_key(&c.key()))
        .map(testdeck_core::workspace::tree::TestCase::key)
        .collect();
    expect.sort();
    let mut got = stale.clone();
    got.sort();
    assert_eq!(got, expect);
    // the stats roll the stale cases up: the root counts them all
    let stats = json_of(&out, &["stats", "--json"]);
    assert_eq!(
        stats["nodes"][0]["staleCases"].as_u64(),
        Some(expect.len() as u64)
    );
    // --scope keeps one subtree; --top cuts each list
    let first = stale[0].split('/').next().expect("domain").to_owned();
    let scoped = json_of(
        &out,
        &["insights", "--json", "--scope", &first, "--top", "3"],
    );
    for k in [
        "slowest",
        "regressions",
        "flakiest",
        "newFailures",
        "failingStreaks",
        "stale",
    ] {
        let list = paths(&scoped[k]);
        assert!(list.len() <= 3, "{k}");
        assert!(
            list.iter().all(|p| p.starts_with(&format!("{first}/"))),
            "{k}"
        );
    }
}

#[test]
fn insights_text_is_plain_into_a_pipe_and_coloured_when_asked() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo");
    let out = cli::at(&root).args(["insights"]).output().expect("run");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for h in [
        "Slowest",
        "Regressions",
        "Flakiest",
        "New failures",
        "Failing streaks",
        "Stale",
    ] {
        assert!(text.contains(h), "{h}: {text}");
    }
    assert!(!text.contains('\u{1b}'));
    let out = cli::at(&root)
        .args(["--color", "always", "insights"])
        .output()
        .expect("run");
    assert!(String::from_utf8_lossy(&out.stdout).contains("\u{1b}[1m"));
    let bad = cli::at(&root)
        .args(["insights", "--since", "yesterday"])
        .output()
        .expect("run");
    assert_eq!(bad.status.code(), Some(2));
}
