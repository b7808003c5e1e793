//! One `timeline.jsonl` event (seed 000 §5): parsing a line leniently, with located problems.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

/// The value set of `type` fixed by the seed.
pub const EVENT_TYPES: [&str; 6] = ["run", "step", "assertion", "artifact", "signal", "error"];
/// The value set of `status` fixed by the seed.
pub const EVENT_STATUSES: [&str; 4] = ["info", "ok", "failed", "skipped"];

/// A timeline event. Fields with a wrong type are kept in `extra` under their
/// own name and reported as a problem; unknown fields are kept in `extra` too.
///
/// Serialized as the seed's object: `ts` (when present), `type`, `name`,
/// `status`, `id` (when present), `message`, `data`, then the unknown fields.
/// A field that had a wrong type is written with its original value, once.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TimelineEvent {
    /// `ts`: when the event happened.
    pub ts: Option<String>,
    /// The `type` field.
    pub kind: String,
    /// `name`: the event's stable semantic name (not a script name).
    pub name: String,
    /// `status`: `info`, `ok`, `failed` or `skipped`.
    pub status: String,
    /// `id`: an optional stable id (of steps and assertions, to tie attachments to).
    pub id: Option<String>,
    /// `message`: one factual sentence of what happened.
    pub message: String,
    /// `data`: structured raw observations, may be empty.
    pub data: Value,
    /// Fields beyond the fixed ones (a contract drift, still shown).
    pub extra: Map<String, Value>,
}

/// The fixed fields, in the seed's order.
const FIXED: [&str; 7] = ["ts", "type", "name", "status", "id", "message", "data"];

impl Serialize for TimelineEvent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for key in FIXED {
            // a wrongly typed field lives in `extra` with its original value:
            // write that value in the field's place instead of the shown text
            if let Some(v) = self.extra.get(key) {
                m.serialize_entry(key, v)?;
                continue;
            }
            match key {
                "ts" => {
                    if let Some(ts) = &self.ts {
                        m.serialize_entry(key, ts)?;
                    }
                }
                "type" => m.serialize_entry(key, &self.kind)?,
                "name" => m.serialize_entry(key, &self.name)?,
                "status" => m.serialize_entry(key, &self.status)?,
                "id" => {
                    if let Some(id) = &self.id {
                        m.serialize_entry(key, id)?;
                    }
                }
                "message" => m.serialize_entry(key, &self.message)?,
                _ => m.serialize_entry(key, &self.data)?,
            }
        }
        for (k, v) in &self.extra {
            if !FIXED.contains(&k.as_str()) {
                m.serialize_entry(k, v)?;
            }
        }
        m.end()
    }
}

/// What is wrong with one line (the line number is the caller's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIssue {
    /// `timeline-not-json`, `timeline-not-object`, `timeline-wrong-type`,
    /// `timeline-not-utf8`, `timeline-bad-type`, `timeline-bad-status`.
    pub rule: &'static str,
    /// 1-based column, when the parser knows it.
    pub column: Option<u32>,
    /// What is wrong, for a person.
    pub message: String,
}

impl LineIssue {
    /// Contract drift (a `type` or `status` outside its value set) is a warning;
    /// a line that cannot be read as an event is an error.
    pub fn severity(&self) -> crate::Severity {
        if self.rule == "timeline-bad-type" || self.rule == "timeline-bad-status" {
            crate::Severity::Warning
        } else {
            crate::Severity::Error
        }
    }
}

/// Parse one line (without its newline). Always returns an event to show: a line
/// that is not JSON becomes an `error`-less placeholder whose `message` holds the
/// raw text, so nothing is lost. Issues are returned beside it.
pub fn parse_line(raw: &[u8]) -> (TimelineEvent, Vec<LineIssue>) {
    let mut issues = Vec::new();
    let text = match std::str::from_utf8(raw) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        Err(e) => {
            issues.push(LineIssue {
                rule: "timeline-not-utf8",
                column: Some(e.valid_up_to() as u32 + 1),
                message: format!("invalid UTF-8 at byte {}", e.valid_up_to() + 1),
            });
            String::from_utf8_lossy(raw)
        }
    };
    let text = text.trim_end_matches('\r');
    // Straight into the fields: no intermediate map of the whole line, no
    // allocation for the fixed keys (a burst of 200k lines is parsed per line).
    let parts: Parts = match serde_json::from_str(text) {
        Ok(p) => p,
        Err(e) if e.is_data() => {
            // valid JSON of another kind than an object
            issues.push(LineIssue {
                rule: "timeline-not-object",
                column: Some(1),
                message: "a timeline line must be a JSON object".into(),
            });
            return (raw_event(text), issues);
        }
        Err(e) => {
            issues.push(LineIssue {
                rule: "timeline-not-json",
                column: Some(e.column().max(1) as u32),
                message: format!("not JSON: {}", json_error_text(&e)),
            });
            return (raw_event(text), issues);
        }
    };
    let ev = from_parts(parts, &mut issues);
    if !ev.kind.is_empty() && !EVENT_TYPES.contains(&ev.kind.as_str()) {
        issues.push(LineIssue {
            rule: "timeline-bad-type",
            column: None,
            message: format!("type {:?} is not one of {}", ev.kind, EVENT_TYPES.join(" ")),
        });
    }
    if !ev.status.is_empty() && !EVENT_STATUSES.contains(&ev.status.as_str()) {
        issues.push(LineIssue {
            rule: "timeline-bad-status",
            column: None,
            message: format!(
                "status {:?} is not one of {}",
                ev.status,
                EVENT_STATUSES.join(" ")
            ),
        });
    }
    (ev, issues)
}

/// serde_json's message without its trailing ` at line L column C` (the problem
/// carries the place itself).
pub fn json_error_text(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(at) => s[..at].to_owned(),
        None => s,
    }
}

fn raw_event(text: &str) -> TimelineEvent {
    TimelineEvent {
        message: text.to_owned(),
        data: Value::Null,
        ..TimelineEvent::default()
    }
}

/// One line read straight into an event: string fields land in place; a fixed
/// field with a wrong type waits in `wrong` (by its index in `FIXED`) to be
/// reported. No map of the whole line is built, and nothing big is moved.
struct Parts {
    ev: TimelineEvent,
    wrong: Vec<(usize, Value)>,
}

impl<'de> serde::Deserialize<'de> for Parts {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(PartsVisitor)
    }
}

struct PartsVisitor;

impl<'de> serde::de::Visitor<'de> for PartsVisitor {
    type Value = Parts;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a timeline object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut access: A) -> Result<Parts, A::Error> {
        let mut p = Parts {
            ev: TimelineEvent::default(),
            wrong: Vec::new(),
        };
        while let Some(key) = access.next_key::<Key>()? {
            match key {
                Key::Fixed(6) => p.ev.data = access.next_value()?,
                Key::Fixed(i) => {
                    let value: Value = access.next_value()?;
                    // a repeated key: the last one wins, as in any JSON map
                    p.wrong.retain(|(j, _)| *j != i);
                    let text = match value {
                        Value::Null => None,
                        Value::String(s) => Some(s),
                        // epoch milliseconds are common enough to accept as a time
                        Value::Number(n) if i == 0 => Some(n.to_string()),
                        other => {
                            p.wrong.push((i, other));
                            None
                        }
                    };
                    p.ev.set_text(i, text);
                }
                Key::Other(k) => {
                    let value = access.next_value()?;
                    p.ev.extra.insert(k, value);
                }
            }
        }
        Ok(p)
    }
}

impl TimelineEvent {
    /// Set the text field at `i` of `FIXED` (not `data`).
    fn set_text(&mut self, i: usize, text: Option<String>) {
        match i {
            0 => self.ts = text,
            1 => self.kind = text.unwrap_or_default(),
            2 => self.name = text.unwrap_or_default(),
            3 => self.status = text.unwrap_or_default(),
            4 => self.id = text,
            _ => self.message = text.unwrap_or_default(),
        }
    }
}

/// A key of the line: one of `FIXED` (no allocation) or another.
enum Key {
    Fixed(usize),
    Other(String),
}

impl<'de> serde::Deserialize<'de> for Key {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl serde::de::Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: serde::de::Error>(self, k: &str) -> Result<Key, E> {
                Ok(FIXED
                    .iter()
                    .position(|f| *f == k)
                    .map_or_else(|| Key::Other(k.to_owned()), Key::Fixed))
            }
            fn visit_string<E: serde::de::Error>(self, k: String) -> Result<Key, E> {
                Ok(FIXED
                    .iter()
                    .position(|f| *f == k)
                    .map_or(Key::Other(k), Key::Fixed))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

fn from_parts(parts: Parts, issues: &mut Vec<LineIssue>) -> TimelineEvent {
    let Parts { mut ev, mut wrong } = parts;
    // report in the seed's field order, whatever the order in the line
    wrong.sort_by_key(|(i, _)| *i);
    for (i, other) in wrong {
        let key = FIXED[i];
        if i != 0 {
            issues.push(LineIssue {
                rule: "timeline-wrong-type",
                column: None,
                message: format!(
                    "field {key:?} should be a string, found {}",
                    kind_of(&other)
                ),
            });
        }
        // shown as its JSON text, and kept with its original value under its own name
        ev.set_text(i, Some(other.to_string()));
        ev.extra.insert(key.to_owned(), other);
    }
    ev
}

/// The JSON type of `v` as a message names it (`null`, `a string`, `an object`, …).
pub fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_full_event() {
        let (ev, issues) = parse_line(
            br#"{"ts":"2026-03-15T10:15:30.112Z","type":"step","name":"open","status":"ok","id":"s1","message":"opened","data":{"a":1},"extra":true}"#,
        );
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(ev.kind, "step");
        assert_eq!(ev.id.as_deref(), Some("s1"));
        assert_eq!(ev.data["a"], 1);
        assert_eq!(ev.extra["extra"], true);
    }

    #[test]
    fn broken_line_is_kept() {
        let (ev, issues) = parse_line(b"{not json");
        assert_eq!(issues[0].rule, "timeline-not-json");
        assert_eq!(ev.message, "{not json");
    }

    #[test]
    fn wrong_type_and_value_sets() {
        let (ev, issues) =
            parse_line(br#"{"type":"weird","name":5,"status":"done","message":"m"}"#);
        let rules: Vec<_> = issues.iter().map(|i| i.rule).collect();
        assert_eq!(
            rules,
            [
                "timeline-wrong-type",
                "timeline-bad-type",
                "timeline-bad-status"
            ]
        );
        assert_eq!(ev.name, "5");
    }

    #[test]
    fn serializes_each_field_once_with_its_original_value() {
        let line = r#"{"type":"step","name":5,"status":"ok","message":"m","x":[1]}"#;
        let (ev, _) = parse_line(line.as_bytes());
        let out = serde_json::to_string(&ev).expect("json");
        assert_eq!(
            out,
            r#"{"type":"step","name":5,"status":"ok","message":"m","data":null,"x":[1]}"#
        );
    }

    #[test]
    fn non_utf8_is_reported_and_shown() {
        let (ev, issues) = parse_line(b"{\"type\":\"run\",\"message\":\"a\xffb\"}");
        assert_eq!(issues[0].rule, "timeline-not-utf8");
        assert_eq!(ev.message, "a\u{fffd}b");
    }
}
