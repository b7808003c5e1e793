//! The one escaping function every piece of text from a file goes through before
//! it reaches a terminal: control characters and escape sequences become visible text,
//! except SGR colour sequences, read into a closed set of attributes ([`sgr_spans`]).

use std::borrow::Cow;
use std::fmt::Write as _;

/// Escape C0 controls (except none), DEL and C1 controls as `\e`, `\xNN` or `\u{NN}`.
/// Tabs become a single space so columns stay predictable; newlines become `\n`.
pub fn escape(s: &str) -> Cow<'_, str> {
    replace_chars(s, 8, needs_escape, |out, c| match c {
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
    })
}

/// `s` with every character `needs` picks written by `write` instead (borrowed
/// when there is none): the one loop of [`escape`] and [`json_text`]. `room` is
/// what the escapes are expected to add.
fn replace_chars(
    s: &str,
    room: usize,
    needs: impl Fn(char) -> bool,
    write: impl Fn(&mut String, char),
) -> Cow<'_, str> {
    if !s.chars().any(&needs) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + room);
    for c in s.chars() {
        if needs(c) {
            write(&mut out, c);
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
    u == 0x7f || (0x80..0xa0).contains(&u) || is_invisible_format(c)
}

/// The format characters a terminal draws as nothing (or that move what
/// follows) while a width count gives them a column, or none where the terminal
/// gives one: line and paragraph separators, zero-width spaces and joiners, the
/// bidi marks, overrides and isolates, the word joiner and invisible operators,
/// the byte order mark and the interlinear annotation marks. One list for the
/// terminal and every JSON text.
pub fn is_invisible_format(c: char) -> bool {
    matches!(
        c as u32,
        0x00ad
            | 0x061c
            | 0x180e
            | 0x200b..=0x200f
            | 0x2028..=0x202e
            | 0x2060..=0x206f
            | 0xfeff
            | 0xfff9..=0xfffb
    )
}

/// Whether XML 1.0 allows `c` in a document (its `Char` production): not C0
/// but tab, LF and CR, not U+FFFE or U+FFFF (surrogates cannot be in a `str`).
fn xml_allows(c: char) -> bool {
    matches!(c as u32, 0x9 | 0xa | 0xd | 0x20..=0xd7ff | 0xe000..=0xfffd | 0x1_0000..)
}

/// An XML text every XML 1.0 parser accepts: each character the standard forbids
/// (even as a character reference) written as the visible text `\u{XXXX}`. The
/// markup a serializer writes is ASCII, so replacing in the whole document only
/// touches the text it carries.
pub fn xml_text(s: &str) -> Cow<'_, str> {
    replace_chars(
        s,
        16,
        |c| !xml_allows(c),
        |out, c| {
            let _ = write!(out, "\\u{{{:04x}}}", c as u32);
        },
    )
}

/// Escape, in a JSON text, every DEL, C1 and bidi control as `\uXXXX`: still
/// valid JSON holding the same strings. Valid JSON carries such characters only
/// inside strings (outside them it is ASCII), and a `\` there always starts an
/// escape of its own, so writing the escape in place is exact.
pub fn json_text(s: &str) -> Cow<'_, str> {
    // the common case, ASCII without DEL, in one pass the compiler vectorises
    // (a burst of `tail --json` lines goes through here)
    if s.bytes().all(|b| b < 0x7f) {
        return Cow::Borrowed(s);
    }
    replace_chars(s, 16, json_needs_escape, |out, c| {
        let _ = write!(out, "\\u{:04x}", c as u32);
    })
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

/// The most parameter bytes an SGR sequence may have to be read as one (longer
/// ones are escaped like any other sequence: no terminal needs more).
const MAX_SGR_PARAMS: usize = 64;

/// The sRGB value xterm draws colour `i` of the 256-colour palette in by
/// default: the 16 terminal colours, the 6×6×6 cube, the grey ramp.
pub fn xterm_rgb(i: u8) -> (u8, u8, u8) {
    match i {
        0..16 => BASIC[usize::from(i)],
        16..232 => {
            let i = i - 16;
            let step = |v: u8| if v == 0 { 0 } else { 55 + v * 40 };
            (step(i / 36), step(i / 6 % 6), step(i % 6))
        }
        232.. => {
            let v = 8 + (i - 232) * 10;
            (v, v, v)
        }
    }
}

// xterm's defaults for the 16 colours
const BASIC: [(u8, u8, u8); 16] = [
    (0, 0, 0),
    (205, 0, 0),
    (0, 205, 0),
    (205, 205, 0),
    (0, 0, 238),
    (205, 0, 205),
    (0, 205, 205),
    (229, 229, 229),
    (127, 127, 127),
    (255, 0, 0),
    (0, 255, 0),
    (255, 255, 0),
    (92, 92, 255),
    (255, 0, 255),
    (0, 255, 255),
    (255, 255, 255),
];

/// One of the colours an SGR sequence names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SgrColor {
    /// The 16 terminal colours (30–37, 90–97): 0 black … 7 white, 8–15 bright.
    Basic(u8),
    /// The 256-colour palette (`38;5;N`).
    Indexed(u8),
    /// A true colour (`38;2;R;G;B`).
    Rgb(u8, u8, u8),
}

impl SgrColor {
    /// The nearest of the 16 terminal colours (0–15), so a theme can stand in for it.
    pub fn basic(self) -> u8 {
        let (r, g, b) = match self {
            SgrColor::Basic(i) => return i & 15,
            SgrColor::Indexed(i) if i < 16 => return i,
            SgrColor::Indexed(i) => xterm_rgb(i),
            SgrColor::Rgb(r, g, b) => (r, g, b),
        };
        let d = |(x, y, z): (u8, u8, u8)| {
            let sq = |a: u8, b: u8| (i32::from(a) - i32::from(b)).pow(2);
            sq(x, r) + sq(y, g) + sq(z, b)
        };
        (0u8..16).min_by_key(|&i| d(xterm_rgb(i))).unwrap_or(7)
    }

    /// The SGR parameters that set this colour (`bg`: as the background).
    fn params(self, bg: bool) -> String {
        let base = if bg { 40 } else { 30 };
        match self {
            SgrColor::Basic(i) if i < 8 => (base + u32::from(i)).to_string(),
            SgrColor::Basic(i) => (base + 60 + u32::from(i & 7)).to_string(),
            SgrColor::Indexed(i) => format!("{};5;{i}", base + 8),
            SgrColor::Rgb(r, g, b) => format!("{};2;{r};{g};{b}", base + 8),
        }
    }
}

/// The on/off attributes an SGR sequence sets, as a set of bits (the way
/// ratatui's `Modifier` keeps them; the core does not depend on ratatui).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Attrs(u8);

impl Attrs {
    /// Bold or increased intensity (SGR 1).
    pub const BOLD: Attrs = Attrs(1);
    /// Faint, decreased intensity (SGR 2).
    pub const DIM: Attrs = Attrs(1 << 1);
    /// Italic (SGR 3).
    pub const ITALIC: Attrs = Attrs(1 << 2);
    /// Underlined (SGR 4).
    pub const UNDERLINE: Attrs = Attrs(1 << 3);
    /// Reverse video (SGR 7).
    pub const REVERSE: Attrs = Attrs(1 << 4);

    /// Each attribute with the SGR parameter that sets it, in the order
    /// [`Sgr::sequence`] writes them.
    const CODES: [(Attrs, &'static str); 5] = [
        (Attrs::BOLD, "1"),
        (Attrs::DIM, "2"),
        (Attrs::ITALIC, "3"),
        (Attrs::UNDERLINE, "4"),
        (Attrs::REVERSE, "7"),
    ];

    /// Whether every attribute of `other` is set.
    pub fn contains(self, other: Attrs) -> bool {
        self.0 & other.0 == other.0
    }

    /// Set (`on`) or clear the attributes of `other`.
    pub fn set(&mut self, other: Attrs, on: bool) {
        if on {
            self.0 |= other.0;
        } else {
            self.0 &= !other.0;
        }
    }
}

impl std::ops::BitOr for Attrs {
    type Output = Attrs;
    fn bitor(self, other: Attrs) -> Attrs {
        Attrs(self.0 | other.0)
    }
}

/// The attributes SGR sequences set on the text after them: a closed set (what
/// else a sequence asks for, blinking or hidden text, is ignored).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sgr {
    /// The on/off attributes set.
    pub attrs: Attrs,
    /// The foreground colour, `None`: the terminal's default.
    pub fg: Option<SgrColor>,
    /// The background colour, `None`: the terminal's default.
    pub bg: Option<SgrColor>,
}

impl Sgr {
    /// Whether no attribute is set.
    pub(crate) fn is_plain(&self) -> bool {
        *self == Sgr::default()
    }

    /// Apply one sequence's parameters (`1;31`, `38;5;208`, `38:2::1:2:3`).
    fn apply(&mut self, params: &str) {
        if params.is_empty() {
            *self = Sgr::default();
            return;
        }
        // a parameter too big for a u32 is no attribute (None), never a panic
        let num = |p: &str| {
            if p.is_empty() {
                Some(0)
            } else {
                p.parse::<u32>().ok()
            }
        };
        let mut groups = params.split(';');
        while let Some(g) = groups.next() {
            if g.contains(':') {
                // ITU colon form: the sub-parameters belong to this one attribute
                let sub: Vec<Option<u32>> = g.split(':').map(num).collect();
                match sub.first().copied().flatten() {
                    Some(n @ (38 | 48)) => {
                        let c = match sub.get(1).copied().flatten() {
                            Some(5) => sub.get(2).copied().flatten().and_then(indexed),
                            // 2:R:G:B or 2:colourspace:R:G:B
                            Some(2) if sub.len() >= 5 => {
                                let n = sub.len();
                                rgb(sub[n - 3], sub[n - 2], sub[n - 1])
                            }
                            _ => None,
                        };
                        self.set_color(n == 48, c);
                    }
                    // 4:0 is no underline, 4:1…4:5 the underline styles
                    Some(4) => self
                        .attrs
                        .set(Attrs::UNDERLINE, sub.get(1).copied().flatten() != Some(0)),
                    _ => {}
                }
                continue;
            }
            let Some(p) = num(g) else { continue };
            match p {
                0 => *self = Sgr::default(),
                1 => self.attrs.set(Attrs::BOLD, true),
                2 => self.attrs.set(Attrs::DIM, true),
                3 => self.attrs.set(Attrs::ITALIC, true),
                4 => self.attrs.set(Attrs::UNDERLINE, true),
                7 => self.attrs.set(Attrs::REVERSE, true),
                22 => self.attrs.set(Attrs::BOLD | Attrs::DIM, false),
                23 => self.attrs.set(Attrs::ITALIC, false),
                24 => self.attrs.set(Attrs::UNDERLINE, false),
                27 => self.attrs.set(Attrs::REVERSE, false),
                30..=37 => self.fg = Some(SgrColor::Basic(low(p - 30))),
                90..=97 => self.fg = Some(SgrColor::Basic(low(p - 90 + 8))),
                39 => self.fg = None,
                40..=47 => self.bg = Some(SgrColor::Basic(low(p - 40))),
                100..=107 => self.bg = Some(SgrColor::Basic(low(p - 100 + 8))),
                49 => self.bg = None,
                38 | 48 => {
                    let mut next = || groups.next().and_then(num);
                    let c = match next() {
                        Some(5) => next().and_then(indexed),
                        Some(2) => {
                            let (r, g, b) = (next(), next(), next());
                            rgb(r, g, b)
                        }
                        _ => None,
                    };
                    self.set_color(p == 48, c);
                }
                _ => {}
            }
        }
    }

    fn set_color(&mut self, bg: bool, c: Option<SgrColor>) {
        // a malformed colour changes nothing
        if c.is_some() {
            if bg {
                self.bg = c;
            } else {
                self.fg = c;
            }
        }
    }

    /// The one SGR sequence that sets exactly these attributes from a reset.
    pub fn sequence(&self) -> String {
        let mut p = vec!["0".to_owned()];
        for (a, code) in Attrs::CODES {
            if self.attrs.contains(a) {
                p.push(code.to_owned());
            }
        }
        p.extend(self.fg.map(|c| c.params(false)));
        p.extend(self.bg.map(|c| c.params(true)));
        format!("\x1b[{}m", p.join(";"))
    }
}

fn low(v: u32) -> u8 {
    u8::try_from(v).unwrap_or(0)
}

fn indexed(v: u32) -> Option<SgrColor> {
    u8::try_from(v).ok().map(SgrColor::Indexed)
}

fn rgb(r: Option<u32>, g: Option<u32>, b: Option<u32>) -> Option<SgrColor> {
    let c = |v: Option<u32>| v.and_then(|v| u8::try_from(v).ok());
    Some(SgrColor::Rgb(c(r)?, c(g)?, c(b)?))
}

/// When `s` starts with a complete SGR sequence (`ESC [` digits, `;` or `:`, `m`),
/// its length in bytes and its parameters.
fn sgr_at(s: &str) -> Option<(usize, &str)> {
    let rest = s.strip_prefix('\x1b')?;
    let n = sgr_tail(rest)?;
    Some((1 + n, &rest[1..n - 1]))
}

/// When `s` (what follows an ESC) is `[` parameters `m`, its length in bytes.
fn sgr_tail(s: &str) -> Option<usize> {
    let rest = s.strip_prefix('[')?;
    let end = rest
        .bytes()
        .take(MAX_SGR_PARAMS + 1)
        .position(|b| !(b.is_ascii_digit() || b == b';' || b == b':'))?;
    (rest.as_bytes()[end] == b'm').then_some(1 + end + 1)
}

/// A piece of text: plain text or one complete SGR sequence.
enum Piece<'a> {
    Plain(&'a str),
    /// The parameters and the sequence's raw text.
    Sgr(&'a str, &'a str),
}

/// `s` cut into plain pieces and the complete SGR sequences between them.
fn pieces(s: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let (mut from, mut i) = (0, 0);
    while let Some(off) = s[i..].find('\x1b') {
        let at = i + off;
        if let Some((len, params)) = sgr_at(&s[at..]) {
            if at > from {
                out.push(Piece::Plain(&s[from..at]));
            }
            out.push(Piece::Sgr(params, &s[at..at + len]));
            i = at + len;
            from = i;
        } else {
            i = at + 1;
        }
    }
    if from < s.len() {
        out.push(Piece::Plain(&s[from..]));
    }
    out
}

/// Text as styled pieces: each complete SGR sequence sets the attributes of the text
/// after it (a closed set, see [`Sgr`]), the text is [`escape`]d, and every other
/// control — another CSI, OSC, DCS, an unterminated or oversized sequence, C1, bidi —
/// stays visible as escaped text. Neighbouring pieces never share attributes.
pub fn sgr_spans(s: &str) -> Vec<(String, Sgr)> {
    let mut out: Vec<(String, Sgr)> = Vec::new();
    let mut cur = Sgr::default();
    if !s.contains('\x1b') {
        return if s.is_empty() {
            out
        } else {
            vec![(escape(s).into_owned(), cur)]
        };
    }
    let mut text = String::new();
    let mut at = Sgr::default();
    for p in pieces(s) {
        match p {
            Piece::Sgr(params, _) => cur.apply(params),
            Piece::Plain(p) => {
                if at != cur && !text.is_empty() {
                    out.push((std::mem::take(&mut text), at));
                }
                at = cur;
                text.push_str(&escape(p));
            }
        }
    }
    if !text.is_empty() {
        out.push((text, at));
    }
    out
}

/// The text without its complete SGR sequences (nothing else changed, nothing
/// escaped): what `diff` compares, so two runs differing only in colour are equal.
pub fn strip_sgr(s: &str) -> Cow<'_, str> {
    if !s.contains('\x1b') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    for p in pieces(s) {
        if let Piece::Plain(p) = p {
            out.push_str(p);
        }
    }
    Cow::Owned(out)
}

/// [`escape`], keeping the complete SGR sequences as they are: text to keep and draw
/// later with [`sgr_spans`] (the only control characters left start an SGR sequence).
pub fn escape_keep_sgr(s: &str) -> Cow<'_, str> {
    if !s.contains('\x1b') {
        return escape(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for p in pieces(s) {
        match p {
            Piece::Plain(p) => out.push_str(&escape(p)),
            Piece::Sgr(_, raw) => out.push_str(raw),
        }
    }
    Cow::Owned(out)
}

/// The text for a terminal: with `color`, each styled piece behind the one SGR
/// sequence of its attributes (rebuilt from the closed set, reset at the end);
/// without, the pieces alone. Everything else is escaped as by [`escape`].
pub fn sgr_text(s: &str, color: bool) -> Cow<'_, str> {
    if !s.contains('\x1b') {
        return escape(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut styled = false;
    for (t, a) in sgr_spans(s) {
        if color && (styled || !a.is_plain()) {
            out.push_str(&a.sequence());
            styled = !a.is_plain();
        }
        out.push_str(&t);
    }
    if styled {
        out.push_str("\x1b[0m");
    }
    Cow::Owned(out)
}

/// Pretty-printed JSON as lines to keep and draw with [`sgr_spans`]: an `\u001b` in
/// a string that starts a complete SGR sequence is read back as the ESC it stands
/// for, so the sequence draws as its style; every other escape stays JSON text.
pub fn json_lines_keep_sgr(json: &str) -> Vec<String> {
    let mut text = String::with_capacity(json.len());
    let mut chars = json.char_indices();
    while let Some((i, c)) = chars.next() {
        if c != '\\' {
            text.push(c);
            continue;
        }
        // in JSON a backslash always starts an escape of its own: read it whole
        let esc = json[i + 1..].starts_with("u001b") || json[i + 1..].starts_with("u001B");
        if esc && sgr_tail(&json[i + 6..]).is_some() {
            text.push('\x1b');
            for _ in 0..5 {
                chars.next();
            }
        } else {
            text.push('\\');
            if let Some((_, n)) = chars.next() {
                text.push(n);
            }
        }
    }
    text.split('\n')
        .map(|l| escape_keep_sgr(l).into_owned())
        .collect()
}

fn needs_escape(c: char) -> bool {
    let u = c as u32;
    u < 0x20 || u == 0x7f || (0x80..0xa0).contains(&u)
        // bidi overrides and isolates can reorder what the person sees; line
        // separators and zero-width characters shift a row's columns
        || is_invisible_format(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators_and_zero_width_characters_are_escaped_for_the_terminal() {
        for c in [
            '\u{2028}', '\u{2029}', '\u{200b}', '\u{200d}', '\u{feff}', '\u{2060}',
        ] {
            let s = format!("a{c}b");
            let e = escape(&s);
            assert!(!e.contains(c), "{c:?} reached the terminal: {e:?}");
            assert_eq!(e, format!("a\\u{{{:x}}}b", c as u32));
            assert!(!json_text(&s).contains(c), "{c:?} in JSON");
        }
    }

    #[test]
    fn xml_text_holds_only_what_xml_1_0_allows() {
        let s = "a\u{fffe}b\u{ffff}c\u{1}d\te\nf\rg\u{10000}";
        let x = xml_text(s);
        assert_eq!(x, "a\\u{fffe}b\\u{ffff}c\\u{0001}d\te\nf\rg\u{10000}");
        assert!(matches!(xml_text("plain <x/>"), Cow::Borrowed(_)));
    }

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

    fn no_raw_control(s: &str) -> bool {
        !s.chars().any(needs_escape)
    }

    #[test]
    fn sgr_sets_a_closed_set_of_attributes() {
        // what Playwright writes in a failure message
        let s = "\x1b[2mexpect(\x1b[22m\x1b[31mreceived\x1b[39m\x1b[2m).\x1b[22mtoBe\x1b[2m(\x1b[22m\x1b[32mexpected\x1b[39m\x1b[2m)\x1b[22m";
        let v = sgr_spans(s);
        let text: String = v.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(text, "expect(received).toBe(expected)");
        let dim = Sgr {
            attrs: Attrs::DIM,
            ..Sgr::default()
        };
        assert_eq!(v[0], ("expect(".into(), dim));
        assert_eq!(v[1].1.fg, Some(SgrColor::Basic(1)));
        assert!(!v[1].1.attrs.contains(Attrs::DIM));
        assert_eq!(v[3], ("toBe".into(), Sgr::default()));
        assert_eq!(v[5].1.fg, Some(SgrColor::Basic(2)));
        assert_eq!(strip_sgr(s), "expect(received).toBe(expected)");
        // 256 colours, true colour (both forms), bright, background, attributes
        let v = sgr_spans("\x1b[1;3;4;7;38;5;208;48;2;1;2;3ma\x1b[38:2::9:8:7;91;104mb\x1b[0mc");
        assert_eq!(
            v[0].1,
            Sgr {
                attrs: Attrs::BOLD | Attrs::ITALIC | Attrs::UNDERLINE | Attrs::REVERSE,
                fg: Some(SgrColor::Indexed(208)),
                bg: Some(SgrColor::Rgb(1, 2, 3)),
            }
        );
        assert_eq!(v[1].1.fg, Some(SgrColor::Basic(9)));
        assert_eq!(v[1].1.bg, Some(SgrColor::Basic(12)));
        assert_eq!(v[2], ("c".into(), Sgr::default()));
        assert_eq!(SgrColor::Indexed(196).basic(), 9);
        assert_eq!(SgrColor::Rgb(0, 200, 0).basic(), 2);
    }

    /// The three parts of xterm's palette, at their edges.
    #[test]
    fn the_xterm_palette() {
        assert_eq!(xterm_rgb(1), (205, 0, 0));
        assert_eq!(xterm_rgb(15), (255, 255, 255));
        assert_eq!(xterm_rgb(16), (0, 0, 0), "the cube starts black");
        assert_eq!(xterm_rgb(17), (0, 0, 95));
        assert_eq!(xterm_rgb(231), (255, 255, 255), "and ends white");
        assert_eq!(xterm_rgb(232), (8, 8, 8));
        assert_eq!(xterm_rgb(255), (238, 238, 238));
    }

    #[test]
    fn hostile_sequences_stay_escaped() {
        // unterminated CSI, an SGR too long, OSC 52, DCS, C1 CSI, another CSI, bidi
        let long = format!("\x1b[{}m", "1;".repeat(40));
        let cases: [(&str, &str); 8] = [
            ("a\x1b[31", "a\\e[31"),
            ("a\x1b[", "a\\e["),
            ("\x1b]52;c;SGVsbG8=\x07x", "\\e]52;c;SGVsbG8=\\x07x"),
            ("\x1bP1$qm\x1b\\y", "\\eP1$qm\\e\\y"),
            ("\u{9b}31mz", "\\x9b31mz"),
            ("\x1b[2J\x1b[31mr", "\\e[2Jr"),
            ("\u{202e}evil\x1b[1mb", "\\u{202e}evilb"),
            ("\x1b[?25l\x1b[=m", "\\e[?25l\\e[=m"),
        ];
        for (input, shown) in cases {
            let v = sgr_spans(input);
            let text: String = v.iter().map(|(t, _)| t.as_str()).collect();
            assert_eq!(text, shown, "{input:?}");
            assert!(no_raw_control(&text));
            assert!(no_raw_control(&sgr_text(input, false)));
        }
        let v = sgr_spans(&format!("{long}x"));
        assert!(v[0].0.starts_with("\\e[1;1;"), "{v:?}");
        assert!(v.iter().all(|(_, a)| a.is_plain()));
        // huge parameters are no attribute and never a panic
        let v = sgr_spans("\x1b[99999999999999999999;1m\x1b[38;5;99999m\x1b[38;2;300;1;1mx");
        assert_eq!(
            v,
            vec![(
                "x".into(),
                Sgr {
                    attrs: Attrs::BOLD,
                    ..Sgr::default()
                }
            )]
        );
        // nested resets: each one returns to plain, empty parameters too
        let v = sgr_spans("\x1b[1m\x1b[31ma\x1b[mb\x1b[0;0;0mc\x1b[4m\x1b[24md");
        assert_eq!(v[0].1.fg, Some(SgrColor::Basic(1)));
        assert!(v[0].1.attrs.contains(Attrs::BOLD));
        assert_eq!(v[1], ("bcd".into(), Sgr::default()));
        // colour-only runs of sequences with no text leave nothing
        assert!(sgr_spans("\x1b[31m\x1b[0m").is_empty());
    }

    #[test]
    fn sgr_text_rebuilds_only_the_closed_set() {
        let s = "\x1b[5;31;8mred\x1b[0m plain \x1b]0;t\x07";
        // blink (5) and hidden (8) are dropped; the OSC stays escaped
        assert_eq!(sgr_text(s, true), "\x1b[0;31mred\x1b[0m plain \\e]0;t\\x07");
        assert_eq!(sgr_text(s, false), "red plain \\e]0;t\\x07");
        assert!(matches!(sgr_text("plain", true), Cow::Borrowed(_)));
        assert_eq!(
            escape_keep_sgr("\x1b[1mb\x1b[2Jc\nd"),
            "\x1b[1mb\\e[2Jc\\nd"
        );
    }

    #[test]
    fn json_escapes_of_esc_become_sgr_and_nothing_else() {
        let v = serde_json::json!({"message": "\x1b[31mred\x1b[39m \x1b]52;c;x\x07", "k\\u001b": "\\\x1b[1m"});
        let text = serde_json::to_string_pretty(&v).expect("json");
        let lines = json_lines_keep_sgr(&text);
        let all = lines.join("\n");
        assert!(all.contains("\x1b[31mred\x1b[39m"), "{all}");
        assert!(all.contains("\\u001b]52;c;x\\u0007"), "{all}");
        // an escaped backslash followed by the letters u001b stays text
        assert!(all.contains("\"k\\\\u001b\""), "{all}");
        for l in &lines {
            let shown: String = sgr_spans(l).into_iter().map(|(t, _)| t).collect();
            assert!(no_raw_control(&shown));
            assert!(!shown.contains("\\e[3"), "{shown}");
        }
    }
}
