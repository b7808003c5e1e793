//! JUnit XML of runs (`run --junit`, `runs --junit`): tests-tree runs and catalog verdicts as
//! testcases, written with `quick-junit` through the one atomic writer.

use super::record::{CaseResult, RunRecord, Verdict};
use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;
use testdeck_core::workspace::logs::{RawRun, RunStatus};
use testdeck_core::workspace::run_tests::{self, TestOutcome};

/// The suite of every tests-tree run.
pub const TESTS_SUITE: &str = "tests";

/// One testcase, from either source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// `tests`, or `catalog <runId>` for the verdicts of one run record.
    pub suite: String,
    /// `scope/caseId` of a tests run, the case id of a catalog verdict.
    pub name: String,
    /// The scope of a tests run, the category of a catalog case.
    pub classname: String,
    /// The case's verdict.
    pub verdict: Verdict,
    /// Why, when the verdict says little by itself.
    pub reason: Option<String>,
    /// How long it ran.
    pub duration_ms: Option<u64>,
    /// The runId of a tests run.
    pub run_id: Option<String>,
    /// The tests run's folder, relative to the workspace root.
    pub path: Option<String>,
    /// The full output (catalog) or the timeline (tests), relative to the workspace root.
    pub log: Option<String>,
    /// When it started.
    pub started_at: Option<String>,
    /// The failure's body: a failed tests run's plain failure digest.
    pub detail: Option<String>,
    /// The framework tests inside a tests run's file (SPEC §1.2): when there
    /// are any, the case is a testsuite of its own (named `scope/caseId`) with
    /// one testcase per test, instead of one testcase.
    pub tests: Vec<TestOutcome>,
}

impl Case {
    /// The tests inside the run's file, read from its folder under `root`.
    #[must_use]
    pub fn with_tests(mut self, root: &Path) -> Case {
        if let Some(p) = &self.path {
            self.tests = run_tests::read_outcomes(&root.join(p));
        }
        self
    }
}

/// The suite name of a catalog run record.
pub(crate) fn catalog_suite(run_id: &str) -> String {
    format!("catalog {run_id}")
}

/// A tests-tree run as a testcase: passed / failed from its `meta.json`; a broken
/// `meta.json` is an error of the environment, a run without one (still running, cancelled or
/// abandoned) was not run to the end and counts as skipped.
pub fn tests_case(r: &RawRun) -> Case {
    let (verdict, reason) = match r.status {
        RunStatus::Passed => (Verdict::Pass, None),
        RunStatus::Failed => (
            Verdict::Fail,
            Some("the run's meta.json says failed".into()),
        ),
        RunStatus::InProgress if r.meta_broken => (
            Verdict::EnvironmentFail,
            Some("meta.json is unreadable".into()),
        ),
        RunStatus::InProgress => (
            Verdict::NotRun,
            Some("no meta.json yet: still running".into()),
        ),
        RunStatus::Cancelled => (
            Verdict::NotRun,
            Some("cancelled by testdeck before its meta.json".into()),
        ),
        RunStatus::Abandoned => (
            Verdict::NotRun,
            Some("abandoned: no meta.json and nothing written for a long time".into()),
        ),
    };
    Case {
        suite: TESTS_SUITE.into(),
        name: r.key(),
        classname: r.scope.to_string(),
        verdict,
        reason,
        duration_ms: r.duration_ms(),
        run_id: Some(r.run_id.clone()),
        path: Some(r.path.clone()),
        log: r.has_timeline.then(|| {
            format!(
                "{}/{}",
                r.path,
                testdeck_core::workspace::run_folder::TIMELINE
            )
        }),
        started_at: r.started_at().map(str::to_owned),
        detail: None,
        tests: Vec::new(),
    }
}

/// A catalog verdict of a run record as a testcase.
pub fn catalog_case(rec: &RunRecord, c: &CaseResult) -> Case {
    Case {
        suite: catalog_suite(&rec.run_id),
        name: c.id.clone(),
        classname: c.category.clone(),
        verdict: c.verdict,
        reason: c.reason.clone(),
        duration_ms: Some(c.duration_ms),
        run_id: Some(rec.run_id.clone()),
        path: None,
        log: c.log.clone(),
        started_at: Some(c.started_at.clone()),
        detail: None,
        tests: Vec::new(),
    }
}

fn status(c: &Case) -> TestCaseStatus {
    let mut s = match c.verdict {
        Verdict::Pass => TestCaseStatus::success(),
        Verdict::Fail => TestCaseStatus::non_success(NonSuccessKind::Failure),
        Verdict::EnvironmentFail => TestCaseStatus::non_success(NonSuccessKind::Error),
        Verdict::Skipped | Verdict::NotRun => TestCaseStatus::skipped(),
    };
    if c.verdict != Verdict::Pass {
        s.set_type(c.verdict.as_str());
        s.set_message(c.reason.as_deref().unwrap_or(c.verdict.as_str()));
        if let Some(d) = &c.detail {
            s.set_description(d.as_str());
        }
    }
    s
}

fn testcase(c: &Case) -> TestCase {
    let mut t = TestCase::new(c.name.as_str(), status(c));
    t.set_classname(c.classname.as_str());
    if let Some(ms) = c.duration_ms {
        t.set_time(Duration::from_millis(ms));
    }
    if let Some(ts) = c
        .started_at
        .as_deref()
        .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok())
    {
        t.set_timestamp(ts);
    }
    t.add_property(Property::new("verdict", c.verdict.as_str()));
    let mut out = String::new();
    for (k, v) in [("runId", &c.run_id), ("path", &c.path), ("log", &c.log)] {
        if let Some(v) = v {
            t.add_property(Property::new(k, v.as_str()));
            let _ = writeln!(out, "{k}: {v}");
        }
    }
    // system-out too: most CI reporters show it, fewer show testcase properties
    if !out.is_empty() {
        t.set_system_out(out);
    }
    t
}

/// One framework test of the tests run `c` as a testcase: its title path,
/// the case as its class, its own status, time, message and place.
fn test_testcase(c: &Case, t: &TestOutcome) -> TestCase {
    let verdict = match t.status.as_str() {
        "ok" => Verdict::Pass,
        "failed" => Verdict::Fail,
        _ => Verdict::Skipped,
    };
    let mut one = Case {
        suite: c.name.clone(),
        name: t.name.clone(),
        classname: c.name.clone(),
        verdict,
        reason: t.message.clone(),
        duration_ms: t.duration_ms,
        run_id: c.run_id.clone(),
        path: c.path.clone(),
        log: c.log.clone(),
        started_at: None,
        detail: None,
        tests: Vec::new(),
    };
    if verdict == Verdict::Fail {
        // the place, then the error whole (message and stack) as the test gave it
        let place = t.location.as_ref().map(|(f, l)| format!("{f}:{l}"));
        one.detail = match (place, &t.detail) {
            (Some(p), Some(d)) => Some(format!("{p}\n\n{d}")),
            (p, d) => p.or_else(|| d.clone()),
        };
    }
    let mut tc = testcase(&one);
    if let Some((file, line)) = &t.location {
        tc.add_property(Property::new("file", file.as_str()));
        tc.add_property(Property::new("line", line.to_string()));
    }
    tc
}

/// The report: one testsuite a source (tests, then each catalog record), and
/// one a tests run whose file's tests are known, cases in order.
pub fn report(cases: &[Case]) -> Report {
    let mut suites: Vec<TestSuite> = Vec::new();
    for c in cases {
        let suite = if c.tests.is_empty() {
            c.suite.as_str()
        } else {
            c.name.as_str()
        };
        let i = if let Some(i) = suites.iter().position(|s| s.name.as_str() == suite) {
            i
        } else {
            suites.push(TestSuite::new(suite));
            suites.len() - 1
        };
        if c.tests.is_empty() {
            suites[i].add_test_case(testcase(c));
        } else {
            for t in &c.tests {
                suites[i].add_test_case(test_testcase(c, t));
            }
        }
    }
    let mut r = Report::new("testdeck");
    r.add_test_suites(suites);
    r
}

/// The XML text of `cases`: every character XML 1.0 forbids (a run folder
/// named with U+FFFE, say) escaped, so one name never costs CI the whole report.
pub(crate) fn to_xml(cases: &[Case]) -> Result<String, String> {
    let xml = report(cases)
        .to_string()
        .map_err(|e| format!("JUnit XML not serialized: {e}"))?;
    Ok(testdeck_core::sanitize::xml_text(&xml).into_owned())
}

/// Write the JUnit XML of `cases` to `path` (atomically: a CI job never reads half a file).
pub fn write(path: &Path, cases: &[Case]) -> Result<(), String> {
    let xml = to_xml(cases)?;
    testdeck_core::workspace::read::write_atomic(path, xml.as_bytes())
        .map_err(|e| format!("--junit {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(name: &str, verdict: Verdict) -> Case {
        Case {
            suite: TESTS_SUITE.into(),
            name: name.into(),
            classname: "s".into(),
            verdict,
            reason: Some(format!("why {name}")),
            duration_ms: Some(1500),
            run_id: Some(format!("run-{name}")),
            path: None,
            log: Some(format!("logs/{name}.log")),
            started_at: Some("2026-01-02T03:04:05.000Z".into()),
            detail: None,
            tests: Vec::new(),
        }
    }

    #[test]
    fn verdicts_map_to_junit_states() {
        let cases: Vec<Case> = Verdict::ALL.iter().map(|v| case(v.as_str(), *v)).collect();
        let xml = to_xml(&cases).expect("xml");
        assert!(xml.contains(r#"tests="5""#), "{xml}");
        assert!(xml.contains(r#"failures="1""#), "{xml}");
        assert!(xml.contains(r#"errors="1""#), "{xml}");
        assert!(xml.contains(r#"skipped="2""#), "{xml}");
        assert!(
            xml.contains(r#"<failure message="why fail" type="fail"/>"#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<error message="why environment-fail" type="environment-fail"/>"#),
            "{xml}"
        );
        assert!(xml.contains(r#"time="1.500""#), "{xml}");
        assert!(
            xml.contains(r#"<property name="runId" value="run-pass"/>"#),
            "{xml}"
        );
        assert!(xml.contains("log: logs/pass.log"), "{xml}");
    }

    #[test]
    fn control_bytes_of_a_reason_do_not_reach_the_xml() {
        let mut c = case("x", Verdict::Fail);
        c.reason = Some("red \u{1b}[31mtext\u{7} & <tag>".into());
        let xml = to_xml(&[c]).expect("xml");
        assert!(!xml.contains('\u{1b}') && !xml.contains('\u{7}'), "{xml}");
        assert!(xml.contains("red text &amp; &lt;tag&gt;"), "{xml}");
    }

    #[test]
    fn a_run_with_tests_is_a_suite_of_its_tests() {
        let mut c = case("web/unit/dates/format", Verdict::Fail);
        let t = |name: &str, status: &str, message: Option<&str>| TestOutcome {
            name: name.into(),
            status: status.into(),
            duration_ms: Some(4),
            location: Some(("tests/web/unit/dates/format.test.ts".into(), 12)),
            message: message.map(str::to_owned),
            detail: message.map(|m| format!("AssertionError: {m}\n    at format.test.ts:12:5")),
        };
        c.tests = vec![
            t("format › pads", "ok", None),
            t("format › rounds", "failed", Some("expected 1 to be 2")),
            t("format › later", "skipped", None),
        ];
        let other = case("web/unit/dates/parse", Verdict::Pass);
        let xml = to_xml(&[c, other]).expect("xml");
        // the framework's tests, one testcase each, in the case's own suite
        assert!(
            xml.contains(r#"<testsuite name="web/unit/dates/format" tests="3" skipped="1" errors="0" failures="1">"#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<testcase name="format › rounds" classname="web/unit/dates/format""#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<failure message="expected 1 to be 2" type="fail">"#),
            "{xml}"
        );
        // the failure's body: the place, then the error whole with its stack
        assert!(
            xml.contains("tests/web/unit/dates/format.test.ts:12\n\nAssertionError: expected 1 to be 2\n    at format.test.ts:12:5"),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<property name="line" value="12"/>"#),
            "{xml}"
        );
        // a run without per-test events stays one testcase of the tests suite
        assert!(
            xml.contains(r#"<testsuite name="tests" tests="1""#),
            "{xml}"
        );
        assert!(xml.contains(r#"tests="4""#), "{xml}");
    }
}
