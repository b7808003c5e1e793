//! A sparse index of line starts, so any window of a huge timeline can be read
//! without loading the file: one offset kept for every `STRIDE` lines.

use super::Line;
use super::lines::{CHUNK, FileId, Splitter, file_id, make_line, read_at, read_full_at};
use std::fs::File;
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// One offset is kept every `STRIDE` lines: 10 million lines cost about 1.2 MB,
/// and reaching any line reads at most `STRIDE - 1` lines before it.
const STRIDE: u64 = 64;
/// Bytes of the file's start remembered to notice a rewrite in place.
const HEAD_LEN: usize = 256;
/// Read size when reading a window (a screenful is a few kilobytes).
const WINDOW_CHUNK: usize = 64 << 10;

/// Line offsets of one file, built by scanning it in chunks (bounded memory).
/// Only complete (newline-terminated) lines are indexed; line `i` (0-based) is
/// the file's line number `i + 1`. Blank lines count as lines.
#[derive(Debug)]
pub struct LineIndex {
    path: PathBuf,
    file: File,
    id: FileId,
    /// `checkpoints[k]` is the offset of line `k * STRIDE`.
    checkpoints: Vec<u64>,
    /// Complete lines found.
    lines: u64,
    /// Bytes examined so far.
    pos: u64,
    head: Vec<u8>,
}

/// What [`LineIndex::refresh`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refresh {
    /// Nothing new.
    Same,
    /// Lines were appended and indexed.
    Grew,
    /// The file was truncated, rewritten or replaced: the index starts over
    /// (and is complete again).
    Restarted,
}

impl LineIndex {
    /// Open `path` with nothing indexed yet; call [`Self::index_more`] to build
    /// it step by step (and show progress), or use [`Self::build`].
    pub(crate) fn open(path: impl Into<PathBuf>) -> io::Result<Self> {
        let path = path.into();
        // never blocks on a FIFO, never reads a device or a folder
        let (file, m) = crate::workspace::read::open(&path, None).map_err(|e| match e {
            crate::workspace::read::Error::Missing(e) | crate::workspace::read::Error::Io(e) => e,
            e => io::Error::other(e.to_string()),
        })?;
        Ok(Self {
            path,
            id: file_id(&m),
            file,
            checkpoints: vec![0],
            lines: 0,
            pos: 0,
            head: Vec::new(),
        })
    }

    /// Open and index the whole file.
    pub fn build(path: impl Into<PathBuf>) -> io::Result<Self> {
        let mut me = Self::open(path)?;
        while !me.index_more(u64::MAX)? {}
        Ok(me)
    }

    /// The file indexed.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Index up to `max_bytes` more of the file. Returns true once it has
    /// reached the end of the file (as it is now).
    pub(crate) fn index_more(&mut self, max_bytes: u64) -> io::Result<bool> {
        let mut buf = vec![0u8; CHUNK];
        let mut left = max_bytes;
        while left > 0 {
            let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
            let n = read_at(&self.file, &mut buf[..want], self.pos)?;
            if n == 0 {
                return Ok(true);
            }
            if self.head.len() < HEAD_LEN && self.pos == self.head.len() as u64 {
                let take = (HEAD_LEN - self.head.len()).min(n);
                self.head.extend_from_slice(&buf[..take]);
            }
            for (i, &b) in buf[..n].iter().enumerate() {
                if b == b'\n' {
                    self.lines += 1;
                    if self.lines.is_multiple_of(STRIDE) {
                        self.checkpoints.push(self.pos + i as u64 + 1);
                    }
                }
            }
            self.pos += n as u64;
            left -= n as u64;
        }
        Ok(false)
    }

    /// Catch up with the file: index what was appended, or start over when it
    /// was truncated, rewritten in place or replaced by a rename.
    pub fn refresh(&mut self) -> io::Result<Refresh> {
        let now = std::fs::metadata(&self.path)?;
        let rewritten = file_id(&now) != self.id || now.len() < self.pos || !self.head_matches()?;
        if rewritten {
            *self = Self::build(self.path.clone())?;
            return Ok(Refresh::Restarted);
        }
        let before = self.lines;
        while !self.index_more(u64::MAX)? {}
        Ok(if self.lines > before {
            Refresh::Grew
        } else {
            Refresh::Same
        })
    }

    fn head_matches(&self) -> io::Result<bool> {
        let mut now = vec![0; self.head.len()];
        let got = read_full_at(&self.file, &mut now, 0)?;
        Ok(got == now.len() && now == self.head)
    }

    /// Complete lines indexed.
    pub fn len(&self) -> u64 {
        self.lines
    }

    /// Whether no line is indexed yet.
    pub fn is_empty(&self) -> bool {
        self.lines == 0
    }

    /// Bytes of the file examined so far (for progress).
    pub fn indexed_bytes(&self) -> u64 {
        self.pos
    }

    /// Memory held by the offsets, in bytes.
    pub fn memory_bytes(&self) -> usize {
        self.checkpoints.capacity() * std::mem::size_of::<u64>()
    }

    /// Parse the lines whose 0-based indexes are in `range` (clamped to the
    /// indexed lines), in order. Blank lines are left out, so fewer lines than
    /// asked may come back; each carries its line number and offset.
    pub fn read_lines(&self, range: Range<u64>) -> io::Result<Vec<Line>> {
        let mut out = Vec::new();
        self.for_each_raw(range, |i, offset, raw, dropped| {
            if let Some(line) = make_line(i + 1, offset, raw, dropped) {
                out.push(line);
            }
        })?;
        Ok(out)
    }

    /// The raw bytes of the lines in `range` (0-based, clamped), blank ones
    /// included: `(lineno, offset, bytes)`.
    pub fn read_raw(&self, range: Range<u64>) -> io::Result<Vec<(u64, u64, Vec<u8>)>> {
        let mut out = Vec::new();
        self.for_each_raw(range, |i, offset, raw, _| {
            out.push((i + 1, offset, raw.to_vec()));
        })?;
        Ok(out)
    }

    fn for_each_raw(
        &self,
        range: Range<u64>,
        mut f: impl FnMut(u64, u64, &[u8], u64),
    ) -> io::Result<()> {
        let end = range.end.min(self.lines);
        if range.start >= end {
            return Ok(());
        }
        let k = (range.start / STRIDE) as usize;
        let Some(&from) = self.checkpoints.get(k) else {
            return Ok(());
        };
        let mut i = k as u64 * STRIDE;
        let mut at = from;
        let mut split = Splitter::new(from);
        let mut buf = vec![0u8; WINDOW_CHUNK];
        while i < end {
            let n = read_at(&self.file, &mut buf, at)?;
            if n == 0 {
                break;
            }
            split.feed(&buf[..n], |offset, raw, dropped| {
                if i >= range.start && i < end {
                    f(i, offset, raw, dropped);
                }
                i += 1;
            });
            at += n as u64;
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::fmt::Write as _;

    #[test]
    fn windows_anywhere_in_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("timeline.jsonl");
        let mut text = String::new();
        for i in 0..1000 {
            writeln!(
                text,
                "{{\"type\":\"step\",\"name\":\"n{i}\",\"status\":\"ok\"}}"
            )
            .unwrap();
        }
        text.push_str("{\"partial");
        std::fs::write(&p, &text).unwrap();
        let mut idx = LineIndex::open(&p).unwrap();
        // small steps, so checkpoints fall across chunk edges
        while !idx.index_more(1000).unwrap() {}
        assert_eq!(idx.len(), 1000);
        for start in [0u64, 1, 63, 64, 65, 500, 990] {
            let got = idx.read_lines(start..start + 12).unwrap();
            let want: Vec<_> = (start..(start + 12).min(1000))
                .map(|i| format!("n{i}"))
                .collect();
            let names: Vec<_> = got.iter().map(|l| l.event().name.clone()).collect();
            assert_eq!(names, want, "window at {start}");
            assert_eq!(got[0].lineno, start + 1);
            let line_start = text
                .lines()
                .take(start as usize)
                .map(|l| l.len() + 1)
                .sum::<usize>();
            assert_eq!(got[0].offset, line_start as u64);
        }
        assert!(idx.read_lines(2000..2010).unwrap().is_empty());
    }

    #[test]
    fn refresh_follows_growth_and_rewrites() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("timeline.jsonl");
        std::fs::write(&p, "{\"name\":\"a\"}\n").unwrap();
        let mut idx = LineIndex::build(&p).unwrap();
        assert_eq!(idx.refresh().unwrap(), Refresh::Same);
        std::fs::write(&p, "{\"name\":\"a\"}\n{\"name\":\"b\"}\n").unwrap();
        assert_eq!(idx.refresh().unwrap(), Refresh::Grew);
        assert_eq!(idx.len(), 2);
        std::fs::write(&p, "{\"name\":\"z\"}\n{\"name\":\"b\"}\n").unwrap();
        assert_eq!(idx.refresh().unwrap(), Refresh::Restarted);
        assert_eq!(idx.read_lines(0..1).unwrap()[0].event().name, "z");
    }
}
