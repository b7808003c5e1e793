//! The fast path of a burst: recognising a line that is already, byte for byte,
//! the compact JSON of a clean event, so it can be passed on as it is and
//! parsed only when someone looks at it.
//!
//! Writers of `timeline.jsonl` almost always emit exactly that form (fields in
//! the seed's order, no spaces, minimal escapes), and a burst of 200k such lines
//! should cost a scan, not 200k trees of owned strings. A clean event written
//! any other valid way — spaces, `\u` escapes, `null` for a field, another key
//! order, a field missing or repeated, floats in another form — is rewritten
//! to that form in one scan ([`canonical_event`]) and then takes the same path.
//! What the full parse has something to say about or keeps beside the fixed
//! fields — a field of another type, an unknown field, a `type` outside its
//! value set, broken JSON — goes the slow, full way
//! ([`crate::workspace::timeline::parse_line`]); the contract checked by the
//! tests (and the `tail_compact` fuzz target) is: when [`compact_fields`]
//! accepts a line, `parse_line` gives no issue and serializing its event gives
//! the line back unchanged, and a line [`canonical_event`] rewrites gives the
//! full parse's output.

use crate::workspace::timeline::{EVENT_STATUSES, EVENT_TYPES};
use std::borrow::Cow;

/// Where the fields of an accepted line are: for strings, the bytes between
/// the quotes (still escaped); for `data`, the whole value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fields {
    pub(crate) ts: Option<Span>,
    pub(crate) kind: Span,
    pub(crate) name: Span,
    pub(crate) status: Span,
    pub id: Option<Span>,
    pub(crate) message: Span,
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

/// The fields of `line` if it is exactly the compact JSON of an event with
/// nothing to report; `None` otherwise (the line then takes the full parse).
pub(crate) fn compact_fields(line: &str) -> Option<Fields> {
    if line.len() > u32::MAX as usize {
        return None;
    }
    let mut s = Scan::new(line, Strict);
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
    if !s.at_end() {
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

/// One scan of a line: the cursor, the keys of the objects it is in, and what
/// the scan keeps of its own (`M`): nothing for the strict scan of
/// [`compact_fields`] ([`Strict`]), the output for [`normalize`]
/// ([`Rewrite`]). The walk over values, arrays and objects is written once
/// for both; each mode says how it takes the steps that differ ([`Steps`]) and
/// gets its own compiled copy of the walk (no dynamic dispatch on the fast path).
struct Scan<'a, M> {
    line: &'a str,
    i: usize,
    /// The keys of the objects being read, as ranges of [`Steps::keys`]' bytes.
    keys: Keys,
    mode: M,
}

/// The strict scan: the compact form only, nothing written.
struct Strict;

/// The rewrite into serde_json's compact form.
struct Rewrite {
    out: String,
}

/// The steps each scan takes its own way: strings, numbers, literals,
/// whitespace, and what is written.
trait Steps {
    /// Step over `c`, the structural byte under the cursor (`[ ] { } , :`),
    /// writing it when the scan writes.
    fn punct(&mut self, c: u8);
    /// Whitespace between tokens (the strict scan allows none).
    fn ws(&mut self);
    /// A string, `None` unless the cursor is at its opening quote; the range
    /// its text is compared by when it is a key (see [`Steps::keys`]).
    fn string(&mut self) -> Option<(usize, usize)>;
    /// `true`, `false` or `null`.
    fn word(&mut self, w: &'static str) -> Option<()>;
    fn number(&mut self) -> Option<()>;
    /// The keys of the objects being read, and the bytes their ranges are
    /// in. A scan holds keys in one canonical form, so equal bytes mean equal
    /// keys.
    fn keys(&mut self) -> (&mut Keys, &[u8]);
}

impl<'a, M> Scan<'a, M> {
    fn new(line: &'a str, mode: M) -> Self {
        Scan {
            line,
            i: 0,
            keys: Keys::default(),
            mode,
        }
    }

    #[inline]
    fn b(&self) -> &'a [u8] {
        self.line.as_bytes()
    }

    /// The byte under the cursor, if any.
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b().get(self.i).copied()
    }

    fn at_end(&self) -> bool {
        self.i == self.line.len()
    }

    /// Step over `text` when the line goes on with it.
    #[inline]
    fn lit(&mut self, text: &[u8]) -> Option<()> {
        if self.b()[self.i..].starts_with(text) {
            self.i += text.len();
            Some(())
        } else {
            None
        }
    }

    /// Step over the number under the cursor: its text, and whether serde_json
    /// prints it back as written (see [`number_end`]).
    fn number_text(&mut self) -> Option<(&'a str, bool)> {
        let start = self.i;
        let (end, canonical) = number_end(self.b(), start)?;
        self.i = end;
        Some((&self.line[start..end], canonical))
    }
}

impl<M> Scan<'_, M>
where
    Self: Steps,
{
    fn value(&mut self, depth: u32) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' => self.object(depth + 1),
            b'[' => self.array(depth + 1),
            b't' => self.word("true"),
            b'f' => self.word("false"),
            b'n' => self.word("null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn array(&mut self, depth: u32) -> Option<()> {
        self.container(depth, [b'[', b']'], Self::value)
    }

    fn object(&mut self, depth: u32) -> Option<()> {
        let mark = self.keys.mark();
        self.container(depth, [b'{', b'}'], |s, depth| s.member(mark, depth))?;
        self.keys.close(mark);
        Some(())
    }

    /// One `"key": value` of the object whose keys start at `mark`.
    fn member(&mut self, mark: usize, depth: u32) -> Option<()> {
        let key = self.string()?;
        let (keys, text) = self.keys();
        keys.add(mark, key, text)?;
        self.ws();
        if self.peek()? != b':' {
            return None;
        }
        self.punct(b':');
        self.ws();
        self.value(depth)
    }

    /// `open`, the elements `element` reads separated by `,`, then `close`:
    /// the one loop of arrays and objects (nesting deeper than [`MAX_DEPTH`]
    /// is refused).
    #[inline]
    fn container(
        &mut self,
        depth: u32,
        [open, close]: [u8; 2],
        mut element: impl FnMut(&mut Self, u32) -> Option<()>,
    ) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.punct(open);
        self.ws();
        if self.peek() == Some(close) {
            self.punct(close);
            return Some(());
        }
        loop {
            element(self, depth)?;
            self.ws();
            match self.peek()? {
                b',' => {
                    self.punct(b',');
                    self.ws();
                }
                c if c == close => {
                    self.punct(close);
                    return Some(());
                }
                _ => return None,
            }
        }
    }
}

/// The keys of the objects being read, as ranges of the bytes a scan keeps
/// them in: a stack, each object takes its own off again when it ends.
#[derive(Default)]
struct Keys(Vec<(usize, usize)>);

impl Keys {
    /// Where the keys of an object that starts now begin.
    fn mark(&self) -> usize {
        self.0.len()
    }

    /// Take off the keys of the object that began at `mark`.
    fn close(&mut self, mark: usize) {
        self.0.truncate(mark);
    }

    /// Add the key at `range` of `text` to the object that began at `mark`;
    /// `None` for a repeated key (it collapses into one when parsed: not the
    /// same text) or one over [`MAX_KEYS`].
    fn add(&mut self, mark: usize, range: (usize, usize), text: &[u8]) -> Option<()> {
        let k = &text[range.0..range.1];
        let own = &self.0[mark..];
        if own.len() >= MAX_KEYS || own.iter().any(|&(a, z)| &text[a..z] == k) {
            return None;
        }
        self.0.push(range);
        Some(())
    }
}

impl Steps for Scan<'_, Strict> {
    #[inline]
    fn punct(&mut self, _: u8) {
        self.i += 1;
    }

    #[inline]
    fn ws(&mut self) {}

    fn string(&mut self) -> Option<(usize, usize)> {
        self.span().map(|s| (s.start as usize, s.end as usize))
    }

    fn word(&mut self, w: &'static str) -> Option<()> {
        self.lit(w.as_bytes())
    }

    /// A number written as serde_json writes it back (see [`number_end`]): an integer in
    /// range as it is, anything else only if serde_json prints it back the same.
    fn number(&mut self) -> Option<()> {
        let (text, canonical) = self.number_text()?;
        (canonical || round_trips(text.as_bytes())).then_some(())
    }

    /// Ranges of the line, between the quotes.
    #[inline]
    fn keys(&mut self) -> (&mut Keys, &[u8]) {
        (&mut self.keys, self.line.as_bytes())
    }
}

impl Scan<'_, Strict> {
    /// `key` then a string.
    fn field(&mut self, key: &[u8]) -> Option<Span> {
        self.lit(key)?;
        self.span()
    }

    /// An optional leading `key` with a string value and its `,"`: `Some(None)`
    /// when the key is not there, `None` when it is but malformed.
    #[allow(clippy::option_option)] // absent, present, or malformed: three answers
    fn optional(&mut self, key: &[u8]) -> Option<Option<Span>> {
        if self.lit(key).is_none() {
            return Some(None);
        }
        let v = self.span()?;
        self.lit(b",\"")?;
        Some(Some(v))
    }

    /// A string in the form serde_json writes: only `\"`, `\\`, the five short
    /// control escapes and `\u00XX` (lower-case) for the other controls.
    fn span(&mut self) -> Option<Span> {
        if self.peek()? != b'"' {
            return None;
        }
        let bytes = self.b();
        let start = self.i + 1;
        let mut j = start;
        let mut escaped = false;
        loop {
            // the quote or backslash that ends the plain run, then no control
            // character before it (a raw one is not JSON)
            let k = memchr::memchr2(b'"', b'\\', &bytes[j..])?;
            if bytes[j..j + k].iter().any(|&c| c < 0x20) {
                return None;
            }
            j += k;
            match bytes[j] {
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
                    match *bytes.get(j + 1)? {
                        b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => j += 2,
                        b'u' => {
                            let h = bytes.get(j + 2..j + 6)?;
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
}

/// The end of the JSON number that starts at `i`, and whether it is an
/// integer serde_json keeps and prints back as written: no leading zero, not
/// `-0`, within `u64` (or `i64` when negative). Other valid numbers become a
/// float in serde_json (and may print otherwise); `None` if it is not a number.
fn number_end(b: &[u8], i: usize) -> Option<(usize, bool)> {
    let negative = b.get(i) == Some(&b'-');
    let mut j = i + usize::from(negative);
    let digits = |j: usize| {
        b[j.min(b.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    };
    let int = digits(j);
    if int == 0 || (b[j] == b'0' && int > 1) {
        return None;
    }
    let int_start = j;
    j += int;
    let mut float = false;
    if b.get(j) == Some(&b'.') {
        let frac = digits(j + 1);
        if frac == 0 {
            return None;
        }
        j += 1 + frac;
        float = true;
    }
    if matches!(b.get(j), Some(b'e' | b'E')) {
        j += 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let exp = digits(j);
        if exp == 0 {
            return None;
        }
        j += exp;
        float = true;
    }
    if float || (negative && b[int_start] == b'0') {
        return Some((j, false));
    }
    // at most 20 digits, so the sum cannot overflow u128
    let in_range = int <= 20 && {
        let v = b[int_start..j]
            .iter()
            .fold(0u128, |v, &d| v * 10 + u128::from(d - b'0'));
        if negative {
            v <= 1u128 << 63
        } else {
            v <= u128::from(u64::MAX)
        }
    };
    Some((j, in_range))
}

/// Whether serde_json reads this number and prints it back byte for byte.
fn round_trips(text: &[u8]) -> bool {
    reprint(text, &mut [0; NUMBER_ROOM]).is_some_and(|p| p == text)
}

/// Room for any number serde_json prints (a float in shortest form is at most
/// 24 bytes).
const NUMBER_ROOM: usize = 32;

/// How serde_json prints the number it reads from `text` when it is not an
/// integer it keeps (see [`number_end`]): a float (a big integer or `-0` too,
/// as serde_json reads them), in shortest form, written into `buf` without an
/// allocation; `None` if it refuses it (out of range).
fn reprint<'b>(text: &[u8], buf: &'b mut [u8; NUMBER_ROOM]) -> Option<&'b [u8]> {
    let v: f64 = serde_json::from_slice(text).ok()?;
    let room = {
        let mut w = &mut buf[..];
        serde_json::to_writer(&mut w, &v).ok()?;
        w.len()
    };
    Some(&buf[..NUMBER_ROOM - room])
}

/// A line of any valid JSON in compact form, exactly as serde_json would print
/// it back (`serde_json::to_string` of its `Value`), built in one pass over the
/// bytes without a tree: whitespace outside strings dropped, strings copied
/// with their escapes checked and written the way serde_json writes them
/// (`\/` and `\u` escapes of printable characters decoded), numbers validated
/// (and re-printed by serde_json when they are not plain integers).
///
/// `None` for invalid JSON and for what this scan does not decide alone —
/// nesting deeper than [`MAX_DEPTH`], objects with more than [`MAX_KEYS`]
/// keys, a repeated key (serde_json keeps one): the caller then takes the full
/// parse, which reports what is wrong. The engine rewrites a whole event
/// ([`canonical_event`], the same steps); this rewrite of one value is the
/// contract those steps are checked by.
#[cfg(test)]
pub(crate) fn normalize(line: &str) -> Option<String> {
    if line.len() > u32::MAX as usize {
        return None;
    }
    let out = String::with_capacity(line.len());
    let mut n = Scan::new(line, Rewrite { out });
    n.ws();
    n.value(0)?;
    n.ws();
    n.at_end().then_some(n.mode.out)
}

/// The fixed keys of an event as the rewrite ([`Rewrite`]) writes them, in the
/// seed's order (the order the full parse writes them back in).
const FIXED_KEYS: [&str; 7] = [
    "\"ts\"",
    "\"type\"",
    "\"name\"",
    "\"status\"",
    "\"id\"",
    "\"message\"",
    "\"data\"",
];

/// The compact JSON the full parse writes back for `line`
/// (`serde_json::to_string` of [`crate::workspace::timeline::parse_line`]'s
/// event), built in one scan without a tree, for every line whose fields the
/// full parse takes without a word: the fixed fields in any order, any of them
/// missing or repeated (the last one counts), `null` for a text field (no `ts`
/// or `id`, an empty text for the others), a number for `ts` (its text), any
/// JSON value for `data`, spaces between tokens, every escape form.
///
/// `None` where the full parse has something to say or keeps more than the
/// fixed fields — a text field of another type, a field of another name — and
/// for whatever [`normalize`] refuses: the line then takes the full parse. The
/// caller still checks the result with [`compact_fields`] (a `type` or
/// `status` outside its value set is reported by the full parse).
pub(crate) fn canonical_event(line: &str) -> Option<String> {
    if line.len() > u32::MAX as usize {
        return None;
    }
    let mut n = Scan::new(
        line,
        Rewrite {
            out: String::with_capacity(line.len()),
        },
    );
    // where each fixed field's value is in the scan's output (the last one)
    let mut at: [Option<(usize, usize)>; 7] = [None; 7];
    let mut wrong = [false; 7];
    n.ws();
    n.lit(b"{")?;
    n.ws();
    if n.lit(b"}").is_none() {
        loop {
            let (ks, ke) = n.string()?;
            let key = FIXED_KEYS
                .iter()
                .position(|k| k.as_bytes() == &n.mode.out.as_bytes()[ks..ke])?;
            n.ws();
            n.lit(b":")?;
            n.ws();
            let start = n.mode.out.len();
            n.value(0)?;
            let fits = match n.mode.out.as_bytes()[start] {
                b'"' | b'n' => true,
                b'-' | b'0'..=b'9' => key == 0,
                _ => false,
            };
            // a text field of another type is reported by the full parse,
            // unless a later value of the field replaces it
            wrong[key] = !fits && key != 6;
            at[key] = Some((start, n.mode.out.len()));
            n.ws();
            if n.lit(b"}").is_some() {
                break;
            }
            n.lit(b",")?;
            n.ws();
        }
    }
    n.ws();
    if !n.at_end() || wrong.contains(&true) {
        return None;
    }
    let scanned = n.mode.out;
    let mut out = String::with_capacity(scanned.len() + 64);
    out.push('{');
    for (i, key) in FIXED_KEYS.iter().enumerate() {
        let data = i == 6;
        let value = at[i]
            .map(|(s, e)| &scanned[s..e])
            .filter(|v| data || *v != "null");
        if value.is_none() && (i == 0 || i == 4) {
            // no `ts` or `id`: not written
            continue;
        }
        if out.len() > 1 {
            out.push(',');
        }
        out.push_str(key);
        out.push(':');
        match value {
            // a number for `ts` is taken as its text
            Some(v) if !data && !v.starts_with('"') => {
                out.push('"');
                out.push_str(v);
                out.push('"');
            }
            Some(v) => out.push_str(v),
            None if data => out.push_str("null"),
            None => out.push_str("\"\""),
        }
    }
    out.push('}');
    Some(out)
}

impl Steps for Scan<'_, Rewrite> {
    #[inline]
    fn punct(&mut self, c: u8) {
        self.mode.out.push(char::from(c));
        self.i += 1;
    }

    #[inline]
    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    /// A string, re-escaped as serde_json escapes: `"` `\` and the controls
    /// (the five short forms, `\u00xx` lower-case for the others); every other
    /// character as itself.
    fn string(&mut self) -> Option<(usize, usize)> {
        if self.peek() != Some(b'"') {
            return None;
        }
        let (line, b) = (self.line, self.b());
        let start = self.mode.out.len();
        self.i += 1;
        self.mode.out.push('"');
        loop {
            let k = memchr::memchr2(b'"', b'\\', &b[self.i..])?;
            let run = &line[self.i..self.i + k];
            // a raw control character is not JSON
            if run.bytes().any(|c| c < 0x20) {
                return None;
            }
            self.mode.out.push_str(run);
            self.i += k;
            if b[self.i] == b'"' {
                self.i += 1;
                self.mode.out.push('"');
                return Some((start, self.mode.out.len()));
            }
            let c = match *b.get(self.i + 1)? {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => {
                    let hi = hex4(b, self.i + 2)?;
                    let (code, len) = match hi {
                        0xd800..=0xdbff => {
                            // a high surrogate only as the first half of a pair
                            if b.get(self.i + 6..self.i + 8) != Some(b"\\u") {
                                return None;
                            }
                            let lo = hex4(b, self.i + 8)?;
                            if !(0xdc00..=0xdfff).contains(&lo) {
                                return None;
                            }
                            (0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00), 12)
                        }
                        0xdc00..=0xdfff => return None,
                        _ => (hi, 6),
                    };
                    self.i += len;
                    self.push_char(char::from_u32(code)?);
                    continue;
                }
                _ => return None,
            };
            self.i += 2;
            self.push_char(c);
        }
    }

    fn word(&mut self, w: &'static str) -> Option<()> {
        self.lit(w.as_bytes())?;
        self.mode.out.push_str(w);
        Some(())
    }

    fn number(&mut self) -> Option<()> {
        let (text, canonical) = self.number_text()?;
        if canonical {
            self.mode.out.push_str(text);
        } else {
            let mut buf = [0; NUMBER_ROOM];
            let printed = reprint(text.as_bytes(), &mut buf)?;
            // serde_json prints ASCII
            self.mode.out.push_str(std::str::from_utf8(printed).ok()?);
        }
        Some(())
    }

    /// Ranges of the output, quotes included.
    #[inline]
    fn keys(&mut self) -> (&mut Keys, &[u8]) {
        (&mut self.keys, self.mode.out.as_bytes())
    }
}

/// The four hex digits at `at` (either case), as a number.
fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let h = b.get(at..at + 4)?;
    h.iter().try_fold(0u32, |v, &d| {
        let x = match d {
            b'0'..=b'9' => d - b'0',
            b'a'..=b'f' => d - b'a' + 10,
            b'A'..=b'F' => d - b'A' + 10,
            _ => return None,
        };
        Some(v << 4 | u32::from(x))
    })
}

impl Scan<'_, Rewrite> {
    fn push_char(&mut self, c: char) {
        match c {
            '"' => self.mode.out.push_str("\\\""),
            '\\' => self.mode.out.push_str("\\\\"),
            '\u{8}' => self.mode.out.push_str("\\b"),
            '\u{c}' => self.mode.out.push_str("\\f"),
            '\n' => self.mode.out.push_str("\\n"),
            '\r' => self.mode.out.push_str("\\r"),
            '\t' => self.mode.out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let u = c as usize;
                self.mode.out.push_str("\\u00");
                self.mode.out.push(char::from(HEX[u >> 4]));
                self.mode.out.push(char::from(HEX[u & 15]));
            }
            c => self.mode.out.push(c),
        }
    }
}

#[cfg(test)]
mod tests;
