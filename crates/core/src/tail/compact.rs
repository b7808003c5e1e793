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
            r#"{"type":"step","name":"n","status":"ok","message":"m","data":1.50}"#,
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
            let pick = |rng: &mut fastrand::Rng, xs: &[&str]| one_of(rng, xs).to_owned();
            // mostly a value of the field's set (or one just outside it), else any string
            let near = |rng: &mut fastrand::Rng, set: &[&str]| {
                if rng.u8(..10) < 8 {
                    pick(rng, set)
                } else {
                    pick(rng, &strings)
                }
            };
            let mut parts = Vec::new();
            if rng.bool() {
                parts.push(format!("\"ts\":{}", pick(&mut rng, &strings)));
            }
            let kind = near(&mut rng, &["\"run\"", "\"step\"", "\"\"", "\"bad\""]);
            parts.push(format!("\"type\":{kind}"));
            parts.push(format!("\"name\":{}", pick(&mut rng, &strings)));
            let status = near(&mut rng, &["\"ok\"", "\"failed\"", "\"\"", "\"done\""]);
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

    /// One of `xs`, at random.
    fn one_of<'a>(rng: &mut fastrand::Rng, xs: &[&'a str]) -> &'a str {
        xs[rng.usize(..xs.len())]
    }

    /// serde_json's compact re-serialization of a line, if it reads it.
    fn serde_compact(line: &str) -> Option<String> {
        let v: serde_json::Value = serde_json::from_str(line).ok()?;
        Some(serde_json::to_string(&v).expect("a value serializes"))
    }

    /// A small key set, so that repeats happen (also written as escapes).
    const KEYS: [&str; 6] = [
        "\"a\"",
        "\"b\"",
        "\"\\u0061\"",
        "\"c\\/d\"",
        "\"c/d\"",
        "\"é\"",
    ];

    /// Numbers of every shape: canonical, reprinted, out of range, invalid.
    const NUMBERS: [&str; 32] = [
        "0",
        "-0",
        "1",
        "-1",
        "42",
        "007",
        "1.5",
        "1.50",
        "0.1",
        "-0.0",
        "1e3",
        "1E+3",
        "2.5e-7",
        "1e-05",
        "1e400",
        "-1e400",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "99999999999999999999999",
        "123456789012345678",
        "1.",
        ".5",
        "-",
        "+1",
        "1e",
        "0x10",
        "3.141592653589793",
        "1.7976931348623157e308",
        "5e-324",
        "4.9e-324",
    ];

    /// Pieces of a string's text: plain, every escape form, broken escapes, raw controls.
    const STRING_PIECES: [&str; 33] = [
        "a",
        "é",
        "😀",
        "\u{202e}",
        "\u{7f}",
        "\u{85}",
        " ",
        "\\\"",
        "\\\\",
        "\\/",
        "\\b",
        "\\f",
        "\\n",
        "\\r",
        "\\t",
        "\\u0000",
        "\\u001b",
        "\\u001F",
        "\\u0041",
        "\\u00e9",
        "\\u00E9",
        "\\u202e",
        "\\u007f",
        "\\ud83d\\ude00",
        "\\uD83D\\uDE00",
        "\\ud83d",
        "\\ude00",
        "\\ud83d\\u0041",
        "\\ud83dx",
        "\\u12",
        "\\x",
        "\t",
        "\u{1}",
    ];

    /// A random JSON value written in a random valid (or, now and then,
    /// broken) form: spaces anywhere, every escape form, numbers of every
    /// shape, nesting, repeated keys.
    fn gen_value(rng: &mut fastrand::Rng, depth: u32, out: &mut String) {
        let ws = |rng: &mut fastrand::Rng, out: &mut String| {
            for _ in 0..rng.usize(..3) {
                out.push([' ', '\t', '\r', '\n'][rng.usize(..4)]);
            }
        };
        ws(rng, out);
        let pick = if depth > 6 { rng.u8(..6) } else { rng.u8(..9) };
        match pick {
            0 => out.push_str(one_of(rng, &["null", "true", "false"])),
            1 | 2 => out.push_str(one_of(rng, &NUMBERS)),
            3..=5 => gen_string(rng, out),
            6 | 7 => {
                out.push('{');
                let n = rng.usize(..5);
                for k in 0..n {
                    if k > 0 {
                        out.push(',');
                    }
                    ws(rng, out);
                    out.push_str(one_of(rng, &KEYS));
                    ws(rng, out);
                    out.push(':');
                    gen_value(rng, depth + 1, out);
                }
                ws(rng, out);
                out.push('}');
            }
            _ => {
                out.push('[');
                let n = rng.usize(..5);
                for k in 0..n {
                    if k > 0 {
                        out.push(',');
                    }
                    gen_value(rng, depth + 1, out);
                }
                ws(rng, out);
                out.push(']');
            }
        }
        ws(rng, out);
    }

    fn gen_string(rng: &mut fastrand::Rng, out: &mut String) {
        out.push('"');
        for _ in 0..rng.usize(..5) {
            out.push_str(one_of(rng, &STRING_PIECES));
        }
        out.push('"');
    }

    /// The contract of `normalize`: whatever it accepts, serde_json reads, and
    /// prints back in compact form to exactly what `normalize` wrote; whatever
    /// serde_json refuses, `normalize` refuses.
    #[test]
    fn normalize_is_serde_json_compact_form() {
        let mut rng = fastrand::Rng::with_seed(17);
        let (mut accepted, mut refused, mut left) = (0, 0, 0);
        for _ in 0..30_000 {
            let mut line = String::new();
            gen_value(&mut rng, 0, &mut line);
            let want = serde_compact(&line);
            match (normalize(&line), want) {
                (Some(got), Some(want)) => {
                    assert_eq!(got, want, "{line:?}");
                    accepted += 1;
                }
                (Some(got), None) => panic!("accepted invalid JSON {line:?} as {got:?}"),
                (None, None) => refused += 1,
                // only a repeated key is left to the full parse at these sizes
                (None, Some(_)) => left += 1,
            }
        }
        assert!(accepted > 5_000, "{accepted} {refused} {left}");
        assert!(refused > 5_000, "{accepted} {refused} {left}");
        assert!(left < 5_000, "{accepted} {refused} {left}");
    }

    #[test]
    fn normalize_keeps_the_hard_cases_exact() {
        for (line, want) in [
            (
                r#" { "ts" : "t" , "a" : [ 1 , 2 ] } "#,
                r#"{"ts":"t","a":[1,2]}"#,
            ),
            (
                r#"["\u00e9\u00E9\/\ud83d\ude00\uD83D\uDE00"]"#,
                "[\"éé/😀😀\"]",
            ),
            (
                r#"["\u0000\u001F\u0008\u000A\"\\"]"#,
                r#"["\u0000\u001f\b\n\"\\"]"#,
            ),
            (r#"["\u202e\u007f\u0085"]"#, "[\"\u{202e}\u{7f}\u{85}\"]"),
            (
                "[18446744073709551615,-9223372036854775808]",
                "[18446744073709551615,-9223372036854775808]",
            ),
            (
                "[18446744073709551616,-0,1e-05,1E+3,0.10]",
                "[1.8446744073709552e+19,-0.0,0.00001,1000.0,0.1]",
            ),
            ("{\"a\":1}\r", "{\"a\":1}"),
        ] {
            assert_eq!(normalize(line).as_deref(), Some(want), "{line}");
            assert_eq!(serde_compact(line).as_deref(), Some(want), "{line}");
        }
    }

    #[test]
    fn normalize_refuses_invalid_and_hostile_input() {
        let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
        let deep_obj = "{\"a\":".repeat(100_000);
        let wide: Vec<String> = (0..100).map(|i| format!("\"k{i}\":{i}")).collect();
        let wide = format!("{{{}}}", wide.join(","));
        for line in [
            "",
            " ",
            "{",
            "}",
            "[1,]",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{a:1}",
            "[01]",
            "[1.]",
            "[.5]",
            "[+1]",
            "[1e]",
            "[-]",
            "[NaN]",
            "[Infinity]",
            "[1e400]",
            "[tru]",
            "[nul]",
            "\"\\ud83d\"",
            "\"\\ude00\"",
            "\"\\ud83d\\u0041\"",
            "\"\\u12\"",
            "\"\\x\"",
            "\"a\tb\"",
            "\"a\u{1}b\"",
            "\"abc",
            "\"\\",
            "[1] [2]",
            "{\"a\":1}x",
            "[1]\u{a0}",
            r#"{"a":1,"a":2}"#,
            r#"{"a":1,"\u0061":2}"#,
            &deep,
            &deep_obj,
            &wide,
        ] {
            assert_eq!(normalize(line), None, "{line:.60}");
        }
    }

    /// A clean event written with spaces and escapes takes the fast path and
    /// prints what the full parse prints; a DEL, C1, bidi or other control
    /// character written as an escape never comes out raw.
    #[test]
    fn spaced_events_take_the_fast_path_with_the_full_parse_output() {
        use crate::tail::Line;
        for line in [
            r#"{"ts": "2026-03-15T10:15:30.112Z", "type": "step", "name": "open", "status": "ok", "message": "opened", "data": {"url": "/", "n": [1, 2.5, true]}}"#,
            r#"{ "type" : "run" , "name" : "caf\u00e9 \ud83d\ude00" , "status" : "" , "id" : "r1" , "message" : "a\/b" , "data" : null }"#,
            r#"{"type": "step", "name": "\u202e\u2066evil", "status": "ok", "message": "\u001b[2J\u007f\u0085\u0007", "data": {"k": "\u202e"}}"#,
        ] {
            let l = Line::from_raw(1, 0, line.as_bytes()).expect("a line");
            assert!(l.is_compact(), "{line}");
            let (ev, issues) = parse_line(line.as_bytes());
            assert!(issues.is_empty(), "{issues:?}");
            assert_eq!(l.event(), &ev);
            let mut json = Vec::new();
            l.write_json(&mut json).expect("to memory");
            let json = String::from_utf8(json).expect("utf-8");
            assert_eq!(json, crate::sanitize::to_json(&ev, false).expect("json"));
            for c in json.chars() {
                let u = c as u32;
                assert!(
                    !(u < 0x20
                        || u == 0x7f
                        || (0x80..0xa0).contains(&u)
                        || matches!(u, 0x202a..=0x202e | 0x2066..=0x2069)),
                    "raw {u:#x} in {json}"
                );
            }
            for color in [false, true] {
                assert_eq!(l.pretty(color), pretty_line(&ev, color));
            }
        }
        // not clean (a type outside the set) or a field beyond the fixed ones: the full way
        for line in [
            r#"{"type": "weird", "name": "n", "status": "ok", "message": "m", "data": null}"#,
            r#"{"name": "n", "type": "step", "status": "ok", "message": "m", "data": null, "x": 1}"#,
        ] {
            let l = Line::from_raw(1, 0, line.as_bytes()).expect("a line");
            assert!(!l.is_compact(), "{line}");
            assert_eq!(l.issues, parse_line(line.as_bytes()).1);
        }
    }

    /// What the full parse gives for `raw`: the reference of every path.
    fn full_parse(raw: &str) -> crate::tail::Line {
        let (ev, issues) = parse_line(raw.as_bytes());
        crate::tail::Line::parsed(1, 0, ev, issues)
    }

    /// The line as the engine reads it gives the full parse's output, byte for
    /// byte, and nothing raw that `--json` output must not carry; returns
    /// whether it took the fast path.
    fn same_as_full_parse(raw: &str) -> bool {
        let Some(got) = crate::tail::Line::from_raw(1, 0, raw.as_bytes()) else {
            assert!(raw.bytes().all(|b| b.is_ascii_whitespace()), "{raw:?}");
            return false;
        };
        let want = full_parse(raw);
        assert_eq!(got.issues, want.issues, "{raw:?}");
        assert_eq!(got.event(), want.event(), "{raw:?}");
        let json = |l: &crate::tail::Line| {
            let mut out = Vec::new();
            l.write_json(&mut out).expect("to memory");
            String::from_utf8(out).expect("utf-8")
        };
        let out = json(&got);
        assert_eq!(out, json(&want), "{raw:?}");
        assert!(
            !out.chars().any(|c| c < ' '
                || ('\u{7f}'..'\u{a0}').contains(&c)
                || crate::sanitize::is_invisible_format(c)),
            "raw control in {out:?}"
        );
        for color in [false, true] {
            assert_eq!(got.pretty(color), want.pretty(color), "{raw:?}");
        }
        if got.is_compact() {
            assert!(got.issues.is_empty(), "{raw:?}");
        }
        got.is_compact()
    }

    /// Every valid shape of a clean event takes the fast path (kept as written
    /// or rewritten in one scan, never parsed into a tree) with the full
    /// parse's output.
    #[test]
    fn every_valid_shape_takes_the_fast_path() {
        let base = r#""type":"step","name":"n","status":"ok","message":"m""#;
        for line in [
            // `null` where runners write it: no id, no time, no data
            r#"{"ts":"t","type":"step","name":"n","status":"ok","id":null,"message":"m","data":null}"#.to_owned(),
            format!(r#"{{"ts":null,{base},"data":1}}"#),
            r#"{"type":"step","name":null,"status":null,"message":null,"data":null}"#.into(),
            // true, false, numbers of every form, nesting
            format!(r#"{{{base},"data":[true,false,null]}}"#),
            format!(
                r#"{{{base},"data":{{"i":-42,"f":0.25,"e":2.5e-7,"E":1E+3,"z":-0,"big":18446744073709551616}}}}"#
            ),
            format!(
                r#"{{{base},"data":{{"a":[1,[2,[3,{{"b":[true,{{}}]}}]]],"o":{{"p":{{"q":[]}}}}}}}}"#
            ),
            // spaces between every token, another key order, missing and repeated fields
            r#" { "data" : { "a" : [ 1 , null ] } , "message" : "m" , "status" : "ok" , "name" : "n" , "type" : "step" } "#.into(),
            r#"{"type":"run"}"#.into(),
            "{}".into(),
            format!(r#"{{{base},"data":1,"data":2,"name":"again"}}"#),
            // a time in epoch milliseconds, kept as its text
            format!(r#"{{"ts":1773569730112,{base},"data":null}}"#),
            format!(r#"{{"ts":1.5e3,{base},"data":null}}"#),
            // escapes of every kind, bidi and control characters inside strings
            r#"{"type":"st\u0065p","name":"caf\u00e9 \ud83d\ude00 \/","status":"ok","message":"\u202e\u2066\u2028\u001b[2J\u007f\u0085\u0007","data":{"k\u0000":"\u202e\t"}}"#.into(),
            format!("{{{base},\"data\":\"\u{202e}\u{2028}\u{85}\u{7f}\"}}"),
        ] {
            assert!(same_as_full_parse(&line), "not on the fast path: {line}");
        }
        // what the full parse has to say, or keeps beside the fixed fields
        for line in [
            r#"{"type":"weird","name":"n","status":"ok","message":"m","data":null}"#,
            r#"{"type":"step","name":5,"status":"ok","message":"m","data":null}"#,
            r#"{"type":"step","name":true,"status":"ok","message":"m","data":null}"#,
            r#"{"type":"step","name":"n","status":"ok","message":"m","data":null,"x":1}"#,
            r#"{"type":"step","name":"n","status":"ok","message":"m","data":{"a":1,"a":2}}"#,
            r#"{"type":"step","name":"n","status":"ok","message":"m","data":null"#,
            "[1]",
            "{\"type\":\"step\",\"name\":\"a\tb\"}",
        ] {
            assert!(!same_as_full_parse(line), "on the fast path: {line}");
        }
    }

    /// A random field value: every JSON shape, the text fields' own shapes more
    /// often (strings, `null`, a number for `ts`).
    fn gen_field(rng: &mut fastrand::Rng, key: &str, out: &mut String) {
        match rng.u8(..20) {
            0 => out.push_str("null"),
            1 if key == "\"ts\"" => out.push_str(one_of(rng, &NUMBERS)),
            1..=18 if key != "\"data\"" => gen_text(rng, out),
            _ => gen_data(rng, 0, out),
        }
    }

    /// A string, mostly valid: every escape form, bidi and control characters
    /// raw and escaped; one in 20 from [`gen_string`] (broken escapes, raw
    /// C0 controls).
    fn gen_text(rng: &mut fastrand::Rng, out: &mut String) {
        if rng.u8(..20) == 0 {
            return gen_string(rng, out);
        }
        out.push('"');
        for _ in 0..rng.usize(..5) {
            out.push_str(one_of(rng, &STRING_PIECES[..25]));
        }
        out.push('"');
    }

    /// A random `data` value with distinct keys (the full parse keeps one of
    /// a repeated key: left to it), now and then one from [`gen_value`].
    fn gen_data(rng: &mut fastrand::Rng, depth: u32, out: &mut String) {
        let sp = |rng: &mut fastrand::Rng, out: &mut String| {
            if rng.u8(..4) == 0 {
                out.push_str(one_of(rng, &[" ", "  ", "\t", " \r\n "]));
            }
        };
        sp(rng, out);
        match rng.u8(..if depth > 4 { 5 } else { 8 }) {
            0 => out.push_str(one_of(rng, &["null", "true", "false"])),
            1 | 2 => out.push_str(one_of(rng, &NUMBERS)),
            3 => gen_text(rng, out),
            4 if rng.u8(..8) == 0 => gen_value(rng, depth, out),
            4 | 5 => {
                out.push('[');
                for k in 0..rng.usize(..4) {
                    if k > 0 {
                        out.push(',');
                    }
                    gen_data(rng, depth + 1, out);
                }
                sp(rng, out);
                out.push(']');
            }
            _ => {
                out.push('{');
                for k in 0..rng.usize(..4) {
                    if k > 0 {
                        out.push(',');
                    }
                    sp(rng, out);
                    let tail = one_of(rng, &["", "é", "\\u00e9", "\\n"]);
                    for piece in ["\"k", &k.to_string(), tail, "\""] {
                        out.push_str(piece);
                    }
                    sp(rng, out);
                    out.push(':');
                    gen_data(rng, depth + 1, out);
                }
                sp(rng, out);
                out.push('}');
            }
        }
        sp(rng, out);
    }

    /// Many random lines of every shape — fields in any order, missing,
    /// repeated or of another type, `null`, numbers, nesting, spaces, escapes,
    /// bidi and control characters, unknown fields, broken JSON: the engine's
    /// output is the full parse's, and every clean event with only the fixed
    /// fields takes the fast path.
    #[test]
    fn the_fast_path_gives_the_full_parse_output_for_every_line() {
        const FIELDS: [&str; 8] = [
            "\"ts\"",
            "\"type\"",
            "\"name\"",
            "\"status\"",
            "\"id\"",
            "\"message\"",
            "\"data\"",
            "\"extra\"",
        ];
        let mut rng = fastrand::Rng::with_seed(30);
        let (mut fast, mut full) = (0, 0);
        for _ in 0..40_000 {
            let mut order: Vec<usize> = (0..7).filter(|_| rng.u8(..8) != 0).collect();
            rng.shuffle(&mut order);
            if rng.u8(..10) == 0 {
                order.push(rng.usize(..8));
            }
            let mut line = String::from(one_of(&mut rng, &["", " ", "\t"]));
            line.push('{');
            for (k, &f) in order.iter().enumerate() {
                if k > 0 {
                    line.push_str(one_of(&mut rng, &[",", ", ", " ,\t"]));
                }
                let key = FIELDS[f];
                line.push_str(key);
                line.push_str(one_of(&mut rng, &[":", ": ", " : "]));
                match (f, rng.u8(..8)) {
                    // mostly a value of the field's set
                    (1, 0..=6) => {
                        let v = one_of(&mut rng, &["run", "step", "error"]);
                        line.extend(["\"", v, "\""]);
                    }
                    (3, 0..=6) => {
                        let v = one_of(&mut rng, &["ok", "failed", "info"]);
                        line.extend(["\"", v, "\""]);
                    }
                    _ => gen_field(&mut rng, key, &mut line),
                }
            }
            line.push('}');
            if rng.u8(..50) == 0 {
                // broken on purpose (cut on a character boundary)
                let mut cut = rng.usize(..line.len());
                while !line.is_char_boundary(cut) {
                    cut -= 1;
                }
                line.truncate(cut);
            }
            if same_as_full_parse(&line) {
                fast += 1;
            } else {
                full += 1;
                let (ev, issues) = parse_line(line.as_bytes());
                // gen_value's values may repeat a key or nest deep: left to the full parse
                let unsure = KEYS.iter().any(|k| line.contains(k));
                assert!(
                    !issues.is_empty() || !ev.extra.is_empty() || unsure,
                    "a clean event took the full parse: {line}"
                );
            }
        }
        assert!(fast > 10_000 && full > 5_000, "{fast} {full}");
    }
}
