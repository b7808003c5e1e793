//! `testdeck verdict`: a person's verdict recorded headless in a catalog run record
//! (YAML and CSV), as the cockpit's verdict prompt records it.

use crate::common;
use common::fs::demo_copy as demo;

use assert_cmd::Command;
use testdeck_exec::record::{Verdict, read_record};

const RECORD: &str = "20261126T091502Z-smoke-4be21c";

fn verdict(root: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::cargo_bin("testdeck")
        .expect("bin")
        .arg("--root")
        .arg(root)
        .arg("verdict")
        .args(args)
        .output()
        .expect("run")
}

#[test]
fn a_verdict_is_recorded_in_the_yaml_and_the_csv() {
    let d = demo();
    let file = d.path().join(format!(".pouch/tester/runs/{RECORD}.yaml"));
    let before = read_record(d.path(), &file).expect("record");
    let case = before
        .results
        .iter()
        .find(|c| c.id == "TC-APP-002")
        .expect("case");
    assert_eq!(case.verdict, Verdict::NotRun);
    let out = verdict(
        d.path(),
        &[
            RECORD,
            "TC-APP-002",
            "pass",
            "--note",
            "offline banner seen",
            "--json",
        ],
    );
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["record"], format!(".pouch/tester/runs/{RECORD}.yaml"));
    assert_eq!(v["caseId"], "TC-APP-002");
    assert_eq!(v["verdict"], "pass");
    assert_eq!(v["judgedBy"], "person");
    assert_eq!(v["note"], "offline banner seen");
    let after = read_record(d.path(), &file).expect("record");
    let c = after
        .results
        .iter()
        .find(|c| c.id == "TC-APP-002")
        .expect("case");
    assert_eq!(c.verdict, Verdict::Pass);
    assert_eq!(c.judged_by.as_deref(), Some("person"));
    assert_eq!(c.note.as_deref(), Some("offline banner seen"));
    // every other result is as it was
    for (a, b) in before.results.iter().zip(&after.results) {
        if a.id != "TC-APP-002" {
            assert_eq!(a, b);
        }
    }
    let csv = std::fs::read_to_string(file.with_extension("csv")).expect("csv");
    let row = csv
        .lines()
        .find(|l| l.contains(",TC-APP-002,"))
        .expect("csv row");
    assert!(row.contains(",pass,judged by a person,"), "{row}");

    // the file path form, and the text output
    let out = verdict(
        d.path(),
        &[
            &format!(".pouch/tester/runs/{RECORD}.yaml"),
            "TC-CLI-004",
            "environment-fail",
        ],
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "TC-CLI-004: environment-fail recorded in the run record .pouch/tester/runs/{RECORD}.yaml\n"
        )
    );
    let again = read_record(d.path(), &file).expect("record");
    let c = again
        .results
        .iter()
        .find(|c| c.id == "TC-CLI-004")
        .expect("case");
    assert_eq!(c.verdict, Verdict::EnvironmentFail);
    assert_eq!(c.note, None);
}

#[test]
fn an_unknown_case_record_or_verdict_changes_nothing() {
    let d = demo();
    let file = d.path().join(format!(".pouch/tester/runs/{RECORD}.yaml"));
    let before = std::fs::read(&file).expect("yaml");
    let out = verdict(d.path(), &[RECORD, "TC-NOPE-001", "fail"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("TC-NOPE-001: not in the run record"),
        "{out:?}"
    );
    let out = verdict(
        d.path(),
        &["20990101T000000Z-none-000000", "TC-APP-002", "pass"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot read"),
        "{out:?}"
    );
    let out = verdict(d.path(), &[RECORD, "TC-APP-002", "passed"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(std::fs::read(&file).expect("yaml"), before);
}
