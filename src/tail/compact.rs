//! The fast path of a burst: recognising a line that is already, byte for byte,
//! the compact JSON of a clean event, so it can be passed on as it is and
//! parsed only when someone looks at it.
//!
//! Writers of `timeline.jsonl` almost always emit exactly that form (fields in
//! the seed's order, no spaces, minimal escapes), and a burst of 200k such lines
//! should cost a scan, not 200k trees of owned strings. Anything this scanner
//! is not sure of — another key order, spaces, floats, unknown fields, a
//! `type` outside its value set — goes the slow, full way
//! ([`crate::workspace::timeline::parse_line`]); the contract checked by the
//! tests (and the `tail_compact` fuzz target) is: when [`compact_fields`]
//! accepts a line, `parse_line` gives no issue and serializing its event gives
//! the line back unchanged.

use crate::workspace::timeline::{EVENT_STATUSES, EVENT_TYPES};
use std::borrow::Cow;

/// Where the fields of an accepted line are: for strings, the bytes between
/// the quotes (still escaped); for `data`, the whole value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fields {
    pub ts: Option<Span>,
    pub kind: Span,
    pub name: Span,
    pub status: Span,
    pub id: Option<Span>,
    pub message: Span,
    pub data: Span,
}

/// A byte range of the line; a string's range remembers whether it holds a
/// backslash escape (then it must be decoded to be shown).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    start: u32,
    end: u32,
    escaped: bool,
}

impl Span {
    /// The text of a string field, decoded.
    pub(crate) fn text<'a>(&self, line: &'a str) -> Cow<'a, str> {
        let (s, e) = (self.start as usize, self.end as usize);
        if !self.escaped {
            return Cow::Borrowed(&line[s..e]);
        }
        // the quotes around the range make it a JSON string serde_json reads;
        // the scanner accepted it, so this cannot fail (an empty text if it did)
        Cow::Owned(serde_json::from_str(&line[s - 1..=e]).unwrap_or_default())
    }

    /// The raw bytes of the range (a `data` value as written).
    pub(crate) fn raw<'a>(&self, line: &'a str) -> &'a str {
        &line[self.start as usize..self.end as usize]
    }
}

/// Deeper nesting than this is left to the full parser (which has its own limit).
const MAX_DEPTH: u32 = 64;
/// Objects with more keys are left to the full parser (keys are checked for
/// repeats pairwise).
const MAX_KEYS: usize = 64;
/// Longer integers may not fit `u64`/`i64`; they are left to the full parser.
const MAX_DIGITS: usize = 18;

/// The fields of `line` if it is exactly the compact JSON of an event with
/// nothing to report; `None` otherwise (the line then takes the full parse).
pub(crate) fn compact_fields(line: &str) -> Option<Fields> {
    if line.len() > u32::MAX as usize {
        return None;
    }
    let mut s = Scan {
        b: line.as_bytes(),
        i: 0,
        keys: Vec::new(),
    };
    s.lit(b"{\"")?;
    let ts = s.optional(b"ts\":")?;
    let kind = s.field(b"type\":")?;
    let name = s.field(b",\"name\":")?;
    let status = s.field(b",\"status\":")?;
    s.lit(b",\"")?;
    let id = s.optional(b"id\":")?;
    let message = s.field(b"message\":")?;
    s.lit(b",\"data\":")?;
    let start = s.i;
    s.value(0)?;
    let data = Span {
        start: start as u32,
        end: s.i as u32,
        escaped: false,
    };
    s.lit(b"}")?;
    if s.i != s.b.len() {
        return None;
    }
    // outside their value sets a warning is due: the full parse reports it
    let in_set = |span: Span, set: &[&str]| {
        let v = &line[span.start as usize..span.end as usize];
        !span.escaped && (v.is_empty() || set.contains(&v))
    };
    if !in_set(kind, &EVENT_TYPES) || !in_set(status, &EVENT_STATUSES) {
        return None;
    }
    Some(Fields {
        ts,
        kind,
        name,
        status,
        id,
        message,
        data,
    })
}

struct Scan<'a> {
    b: &'a [u8],
    i: usize,
    /// Keys of the objects being read (a stack: each object truncates back).
    keys: Vec<(usize, usize)>,
}

impl Scan<'_> {
    fn lit(&mut self, text: &[u8]) -> Option<()> {
        if self.b[self.i..].starts_with(text) {
            self.i += text.len();
            Some(())
        } else {
            None
        }
    }

    /// `key` then a string.
    fn field(&mut self, key: &[u8]) -> Option<Span> {
        self.lit(key)?;
        self.string()
    }

    /// An optional leading `key` with a string value and its `,"`: `Some(None)`
    /// when the key is not there, `None` when it is but malformed.
    #[allow(clippy::option_option)] // absent, present, or malformed: three answers
    fn optional(&mut self, key: &[u8]) -> Option<Option<Span>> {
        if self.lit(key).is_none() {
            return Some(None);
        }
        let v = self.string()?;
        self.lit(b",\"")?;
        Some(Some(v))
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// A string in the form serde_json writes: only `\"`, `\\`, the five short
    /// control escapes and `\u00XX` (lower-case) for the other controls.
    fn string(&mut self) -> Option<Span> {
        if self.peek()? != b'"' {
            return None;
        }
        let start = self.i + 1;
        let mut j = start;
        let mut escaped = false;
        loop {
            // the quote or backslash that ends the plain run, then no control
            // character before it (a raw one is not JSON)
            let k = memchr::memchr2(b'"', b'\\', &self.b[j..])?;
            if self.b[j..j + k].iter().any(|&c| c < 0x20) {
                return None;
            }
            j += k;
            match self.b[j] {
                b'"' => {
                    self.i = j + 1;
                    return Some(Span {
                        start: start as u32,
                        end: j as u32,
                        escaped,
                    });
                }
                b'\\' => {
                    escaped = true;
                    match *self.b.get(j + 1)? {
                        b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => j += 2,
                        b'u' => {
                            let h = self.b.get(j + 2..j + 6)?;
                            let high = match (h[0], h[1], h[2]) {
                                (b'0', b'0', b'0') => 0,
                                (b'0', b'0', b'1') => 16,
                                _ => return None,
                            };
                            let low = match h[3] {
                                d @ b'0'..=b'9' => d - b'0',
                                d @ b'a'..=b'f' => d - b'a' + 10,
                                _ => return None,
                            };
                            // these five have a short form, which serde_json writes
                            if matches!(high + low, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d) {
                                return None;
                            }
                            j += 6;
                        }
                        _ => return None,
                    }
                }
                _ => return None,
            }
        }
    }

    fn value(&mut self, depth: u32) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' => self.object(depth + 1),
            b'[' => self.array(depth + 1),
            b't' => self.lit(b"true"),
            b'f' => self.lit(b"false"),
            b'n' => self.lit(b"null"),
            b'-' | b'0'..=b'9' => self.integer(),
            _ => None,
        }
    }

    /// An integer written as serde_json writes it back; floats, `-0` and
    /// integers that might not fit are left to the full parser.
    fn integer(&mut self) -> Option<()> {
        let negative = self.peek() == Some(b'-');
        if negative {
            self.i += 1;
        }
        let digits = self.b[self.i..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if digits == 0 || digits > MAX_DIGITS {
            return None;
        }
        if self.b[self.i] == b'0' && (digits > 1 || negative) {
            return None;
        }
        self.i += digits;
        match self.peek() {
            Some(b'.' | b'e' | b'E') => None,
            _ => Some(()),
        }
    }

    fn array(&mut self, depth: u32) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.i += 1;
        if self.lit(b"]").is_some() {
            return Some(());
        }
        loop {
            self.value(depth)?;
            match self.peek()? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    fn object(&mut self, depth: u32) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.i += 1;
        if self.lit(b"}").is_some() {
            return Some(());
        }
        let mark = self.keys.len();
        loop {
            let key = self.string()?;
            let (s, e) = (key.start as usize, key.end as usize);
            // a repeated key collapses into one when parsed: not the same text.
            // Escapes are canonical, so equal raw bytes mean equal keys.
            let k = &self.b[s..e];
            if self.keys.len() - mark >= MAX_KEYS
                || self.keys[mark..].iter().any(|&(a, z)| &self.b[a..z] == k)
            {
                return None;
            }
            self.keys.push((s, e));
            self.lit(b":")?;
            self.value(depth)?;
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    self.keys.truncate(mark);
                    return Some(());
                }
                _ => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tail::pretty_line;
    use crate::workspace::timeline::parse_line;

    /// The contract: an accepted line parses without issue and serializes back
    /// to itself, and the fields point at what the parse found.
    fn check(line: &str) -> bool {
        let (ev, issues) = parse_line(line.as_bytes());
        let Some(f) = compact_fields(line) else {
            return false;
        };
        assert!(issues.is_empty(), "{line}: {issues:?}");
        let back = serde_json::to_string(&ev).expect("json");
        assert_eq!(back, line, "accepted but not canonical");
        assert_eq!(f.ts.map(|s| s.text(line).into_owned()), ev.ts);
        assert_eq!(f.kind.text(line), ev.kind);
        assert_eq!(f.name.text(line), ev.name);
        assert_eq!(f.status.text(line), ev.status);
        assert_eq!(f.id.map(|s| s.text(line).into_owned()), ev.id);
        assert_eq!(f.message.text(line), ev.message);
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(f.data.raw(line)).expect("data"),
            ev.data
        );
        for color in [false, true] {
            let mut out = String::from("before ");
            super::super::pretty::pretty_fields(line, &f, color, &mut out);
            assert_eq!(out, format!("before {}", pretty_line(&ev, color)));
        }
        true
    }

    #[test]
    fn the_common_forms_are_accepted() {
        for line in [
            r#"{"ts":"2026-03-15T10:15:30.112Z","type":"step","name":"open","status":"ok","message":"opened","data":{"url":"/","n":[1,-2,true,false,null,{}],"e":[]}}"#,
            r#"{"type":"run","name":"","status":"","id":"r1","message":"","data":null}"#,
            r#"{"type":"","name":"a\"b\\c\nd\u0001\u001f","status":"info","message":"é ✓ \u001b[2J","data":"x\ty"}"#,
            r#"{"ts":"t","type":"error","name":"n","status":"failed","id":"i","message":"m","data":0}"#,
            r#"{"type":"signal","name":"n","status":"skipped","message":"m","data":{"a":{"a":{"a":1}},"b":{"a":2}}}"#,
            r#"{"type":"assertion","name":"n","status":"ok","message":"m","data":-123456789012345678}"#,
        ] {
            assert!(check(line), "not accepted: {line}");
        }
    }

    #[test]
    fn anything_unsure_takes_the_full_parse() {
        for line in [
            // another order, spaces, a missing field
            r#"{"type":"step","ts":"t","name":"n","status":"ok","message":"m","data":null}"#,
            r#"{"type": "step","name":"n","status":"ok","message":"m","data":null}"#,
            r#"{"type":"step","name":"n","status":"ok","message":"m"}"#,
            r#"{"type":"step","name":"n","status":"ok","message":"m","data":null} "#,
            "{\"type\":\"step\",\"name\":\"n\",\"status\":\"ok\",\"message\":\"m\",\"data\":null}\r",
            // unknown fields, wrong types, values outside the sets
            r#"{"type":"step","name":"n","status":"ok","message":"m","data":null,"x":1}"#,
            r#"{"type":"step","name":5,"status":"ok","message":"m","data":null}"#,
            r#"{"ts":1773569730112,"type":"step","name":"n","status":"ok","message":"m","data":null}"#,
            r#"{"ts":null,"type":"step","name":"n","status":"ok","message":"m","data":null}"#,
            r#"{"type":"weird","name":"n","status":"ok","message":"m","data":null}"#,
            r#"{"type":"step","name":"n","status":"done","message":"m","data":null}"#,
            r#"{"type":"st\u0065p","name":"n","status":"ok","message":"m","data":null}"#,
            // escapes serde_json would write otherwise
            r#"{"type":"step","name":"\/","status":"ok","message":"m","data":null}"#,
            r#"{"type":"step","name":"\u0041","status":"ok","message":"m","data":null}"#,
            r#"{"type":"step","name":"\u000a","status":"ok","message":"m","data":null}"#,
            r#"{"type":"step","name":"\u001F","status":"ok","message":"m","data":null}"#,
            // numbers that do not come back as written
            r#"{"type":"step","name":"n","status":"ok","message":"m","data":1.5}"#,
            r#"{"type":"step","name":"n","status":"ok","message":"m","data":1e3}"#,
            r#"{"type":"step","name":"n","status":"ok","message":"m","data":-0}"#,
            r#"{"type":"step","name":"n","status":"ok","message":"m","data":012}"#,
            r#"{"type":"step","name":"n","status":"ok","message":"m","data":99999999999999999999}"#,
            // a repeated key, broken JSON
            r#"{"type":"step","name":"n","status":"ok","message":"m","data":{"a":1,"a":2}}"#,
            r#"{"type":"step","name":"n","status":"ok","message":"m","data":{"a":1,}}"#,
            r#"{"type":"step","name":"n","status":"ok","message":"m","data":[1,]}"#,
            r#"{"type":"step","name":"n","status":"ok","message":"m","data":tru}"#,
            r#"{"type":"step","name":"n","status":"ok","message":"m","data":"a"#,
            "{\"type\":\"step\",\"name\":\"a\tb\",\"status\":\"ok\",\"message\":\"m\",\"data\":null}",
            "",
            "{",
        ] {
            assert!(!check(line), "accepted: {line}");
        }
    }

    #[test]
    fn deep_and_wide_values_are_left_to_the_full_parse() {
        let deep = format!(
            r#"{{"type":"step","name":"n","status":"ok","message":"m","data":{}1{}}}"#,
            "[".repeat(100),
            "]".repeat(100)
        );
        assert!(!check(&deep));
        let keys: Vec<String> = (0..100).map(|i| format!("\"k{i}\":{i}")).collect();
        let wide = format!(
            r#"{{"type":"step","name":"n","status":"ok","message":"m","data":{{{}}}}}"#,
            keys.join(",")
        );
        assert!(!check(&wide));
        let ok = format!(
            r#"{{"type":"step","name":"n","status":"ok","message":"m","data":{{{}}}}}"#,
            keys[..60].join(",")
        );
        assert!(check(&ok));
    }

    /// Random lines built from pieces near the edges of the form: whatever the
    /// scanner accepts must keep the contract.
    #[test]
    fn random_lines_keep_the_contract() {
        let strings = [
            "\"\"",
            "\"a\"",
            "\"\\\"\"",
            "\"\\u0000\"",
            "\"\\u0008\"",
            "\"\\b\"",
            "\"\\u007f\"",
            "\"\u{7f}\"",
            "\"\\ud83d\\ude00\"",
            "\"😀\"",
            "\"\\/\"",
            "\"ok\"",
            "\"step\"",
            "\"\\u001b]52;c;SGVsbG8=\\u0007\"",
        ];
        let values = [
            "null",
            "true",
            "false",
            "0",
            "-1",
            "1.0",
            "-0",
            "[]",
            "{}",
            "[1,2]",
            "{\"a\":1}",
            "{\"a\":1,\"b\":{\"a\":[]}}",
            "{\"a\":1,\"a\":1}",
            "\"s\"",
            "1e2",
            "[ 1]",
        ];
        let mut rng = fastrand::Rng::with_seed(7);
        let mut accepted = 0;
        for _ in 0..20_000 {
            let pick = |rng: &mut fastrand::Rng, xs: &[&str]| xs[rng.usize(..xs.len())].to_owned();
            let mut parts = Vec::new();
            if rng.bool() {
                parts.push(format!("\"ts\":{}", pick(&mut rng, &strings)));
            }
            let kind = if rng.u8(..10) < 8 {
                pick(&mut rng, &["\"run\"", "\"step\"", "\"\"", "\"bad\""])
            } else {
                pick(&mut rng, &strings)
            };
            parts.push(format!("\"type\":{kind}"));
            parts.push(format!("\"name\":{}", pick(&mut rng, &strings)));
            let status = if rng.u8(..10) < 8 {
                pick(&mut rng, &["\"ok\"", "\"failed\"", "\"\"", "\"done\""])
            } else {
                pick(&mut rng, &strings)
            };
            parts.push(format!("\"status\":{status}"));
            if rng.bool() {
                parts.push(format!("\"id\":{}", pick(&mut rng, &strings)));
            }
            parts.push(format!("\"message\":{}", pick(&mut rng, &strings)));
            let data = if rng.bool() {
                pick(&mut rng, &values)
            } else {
                format!(
                    "{{{}:{},{}:{}}}",
                    pick(&mut rng, &strings),
                    pick(&mut rng, &values),
                    pick(&mut rng, &strings),
                    pick(&mut rng, &strings)
                )
            };
            parts.push(format!("\"data\":{data}"));
            if rng.u8(..10) == 0 {
                parts.swap(0, 1);
            }
            let line = format!("{{{}}}", parts.join(","));
            accepted += usize::from(check(&line));
        }
        // the generator must reach both sides of the decision
        assert!(accepted > 1000, "{accepted}");
        assert!(accepted < 19_000, "{accepted}");
    }
}
