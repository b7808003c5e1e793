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
