//! The bounded zip under a trace: entry count, per-entry and total uncompressed
//! size and compression ratio checked before and while an entry is inflated.
//!
//! Nothing is ever extracted: entries are read into memory by name, and a name
//! that is absolute or climbs out with `..` is never looked up at all.

use super::Limits;
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Cursor, Read};
use std::sync::Arc;
use zip::ZipArchive;

/// A zip held in memory, with the names of its usable entries.
#[derive(Clone)]
pub(super) struct Archive {
    zip: ZipArchive<Cursor<Arc<[u8]>>>,
    /// Usable entry name → index (unsafe names are left out).
    names: HashMap<String, usize>,
}

impl std::fmt::Debug for Archive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archive")
            .field("entries", &self.names.len())
            .finish_non_exhaustive()
    }
}

/// One entry's name and size as the central directory declares them.
pub(super) struct Entry {
    pub name: String,
    pub size: u64,
}

/// Why an entry's bytes stopped (the caller makes it a located problem).
#[derive(Debug)]
pub(super) enum Stop {
    /// The entry could not be opened or inflated.
    Broken(String),
    /// Over its own cap or what is left of the total.
    TooLarge(u64),
    /// Inflating far more than it takes: a zip bomb's mark.
    Ratio { read: u64, compressed: u64 },
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Broken(e) => write!(f, "cannot be read: {e}"),
            Stop::TooLarge(cap) => write!(f, "over {cap} bytes uncompressed: the rest not read"),
            Stop::Ratio { read, compressed } => write!(
                f,
                "inflates to over {read} bytes from {compressed} (a compression ratio over {}:1, a zip bomb?): the rest not read",
                read / (*compressed).max(1)
            ),
        }
    }
}

/// Whether a name may be looked up: relative, no `..`, no NUL, no drive letter.
/// (Entries are never extracted; this keeps a hostile name from ever meaning a
/// path, should one be shown or handed on.)
pub(super) fn safe_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(['/', '\\'])
        && !name.contains('\0')
        && !name.split(['/', '\\']).any(|c| c == "..")
        && !name
            .split(['/', '\\'])
            .next()
            .is_some_and(|c| c.contains(':'))
}

/// The entry count the end of central directory declares, read before the zip
/// crate allocates a record per entry. `Err`: no end record (not a zip, or cut).
fn declared_entries(b: &[u8]) -> Result<u64, &'static str> {
    const EOCD: [u8; 4] = [0x50, 0x4b, 0x05, 0x06];
    const LOCATOR: [u8; 4] = [0x50, 0x4b, 0x06, 0x07];
    const EOCD64: [u8; 4] = [0x50, 0x4b, 0x06, 0x06];
    // the record is 22 bytes and a comment of at most 65535 follows it
    let from = b.len().saturating_sub(22 + 0xFFFF);
    let at = (from..b.len().saturating_sub(21))
        .rev()
        .find(|&i| b[i..i + 4] == EOCD)
        .ok_or("no end of central directory")?;
    let u16_at = |i: usize| b.get(i..i + 2).map(|s| u16::from_le_bytes([s[0], s[1]]));
    let count = u16_at(at + 10).ok_or("cut end of central directory")?;
    if count != 0xFFFF {
        return Ok(u64::from(count));
    }
    // zip64: the locator (20 bytes) just before names the zip64 record
    let loc = at.checked_sub(20).ok_or("zip64 locator missing")?;
    if b[loc..loc + 4] != LOCATOR {
        return Ok(u64::from(count));
    }
    let u64_at = |i: usize| {
        b.get(i..i + 8)
            .and_then(|s| <[u8; 8]>::try_from(s).ok())
            .map(u64::from_le_bytes)
    };
    let rec = u64_at(loc + 8).ok_or("zip64 locator cut")?;
    let rec = usize::try_from(rec).map_err(|_| "zip64 record out of the file")?;
    if b.get(rec..rec + 4) != Some(&EOCD64[..]) {
        return Err("zip64 end of central directory missing");
    }
    u64_at(rec + 32).ok_or("zip64 end of central directory cut")
}

impl Archive {
    /// Open a zip held in memory. `Err` is the message of a located problem.
    pub fn open(bytes: Arc<[u8]>, limits: &Limits) -> Result<(Archive, Vec<String>), String> {
        let looks_zip = bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06");
        let not_zip = |why: &str| {
            if looks_zip {
                format!("a truncated or damaged zip archive ({why})")
            } else {
                format!("not a zip archive ({why})")
            }
        };
        let declared = declared_entries(&bytes).map_err(not_zip)?;
        if declared > limits.entries as u64 {
            return Err(format!(
                "{declared} entries is over the limit of {}: not read",
                limits.entries
            ));
        }
        let zip = ZipArchive::new(Cursor::new(bytes)).map_err(|e| not_zip(&e.to_string()))?;
        if zip.len() > limits.entries {
            return Err(format!(
                "{} entries is over the limit of {}: not read",
                zip.len(),
                limits.entries
            ));
        }
        let mut names = HashMap::with_capacity(zip.len());
        let mut refused = Vec::new();
        for (i, raw) in zip.file_names_raw().enumerate() {
            let name = String::from_utf8_lossy(raw);
            if safe_name(&name) {
                names.insert(name.into_owned(), i);
            } else {
                refused.push(name.into_owned());
            }
        }
        Ok((Archive { zip, names }, refused))
    }

    /// The usable entries, in archive order.
    pub fn entries(&self) -> Vec<Entry> {
        let mut v: Vec<(&String, usize)> = self.names.iter().map(|(n, i)| (n, *i)).collect();
        v.sort_by_key(|(_, i)| *i);
        v.into_iter()
            .filter_map(|(name, i)| {
                let e = self.zip.by_index_data(i).ok()?;
                Some(Entry {
                    name: name.clone(),
                    size: e.size(),
                })
            })
            .collect()
    }

    /// Whether the archive has a usable entry of this name.
    pub fn has(&self, name: &str) -> bool {
        self.names.contains_key(name)
    }

    /// Call `line` on each line (without its newline) of entry `name`, inflating at
    /// most `cap` bytes; a line over `max_line` is handed over as `None` (its bytes
    /// are skipped, never held). Returns the bytes inflated, or why it stopped.
    pub fn lines(
        &mut self,
        name: &str,
        cap: u64,
        limits: &Limits,
        mut line: impl FnMut(Option<&[u8]>),
    ) -> Result<u64, (u64, Stop)> {
        let mut r = self.reader(name, cap, limits)?;
        let mut buf = Vec::new();
        let mut skipping = false;
        loop {
            let chunk = match r.fill_buf() {
                Ok([]) => break,
                Ok(c) => c,
                Err(e) => return Err(r.get_ref().stopped(&e)),
            };
            let (part, end) = match memchr::memchr(b'\n', chunk) {
                Some(i) => (&chunk[..i], Some(i + 1)),
                None => (chunk, None),
            };
            if !skipping {
                if buf.len() + part.len() > limits.line {
                    skipping = true;
                    buf.clear();
                } else {
                    buf.extend_from_slice(part);
                }
            }
            let used = end.unwrap_or(chunk.len());
            r.consume(used);
            if end.is_some() {
                line(if skipping { None } else { Some(trim_cr(&buf)) });
                buf.clear();
                skipping = false;
            }
        }
        if skipping {
            line(None);
        } else if !buf.is_empty() {
            line(Some(trim_cr(&buf)));
        }
        Ok(r.get_ref().read)
    }

    /// The whole of entry `name`, at most `cap` bytes.
    pub fn bytes(&mut self, name: &str, cap: u64, limits: &Limits) -> Result<Vec<u8>, Stop> {
        let mut r = self.reader(name, cap, limits).map_err(|(_, s)| s)?;
        let mut out = Vec::new();
        if let Err(e) = r.read_to_end(&mut out) {
            return Err(r.get_ref().stopped(&e).1);
        }
        Ok(out)
    }

    fn reader(
        &mut self,
        name: &str,
        cap: u64,
        limits: &Limits,
    ) -> Result<BufReader<Bounded<impl Read + '_>>, (u64, Stop)> {
        let Some(&i) = self.names.get(name) else {
            return Err((0, Stop::Broken("no such entry".to_owned())));
        };
        let file = self
            .zip
            .by_index(i)
            .map_err(|e| (0, Stop::Broken(e.to_string())))?;
        let compressed = file.compressed_size();
        // the declared sizes are checked first; the inflated bytes are counted
        // anyway, since a header may lie (the zip crate stops at the declared
        // size today: this keeps the bounds should it ever not)
        if file.size() > cap {
            return Err((0, Stop::TooLarge(cap)));
        }
        if ratio_over(file.size(), compressed, limits) {
            return Err((
                0,
                Stop::Ratio {
                    read: file.size(),
                    compressed,
                },
            ));
        }
        Ok(BufReader::with_capacity(
            64 << 10,
            Bounded {
                inner: file,
                read: 0,
                cap,
                compressed,
                ratio: limits.ratio,
                ratio_floor: limits.ratio_floor,
                stop: None,
            },
        ))
    }
}

fn ratio_over(size: u64, compressed: u64, limits: &Limits) -> bool {
    size > limits.ratio_floor && size / compressed.max(1) > limits.ratio
}

fn trim_cr(b: &[u8]) -> &[u8] {
    b.strip_suffix(b"\r").unwrap_or(b)
}

/// An entry's inflating reader that stops at its cap and at a bomb's ratio.
struct Bounded<R> {
    inner: R,
    read: u64,
    cap: u64,
    compressed: u64,
    ratio: u64,
    ratio_floor: u64,
    stop: Option<Stop>,
}

impl<R> Bounded<R> {
    fn stopped(&self, e: &std::io::Error) -> (u64, Stop) {
        let stop = match &self.stop {
            Some(Stop::TooLarge(c)) => Stop::TooLarge(*c),
            Some(Stop::Ratio { read, compressed }) => Stop::Ratio {
                read: *read,
                compressed: *compressed,
            },
            Some(Stop::Broken(m)) => Stop::Broken(m.clone()),
            None => Stop::Broken(e.to_string()),
        };
        (self.read, stop)
    }
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.stop.is_some() {
            return Err(std::io::Error::other("stopped"));
        }
        // one byte past the cap tells a file of exactly the cap from a bigger one
        let room = (self.cap + 1).saturating_sub(self.read);
        let want = buf.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        self.read += n as u64;
        if self.read > self.cap {
            self.stop = Some(Stop::TooLarge(self.cap));
        } else if self.read > self.ratio_floor && self.read / self.compressed.max(1) > self.ratio {
            self.stop = Some(Stop::Ratio {
                read: self.read,
                compressed: self.compressed,
            });
        }
        if self.stop.is_some() {
            return Err(std::io::Error::other("stopped"));
        }
        Ok(n)
    }
}

/// A lossy name for a message (entry names are bytes of any encoding).
pub(super) fn shown(name: &str) -> Cow<'_, str> {
    crate::sanitize::escape(name)
}
