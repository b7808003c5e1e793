//! Cutting bytes into lines with a bounded buffer, and the small file helpers
//! (positioned reads, identity) the follower and the index share.

use super::Line;
use super::compact::{canonical_event, compact_fields};
use crate::workspace::timeline::{LineIssue, parse_line};
use std::fs::{File, Metadata};
use std::io;

/// The longest line kept whole: the core's one limit, the same as `validate`'s.
/// A longer line keeps its first `MAX_LINE` bytes and is reported
/// (`timeline-line-too-long`, the same message), so one runaway line cannot take
/// the memory of the machine.
pub const MAX_LINE: usize = crate::workspace::read::TIMELINE_LINE;

/// Size of one positioned read.
pub(crate) const CHUNK: usize = 256 << 10;

/// Gathers the bytes of the line being read across reads.
#[derive(Debug)]
pub(crate) struct Splitter {
    pending: Vec<u8>,
    /// File offset of the first byte of the line being gathered.
    start: u64,
    /// File offset of the next byte to be fed.
    pos: u64,
    /// Bytes of the current line dropped beyond `MAX_LINE`.
    dropped: u64,
}

impl Splitter {
    pub(crate) fn new(at: u64) -> Self {
        Self {
            pending: Vec::new(),
            start: at,
            pos: at,
            dropped: 0,
        }
    }

    /// Forget everything and start a line at `at`.
    pub(crate) fn reset(&mut self, at: u64) {
        *self = Self::new(at);
    }

    /// Feed the bytes that follow everything fed so far. `line(offset, bytes,
    /// dropped)` is called for each line completed by them, in order.
    pub(crate) fn feed(&mut self, chunk: &[u8], mut line: impl FnMut(u64, &[u8], u64)) {
        let mut rest = chunk;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            let piece = &rest[..i];
            if self.pending.is_empty() && self.dropped == 0 {
                // the common case: the whole line is inside this chunk, no copy
                let keep = piece.len().min(MAX_LINE);
                line(self.start, &piece[..keep], (piece.len() - keep) as u64);
            } else {
                self.push(piece);
                line(self.start, &self.pending, self.dropped);
                self.pending.clear();
                self.dropped = 0;
            }
            self.pos += i as u64 + 1;
            self.start = self.pos;
            rest = &rest[i + 1..];
        }
        self.push(rest);
        self.pos += rest.len() as u64;
    }

    fn push(&mut self, bytes: &[u8]) {
        let room = MAX_LINE.saturating_sub(self.pending.len());
        let keep = bytes.len().min(room);
        self.pending.extend_from_slice(&bytes[..keep]);
        self.dropped += (bytes.len() - keep) as u64;
    }

    /// The bytes of an unfinished line, if any: `(offset, bytes, dropped)`.
    /// They are taken: the splitter then waits for a new line after them.
    pub(crate) fn take_partial(&mut self) -> Option<(u64, Vec<u8>, u64)> {
        if self.pending.is_empty() && self.dropped == 0 {
            return None;
        }
        let at = self.start;
        let bytes = std::mem::take(&mut self.pending);
        let dropped = std::mem::replace(&mut self.dropped, 0);
        self.start = self.pos;
        Some((at, bytes, dropped))
    }

    /// The bytes of the unfinished line (for showing "being written").
    pub(crate) fn partial(&self) -> Option<(u64, &[u8])> {
        (!self.pending.is_empty()).then_some((self.start, self.pending.as_slice()))
    }
}

/// Turn one raw line into a [`Line`]; blank lines give `None`.
pub(crate) fn make_line(lineno: u64, offset: u64, raw: &[u8], dropped: u64) -> Option<Line> {
    if dropped == 0 {
        if let Ok(text) = std::str::from_utf8(raw) {
            if let Some(fields) = compact_fields(text) {
                return Some(Line::compact(lineno, offset, text, fields));
            }
            // another valid form of a clean event (spaces, escapes, `null`,
            // another key order…): what the full parse would write back, if
            // the full parse has nothing to say, still skips the tree
            if let Some(canon) = canonical_event(text) {
                if let Some(fields) = compact_fields(&canon) {
                    return Some(Line::compact(lineno, offset, canon, fields));
                }
            }
        }
    }
    if dropped == 0 && raw.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let (event, mut issues) = parse_line(raw);
    if dropped > 0 {
        issues.insert(
            0,
            LineIssue {
                rule: "timeline-line-too-long",
                column: None,
                message: crate::workspace::read::line_too_long(raw.len() as u64 + dropped),
            },
        );
    }
    Some(Line::parsed(lineno, offset, event, issues))
}

/// Which file a path names: a rename over the path changes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileId(u64, u64);

#[cfg(unix)]
pub(crate) fn file_id(m: &Metadata) -> FileId {
    use std::os::unix::fs::MetadataExt;
    FileId(m.dev(), m.ino())
}

#[cfg(not(unix))]
pub(crate) fn file_id(m: &Metadata) -> FileId {
    // without inode numbers, creation time is the best identity there is
    let t = m
        .created()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as u64);
    FileId(0, t)
}

/// Read at an absolute offset without moving any shared cursor.
#[cfg(unix)]
pub(crate) fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    use std::os::unix::fs::FileExt;
    loop {
        match file.read_at(buf, offset) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            r => return r,
        }
    }
}

#[cfg(windows)]
pub(crate) fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    use std::os::windows::fs::FileExt;
    file.seek_read(buf, offset)
}

/// Fill `buf` from `offset` as far as the file goes; returns the bytes read.
pub(crate) fn read_full_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        let n = read_at(file, &mut buf[got..], offset + got as u64)?;
        if n == 0 {
            break;
        }
        got += n;
    }
    Ok(got)
}

/// Count the newlines in `[from, to)`, reading in chunks (bounded memory).
pub(crate) fn count_newlines(file: &File, from: u64, to: u64, buf: &mut [u8]) -> io::Result<u64> {
    let mut at = from;
    let mut count = 0u64;
    while at < to {
        let want = buf.len().min((to - at) as usize);
        let n = read_at(file, &mut buf[..want], at)?;
        if n == 0 {
            break;
        }
        let found = newlines_in(&buf[..n]);
        count += found;
        at += n as u64;
    }
    Ok(count)
}

/// Newlines in `bytes`: summed as bytes over short runs, which compiles to
/// wide vector adds (a plain filter-count does not), so numbering the lines of a
/// 1 GB file costs about the time of reading it.
pub(crate) fn newlines_in(bytes: &[u8]) -> u64 {
    bytes
        .chunks(255)
        .map(|c| u64::from(c.iter().map(|&b| u8::from(b == b'\n')).sum::<u8>()))
        .sum()
}

/// Where the last `n` non-blank complete lines of the first `end` bytes start:
/// `(offset, lineno)`. `end` must be just after a newline (or 0). Reads
/// backwards from `end` only as far as needed, then counts the newlines before
/// the start to number the lines.
pub(crate) fn locate_last_lines(file: &File, end: u64, n: u64) -> io::Result<(u64, u64)> {
    if n == 0 || end == 0 {
        let lines = count_newlines(file, 0, end, &mut vec![0; CHUNK])?;
        return Ok((end, lines + 1));
    }
    let mut buf = vec![0u8; CHUNK];
    let mut found = 0u64;
    let mut nonblank = false;
    // the byte at end-1 is the newline closing the last line
    let mut hi = end - 1;
    let mut start = 0u64;
    'scan: while hi > 0 {
        let lo = hi.saturating_sub(CHUNK as u64);
        let len = (hi - lo) as usize;
        let got = read_full_at(file, &mut buf[..len], lo)?;
        if got < len {
            // the file shrank under us; what we know is stale, start from the top
            break;
        }
        for (i, &b) in buf[..len].iter().enumerate().rev() {
            if b == b'\n' {
                if nonblank {
                    found += 1;
                    if found == n {
                        start = lo + i as u64 + 1;
                        break 'scan;
                    }
                }
                nonblank = false;
            } else if !b.is_ascii_whitespace() {
                nonblank = true;
            }
        }
        hi = lo;
    }
    let before = count_newlines(file, 0, start, &mut buf)?;
    Ok((start, before + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    type Piece = (u64, Vec<u8>, u64);

    fn split_all(chunks: &[&[u8]]) -> (Vec<Piece>, Option<Piece>) {
        let mut s = Splitter::new(0);
        let mut out = Vec::new();
        for c in chunks {
            s.feed(c, |o, b, d| out.push((o, b.to_vec(), d)));
        }
        (out, s.take_partial())
    }

    #[test]
    fn lines_across_chunks_keep_offsets() {
        let (lines, partial) = split_all(&[b"ab", b"c\nde\n\nf", b"g\nhi"]);
        assert_eq!(
            lines,
            vec![
                (0, b"abc".to_vec(), 0),
                (4, b"de".to_vec(), 0),
                (7, b"".to_vec(), 0),
                (8, b"fg".to_vec(), 0),
            ]
        );
        assert_eq!(partial, Some((11, b"hi".to_vec(), 0)));
    }

    #[test]
    fn taking_the_partial_moves_past_it() {
        let mut s = Splitter::new(0);
        s.feed(b"abc", |_, _, _| panic!("no line yet"));
        assert_eq!(s.take_partial(), Some((0, b"abc".to_vec(), 0)));
        let mut out = Vec::new();
        s.feed(b"d\n", |o, b, _| out.push((o, b.to_vec())));
        assert_eq!(out, vec![(3, b"d".to_vec())]);
    }

    #[test]
    fn counts_newlines_across_runs() {
        let mut text = Vec::new();
        for i in 0..2000 {
            text.extend_from_slice(&vec![b'x'; i % 300]);
            text.push(b'\n');
        }
        assert_eq!(newlines_in(&text), 2000);
        assert_eq!(newlines_in(b""), 0);
    }

    #[test]
    fn blank_lines_are_not_events() {
        assert!(make_line(1, 0, b"  \r", 0).is_none());
        let l = make_line(2, 4, b"{\"type\":\"run\"}", 0).expect("a line");
        assert_eq!(l.event().kind, "run");
    }
}
