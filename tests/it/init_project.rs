//! Issue 28: from a project with only tests and configs to a working cockpit in
//! one command. `testdeck init` on `tests/fixtures/init-project` (vitest backend
//! cases, a Playwright spec, no `scripts/`, no `testdeck.toml`), its locked
//! packages installed once per test process, then `run`, `validate` and the
//! cockpit; and `examples/realworld` is exactly what `init` writes.

use crate::common;
use common::Session;
use common::fs::copy_dir;
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/init-project")
}

static INSTALLED: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();

/// The fixture's `node_modules`, installed once for this test process by `npm ci`
/// from its lock file (npm's cache holds realworld's same pinned versions: no
/// network). `None`, said, without node or npm.
fn node_modules() -> Option<&'static Path> {
    INSTALLED
        .get_or_init(|| {
            let has = |tool: &str| {
                std::process::Command::new(tool)
                    .arg("--version")
                    .output()
                    .is_ok_and(|o| o.status.success())
            };
            if !has("node") || !has("npm") {
                common::realworld::skip("node and npm (apt-get install -y nodejs npm)");
                return None;
            }
            let base = Path::new(env!("CARGO_TARGET_TMPDIR"));
            let dir = base.join(format!("init-project-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("mkdir");
            for f in ["package.json", "package-lock.json"] {
                std::fs::copy(fixture().join(f), dir.join(f)).expect("copy");
            }
            let out = std::process::Command::new("npm")
                .args(["ci", "--prefer-offline", "--no-audit", "--no-fund"])
                .current_dir(&dir)
                .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
                .output()
                .expect("npm ci");
            assert!(
                out.status.success(),
                "npm ci: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            Some(dir.join("node_modules"))
        })
        .as_deref()
}

/// A scratch copy of the fixture.
fn copy() -> tempfile::TempDir {
    let d = crate::common::fs::scratch_dir();
    copy_dir(&fixture(), d.path());
    d
}

fn init(root: &Path, args: &[&str]) -> String {
    let out = common::cli::at(root)
        .arg("init")
        .args(args)
        .output()
        .expect("init");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{text}");
    text
}

/// A copy, initialised, its packages linked: `None` (said) without node.
fn ready() -> Option<tempfile::TempDir> {
    let modules = node_modules()?;
    let d = copy();
    let text = init(d.path(), &[]);
    assert!(text.contains("wrote scripts/test-workflow.mjs"), "{text}");
    std::os::unix::fs::symlink(modules, d.path().join("node_modules")).expect("link");
    Some(d)
}

fn run(root: &Path, case: &str) -> (Option<i32>, String) {
    let out = common::cli::at(root)
        .args(["run", case])
        .output()
        .expect("run");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn init_then_run_passing_failing_and_e2e_cases_then_validate_has_no_problem() {
    let Some(p) = ready() else { return };
    let root = p.path();
    for f in [
        "scripts/test-workflow.mjs",
        "scripts/lib/raw-log.mjs",
        "scripts/vitest-reporter.mjs",
        "scripts/playwright-reporter.mjs",
        "testdeck.toml",
        "doc/test-plan/README.md",
    ] {
        assert!(root.join(f).is_file(), "{f} written");
    }
    let (code, text) = run(root, "add-numbers");
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("1 pass"), "{text}");
    let (code, text) = run(root, "divide-by-zero");
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("1 fail"), "{text}");
    if common::realworld::chromium().is_some() {
        let (code, text) = run(root, "page-shows-sum");
        assert_eq!(code, Some(1), "{text}");
        assert!(text.contains("1 fail"), "{text}");
    }
    let (code, doc) = common::cli::validate_json(root);
    assert_eq!(code, Some(0), "{doc:#}");
    assert_eq!(doc["problems"], serde_json::json!([]), "{doc:#}");
}

#[test]
fn the_cockpit_launches_a_case_of_the_init_project_and_its_timeline_grows() {
    let Some(p) = ready() else { return };
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start(p.path(), cfg.path());
    s.wait_text("Tests · 3");
    s.find("'divide-by-zero");
    s.send("r");
    // the reporter's assertion row arrives while the run is live
    s.wait_text("● live");
    s.wait_text("a1 refuses to divide by zero");
    s.wait_text("launch done: 1 fail");
    s.quit();
}

#[test]
fn init_twice_is_nothing_to_do_dry_run_writes_nothing_an_existing_runner_is_kept() {
    let d = copy();
    let root = d.path();
    let listing = |root: &Path| {
        let mut v: Vec<String> = walkdir(root);
        v.sort();
        v
    };
    let before = listing(root);
    let text = init(root, &["--dry-run"]);
    assert!(
        text.contains("would write scripts/test-workflow.mjs"),
        "{text}"
    );
    assert!(text.contains("dry run: nothing written"), "{text}");
    assert_eq!(listing(root), before, "--dry-run writes nothing");
    let text = init(root, &[]);
    assert!(text.contains("wrote testdeck.toml"), "{text}");
    assert!(text.contains("testdeck run <caseId>"), "{text}");
    let text = init(root, &[]);
    assert!(text.contains("nothing to do"), "{text}");
    assert!(!text.contains("wrote"), "{text}");

    // a project's own runner is named and left
    let d = copy();
    let root = d.path();
    common::fs::write(root, "scripts/test-workflow.mjs", "// mine\n");
    let text = init(root, &[]);
    assert!(
        text.contains("left scripts/test-workflow.mjs as it is"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("scripts/test-workflow.mjs")).expect("read"),
        "// mine\n"
    );
    let text = init(root, &["--force"]);
    assert!(
        text.contains("kept as scripts/test-workflow.mjs.bak"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("scripts/test-workflow.mjs.bak")).expect("bak"),
        "// mine\n"
    );
}

fn walkdir(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("read_dir").flatten() {
            let p = e.path();
            out.push(p.strip_prefix(root).expect("under").display().to_string());
            if p.is_dir() {
                stack.push(p);
            }
        }
    }
    out
}

/// `examples/realworld` is what `init` writes: its runner, reporters,
/// `testdeck.toml` and plan README are the templates byte for byte.
#[test]
fn realworld_is_what_init_writes() {
    use testdeck_core::workspace::init;
    let root = common::realworld::fixture();
    let found = init::detect(&root);
    assert!(found.vitest && found.playwright, "{found:?}");
    for (rel, text) in init::files(&found, false) {
        let have = std::fs::read_to_string(root.join(&rel))
            .unwrap_or_else(|e| panic!("examples/realworld/{rel}: {e}"));
        assert!(
            have == text,
            "examples/realworld/{rel} drifted from assets/init (or from what init writes): \
             write it again with `testdeck --root examples/realworld init --force`"
        );
    }
}
