//! The bundled fixture project (`examples/realworld`) for the tests that drive
//! testdeck against it: a temp copy, and whether node and Chromium are there.

use std::path::{Path, PathBuf};

pub fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/realworld")
}

/// Whether a missing tool skips the test (false under `CI=true`: CI installs them).
pub fn skip(what: &str) -> bool {
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{what} is missing, and CI installs it (.ci/run): failing instead of skipping"
    );
    eprintln!("skipped: {what} is missing");
    true
}

/// node on PATH and the fixture's `npm ci` done.
pub fn node_ready() -> bool {
    let node = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !node {
        return !skip("node (apt-get install -y nodejs npm)");
    }
    if !fixture().join("node_modules/vitest/package.json").is_file()
        || !fixture()
            .join("node_modules/@playwright/test/package.json")
            .is_file()
    {
        return !skip("examples/realworld/node_modules (run `npm ci` there)");
    }
    true
}

/// node with the fixture's packages, and Chromium: what an e2e case needs (each
/// missing one said, as [`node_ready`] and [`chromium`] say it).
pub fn e2e_ready() -> Option<PathBuf> {
    if !node_ready() {
        return None;
    }
    chromium()
}

/// The system Chromium: `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`.
pub fn chromium() -> Option<PathBuf> {
    let p = std::env::var_os("CHROMIUM_PATH")
        .filter(|p| !p.is_empty())
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    if p.is_file() {
        Some(p)
    } else {
        skip("Chromium (apt-get install -y chromium)");
        None
    }
}

/// A copy of the fixture project in a temp folder, without its logs and with
/// `node_modules` linked to the fixture's (installed once by `npm ci`).
pub fn project() -> tempfile::TempDir {
    fn copy(from: &Path, to: &Path, top: bool) {
        std::fs::create_dir_all(to).expect("mkdir");
        for e in std::fs::read_dir(from).expect("read_dir").flatten() {
            let name = e.file_name();
            let n = name.to_string_lossy();
            let skip_top =
                top && ["node_modules", "test-results", "playwright-report"].contains(&&*n);
            if skip_top || (n == "logs" && from.ends_with("tests")) {
                continue;
            }
            let ft = e.file_type().expect("type");
            if ft.is_dir() {
                copy(&e.path(), &to.join(&name), false);
            } else if ft.is_file() {
                std::fs::copy(e.path(), to.join(&name)).expect("copy");
            }
        }
    }
    let d = tempfile::tempdir().expect("tmp");
    copy(&fixture(), d.path(), true);
    let modules = fixture().join("node_modules");
    if modules.is_dir() {
        std::os::unix::fs::symlink(&modules, d.path().join("node_modules")).expect("link");
    }
    d
}
