//! The adoption fixtures (`tests/fixtures/adopt/`): two projects shaped like
//! common public TypeScript projects, written here, with their existing tests
//! where their frameworks look — `lib` (vitest tests in `test/` importing
//! `../src`, no vitest config, `TZ=… vitest` as its test script) and `app`
//! (vitest tests under `src/**` with the tsconfig / vite alias `_/*`, one
//! Playwright spec of six tests under `src/e2e/`, a config naming chromium,
//! firefox and webkit and a `webServer`). Neither has a testdeck workspace:
//! each test copies one and starts from there, as a person would.

use std::path::{Path, PathBuf};

/// The fixture project `which` (`lib` or `app`) in the repository.
pub fn source(which: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/adopt")
        .join(which)
}

/// A fresh copy of fixture `which` in a temp folder of its own, `node_modules`
/// linked to `examples/realworld`'s (the same pinned vitest and Playwright).
pub fn project(which: &str) -> tempfile::TempDir {
    let d = crate::common::fs::scratch_dir();
    copy(&source(which), d.path());
    let modules = crate::common::realworld::fixture().join("node_modules");
    if modules.is_dir() {
        std::os::unix::fs::symlink(&modules, d.path().join("node_modules")).expect("link");
    }
    d
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir").flatten() {
        let ft = e.file_type().expect("type");
        let dest = to.join(e.file_name());
        if ft.is_dir() {
            copy(&e.path(), &dest);
        } else if ft.is_file() {
            std::fs::copy(e.path(), &dest).expect("copy");
        }
    }
}

/// Makes two of the app's Playwright tests fail by a source change (the
/// shortcut's key moves from K to J), as a person's edit would.
pub fn break_the_shortcut(root: &Path) {
    let app = root.join("web/app.js");
    let text = std::fs::read_to_string(&app).expect("read app.js");
    let broken = text.replace("e.key.toLowerCase() === 'k'", "e.key.toLowerCase() === 'j'");
    assert_ne!(text, broken, "the fixture's shortcut moved");
    std::fs::write(&app, broken).expect("write app.js");
}

/// Makes two of the app's vitest tests in `src/lib/filter.test.ts` fail by a
/// source change (tags are no longer searched).
pub fn break_the_filter(root: &Path) {
    let f = root.join("src/lib/filter.ts");
    let text = std::fs::read_to_string(&f).expect("read filter.ts");
    let broken = text.replace(
        "const hay = [p.title, ...p.tags].join(' ').toLowerCase();",
        "const hay = p.title.toLowerCase();",
    );
    assert_ne!(text, broken, "the fixture's filter moved");
    std::fs::write(&f, broken).expect("write filter.ts");
}
