//! Small helpers the unit tests of every module share (compiled in test builds only).

/// Owned strings of `v`, for comparing with an argv or a list of ids.
pub fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| (*x).to_owned()).collect()
}

pub mod hostile_git;
pub mod per_test;
pub mod random_changes;

/// Every folder under `root`'s `tests/logs/` last changed an hour ago, as a
/// person's history is: settled, nothing too recent for the history cache to
/// vouch for.
pub fn settle_logs(root: &std::path::Path) {
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let mut stack = vec![root.join("tests/logs")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("ls").flatten() {
            if e.file_type().expect("type").is_dir() {
                stack.push(e.path());
            }
        }
        std::fs::File::open(&d)
            .expect("dir")
            .set_modified(hour_ago)
            .expect("mtime");
    }
}

/// Zip archives written by hand, so a test can declare any size, name or method:
/// what a hostile `trace.zip` holds (bombs, lying sizes, names that climb out).
pub mod zip {
    /// One entry of [`zip_of`]: name, compression method (0 stored, 8 deflate),
    /// the bytes as stored, and the uncompressed size to declare.
    pub struct E<'a> {
        /// The entry's name, as stored (any bytes a test wants, `..` included).
        pub name: &'a str,
        /// 0 stored, 8 deflate.
        pub method: u16,
        /// The bytes as stored.
        pub data: Vec<u8>,
        /// The uncompressed size the headers declare.
        pub size: u64,
        /// The CRC-32 the headers declare.
        pub crc: u32,
    }

    /// An entry stored uncompressed, with its true size and CRC.
    pub fn stored<'a>(name: &'a str, data: &[u8]) -> E<'a> {
        let mut c = flate2::Crc::new();
        c.update(data);
        E {
            name,
            method: 0,
            data: data.to_vec(),
            size: data.len() as u64,
            crc: c.sum(),
        }
    }

    /// A zip written by hand (local headers, central directory, end record), so a
    /// test can declare any size and any name.
    pub fn zip_of(entries: &[E<'_>]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut central = Vec::new();
        let le16 = |v: &mut Vec<u8>, x: u16| v.extend_from_slice(&x.to_le_bytes());
        let le32 = |v: &mut Vec<u8>, x: u32| v.extend_from_slice(&x.to_le_bytes());
        for e in entries {
            let offset = out.len() as u32;
            let size = u32::try_from(e.size).expect("under 4 GiB");
            le32(&mut out, 0x0403_4b50);
            for x in [20, 0, e.method, 0, 0] {
                le16(&mut out, x);
            }
            le32(&mut out, e.crc);
            le32(&mut out, e.data.len() as u32);
            le32(&mut out, size);
            le16(&mut out, e.name.len() as u16);
            le16(&mut out, 0);
            out.extend_from_slice(e.name.as_bytes());
            out.extend_from_slice(&e.data);
            le32(&mut central, 0x0201_4b50);
            for x in [20, 20, 0, e.method, 0, 0] {
                le16(&mut central, x);
            }
            le32(&mut central, e.crc);
            le32(&mut central, e.data.len() as u32);
            le32(&mut central, size);
            le16(&mut central, e.name.len() as u16);
            for x in [0, 0, 0, 0] {
                le16(&mut central, x);
            }
            le32(&mut central, 0);
            le32(&mut central, offset);
            central.extend_from_slice(e.name.as_bytes());
        }
        let cd_at = out.len() as u32;
        let cd_len = central.len() as u32;
        out.extend_from_slice(&central);
        le32(&mut out, 0x0605_4b50);
        for x in [0, 0, entries.len() as u16, entries.len() as u16] {
            le16(&mut out, x);
        }
        le32(&mut out, cd_len);
        le32(&mut out, cd_at);
        le16(&mut out, 0);
        out
    }

    /// A raw deflate stream of `mib` MiB of zeros, made of one flushed block of
    /// 1 MiB repeated (so a test never inflates or compresses the whole of it).
    pub fn zeros_deflated(mib: usize) -> Vec<u8> {
        use flate2::{Compress, Compression, FlushCompress};
        let mut c = Compress::new(Compression::best(), false);
        let zeros = vec![0u8; 1 << 20];
        let mut block = Vec::with_capacity(8 << 10);
        c.compress_vec(&zeros, &mut block, FlushCompress::Full)
            .expect("deflate");
        let mut out = Vec::with_capacity(block.len() * mib + 16);
        for _ in 0..mib {
            out.extend_from_slice(&block);
        }
        let mut end = Vec::with_capacity(64);
        let mut c = Compress::new(Compression::best(), false);
        c.compress_vec(&[], &mut end, FlushCompress::Finish)
            .expect("deflate");
        out.extend_from_slice(&end);
        out
    }
}
