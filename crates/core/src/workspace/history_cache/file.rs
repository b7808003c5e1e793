//! The history cache's files on disk: each framed (magic, format, the real
//! root, the payload's length and CRC-32), read through the bounded reader and
//! written private to the person, aside and renamed.

use super::{FORMAT_VERSION, MAGIC, MAX_BYTES, read};
use std::path::Path;

/// The bytes of the file `name` in `dir` for the workspace at `root` (through
/// the bounded reader), where its payload starts in them, and the payload's
/// CRC-32 and length: `None` when there is none, or it is not one to read
/// (corrupt, truncated, another workspace's, another format, over the cap, in
/// a folder others can write to).
pub(super) fn read_payload(
    dir: &Path,
    real: &Path,
    name: &str,
) -> Option<(Vec<u8>, usize, (u32, usize))> {
    // a folder others can write to is not the person's: nothing read from it
    read::own_folder(dir).ok()?;
    let bytes = read::read(&dir.join(name), Some(dir), read::Kind::HistoryCache).ok()?;
    let (crc, len) = unframe(&bytes, real).map(|(crc, payload)| (crc, payload.len()))?;
    let at = bytes.len() - len;
    Some((bytes, at, (crc, len)))
}

/// Write the framed `bytes` (a header made by [`frame_head`], its payload from
/// `at` on) as the file `name` in `dir` (made private to the person where
/// missing, refused when another user's), 0600, aside and renamed; nothing when
/// `written` says the file holds this payload. The CRC-32 and length written,
/// `None` when nothing was (the same bytes, or over [`MAX_BYTES`]: then no file
/// is left).
pub(super) fn write_framed(
    dir: &Path,
    name: &str,
    mut bytes: Vec<u8>,
    at: usize,
    written: Option<(u32, usize)>,
) -> std::io::Result<Option<(u32, usize)>> {
    let payload_len = bytes.len() - at;
    let crc = crc32(&bytes[at..]);
    if written == Some((crc, payload_len)) {
        return Ok(None);
    }
    frame_seal(&mut bytes, at, crc);
    if bytes.len() as u64 > MAX_BYTES {
        let _ = std::fs::remove_file(dir.join(name));
        return Ok(None);
    }
    // made 0700, or fixed to 0700; another user's folder is refused
    read::own_folder(dir)?;
    read::write_beneath_with(
        dir,
        Path::new(name),
        &bytes,
        read::WriteMode {
            mode: 0o600,
            replace: true,
        },
    )?;
    Ok(Some((crc, payload_len)))
}

pub(super) fn crc32(bytes: &[u8]) -> u32 {
    let mut c = flate2::Crc::new();
    c.update(bytes);
    c.sum()
}

/// The file: magic, format version, the real root (length and bytes), the
/// payload's length and CRC-32, the payload.
/// The header of a file for the workspace at `real_root`, its payload's
/// length and CRC-32 left as zeros ([`frame_seal`] writes them once the
/// payload follows), and where the payload starts.
pub(super) fn frame_head(real_root: &Path) -> (Vec<u8>, usize) {
    let mut out = frame(real_root, &[], 0);
    let at = out.len();
    out.reserve(1 << 16);
    (out, at)
}

/// Write the length and CRC-32 of the payload (from `at` on) into the header
/// [`frame_head`] made.
pub(super) fn frame_seal(bytes: &mut [u8], at: usize, crc: u32) {
    let len = (bytes.len() - at) as u64;
    bytes[at - 12..at - 4].copy_from_slice(&len.to_le_bytes());
    bytes[at - 4..at].copy_from_slice(&crc.to_le_bytes());
}

pub(super) fn frame(real_root: &Path, payload: &[u8], crc: u32) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt as _;
    let root = real_root.as_os_str().as_bytes();
    let mut out = Vec::with_capacity(32 + root.len() + payload.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(root.len() as u32).to_le_bytes());
    out.extend_from_slice(root);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// The payload of a file of this format for the workspace at `real_root`, and
/// its CRC-32; `None` for anything else.
pub(super) fn unframe<'a>(bytes: &'a [u8], real_root: &Path) -> Option<(u32, &'a [u8])> {
    use std::os::unix::ffi::OsStrExt as _;
    fn take<'a>(b: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
        if b.len() < n {
            return None;
        }
        let (head, rest) = b.split_at(n);
        *b = rest;
        Some(head)
    }
    let mut b = bytes;
    if take(&mut b, 8)? != MAGIC {
        return None;
    }
    let version = u32::from_le_bytes(take(&mut b, 4)?.try_into().ok()?);
    if version != FORMAT_VERSION {
        return None;
    }
    let root_len = u32::from_le_bytes(take(&mut b, 4)?.try_into().ok()?) as usize;
    if take(&mut b, root_len)? != real_root.as_os_str().as_bytes() {
        return None;
    }
    let len = u64::from_le_bytes(take(&mut b, 8)?.try_into().ok()?);
    let crc = u32::from_le_bytes(take(&mut b, 4)?.try_into().ok()?);
    if usize::try_from(len).ok()? != b.len() || crc32(b) != crc {
        return None;
    }
    Some((crc, b))
}
