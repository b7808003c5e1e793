//! The built `testdeck` binary, the one place every test file finds it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Path of the `testdeck` binary cargo built for these tests.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_testdeck"))
}

/// A fresh `std::process::Command` for the binary, nothing set but the cache
/// folder ([`cache_home`]).
pub fn command() -> Command {
    let mut c = Command::new(bin());
    c.env("XDG_CACHE_HOME", cache_home());
    c
}

/// The cache folder the tests' commands keep their history caches and import
/// indexes in: cargo's scratch folder for tests, never the person's own.
pub fn cache_home() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("cache")
}

/// The binary on the workspace `root` (`testdeck --root ROOT`), nothing else set.
pub fn at(root: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut c = command();
    c.arg("--root").arg(root);
    c
}

/// `testdeck validate --json --root ROOT`: its exit code and its one JSON document.
pub fn validate_json(root: &Path) -> (Option<i32>, serde_json::Value) {
    let out = at(root).args(["validate", "--json"]).output().expect("run");
    let doc = serde_json::from_slice(&out.stdout).expect("one JSON document");
    (out.status.code(), doc)
}

/// Output in JSON Lines (`run --json`, `watch --json`): one value a line, a line
/// that is not JSON a panic naming it.
pub fn json_lines(stdout: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}
