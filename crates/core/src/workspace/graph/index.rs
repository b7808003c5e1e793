//! Each module's parse kept between runs: the specifiers [`imports::parse`]
//! found in a source and its first `import()` / `require()` the graph cannot
//! follow, keyed by the file's root-relative path and proved by its length and
//! the SHA-256 of its bytes. A file whose bytes are the ones parsed before is
//! not parsed again; a changed one is, and its entry replaced. Resolution (which
//! files the specifiers name) is never kept: it is done again at each build, so
//! a file created or removed elsewhere is always seen.
//!
//! The index lives in the workspace's history cache file, as a section of its
//! own ([`super::super::history_cache::load_section`]): `watch`, `--changed` and
//! the cockpit's `stale` start from it and write it back when it changed. A
//! section of another version, or one that does not decode, is an empty index
//! (every module parsed again), never misread.

use crate::problem::Problem;
use crate::workspace::history_cache;
use crate::workspace::imports::{self, Kind};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
#[cfg(any(test, feature = "testkit"))]
use std::{
    path::PathBuf,
    sync::{Mutex, PoisonError},
};

/// The section's own format: a section of another version is not read.
const SECTION_VERSION: u32 = 1;

/// What the graph keeps of one source's parse.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parse {
    /// Every literal module specifier, in source order: its kind and value.
    pub specifiers: Vec<(Kind, String)>,
    /// The line and column of its first `import()` / `require()` whose
    /// argument is no literal.
    pub unfollowed: Option<(u32, u32)>,
}

impl Parse {
    /// What the graph keeps of a parse.
    pub fn of(p: &imports::Parsed) -> Parse {
        Parse {
            specifiers: p
                .specifiers
                .iter()
                .map(|s| (s.kind, s.value.clone()))
                .collect(),
            unfollowed: p.non_literal.first().map(|n| (n.line, n.column)),
        }
    }
}

/// One module of the index: the bytes it was parsed from (length, SHA-256)
/// and the parse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    len: u64,
    sha: [u8; 32],
    parse: Parse,
}

/// The section as written.
#[derive(Serialize, Deserialize)]
struct Section {
    version: u32,
    entries: Vec<(String, Entry)>,
}

/// The parses of the workspace's modules, as loaded and as used since.
#[derive(Debug, Default)]
pub struct ModuleIndex {
    entries: BTreeMap<String, Entry>,
    /// The modules looked up since the load (kept when written back).
    used: BTreeSet<String>,
    /// Whether an entry was added or replaced since the load.
    changed: bool,
}

/// The files parsed in this process, by workspace root as given: a test hook
/// (as the watcher's `instances`), read with [`parsed_files`]; compiled for tests
/// only (the `testkit` feature), so the product keeps no list that grows.
#[cfg(any(test, feature = "testkit"))]
static PARSED: Mutex<BTreeMap<PathBuf, Vec<String>>> = Mutex::new(BTreeMap::new());

/// The root-relative files the graph parsed for the workspace at `root` in this
/// process (a file parsed twice is there twice), in order.
#[cfg(any(test, feature = "testkit"))]
pub fn parsed_files(root: &Path) -> Vec<String> {
    PARSED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(root)
        .cloned()
        .unwrap_or_default()
}

#[cfg_attr(
    not(any(test, feature = "testkit")),
    expect(
        unused_variables,
        reason = "a test hook: nothing is kept in the product"
    )
)]
fn count_parse(root: &Path, rel: &str) {
    #[cfg(any(test, feature = "testkit"))]
    PARSED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(root.to_path_buf())
        .or_default()
        .push(rel.to_owned());
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

impl ModuleIndex {
    /// The index kept in the history cache folder `dir` for the workspace at
    /// `root`; empty without a folder, a file, or a section of this version.
    pub fn open(dir: Option<&Path>, root: &Path) -> ModuleIndex {
        let Some(bytes) = dir.and_then(|d| history_cache::load_section(d, root)) else {
            return ModuleIndex::default();
        };
        match postcard::from_bytes::<Section>(&bytes) {
            Ok(s) if s.version == SECTION_VERSION => ModuleIndex {
                entries: s.entries.into_iter().collect(),
                used: BTreeSet::new(),
                changed: false,
            },
            _ => ModuleIndex::default(),
        }
    }

    /// Write the index back into the history cache folder `dir` (nothing
    /// without one): the modules used since the load, when one was parsed
    /// again or one is no longer used. `Ok(false)`: nothing written.
    pub fn save(&mut self, dir: Option<&Path>, root: &Path) -> std::io::Result<bool> {
        let Some(dir) = dir else { return Ok(false) };
        let before = self.entries.len();
        self.entries.retain(|k, _| self.used.contains(k));
        if !self.changed && self.entries.len() == before {
            return Ok(false);
        }
        let section = Section {
            version: SECTION_VERSION,
            entries: self
                .entries
                .iter()
                .map(|(k, e)| (k.clone(), e.clone()))
                .collect(),
        };
        let bytes = postcard::to_allocvec(&section).map_err(std::io::Error::other)?;
        let wrote = history_cache::store_section(dir, root, &bytes)?;
        self.changed = false;
        Ok(wrote)
    }

    /// Modules held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds no module.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The parse of `rel` (root-relative, in the workspace at `root`) whose
    /// bytes are `bytes`: the one kept when they are the bytes it was parsed
    /// from, else a new parse (counted, kept). A source that does not parse is
    /// its located problem (nothing kept: it is parsed again next time).
    pub fn parse(&mut self, root: &Path, rel: &str, bytes: &[u8]) -> Result<Parse, Problem> {
        self.used.insert(rel.to_owned());
        let len = bytes.len() as u64;
        let sha = sha256(bytes);
        if let Some(e) = self.entries.get(rel) {
            if e.len == len && e.sha == sha {
                return Ok(e.parse.clone());
            }
        }
        count_parse(root, rel);
        let parse = Parse::of(&imports::parse(rel, bytes)?);
        self.entries.insert(
            rel.to_owned(),
            Entry {
                len,
                sha,
                parse: parse.clone(),
            },
        );
        self.changed = true;
        Ok(parse)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_bytes_are_parsed_once_and_changed_bytes_again() {
        let root = Path::new("/index-test-root");
        let mut ix = ModuleIndex::default();
        let a = ix
            .parse(root, "src/a.ts", b"import { b } from './b';\n")
            .expect("parses");
        assert_eq!(a.specifiers, [(Kind::Import, "./b".to_owned())]);
        let again = ix
            .parse(root, "src/a.ts", b"import { b } from './b';\n")
            .expect("parses");
        assert_eq!(a, again);
        assert_eq!(parsed_files(root), ["src/a.ts"]);
        let changed = ix
            .parse(root, "src/a.ts", b"import { c } from './c';\nimport(x);\n")
            .expect("parses");
        assert_eq!(changed.specifiers, [(Kind::Import, "./c".to_owned())]);
        assert_eq!(changed.unfollowed, Some((2, 8)));
        assert_eq!(parsed_files(root), ["src/a.ts", "src/a.ts"]);
        // a source that does not parse is its problem, and nothing is kept
        assert!(ix.parse(root, "src/a.ts", b"import {").is_err());
        assert!(ix.parse(root, "src/a.ts", b"import {").is_err());
        assert_eq!(parsed_files(root).len(), 4);
    }

    #[test]
    fn the_index_is_written_into_the_history_cache_and_read_back() {
        let cache = tempfile::tempdir().expect("tmp");
        let ws = tempfile::tempdir().expect("tmp");
        let (dir, root) = (cache.path(), ws.path());
        let mut ix = ModuleIndex::open(Some(dir), root);
        assert!(ix.is_empty());
        ix.parse(root, "a.ts", b"export * from './b';\n")
            .expect("parses");
        assert!(ix.save(Some(dir), root).expect("stored"));
        // nothing parsed since: nothing to write
        assert!(!ix.save(Some(dir), root).expect("stored"));
        let mut back = ModuleIndex::open(Some(dir), root);
        assert_eq!(back.len(), 1);
        let n = parsed_files(root).len();
        let p = back
            .parse(root, "a.ts", b"export * from './b';\n")
            .expect("parses");
        assert_eq!(p.specifiers, [(Kind::ExportAll, "./b".to_owned())]);
        assert_eq!(parsed_files(root).len(), n, "read from the index");
        // a module no longer used leaves the index at the next write
        back.parse(root, "c.ts", b"export const c = 1;\n")
            .expect("parses");
        let mut only_c = ModuleIndex::open(Some(dir), root);
        assert!(back.save(Some(dir), root).expect("stored"));
        only_c
            .parse(root, "c.ts", b"export const c = 1;\n")
            .expect("parses");
        assert!(only_c.save(Some(dir), root).expect("stored"));
        assert_eq!(ModuleIndex::open(Some(dir), root).len(), 1);
    }
}
