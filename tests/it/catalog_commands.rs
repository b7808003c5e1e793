//! The tester catalog through the commands: `validate`, `list`, `select` and
//! `catalog csv` on fixture workspaces, with the exact rule and place of every bad input.

use crate::common;
use common::fs::copy_dir;

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

const FIXTURES: &str = "tests/fixtures/catalog";
/// Variables the commands read from the environment: cleared so the fixtures decide.
const ENV: [&str; 6] = [
    "HOST",
    "ALLOW_MUT",
    "ALLOW_DES",
    "ALLOW_BILLING",
    "TESTER_ALLOW_MUTATING",
    "TESTER_ALLOW_DESTRUCTIVE",
];

fn testdeck(root: &Path, args: &[&str]) -> (i32, String, String) {
    let mut cmd = Command::cargo_bin("testdeck").expect("bin");
    for v in ENV {
        cmd.env_remove(v);
    }
    let out = cmd
        .arg("--root")
        .arg(root)
        .args(args)
        .output()
        .expect("run");
    (
        out.status.code().expect("exit code, never a signal"),
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8(out.stderr).expect("utf-8"),
    )
}

fn json(root: &Path, args: &[&str]) -> (i32, Value) {
    let (code, out, err) = testdeck(root, args);
    assert_ne!(code, 101, "panicked: {err}");
    (code, serde_json::from_str(&out).expect("one JSON document"))
}

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(FIXTURES).join(name)
}

/// `(file name, line, column, rule)` of every problem, sorted as validate prints them.
fn problems(root: &Path) -> (i32, Vec<(String, u64, u64, String)>) {
    let (code, doc) = json(root, &["validate", "--json"]);
    let list = doc["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .map(|p| {
            let file = p["file"].as_str().expect("file");
            (
                file.trim_start_matches(".pouch/tester/").to_owned(),
                p["line"].as_u64().unwrap_or(0),
                p["column"].as_u64().unwrap_or(0),
                p["rule"].as_str().expect("rule").to_owned(),
            )
        })
        .collect();
    (code, list)
}

fn expect(list: &[(&str, u64, u64, &str)]) -> Vec<(String, u64, u64, String)> {
    list.iter()
        .map(|(f, l, c, r)| ((*f).to_owned(), *l, *c, (*r).to_owned()))
        .collect()
}

#[test]
fn the_good_catalog_has_no_problem() {
    let (code, got) = problems(&fixture("good"));
    assert_eq!(got, vec![]);
    assert_eq!(code, 0);
}

#[test]
fn every_bad_case_gives_its_rule_and_place() {
    let (code, got) = problems(&fixture("bad"));
    let want = expect(&[
        ("cases/hosts.yaml", 10, 12, "host-literal"),
        ("cases/hosts.yaml", 19, 16, "host-literal"),
        ("cases/hosts.yaml", 31, 35, "host-literal"),
        ("cases/rules.yaml", 3, 10, "id-pattern"),
        ("cases/rules.yaml", 4, 10, "id-duplicate"),
        ("cases/rules.yaml", 5, 28, "category-mismatch"),
        ("cases/rules.yaml", 6, 78, "smoke-readonly"),
        ("cases/rules.yaml", 7, 106, "gate-unknown"),
        ("cases/rules.yaml", 8, 106, "gate-readonly"),
        ("cases/rules.yaml", 9, 128, "driver-manual"),
        ("cases/rules.yaml", 10, 108, "session-required"),
        ("cases/rules.yaml", 11, 126, "session-unknown"),
        ("cases/rules.yaml", 12, 125, "session-driver"),
        ("cases/rules.yaml", 13, 148, "assisted-step"),
        ("cases/rules.yaml", 14, 130, "expected-missing"),
        ("cases/rules.yaml", 15, 121, "script-how"),
        ("cases/rules.yaml", 16, 136, "browser-url"),
        ("cases/rules.yaml", 17, 108, "assume-syntax"),
        ("cases/rules.yaml", 18, 108, "assume-switch"),
        ("cases/rules.yaml", 19, 111, "var-unknown"),
        ("cases/rules.yaml", 20, 65, "lifecycle-value"),
        ("cases/rules.yaml", 21, 78, "tag-value"),
        ("cases/rules.yaml", 22, 90, "risk-value"),
        ("cases/rules.yaml", 23, 108, "driver-value"),
        ("cases/rules.yaml", 24, 112, "automation-value"),
        ("cases/rules.yaml", 25, 138, "expected-kind"),
        ("cases/rules.yaml", 26, 5, "field-missing"),
        ("cases/syntax.yaml", 14, 9, "yaml-syntax"),
        ("cases/types.yaml", 4, 12, "yaml-type"),
        ("cases/types.yaml", 9, 33, "yaml-type"),
        ("cases/types.yaml", 11, 5, "yaml-type"),
        ("cases/types.yaml", 20, 15, "yaml-type"),
        ("cases/unknown.yaml", 1, 1, "category-unknown"),
    ]);
    assert_eq!(got, want);
    assert_eq!(code, 1);
}

#[test]
fn every_bad_catalog_field_gives_its_rule_and_place() {
    let (code, got) = problems(&fixture("bad-catalog"));
    let want = expect(&[
        ("cases/api.yaml", 8, 11, "risk-unlisted"),
        ("catalog.yaml", 4, 5, "category-duplicate"),
        ("catalog.yaml", 7, 25, "host-literal"),
        ("catalog.yaml", 8, 8, "risks-ladder"),
        ("catalog.yaml", 9, 19, "default-max-risk"),
        ("catalog.yaml", 12, 9, "host-literal"),
        ("catalog.yaml", 13, 11, "var-cycle"),
        ("catalog.yaml", 14, 11, "var-cycle"),
        ("catalog.yaml", 15, 12, "var-unknown"),
        ("catalog.yaml", 16, 37, "authorize-risk"),
        ("catalog.yaml", 18, 15, "session-kind"),
        ("catalog.yaml", 18, 40, "host-literal"),
        ("catalog.yaml", 19, 13, "id-pattern-regex"),
        ("catalog.yaml", 21, 19, "run-together-id"),
        ("catalog.yaml", 22, 11, "run-together-overlap"),
        // local.yaml points API_BASE at another machine, so the probe built on it is too
        ("catalog.yaml", 24, 8, "host-literal"),
        ("catalog.yaml", 25, 1, "execution-legacy"),
        ("local.yaml", 3, 13, "host-literal"),
    ]);
    assert_eq!(got, want);
    assert_eq!(code, 1);
}

#[test]
fn a_broken_catalog_yaml_is_one_problem_and_cases_still_list() {
    let root = fixture("broken-catalog");
    let (code, got) = problems(&root);
    assert_eq!(got, expect(&[("catalog.yaml", 2, 5, "yaml-syntax")]));
    assert_eq!(code, 1);
    let (_, doc) = json(&root, &["list", "--source", "catalog", "--json"]);
    assert_eq!(doc["cases"][0]["id"], "TC-001");
}

#[test]
fn the_rest_of_a_bad_catalog_still_lists() {
    let (code, doc) = json(&fixture("bad"), &["list", "--source", "catalog", "--json"]);
    assert_eq!(code, 0);
    let ids: Vec<&str> = doc["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| c["id"].as_str().expect("id"))
        .collect();
    // good.yaml whole; syntax.yaml without its broken middle case; types.yaml
    // without the case that is not a mapping
    for id in [
        "TC-001", "TC-002", "TC-010", "TC-012", "TC-020", "TC-021", "TC-053", "TC-070",
    ] {
        assert!(ids.contains(&id), "{id} missing from {ids:?}");
    }
    assert!(!ids.contains(&"TC-011"));
    assert_eq!(ids.len(), 2 + 2 + 2 + 24 + 3 + 1);
}

#[test]
fn list_shows_every_catalog_field() {
    let (code, doc) = json(&fixture("good"), &["list", "--source", "catalog", "--json"]);
    assert_eq!(code, 0);
    let cases = doc["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 7);
    let c = &cases[0];
    for key in [
        "source",
        "id",
        "path",
        "category",
        "title",
        "risk",
        "tag",
        "lifecycle",
        "driver",
        "automation",
        "gate",
    ] {
        assert!(c.get(key).is_some(), "{key} missing");
    }
    assert_eq!(c["source"], "catalog");
    assert_eq!(c["path"], ".pouch/tester/cases/api.yaml");
    assert_eq!(c["gate"], Value::Null);
    assert_eq!(c["automation"], "automated");
    assert_eq!(c["expected"][1]["value"]["equals"], "ok");
    let pending = cases
        .iter()
        .find(|c| c["id"] == "TC-API-004")
        .expect("pending");
    assert_eq!(pending["extra"]["owner"], "bob");
    assert_eq!(pending["notes"][0], "waits for the export feature");
    let del = cases
        .iter()
        .find(|c| c["id"] == "TC-API-003")
        .expect("group");
    assert_eq!(del["gate"], "billing");
    assert_eq!(del["group"], 0);
    // text output: one line per case, ids visible
    let (_, text, _) = testdeck(&fixture("good"), &["list", "--source", "catalog"]);
    assert_eq!(text.lines().count(), 7);
    assert!(text.contains("TC-WEB-002"));
}

#[test]
fn select_follows_the_seed() {
    let root = fixture("good");
    let (code, doc) = json(&root, &["select", "--json"]);
    assert_eq!(code, 0);
    let sel: Vec<(&str, &str, Value)> = doc["selected"]
        .as_array()
        .expect("selected")
        .iter()
        .map(|s| {
            (
                s["id"].as_str().expect("id"),
                s["category"].as_str().expect("category"),
                s["group"].clone(),
            )
        })
        .collect();
    assert_eq!(
        sel,
        [
            ("TC-API-001", "API", Value::Null),
            ("TC-WEB-001", "WEB", Value::Null),
            ("TC-MAN-001", "MANUAL", Value::Null),
        ]
    );
    let excluded: Vec<(&str, &str)> = doc["excluded"]
        .as_array()
        .expect("excluded")
        .iter()
        .map(|e| {
            (
                e["id"].as_str().expect("id"),
                e["reason"].as_str().expect("reason"),
            )
        })
        .collect();
    assert_eq!(
        excluded,
        [
            (
                "TC-API-002",
                "run_together group 0: TC-API-003 is above max-risk mutating"
            ),
            ("TC-API-003", "risk destructive is above max-risk mutating"),
            ("TC-API-004", "lifecycle pending"),
            ("TC-WEB-002", "lifecycle retired"),
        ]
    );
    assert_eq!(
        doc["categories"],
        serde_json::json!([
            {"id": "API", "statusProbe": {"url": "http://127.0.0.1:8095/health", "stop_if": {"status": ["maintenance"]}}},
            {"id": "WEB", "statusProbe": {"url": "http://127.0.0.1:3000/status", "stop_if": {"state": ["maintenance", "down"]}}},
            {"id": "MANUAL", "statusProbe": null},
        ])
    );
}

#[test]
fn select_one_member_runs_the_whole_group_in_order() {
    let (code, doc) = json(
        &fixture("good"),
        &[
            "select",
            "TC-API-003",
            "--max-risk",
            "destructive",
            "--json",
        ],
    );
    assert_eq!(code, 0);
    assert_eq!(
        doc["selected"],
        serde_json::json!([
            {"id": "TC-API-002", "category": "API", "group": 0},
            {"id": "TC-API-003", "category": "API", "group": 0},
        ])
    );
    assert_eq!(doc["excluded"], serde_json::json!([]));
}

#[test]
fn select_host_comes_from_the_environment_first() {
    let mut cmd = Command::cargo_bin("testdeck").expect("bin");
    let out = cmd
        .env("HOST", "127.0.0.42")
        .args(["select", "TC-API-001", "--json", "--root"])
        .arg(fixture("good"))
        .output()
        .expect("run");
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        doc["categories"][0]["statusProbe"]["url"],
        "http://127.0.0.42:8095/health"
    );
}

#[test]
fn select_unknown_id_exits_1_and_bad_options_exit_2() {
    let root = fixture("good");
    let (code, doc) = json(&root, &["select", "no-such-case-zz", "--json"]);
    assert_eq!(code, 1);
    assert_eq!(doc["excluded"][0]["id"], "no-such-case-zz");
    let (code, _, err) = testdeck(&root, &["select", "--max-risk", "scary"]);
    assert_eq!(code, 2, "{err}");
    let (code, text, _) = testdeck(&root, &["select", "--tag", "smoke"]);
    assert_eq!(code, 0);
    assert!(text.contains("TC-API-001") && text.contains("tag full is not smoke"));
}

#[test]
fn catalog_csv_writes_one_row_per_case() {
    let tmp = crate::common::fs::scratch_dir();
    copy_dir(&fixture("good"), tmp.path());
    let (code, doc) = json(tmp.path(), &["catalog", "csv", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(doc["rows"], 7);
    let csv = std::fs::read_to_string(tmp.path().join(".pouch/tester/cases.csv")).expect("csv");
    let mut lines = csv.split("\r\n");
    let header = lines.next().expect("header");
    assert!(header.starts_with("id,category,title,what,lifecycle,tag,risk,gate,driver,automation"));
    assert!(csv.contains("TC-API-002,API,Create an order"));
    // the quoted command keeps its quotes doubled
    assert!(csv.contains(r#""curl -sf -X POST ${API_BASE}/orders -d '{""sku"":""x""}'""#));
    // a catalog with a file that does not parse writes nothing
    let tmp = crate::common::fs::scratch_dir();
    copy_dir(&fixture("bad"), tmp.path());
    let (code, _, err) = testdeck(tmp.path(), &["catalog", "csv"]);
    assert_eq!(code, 1);
    assert!(err.contains("yaml-syntax"), "{err}");
    assert!(!tmp.path().join(".pouch/tester/cases.csv").exists());
}

#[test]
fn no_catalog_is_a_usage_error() {
    let tmp = crate::common::fs::scratch_dir();
    std::fs::create_dir(tmp.path().join("tests")).expect("mkdir");
    let (code, _, err) = testdeck(tmp.path(), &["select"]);
    assert_eq!(code, 2);
    assert!(err.contains(".pouch/tester"));
}
