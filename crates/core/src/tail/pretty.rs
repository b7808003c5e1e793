//! The one-line rendering of a timeline event: time, type, status, name,
//! message, then `data` as compact JSON — every piece escaped, but for the SGR
//! colours in the message and data, drawn as colours (or dropped without colour).

use super::compact::Fields;
use crate::sanitize::{escape, sgr_text};
use crate::workspace::timeline::TimelineEvent;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt::Write as _;

const RESET: &str = "\x1b[0m";
const DIM: &str = "\x1b[2m";
const GREEN: &str = "\x1b[32m";
const RED_BOLD: &str = "\x1b[1;31m";
const RED: &str = "\x1b[31m";
const YELLOW: &str = "\x1b[33m";
const BLUE: &str = "\x1b[34m";

/// Whether stdout should get colors: the one decision of [`crate::color`]
/// (`--color`, `NO_COLOR`, `CLICOLOR`, `CLICOLOR_FORCE`, `TERM=dumb`, a terminal).
pub fn color_wanted() -> bool {
    crate::color::stdout()
}

/// One line, no newline, safe to print: text from the event is escaped, so a
/// value holding `ESC ] 52` or `ESC [ 2J` shows as text. With `color`, the
/// status (and an `error` type) is colored with plain SGR codes.
///
/// `10:15:30.112 step      ok      open-page [s1] opened the page {"url":"/"}`
pub fn pretty_line(ev: &TimelineEvent, color: bool) -> String {
    let mut out = String::with_capacity(96 + ev.message.len());
    pretty_into(ev, color, &mut out);
    out
}

/// [`pretty_line`], appended to `out`.
pub(crate) fn pretty_into(ev: &TimelineEvent, color: bool, out: &mut String) {
    let data = (!ev.data.is_null()).then(|| match &ev.data {
        Value::String(s) => s.clone(),
        other => json_shown(&other.to_string()).into_owned(),
    });
    render(
        &View {
            ts: ev.ts.as_deref(),
            kind: &ev.kind,
            name: &ev.name,
            status: &ev.status,
            id: ev.id.as_deref(),
            message: &ev.message,
            data: data.as_deref(),
            extra: Some(&ev.extra),
        },
        color,
        out,
    );
}

/// The same line as [`pretty_line`] for a line the compact scanner accepted,
/// read from the line's own text without parsing it.
pub(crate) fn pretty_fields(line: &str, f: &Fields, color: bool, out: &mut String) {
    let ts = f.ts.map(|s| s.text(line));
    let id = f.id.map(|s| s.text(line));
    let (name, message) = (f.name.text(line), f.message.text(line));
    let raw = f.data.raw(line);
    let data: Option<Cow<'_, str>> = match raw.as_bytes().first() {
        Some(b'n') => None,
        // a string is shown as its text, not as JSON
        Some(b'"') => Some(Cow::Owned(
            serde_json::from_str::<String>(raw).unwrap_or_default(),
        )),
        _ => Some(json_shown(raw)),
    };
    render(
        &View {
            ts: ts.as_deref(),
            // the scanner only accepts these two when they are plain words
            kind: f.kind.raw(line),
            name: &name,
            status: f.status.raw(line),
            id: id.as_deref(),
            message: &message,
            data: data.as_deref(),
            extra: None,
        },
        color,
        out,
    );
}

/// The pieces of one event, as text.
struct View<'a> {
    ts: Option<&'a str>,
    kind: &'a str,
    name: &'a str,
    status: &'a str,
    id: Option<&'a str>,
    message: &'a str,
    /// `data` in compact form (`None` for null).
    data: Option<&'a str>,
    extra: Option<&'a Map<String, Value>>,
}

fn render(ev: &View<'_>, color: bool, out: &mut String) {
    let start = out.len();
    let paint = |out: &mut String, code: &str, text: &str, width: usize| {
        let pad = width.saturating_sub(text.chars().count());
        if color && !code.is_empty() {
            out.push_str(code);
            out.push_str(text);
            out.push_str(RESET);
        } else {
            out.push_str(text);
        }
        out.extend(std::iter::repeat_n(' ', pad + 1));
    };
    let time = show_time(ev.ts, crate::clock::zone());
    paint(out, DIM, &time, 12);
    let kind = if ev.kind.is_empty() { "?" } else { ev.kind };
    let kind = escape(kind);
    paint(out, if ev.kind == "error" { RED } else { "" }, &kind, 9);
    let status = if ev.status.is_empty() { "?" } else { ev.status };
    let status_code = match status {
        "ok" => GREEN,
        "failed" => RED_BOLD,
        "skipped" => YELLOW,
        "info" => BLUE,
        _ => "",
    };
    paint(out, status_code, &escape(status), 7);
    out.push_str(&escape(ev.name));
    if let Some(id) = ev.id {
        let _ = write!(out, " [{}]", escape(id));
    }
    // a runner's colours (Playwright's `\e[2mexpect(\e[22m…`) are drawn, not escaped;
    // a line that is no event (its text in the message alone) is shown as written
    let raw_line = ev.kind.is_empty() && ev.status.is_empty() && ev.name.is_empty();
    if !ev.message.is_empty() {
        out.push(' ');
        if raw_line {
            out.push_str(&escape(ev.message));
        } else {
            out.push_str(&sgr_text(ev.message, color));
        }
    }
    if let Some(data) = ev.data {
        out.push(' ');
        out.push_str(&sgr_text(data, color));
    }
    // unknown fields are kept and shown, never dropped (SPEC §1.2)
    for (k, v) in ev.extra.into_iter().flatten() {
        let _ = write!(out, " {}={}", escape(k), escape(&compact(v)));
    }
    let end = start + out[start..].trim_end().len();
    out.truncate(end);
}

/// Compact JSON with each `\u001b` read back as ESC, so the SGR sequences in its
/// strings draw as colours ([`sgr_text`] escapes every other control again).
fn json_shown(json: &str) -> Cow<'_, str> {
    if json.contains("\\u001b") || json.contains("\\u001B") {
        Cow::Owned(crate::sanitize::json_lines_keep_sgr(json).concat())
    } else {
        Cow::Borrowed(json)
    }
}

fn compact(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `HH:MM:SS.mmm` of an RFC 3339 time or of epoch milliseconds, in the zone
/// shown (see [`crate::clock`]); anything else as it is (escaped), so a wrong
/// time is still seen.
fn show_time(ts: Option<&str>, zone: crate::clock::Zone) -> String {
    let Some(ts) = ts else {
        return "--:--:--.---".into();
    };
    // a UTC time shown in UTC is its own clock: no parse on every line of a burst
    if zone == crate::clock::Zone::Utc && ts.ends_with(['Z', 'z']) {
        if let Some(t) = rfc3339_clock(ts) {
            return t;
        }
    }
    let clock = |t| crate::clock::clock_ms(t, zone);
    if rfc3339_clock(ts).is_some() {
        // the shape is right: chrono reads the offset (a leap second or a 24:00
        // it refuses still shows, as written)
        return chrono::DateTime::parse_from_rfc3339(ts)
            .map_or_else(|_| rfc3339_clock(ts).unwrap_or_default(), clock);
    }
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(ts) {
        return clock(t);
    }
    if let Ok(ms) = ts.parse::<i64>() {
        if let Some(t) = chrono::DateTime::from_timestamp_millis(ms) {
            return clock(t.fixed_offset());
        }
    }
    escape(ts).into_owned()
}

/// The wall-clock part of an RFC 3339 time as written (its own offset), without
/// a full parse: the common case on every line of a burst.
fn rfc3339_clock(ts: &str) -> Option<String> {
    let b = ts.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let shape = b.len() >= 20
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && matches!(b[10], b'T' | b't' | b' ')
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19);
    if !shape {
        return None;
    }
    let mut out = String::with_capacity(12);
    out.push_str(&ts[11..19]);
    out.push('.');
    let frac: &[u8] = if b[19] == b'.' {
        let n = b[20..].iter().take_while(|c| c.is_ascii_digit()).count();
        &b[20..20 + n]
    } else {
        &[]
    };
    for i in 0..3 {
        out.push(frac.get(i).map_or('0', |&c| c as char));
    }
    // the rest must be an offset, or this was not RFC 3339 after all
    let rest = &ts[19 + usize::from(!frac.is_empty()) + frac.len()..];
    let zone_ok = matches!(rest, "Z" | "z")
        || (rest.len() == 6
            && matches!(rest.as_bytes()[0], b'+' | b'-')
            && rest.as_bytes()[3] == b':');
    zone_ok.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::timeline::parse_line;

    #[test]
    fn plain_layout() {
        let (ev, _) = parse_line(
            br#"{"ts":"2026-03-15T10:15:30.112Z","type":"step","name":"open","status":"ok","id":"s1","message":"opened","data":{"url":"/"}}"#,
        );
        assert_eq!(
            pretty_line(&ev, false),
            r#"10:15:30.112 step      ok      open [s1] opened {"url":"/"}"#
        );
    }

    #[test]
    fn colors_only_the_status_and_errors() {
        let (ev, _) =
            parse_line(br#"{"type":"error","name":"boom","status":"failed","message":"x"}"#);
        let s = pretty_line(&ev, true);
        assert!(s.contains("\x1b[1;31mfailed\x1b[0m"), "{s:?}");
        assert!(s.contains("\x1b[31merror\x1b[0m"), "{s:?}");
    }

    #[test]
    fn hostile_text_is_escaped_everywhere() {
        let line = "{\"ts\":\"\\u001b[2J\",\"type\":\"signal\\u0007\",\"name\":\"\\u001b]52;c;SGVsbG8=\\u0007\",\"status\":\"info\",\"message\":\"a\\u009bb\",\"data\":{\"k\\u001b\":\"\\u202e\"},\"x\\u001b\":1}";
        let (ev, issues) = parse_line(line.as_bytes());
        assert!(
            issues.iter().all(|i| i.rule != "timeline-not-json"),
            "{issues:?}"
        );
        let s = pretty_line(&ev, false);
        assert!(!s.chars().any(char::is_control), "{s:?}");
        assert!(s.contains("\\e]52;c;SGVsbG8=\\x07"), "{s}");
        assert!(s.contains("\\e[2J"), "{s}");
    }

    #[test]
    fn runner_colours_are_drawn_or_dropped_never_escaped() {
        // Playwright's failure message, in the message and in data.error.message
        let line = r#"{"type":"assertion","name":"a","status":"failed","message":"\u001b[2mexpect(\u001b[22m\u001b[31mgot\u001b[39m\u001b[2m)\u001b[22m","data":{"error":{"message":"\u001b[31mgot\u001b[39m \u001b]52;c;x\u0007"}}}"#;
        {
            let ev = parse_line(line.as_bytes()).0;
            let plain = pretty_line(&ev, false);
            assert!(plain.contains(" expect(got) "), "{plain}");
            assert!(
                plain.contains(r#""message":"got \u001b]52;c;x\u0007""#),
                "{plain}"
            );
            assert!(!plain.contains("\\e["), "{plain}");
            assert!(!plain.contains("\\u001b["), "{plain}");
            assert!(!plain.chars().any(char::is_control), "{plain:?}");
            let colour = pretty_line(&ev, true);
            assert!(
                colour.contains("\x1b[0;2mexpect(\x1b[0;31mgot\x1b[0;2m)\x1b[0m"),
                "{colour:?}"
            );
            assert!(colour.contains("\x1b[0;31mgot\x1b[0m "), "{colour:?}");
            assert!(!colour.contains("\x1b]"), "{colour:?}");
        }
    }

    #[test]
    fn clock_of_rfc3339_times() {
        let utc = crate::clock::Zone::Utc;
        assert_eq!(
            show_time(Some("2026-03-15T10:15:30.1Z"), utc),
            "10:15:30.100"
        );
        // another offset is shown in the zone shown, not as written
        assert_eq!(
            show_time(Some("2026-03-15T10:15:30.123456+08:00"), utc),
            "02:15:30.123"
        );
        assert_eq!(show_time(Some("2026-03-15T10:15:30Z"), utc), "10:15:30.000");
        assert_eq!(
            show_time(Some("2026-03-15T10:15:30.5 junk"), utc),
            "2026-03-15T10:15:30.5 junk"
        );
        assert_eq!(show_time(Some("yesterday\u{1b}"), utc), "yesterday\\e");
    }

    #[test]
    fn epoch_millis_and_missing_time() {
        let (ev, _) =
            parse_line(br#"{"ts":1773569730112,"type":"run","name":"r","status":"info"}"#);
        assert!(pretty_line(&ev, false).starts_with("10:15:30.112 run"));
        let (ev, _) = parse_line(br#"{"type":"run","name":"r","status":"info"}"#);
        assert!(pretty_line(&ev, false).starts_with("--:--:--.--- run"));
    }
}
