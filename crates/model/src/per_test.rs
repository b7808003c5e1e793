//! The framework tests inside a case file, as the reporters write them
//! (docs/per-test-events.md, SPEC §1.2 *Tests inside a case file*): which
//! timeline event is a test, one of its `test.step`s or one of its failures, and
//! how a row names each once — the readers' one home for `data.kind`.
//!
//! Old logs (no `data.kind`) read as before; their rows only lose the name a
//! message repeats (`step X done` under the name `X`).

use super::logs::Artifact;
use super::timeline::TimelineEvent;
use serde_json::Value;
use std::borrow::Cow;

/// What a timeline event is among a file's tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A framework test (`data.kind: "test"`): one `step` per test (per attempt).
    Test,
    /// One of a test's `test.step`s (`data.kind: "test.step"`).
    TestStep,
    /// One error of a failed test (`data.kind: "test-error"`).
    TestError,
    /// Any other event (and every event of an old log).
    Other,
}

/// The role `data.kind` gives the event.
pub fn role(ev: &TimelineEvent) -> Role {
    match ev.data.get("kind").and_then(Value::as_str) {
        Some("test") if ev.kind == "step" => Role::Test,
        Some("test.step") if ev.kind == "step" => Role::TestStep,
        Some("test-error") => Role::TestError,
        _ => Role::Other,
    }
}

/// The step id of the test a `test.step` or a failure belongs to (`data.test`);
/// a test's own id for a test.
pub fn test_of(ev: &TimelineEvent) -> Option<&str> {
    match role(ev) {
        Role::Test => ev.id.as_deref(),
        Role::TestStep | Role::TestError => ev.data.get("test").and_then(Value::as_str),
        Role::Other => None,
    }
}

/// A test's title path: `data.titlePath`, else its name cut at ` › `.
pub fn title_path(ev: &TimelineEvent) -> Vec<String> {
    if let Some(Value::Array(titles)) = ev.data.get("titlePath") {
        let t: Vec<String> = titles
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
        if !t.is_empty() {
            return t;
        }
    }
    ev.name.split(" › ").map(str::to_owned).collect()
}

/// The event's message without what its name (or its status) already says: a
/// passed test's `passed`, a failed test's `failed: …` (its failure rows say it),
/// and an old log's `step X done` under the name `X` (`done`).
pub fn own_message(ev: &TimelineEvent) -> Cow<'_, str> {
    let m = ev.message.as_str();
    match role(ev) {
        Role::Test | Role::TestStep
            if m == "passed" || m == ev.status || m.starts_with("failed") =>
        {
            return Cow::Borrowed("");
        }
        _ => {}
    }
    Cow::Borrowed(without_name(&ev.kind, &ev.name, m))
}

/// A step's or an assertion's message without the name it repeats (old
/// reporters: `step X done`, `X did not hold`); any other message as it is.
pub fn without_name<'a>(kind: &str, name: &str, message: &'a str) -> &'a str {
    let name = name.trim();
    if name.is_empty() || !matches!(kind, "step" | "assertion") {
        return message;
    }
    if message.trim() == name {
        return "";
    }
    for lead in [format!("{kind} {name} "), format!("{name} ")] {
        if let Some(rest) = message.strip_prefix(lead.as_str()) {
            return rest.trim_start();
        }
    }
    message
}

/// The name a timeline row shows: a test's title path; under it, a `test.step`
/// by its own title and a failure by where it was raised (`↳ file:line`), not
/// the title path again.
pub fn row_name(ev: &TimelineEvent) -> Cow<'_, str> {
    match role(ev) {
        Role::TestStep => {
            let own = ev.name.rsplit(" › ").next().unwrap_or(&ev.name);
            Cow::Owned(format!("  ↳ {own}"))
        }
        Role::TestError => match location(&ev.data) {
            Some((file, line)) => Cow::Owned(format!("  ↳ {file}:{line}")),
            None => Cow::Borrowed("  ↳"),
        },
        Role::Test | Role::Other => Cow::Borrowed(&ev.name),
    }
}

/// Of a run's artifacts, the trace a person opens first: the first one whose
/// `refs.stepId` names a failed test (or, in an old log, a failed step).
pub fn failed_trace<'a>(
    artifacts: &[Artifact],
    events: impl IntoIterator<Item = &'a TimelineEvent>,
) -> Option<usize> {
    let mut failed: Vec<&str> = Vec::new();
    for e in events.into_iter().filter(|e| e.status == "failed") {
        failed.extend(e.id.as_deref());
        failed.extend(test_of(e));
    }
    artifacts.iter().position(|a| {
        let trace = a.kind == "trace"
            || std::path::Path::new(&a.path)
                .extension()
                .is_some_and(|x| x.eq_ignore_ascii_case("zip"));
        trace && a.step_id.as_deref().is_some_and(|s| failed.contains(&s))
    })
}

/// `data.location`'s file and line, as written.
pub fn location(data: &Value) -> Option<(String, u32)> {
    location_value(data.get("location")?)
}

/// A location's file and line: `{file, line}`, `"file:line"` or `"file:line:column"`.
pub fn location_value(v: &Value) -> Option<(String, u32)> {
    match v {
        Value::Object(m) => {
            let line = m.get("line").and_then(Value::as_u64)?;
            let file = m.get("file").and_then(Value::as_str)?;
            Some((file.to_owned(), u32::try_from(line).ok()?))
        }
        Value::String(s) => {
            let (f, l) = s.rsplit_once(':')?;
            // `file:line:column` keeps its line
            match f.rsplit_once(':') {
                Some((file, line)) if line.parse::<u32>().is_ok() && l.parse::<u32>().is_ok() => {
                    Some((file.to_owned(), line.parse().ok()?))
                }
                _ => Some((f.to_owned(), l.parse().ok()?)),
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::parse_line;

    fn ev(line: &str) -> TimelineEvent {
        parse_line(line.as_bytes()).0
    }

    #[test]
    fn a_test_its_step_and_its_failure_each_name_themselves_once() {
        let t = ev(
            r#"{"type":"step","name":"Search › opens on Cmd+K","status":"failed","id":"t2","message":"failed: expect(locator).toBeFocused() failed","data":{"kind":"test","titlePath":["Search","opens on Cmd+K"],"location":{"file":"tests/e2e/search.spec.ts","line":12,"column":3}}}"#,
        );
        assert_eq!(role(&t), Role::Test);
        assert_eq!(test_of(&t), Some("t2"));
        assert_eq!(title_path(&t), ["Search", "opens on Cmd+K"]);
        assert_eq!(own_message(&t), "", "the failure rows under it say it");
        assert_eq!(row_name(&t), "Search › opens on Cmd+K");
        let s = ev(
            r#"{"type":"step","name":"Search › opens on Cmd+K › press the key","status":"ok","id":"t2.1","message":"passed","data":{"kind":"test.step","test":"t2"}}"#,
        );
        assert_eq!((role(&s), test_of(&s)), (Role::TestStep, Some("t2")));
        assert_eq!(row_name(&s), "  ↳ press the key");
        assert_eq!(own_message(&s), "");
        let e = ev(
            r#"{"type":"assertion","name":"Search › opens on Cmd+K","status":"failed","id":"t2.e1","message":"expect(locator).toBeFocused() failed","data":{"kind":"test-error","test":"t2","location":{"file":"tests/e2e/search.spec.ts","line":15,"column":40}}}"#,
        );
        assert_eq!((role(&e), test_of(&e)), (Role::TestError, Some("t2")));
        assert_eq!(row_name(&e), "  ↳ tests/e2e/search.spec.ts:15");
        assert_eq!(own_message(&e), "expect(locator).toBeFocused() failed");
    }

    #[test]
    fn an_old_step_no_longer_repeats_its_name() {
        let s = ev(
            r#"{"type":"step","name":"open the cart","status":"ok","id":"s1","message":"step open the cart done","data":null}"#,
        );
        assert_eq!(role(&s), Role::Other);
        assert_eq!(test_of(&s), None);
        assert_eq!(own_message(&s), "done");
        assert_eq!(row_name(&s), "open the cart");
        let a = ev(
            r#"{"type":"assertion","name":"order-confirmed","status":"failed","id":"a1","message":"order-confirmed did not hold","data":null}"#,
        );
        assert_eq!(own_message(&a), "did not hold");
        let other = ev(
            r#"{"type":"signal","name":"signal/console","status":"info","message":"hello","data":null}"#,
        );
        assert_eq!(own_message(&other), "hello");
        // a name alone as the message says nothing more
        let same =
            ev(r#"{"type":"step","name":"x","status":"ok","message":"x","data":{"durationMs":1}}"#);
        assert_eq!(own_message(&same), "");
    }

    #[test]
    fn locations_as_objects_and_strings() {
        let v: Value = serde_json::json!({"location": {"file": "a.ts", "line": 3, "column": 9}});
        assert_eq!(location(&v), Some(("a.ts".into(), 3)));
        let v: Value = serde_json::json!({"location": "a.ts:3:9"});
        assert_eq!(location(&v), Some(("a.ts".into(), 3)));
        let v: Value = serde_json::json!({"location": "a.ts:7"});
        assert_eq!(location(&v), Some(("a.ts".into(), 7)));
        let v: Value = serde_json::json!({"location": {"file": "a.ts", "line": -1}});
        assert_eq!(location(&v), None);
        assert_eq!(location(&Value::Null), None);
    }
}
