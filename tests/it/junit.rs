//! `--junit FILE` of `run` and `runs`: the XML is parsed (quick-xml) and its testcases
//! counted against the runs `runs --json` lists and the results a real `sh` launch reports.

use crate::common;

use quick_xml::Reader;
use quick_xml::events::Event;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Output;

#[derive(Debug, Default)]
struct Case {
    suite: String,
    name: String,
    /// `pass`, `failure`, `error` or `skipped`.
    state: String,
    message: Option<String>,
    time: Option<String>,
    props: BTreeMap<String, String>,
    system_out: String,
}

#[derive(Debug, Default)]
struct Suite {
    name: String,
    attrs: BTreeMap<String, String>,
}

fn attrs(e: &quick_xml::events::BytesStart<'_>) -> BTreeMap<String, String> {
    e.attributes()
        .map(|a| {
            let a = a.expect("attribute");
            (
                String::from_utf8_lossy(a.key.as_ref()).into_owned(),
                a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                    .expect("attribute value")
                    .into_owned(),
            )
        })
        .collect()
}

/// Every testsuite and testcase of a JUnit document.
fn parse(xml: &str) -> (Vec<Suite>, Vec<Case>) {
    let mut reader = Reader::from_str(xml);
    let mut suites = Vec::new();
    let mut cases: Vec<Case> = Vec::new();
    let mut in_case = false;
    let mut in_out = false;
    loop {
        let ev = reader.read_event().expect("well-formed XML");
        let (start, empty) = match &ev {
            Event::Start(e) => (Some(e.clone()), false),
            Event::Empty(e) => (Some(e.clone()), true),
            _ => (None, false),
        };
        if let Some(e) = start {
            let a = attrs(&e);
            match e.name().as_ref() {
                b"testsuite" => suites.push(Suite {
                    name: a["name"].clone(),
                    attrs: a,
                }),
                b"testcase" => {
                    let suite: &Suite = suites.last().expect("testcase inside a testsuite");
                    cases.push(Case {
                        suite: suite.name.clone(),
                        name: a["name"].clone(),
                        state: "pass".into(),
                        time: a.get("time").cloned(),
                        ..Case::default()
                    });
                    in_case = !empty;
                }
                b"failure" | b"error" | b"skipped" if in_case => {
                    let c = cases.last_mut().expect("case");
                    c.state = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                    c.message = a.get("message").cloned();
                }
                b"property" if in_case => {
                    cases
                        .last_mut()
                        .expect("case")
                        .props
                        .insert(a["name"].clone(), a["value"].clone());
                }
                b"system-out" if in_case => in_out = !empty,
                _ => {}
            }
            continue;
        }
        match ev {
            Event::Text(t) if in_out => {
                let text = t.decode().expect("text");
                cases.last_mut().expect("case").system_out.push_str(&text);
            }
            Event::End(e) if e.name().as_ref() == b"testcase" => in_case = false,
            Event::End(e) if e.name().as_ref() == b"system-out" => in_out = false,
            Event::Eof => break,
            _ => {}
        }
    }
    (suites, cases)
}

fn demo() -> tempfile::TempDir {
    let tmp = crate::common::fs::scratch_dir();
    testdeck_core::workspace::demo::write_demo(tmp.path()).expect("write demo");
    tmp
}

fn testdeck(root: &Path, args: &[&str]) -> Output {
    common::cli::at(root)
        .args(args)
        .env("DEMO_RUNNER_PACE", "0")
        .env("NO_COLOR", "1")
        .output()
        .expect("run testdeck")
}

fn runs_json(root: &Path, extra: &[&str]) -> Vec<Value> {
    let out = testdeck(root, &[&["runs", "--json"], extra].concat());
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("runs JSON");
    v["runs"].as_array().expect("runs").clone()
}

fn export(root: &Path, extra: &[&str]) -> (Vec<Suite>, Vec<Case>) {
    let file = root.join("out/junit.xml");
    std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
    let f = file.to_str().expect("utf-8 path");
    let out = testdeck(root, &[&["runs", "--junit", f], extra].concat());
    assert!(out.status.success(), "{out:?}");
    parse(&std::fs::read_to_string(&file).expect("junit file"))
}

fn count(cases: &[&Case], state: &str) -> usize {
    cases.iter().filter(|c| c.state == state).count()
}

/// The JUnit state a `runs --json` tests run maps to.
fn tests_state(r: &Value) -> &'static str {
    match r["status"].as_str() {
        Some("passed") => "pass",
        Some("failed") => "failure",
        _ if r["metaBroken"] == true => "error",
        _ => "skipped",
    }
}

#[test]
fn runs_junit_counts_every_run_of_the_demo() {
    let ws = demo();
    let root = ws.path();
    let listed = runs_json(root, &[]);
    let (suites, cases) = export(root, &[]);

    // the tests tree: one testcase a run, in the listing's order, with its runId
    let tests_listed: Vec<&Value> = listed.iter().filter(|r| r["source"] == "tests").collect();
    let tests: Vec<&Case> = cases.iter().filter(|c| c.suite == "tests").collect();
    assert!(tests_listed.len() > 50, "{}", tests_listed.len());
    assert_eq!(tests.len(), tests_listed.len());
    for state in ["pass", "failure", "error", "skipped"] {
        let want = tests_listed
            .iter()
            .filter(|r| tests_state(r) == state)
            .count();
        assert_eq!(count(&tests, state), want, "tests {state}");
    }
    assert!(count(&tests, "failure") > 0 && count(&tests, "skipped") > 0);
    let mut by_id: Vec<&Value> = tests_listed.clone();
    by_id.sort_by_key(|r| r["runId"].as_str().map(str::to_owned));
    let mut got: Vec<&Case> = tests.clone();
    got.sort_by_key(|c| c.props.get("runId").cloned());
    for (r, c) in by_id.iter().zip(&got) {
        assert_eq!(
            c.props.get("runId").map(String::as_str),
            r["runId"].as_str()
        );
        assert_eq!(
            c.name,
            format!(
                "{}/{}",
                r["scope"].as_str().expect("scope"),
                r["caseId"].as_str().expect("caseId")
            )
        );
        assert_eq!(c.props.get("path").map(String::as_str), r["path"].as_str());
        assert!(
            c.system_out
                .contains(&format!("path: {}", r["path"].as_str().expect("p")))
        );
        if let Some(ms) = r["durationMs"].as_u64() {
            assert_eq!(
                c.time.as_deref(),
                Some(format!("{}.{:03}", ms / 1000, ms % 1000).as_str())
            );
        }
        if let Some(log) = c.props.get("log") {
            assert!(root.join(log).is_file(), "{log}");
        }
    }

    // the catalog: one testsuite a readable record, its counts as JUnit states
    let records: Vec<&Value> = listed
        .iter()
        .filter(|r| r["source"] == "catalog" && r.get("counts").is_some())
        .collect();
    assert!(!records.is_empty());
    let mut errors = 0;
    for rec in &records {
        let run_id = rec["runId"].as_str().expect("runId");
        let suite = format!("catalog {run_id}");
        let mine: Vec<&Case> = cases.iter().filter(|c| c.suite == suite).collect();
        let n = |k: &str| usize::try_from(rec["counts"][k].as_u64().expect("count")).expect("n");
        assert_eq!(count(&mine, "pass"), n("pass"), "{suite}");
        assert_eq!(count(&mine, "failure"), n("fail"), "{suite}");
        assert_eq!(count(&mine, "error"), n("environment-fail"), "{suite}");
        assert_eq!(
            count(&mine, "skipped"),
            n("skipped") + n("not-run"),
            "{suite}"
        );
        errors += n("environment-fail");
        for c in &mine {
            assert_eq!(c.props.get("runId").map(String::as_str), Some(run_id));
            if let Some(log) = c.props.get("log") {
                assert!(root.join(log).is_file(), "{log}");
            }
        }
        let s = suites.iter().find(|s| s.name == suite).expect("suite");
        assert_eq!(s.attrs["tests"], mine.len().to_string());
    }
    assert!(errors > 0, "the demo has an environment-fail verdict");
    assert_eq!(suites.len(), 1 + records.len());
}

#[test]
fn runs_junit_takes_scope_and_case() {
    let ws = demo();
    let root = ws.path();
    // --scope: tests runs at or below it, no catalog (as `runs` lists them)
    let listed = runs_json(root, &["--scope", "kb-search"]);
    let (suites, cases) = export(root, &["--scope", "kb-search"]);
    assert_eq!(suites.len(), 1);
    assert_eq!(cases.len(), listed.len());
    assert!(cases.iter().all(|c| c.name.starts_with("kb-search/")));
    // --case of the catalog: that case's verdict in every record holding it
    let listed = runs_json(root, &["--case", "TC-CLI-004"]);
    let (_, cases) = export(root, &["--case", "TC-CLI-004"]);
    assert!(!cases.is_empty());
    assert_eq!(cases.len(), listed.len());
    assert!(cases.iter().all(|c| c.name == "TC-CLI-004"));
}

#[test]
fn an_unwritable_junit_file_is_an_error() {
    let ws = demo();
    let out = testdeck(
        ws.path(),
        &["runs", "--junit", "no-such-folder/junit.xml", "--json"],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--junit"));
}

#[test]
fn run_junit_holds_the_cases_of_a_real_sh_launch() {
    let ws = demo();
    let root = ws.path();
    let file = root.join("junit.xml");
    // the demo's sh runner on a folder with a passing and a failing case, and catalog
    // cases that pass, fail and are skipped (TC-CLI-006 is above the default max risk)
    let out = testdeck(
        root,
        &[
            "run",
            "--json",
            "--junit",
            file.to_str().expect("utf-8"),
            "kb-search/e2e/search-panel",
            "TC-CLI-001",
            "TC-CLI-004",
            "TC-CLI-006",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let summary: Value = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "summary")
        .expect("a summary event");
    let results = summary["results"].as_array().expect("results");
    let (suites, cases) = parse(&std::fs::read_to_string(&file).expect("junit file"));
    assert_eq!(cases.len(), results.len());
    let record_id = summary["runId"].as_str().expect("a catalog record");
    assert!(suites.iter().any(|s| s.name == "tests"));
    assert!(
        suites
            .iter()
            .any(|s| s.name == format!("catalog {record_id}"))
    );
    let mut states = BTreeMap::new();
    for r in results {
        let id = r["id"].as_str().expect("id");
        let c = cases
            .iter()
            .find(|c| c.name == id)
            .expect("a testcase a result");
        let want = match r["verdict"].as_str() {
            Some("pass") => "pass",
            Some("fail") => "failure",
            Some("environment-fail") => "error",
            _ => "skipped",
        };
        assert_eq!(c.state, want, "{id}");
        *states.entry(want).or_insert(0) += 1;
        if let Some(reason) = r["reason"].as_str() {
            assert_eq!(c.message.as_deref(), Some(reason), "{id}");
        }
        let ms = r["durationMs"].as_u64().expect("ms");
        assert_eq!(
            c.time.as_deref(),
            Some(format!("{}.{:03}", ms / 1000, ms % 1000).as_str())
        );
        if let Some(run_id) = r["runId"].as_str() {
            // a tests run: its runId, its folder and timeline on disk
            assert_eq!(c.suite, "tests");
            assert_eq!(c.props.get("runId").map(String::as_str), Some(run_id));
            let path = c.props.get("path").expect("path");
            assert!(path.ends_with(run_id) && root.join(path).is_dir(), "{path}");
            let log = c.props.get("log").expect("log");
            assert!(root.join(log).is_file(), "{log}");
        } else {
            assert_eq!(c.suite, format!("catalog {record_id}"), "{id}");
            assert_eq!(c.props.get("runId").map(String::as_str), Some(record_id));
            if c.state != "skipped" {
                // a case that ran has its full output beside the record
                let log = c.props.get("log").expect("log");
                assert!(root.join(log).is_file(), "{log}");
                assert!(c.system_out.contains(&format!("log: {log}")));
            }
        }
    }
    assert!(states.get("pass") >= Some(&2), "{states:?}");
    assert!(states.get("failure") >= Some(&2), "{states:?}");
    assert!(states.get("skipped") >= Some(&1), "{states:?}");
}
