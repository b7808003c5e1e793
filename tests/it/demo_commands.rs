//! Issue-level checks of the headless commands on the demo workspace: selection,
//! exclusions with reasons, run order, stats by scope and since.

use assert_cmd::Command;
use serde_json::Value;

fn json(args: &[&str]) -> (i32, Value) {
    let out = Command::cargo_bin("testdeck")
        .expect("bin")
        .args(args)
        .args(["--root", "assets/demo", "--json"])
        .output()
        .expect("run");
    let v =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {out:?}"));
    (out.status.code().expect("code"), v)
}

fn ids(v: &Value, key: &str) -> Vec<String> {
    v[key]
        .as_array()
        .expect(key)
        .iter()
        .map(|x| x["id"].as_str().expect("id").to_owned())
        .collect()
}

#[test]
fn selecting_a_run_together_member_selects_the_group_in_order() {
    let (code, v) = json(&["select", "TC-WEB-003"]);
    assert_eq!(code, 0);
    assert_eq!(ids(&v, "selected"), ["TC-WEB-002", "TC-WEB-003"]);
    assert!(
        v["selected"]
            .as_array()
            .expect("sel")
            .iter()
            .all(|s| s["group"] == 1)
    );
    assert_eq!(v["categories"][0]["id"], "WEB");
    assert_eq!(
        v["categories"][0]["statusProbe"]["url"],
        "http://127.0.0.1:5173/health"
    );
    // with the destructive member allowed, the CLI group runs whole, in ids order
    let (_, v) = json(&["select", "TC-CLI-006", "--max-risk", "destructive"]);
    assert_eq!(ids(&v, "selected"), ["TC-CLI-006", "TC-CLI-007"]);
}

#[test]
fn pending_retired_and_above_max_risk_are_excluded_with_reasons() {
    let (_, v) = json(&["select"]);
    let excluded: Vec<(String, String)> = v["excluded"]
        .as_array()
        .expect("excluded")
        .iter()
        .map(|e| {
            (
                e["id"].as_str().expect("id").to_owned(),
                e["reason"].as_str().expect("reason").to_owned(),
            )
        })
        .collect();
    let reason = |id: &str| {
        excluded
            .iter()
            .find(|e| e.0 == id)
            .map_or_else(|| panic!("{id} not excluded"), |e| e.1.as_str())
    };
    assert_eq!(reason("TC-CLI-009"), "lifecycle retired");
    assert_eq!(reason("TC-API-006"), "lifecycle pending");
    assert_eq!(
        reason("TC-API-005"),
        "risk destructive is above max-risk mutating"
    );
    assert!(reason("TC-CLI-006").contains("TC-CLI-007 is above max-risk"));
    assert_eq!(excluded.len(), 7);
    let selected = ids(&v, "selected");
    assert_eq!(selected.len(), 17);
    // category order, then case order
    assert_eq!(selected.first().map(String::as_str), Some("TC-CLI-001"));
    assert_eq!(selected.last().map(String::as_str), Some("TC-APP-004"));
    let cats: Vec<&str> = v["categories"]
        .as_array()
        .expect("c")
        .iter()
        .map(|c| c["id"].as_str().expect("id"))
        .collect();
    assert_eq!(cats, ["CLI", "API", "WEB", "APP"]);
    assert!(
        v["categories"][0]["statusProbe"].is_null(),
        "CLI has status_probe: false"
    );
}

#[test]
fn runs_are_newest_first_with_the_run_in_progress_on_top() {
    let (_, v) = json(&["runs"]);
    let runs = v["runs"].as_array().expect("runs");
    assert_eq!(runs[0]["runId"], "20261128-101500-250");
    assert_eq!(runs[0]["status"], "in-progress");
    let tests: Vec<&str> = runs
        .iter()
        .filter(|r| r["source"] == "tests")
        .map(|r| r["runId"].as_str().expect("id"))
        .collect();
    let mut sorted = tests.clone();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(tests, sorted, "tests runs newest first");
    let (_, v) = json(&["runs", "--case", "terminal-basic-command"]);
    assert_eq!(v["runs"].as_array().expect("runs").len(), 5);
}

#[test]
fn stats_scope_and_since() {
    let (_, v) = json(&["stats", "--scope", "ai/backend/tools/terminal"]);
    let nodes = v["nodes"].as_array().expect("nodes");
    let root = &nodes[0];
    assert_eq!(root["path"], "");
    assert_eq!(root["historical"]["totalRuns"], 15);
    assert_eq!(root["historical"]["historicalSuccessRate"], 86.7);
    assert_eq!(root["latest"]["latestCaseCount"], 4);
    assert!(nodes.iter().skip(1).all(|n| {
        n["path"]
            .as_str()
            .expect("p")
            .starts_with("ai/backend/tools/terminal")
    }));
    let (_, all) = json(&["stats"]);
    let (_, late) = json(&["stats", "--since", "2026-11-20"]);
    let total = |v: &Value| {
        v["nodes"][0]["historical"]["totalRuns"]
            .as_u64()
            .expect("n")
    };
    assert_eq!(total(&all), 67);
    // 38 finished, non-temp runs started on or after 2026-11-20 (counted with grep on startedAt)
    assert_eq!(total(&late), 38);
    let out = Command::cargo_bin("testdeck")
        .expect("bin")
        .args(["stats", "--since", "yesterday", "--root", "assets/demo"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2), "a bad date is a usage error");
}

#[test]
fn list_json_carries_the_plan_entry_of_registered_cases() {
    let (_, v) = json(&["list", "--source", "tests"]);
    let cases = v["cases"].as_array().expect("cases");
    let case = |id: &str| {
        cases
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("{id}"))
    };
    let plan = &case("terminal-basic-command")["plan"];
    assert_eq!(plan["file"], "doc/test-plan/ai.md");
    let text = plan["text"].as_str().expect("text");
    assert!(text.starts_with("### terminal-basic-command"), "{text}");
    assert!(text.contains("- Oracle:"), "{text}");
    // the table-row style: the header rows and the case's row
    let row = case("kb-search-multi-doc-ranking")["plan"]["text"]
        .as_str()
        .expect("row")
        .to_owned();
    assert!(
        row.starts_with("| caseId |") && row.lines().count() == 3,
        "{row}"
    );
    assert!(
        row.lines()
            .nth(2)
            .is_some_and(|l| l.contains("kb-search-multi-doc-ranking")),
        "{row}"
    );
    // an unregistered case has no entry
    assert!(case("docx-export-huge-table").get("plan").is_none());
}
