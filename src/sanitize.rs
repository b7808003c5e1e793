//! The one escaping function every piece of text from a file goes through before
//! it reaches a terminal: control characters and escape sequences become visible text.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Escape C0 controls (except none), DEL and C1 controls as `\e`, `\xNN` or `\u{NN}`.
/// Tabs become a single space so columns stay predictable; newlines become `\n`.
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.chars().any(needs_escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if needs_escape(c) {
            match c {
                '\x1b' => out.push_str("\\e"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push(' '),
                c if (c as u32) < 0x100 => {
                    let _ = write!(out, "\\x{:02x}", c as u32);
                }
                c => {
                    let _ = write!(out, "\\u{{{:x}}}", c as u32);
                }
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Escape, keeping newlines as real line breaks (for multi-line blocks such as
/// pretty-printed JSON or captured output shown line by line).
pub fn escape_keep_newlines(s: &str) -> String {
    s.split('\n')
        .map(|l| escape(l).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Lossy UTF-8 decoding for bytes from a file, then escaping.
pub fn escape_bytes(b: &[u8]) -> String {
    escape(&String::from_utf8_lossy(b)).into_owned()
}

/// DEL, C1 controls and the bidi controls: what `--json` output never carries raw.
/// (serde_json already writes C0 controls as escapes.)
fn json_needs_escape(c: char) -> bool {
    let u = c as u32;
    u == 0x7f || (0x80..0xa0).contains(&u) || matches!(u, 0x202a..=0x202e | 0x2066..=0x2069)
}

/// Escape, in a JSON text, every DEL, C1 and bidi control as `\uXXXX`: still
/// valid JSON holding the same strings. Valid JSON carries such characters only
/// inside strings (outside them it is ASCII), and a `\` there always starts an
/// escape of its own, so writing the escape in place is exact.
pub fn json_text(s: &str) -> Cow<'_, str> {
    if !s.chars().any(json_needs_escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if json_needs_escape(c) {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The one JSON writer of every `--json` output: serde_json, then [`json_text`].
pub fn to_json<T: serde::Serialize + ?Sized>(v: &T, pretty: bool) -> serde_json::Result<String> {
    let text = if pretty {
        serde_json::to_string_pretty(v)?
    } else {
        serde_json::to_string(v)?
    };
    Ok(match json_text(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(o) => o,
    })
}

fn needs_escape(c: char) -> bool {
    let u = c as u32;
    u < 0x20 || u == 0x7f || (0x80..0xa0).contains(&u)
        // bidi overrides and isolates can reorder what the person sees
        || matches!(u, 0x202a..=0x202e | 0x2066..=0x2069)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_escapes_del_c1_and_bidi_and_keeps_the_strings() {
        let hostile = "a\u{7f}b\u{9b}c\u{202e}d\u{2066}e\x1b[2J\\\"✓";
        let v = serde_json::json!({ hostile: [hostile, 1] });
        for pretty in [false, true] {
            let text = to_json(&v, pretty).expect("json");
            assert!(
                !text
                    .chars()
                    .any(|c| json_needs_escape(c) || (c as u32) < 0x20 && c != '\n')
            );
            let back: serde_json::Value = serde_json::from_str(&text).expect("valid");
            assert_eq!(back, v);
        }
        assert!(matches!(json_text("{\"a\":\"✓\"}"), Cow::Borrowed(_)));
    }

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(escape("hello ✓ 你好"), Cow::Borrowed(_)));
    }

    #[test]
    fn escapes_osc52_and_csi() {
        let s = "a\x1b]52;c;SGVsbG8=\x07b\x1b[2Jc\u{9b}d";
        let e = escape(s);
        assert_eq!(e, "a\\e]52;c;SGVsbG8=\\x07b\\e[2Jc\\x9bd");
        assert!(
            !e.chars()
                .any(|c| (c as u32) < 0x20 || (0x80..0xa0).contains(&(c as u32)))
        );
    }

    #[test]
    fn newlines_and_tabs() {
        assert_eq!(escape("a\nb\tc\r"), "a\\nb c\\r");
        assert_eq!(escape_keep_newlines("a\nb\x1b"), "a\nb\\e");
    }
}
