//! What a run's per-test events say (SPEC §1.2 *Tests inside a case file*,
//! `docs/per-test-events.md`): how many framework tests the case file held and
//! how they ended, the code the run ran (`run/start`'s `data.code`), and
//! whether it ran no test at all. The one place these are read from a
//! timeline: the history index keeps the result per run ([`RunTests`]), the
//! launch's result lines and JUnit read it from the run folder.

use super::timeline::{self, TimelineEvent};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::fmt::Write as _;

/// The tests of a case file (or of many, added up) by how they ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TestCounts {
    /// Every test counted (`passed + failed + skipped`, or the framework's own total).
    pub total: u64,
    /// Tests that passed.
    pub passed: u64,
    /// Tests that failed.
    pub failed: u64,
    /// Tests skipped (or todo).
    pub skipped: u64,
}

impl TestCounts {
    /// Add `other` to these.
    pub fn add(&mut self, other: &TestCounts) {
        self.total += other.total;
        self.passed += other.passed;
        self.failed += other.failed;
        self.skipped += other.skipped;
    }

    /// The sum of the counts that are there; `None` when none is (no run said
    /// how many tests it held: no number rather than a wrong one).
    pub fn sum<'a>(all: impl IntoIterator<Item = Option<&'a TestCounts>>) -> Option<TestCounts> {
        let mut out: Option<TestCounts> = None;
        for c in all.into_iter().flatten() {
            out.get_or_insert_with(TestCounts::default).add(c);
        }
        out
    }

    /// `411 tests: 401 ✓ 10 ✗` (`· 3 skipped` when some were): how a launch
    /// and the statistics say it in text.
    pub fn phrase(&self) -> String {
        let mut s = format!(
            "{} {}: {} ✓ {} ✗",
            self.total,
            if self.total == 1 { "test" } else { "tests" },
            self.passed,
            self.failed
        );
        if self.skipped > 0 {
            let _ = write!(s, " {} skipped", self.skipped);
        }
        s
    }
}

/// `67 cases: 60 ✓ 7 ✗` (then `others`, e.g. `1 skipped`, each after a
/// space) and, when the runs said how many tests they held,
/// ` · 411 tests: 401 ✓ 10 ✗`: a count by case beside the count by test.
pub fn cases_and_tests(
    cases: u64,
    passed: u64,
    failed: u64,
    others: &[String],
    tests: Option<&TestCounts>,
) -> String {
    let mut s = format!(
        "{cases} {}: {passed} ✓ {failed} ✗",
        if cases == 1 { "case" } else { "cases" }
    );
    for o in others {
        s.push(' ');
        s.push_str(o);
    }
    if let Some(t) = tests {
        s.push_str(" · ");
        s.push_str(&t.phrase());
    }
    s
}

/// The code a run ran: `run/start`'s `data.code`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Code {
    /// The git commit the work tree stood on.
    pub commit: Option<String>,
    /// A hash of the uncommitted changes (`None`: none).
    pub dirty: Option<String>,
}

/// What a finished run's timeline says of its tests and its code.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunTests {
    /// `run/start`'s `data.code`, when it is an object (`None`: no record, or
    /// `null` outside git — compared as if on the same code).
    pub code: Option<Code>,
    /// The tests: `run/finish`'s `data.tests`, else the `data.kind: "test"`
    /// steps (the last attempt of each), else `None` (an older log).
    pub counts: Option<TestCounts>,
    /// Set when the run ran no test: why, in the framework's words where it
    /// gave them (`No tests found.`).
    pub no_tests: Option<String>,
}

/// The framework's words for a run that found nothing to run.
const NO_TESTS_WORDS: [&str; 2] = ["No tests found", "No test files found"];

impl RunTests {
    /// Nothing worth keeping: no record of code, tests or their absence.
    pub fn is_empty(&self) -> bool {
        self.code.is_none() && self.counts.is_none() && self.no_tests.is_none()
    }

    /// The run ran no test (marked: no pass, no duration sample).
    pub fn ran_none(&self) -> bool {
        self.no_tests.is_some()
    }

    /// Read from a run's events, in their order.
    pub fn of_events<'a>(events: impl IntoIterator<Item = &'a TimelineEvent>) -> RunTests {
        let mut out = RunTests::default();
        let mut finish: Option<TestCounts> = None;
        let mut finish_reason: Option<String> = None;
        let mut words: Option<String> = None;
        // the last attempt of each test, by its title path and project
        let mut last: HashMap<(String, String), (u64, usize, String)> = HashMap::new();
        for (i, ev) in events.into_iter().enumerate() {
            let data = ev.data.as_object();
            let get = |k: &str| data.and_then(|d| d.get(k));
            if ev.kind == "run" && ev.name == "run/start" {
                if let Some(Value::Object(c)) = get("code") {
                    let text = |k: &str| c.get(k).and_then(Value::as_str).map(str::to_owned);
                    out.code = Some(Code {
                        commit: text("commit"),
                        dirty: text("dirty"),
                    });
                }
            }
            if ev.kind == "run" && ev.name == "run/finish" {
                if let Some(Value::Object(t)) = get("tests") {
                    let n = |k: &str| t.get(k).and_then(Value::as_u64);
                    let (p, f, s) = (
                        n("passed").unwrap_or(0),
                        n("failed").unwrap_or(0),
                        n("skipped").unwrap_or(0),
                    );
                    finish = Some(TestCounts {
                        total: n("total").unwrap_or(p + f + s),
                        passed: p,
                        failed: f,
                        skipped: s,
                    });
                }
                if let Some(Value::String(why)) = get("noTests") {
                    finish_reason = Some(why.clone());
                }
            }
            if ev.kind == "step" && get("kind").and_then(Value::as_str) == Some("test") {
                let key = (
                    get("titlePath").map_or_else(|| ev.name.clone(), Value::to_string),
                    get("project")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                );
                let retry = get("retry").and_then(Value::as_u64).unwrap_or(0);
                let slot = last.entry(key).or_insert((retry, i, ev.status.clone()));
                if retry >= slot.0 {
                    *slot = (retry, i, ev.status.clone());
                }
            }
            if words.is_none() {
                words = NO_TESTS_WORDS
                    .iter()
                    .find(|w| ev.message.contains(**w))
                    .map(|w| format!("{w}."));
            }
        }
        out.counts = finish.or_else(|| {
            (!last.is_empty()).then(|| {
                let mut c = TestCounts::default();
                for (_, _, status) in last.values() {
                    c.total += 1;
                    match status.as_str() {
                        "ok" => c.passed += 1,
                        "failed" => c.failed += 1,
                        _ => c.skipped += 1,
                    }
                }
                c
            })
        });
        if out.counts.is_some_and(|c| c.total == 0) {
            out.no_tests = Some(
                finish_reason
                    .or(words)
                    .unwrap_or_else(|| "the run ran no test".to_owned()),
            );
        } else if out.counts.is_none() {
            out.no_tests = words;
        }
        out
    }

    /// Read from the timeline bytes of a run (lines that cannot hold what is
    /// read here are not parsed).
    pub fn of_bytes(bytes: &[u8]) -> RunTests {
        let events: Vec<TimelineEvent> = bytes
            .split(|&b| b == b'\n')
            .filter(|l| worth_parsing(l))
            .map(|l| timeline::parse_line(l).0)
            .collect();
        RunTests::of_events(&events)
    }
}

/// One framework test of a run, as its last attempt ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TestOutcome {
    /// Its title path (`describe › test`).
    pub name: String,
    /// `ok`, `failed` or `skipped` (the step's `status`).
    pub status: String,
    /// `data.durationMs`.
    pub duration_ms: Option<u64>,
    /// `data.location`: the file (relative to the workspace root) and line.
    pub location: Option<(String, u64)>,
    /// A failed test's first error message (its failure event's, else its
    /// step's `failed: …`); a skipped test's reason.
    pub message: Option<String>,
    /// A failed test's first error whole: its `data.error.message` and
    /// `data.stack` (what a JUnit failure's body holds).
    pub detail: Option<String>,
}

/// The tests of a run, each by its last attempt, in the order they ended
/// (what JUnit writes one testcase for).
pub fn outcomes<'a>(events: impl IntoIterator<Item = &'a TimelineEvent>) -> Vec<TestOutcome> {
    let mut out: Vec<TestOutcome> = Vec::new();
    // the test's key → its place in `out`, and its step id → its place
    let mut by_key: HashMap<(String, String), usize> = HashMap::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    for ev in events {
        let data = ev.data.as_object();
        let get = |k: &str| data.and_then(|d| d.get(k));
        match get("kind").and_then(Value::as_str) {
            Some("test") if ev.kind == "step" => {
                let key = (
                    get("titlePath").map_or_else(|| ev.name.clone(), Value::to_string),
                    get("project")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                );
                let location = get("location").and_then(|l| {
                    Some((
                        l.get("file")?.as_str()?.to_owned(),
                        l.get("line").and_then(Value::as_u64).unwrap_or(0),
                    ))
                });
                let message = match ev.status.as_str() {
                    "failed" => Some(
                        ev.message
                            .strip_prefix("failed: ")
                            .unwrap_or(&ev.message)
                            .to_owned(),
                    ),
                    "skipped" => ev.message.strip_prefix("skipped: ").map(str::to_owned),
                    _ => None,
                };
                let t = TestOutcome {
                    name: ev.name.clone(),
                    status: ev.status.clone(),
                    duration_ms: get("durationMs").and_then(Value::as_u64),
                    location,
                    message,
                    detail: None,
                };
                // a retried test: its last attempt takes its place
                let at = *by_key.entry(key).or_insert_with(|| {
                    out.push(TestOutcome::default());
                    out.len() - 1
                });
                out[at] = t;
                if let Some(id) = &ev.id {
                    by_id.insert(id.clone(), at);
                }
            }
            Some("test-error") => {
                let at = get("test")
                    .and_then(Value::as_str)
                    .and_then(|id| by_id.get(id));
                if let Some(&at) = at {
                    let t = &mut out[at];
                    // the first error of the test's last attempt
                    if t.status == "failed" && !ev.message.is_empty() {
                        let first = t.message.get_or_insert_with(String::new);
                        if first.is_empty() || ev.message.starts_with(first.as_str()) {
                            first.clone_from(&ev.message);
                        }
                    }
                    if t.status == "failed" && t.detail.is_none() {
                        let whole = get("error")
                            .and_then(|e| e.get("message"))
                            .and_then(Value::as_str);
                        let stack = get("stack").and_then(Value::as_str);
                        let text: Vec<&str> = whole.into_iter().chain(stack).collect();
                        if !text.is_empty() {
                            t.detail = Some(text.join("\n\n"));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// A line that may hold `run/start`, `run/finish`, a test's step or the
/// framework's words for no test (a cheap look before a parse).
pub fn worth_parsing(line: &[u8]) -> bool {
    let has = |needle: &[u8]| line.windows(needle.len()).any(|w| w == needle);
    has(b"run/") || has(b"\"test\"") || has(b"No test")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(lines: &[&str]) -> RunTests {
        RunTests::of_bytes(lines.join("\n").as_bytes())
    }

    #[test]
    fn finish_counts_win_over_the_steps() {
        let r = of(&[
            r#"{"type":"run","name":"run/start","status":"info","message":"","data":{"code":{"commit":"abc","dirty":null}}}"#,
            r#"{"type":"step","name":"a","status":"ok","id":"t1","message":"passed","data":{"kind":"test","titlePath":["a"]}}"#,
            r#"{"type":"run","name":"run/finish","status":"failed","message":"","data":{"tests":{"total":3,"passed":1,"failed":1,"skipped":1}}}"#,
        ]);
        assert_eq!(
            r.code,
            Some(Code {
                commit: Some("abc".into()),
                dirty: None
            })
        );
        assert_eq!(
            r.counts,
            Some(TestCounts {
                total: 3,
                passed: 1,
                failed: 1,
                skipped: 1
            })
        );
        assert!(!r.ran_none());
    }

    #[test]
    fn steps_count_the_last_attempt_of_a_retried_test() {
        let r = of(&[
            r#"{"type":"step","name":"s › a","status":"failed","id":"t1","message":"failed: x","data":{"kind":"test","titlePath":["s","a"],"retry":0}}"#,
            r#"{"type":"step","name":"s › b","status":"ok","id":"t2","message":"passed","data":{"kind":"test","titlePath":["s","b"],"retry":0}}"#,
            r#"{"type":"step","name":"s › a","status":"ok","id":"t3","message":"passed","data":{"kind":"test","titlePath":["s","a"],"retry":1}}"#,
            r#"{"type":"step","name":"s › c","status":"skipped","id":"t4","message":"skipped","data":{"kind":"test","titlePath":["s","c"]}}"#,
            r#"{"type":"step","name":"s › a › click","status":"ok","id":"t3.1","message":"","data":{"kind":"test.step","test":"t3"}}"#,
            r#"{"type":"step","name":"plain","status":"ok","message":"a step of an older log"}"#,
        ]);
        assert_eq!(
            r.counts,
            Some(TestCounts {
                total: 3,
                passed: 2,
                failed: 0,
                skipped: 1
            })
        );
        assert_eq!(r.code, None);
    }

    #[test]
    fn an_old_log_has_no_count_and_zero_tests_are_marked() {
        let old =
            of(&[r#"{"type":"step","name":"s1 open","status":"ok","id":"s1","message":"done"}"#]);
        assert!(old.is_empty(), "{old:?}");
        let zero = of(&[
            r#"{"type":"run","name":"run/finish","status":"failed","message":"","data":{"tests":{"total":0,"passed":0,"failed":0,"skipped":0},"noTests":"No tests found."}}"#,
        ]);
        assert_eq!(zero.no_tests.as_deref(), Some("No tests found."));
        // the framework's words in an event, without data.tests
        let words = of(&[
            r#"{"type":"error","name":"runner/output","status":"failed","message":"Error: No tests found.","data":{}}"#,
        ]);
        assert!(words.ran_none() && words.counts.is_none(), "{words:?}");
        // a count of zero without a reason still says so
        let bare = of(&[
            r#"{"type":"run","name":"run/finish","status":"passed","message":"","data":{"tests":{"total":0}}}"#,
        ]);
        assert_eq!(bare.no_tests.as_deref(), Some("the run ran no test"));
    }

    #[test]
    fn outcomes_keep_the_last_attempt_and_the_first_error() {
        let lines = [
            r#"{"type":"step","name":"s › a","status":"failed","id":"t1","message":"failed: boom","data":{"kind":"test","titlePath":["s","a"],"retry":0,"location":{"file":"tests/x.test.ts","line":3,"column":1}}}"#,
            r#"{"type":"assertion","name":"s › a","status":"failed","id":"t1.e1","message":"boom","data":{"kind":"test-error","test":"t1"}}"#,
            r#"{"type":"step","name":"s › b","status":"failed","id":"t2","message":"failed: expected 1 to be 2","data":{"kind":"test","titlePath":["s","b"],"durationMs":7}}"#,
            r#"{"type":"assertion","name":"s › b","status":"failed","id":"t2.e1","message":"expected 1 to be 2 // Object.is equality","data":{"kind":"test-error","test":"t2"}}"#,
            r#"{"type":"step","name":"s › a","status":"ok","id":"t3","message":"passed","data":{"kind":"test","titlePath":["s","a"],"retry":1,"location":{"file":"tests/x.test.ts","line":3,"column":1}}}"#,
        ]
        .join("\n");
        let events: Vec<TimelineEvent> = lines
            .lines()
            .map(|l| timeline::parse_line(l.as_bytes()).0)
            .collect();
        let got = outcomes(&events);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(
            (
                got[0].name.as_str(),
                got[0].status.as_str(),
                got[0].message.as_deref()
            ),
            ("s › a", "ok", None)
        );
        assert_eq!(got[0].location, Some(("tests/x.test.ts".into(), 3)));
        assert_eq!(
            (
                got[1].status.as_str(),
                got[1].message.as_deref(),
                got[1].duration_ms
            ),
            (
                "failed",
                Some("expected 1 to be 2 // Object.is equality"),
                Some(7)
            )
        );
    }

    #[test]
    fn counts_are_said_beside_the_cases() {
        let t = TestCounts {
            total: 411,
            passed: 401,
            failed: 10,
            skipped: 0,
        };
        assert_eq!(
            cases_and_tests(67, 60, 7, &[], Some(&t)),
            "67 cases: 60 ✓ 7 ✗ · 411 tests: 401 ✓ 10 ✗"
        );
        assert_eq!(
            cases_and_tests(2, 1, 0, &["1 skipped".into()], None),
            "2 cases: 1 ✓ 0 ✗ 1 skipped"
        );
        assert_eq!(TestCounts::sum([None, None]), None);
        assert_eq!(
            TestCounts::sum([Some(&t), None, Some(&t)]).map(|c| c.total),
            Some(822)
        );
    }
}
