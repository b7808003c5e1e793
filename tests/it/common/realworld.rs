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

/// Copy the fixture project into `to` (a new folder), without its logs and with
/// `node_modules` linked to the fixture's (installed once by `npm ci`).
fn copy_project(to: &Path) {
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
    copy(&fixture(), to, true);
    let modules = fixture().join("node_modules");
    if modules.is_dir() {
        std::os::unix::fs::symlink(&modules, to.join("node_modules")).expect("link");
    }
}

/// A copy of the fixture project in a temp folder of its own (a test that launches
/// or changes files there).
pub fn project() -> tempfile::TempDir {
    let d = crate::common::fs::scratch_dir();
    copy_project(d.path());
    d
}

/// The fixture's failing vitest case (an object `toEqual` diff).
pub const FAILING_VITEST: &str = "shop/backend/cart/boundary/cart-line-merge";
/// The fixture's failing Playwright case (a strict-mode `toHaveText`).
pub const FAILING_E2E: &str = "shop/e2e/storefront/scenario/storefront-checkout";

/// One failing case run once in the shared project: `testdeck run CASE --junit
/// FILE`, piped.
#[derive(Debug)]
pub struct FailedRun {
    /// Its standard output.
    pub text: String,
    /// Its exit status.
    pub code: Option<i32>,
    /// The JUnit XML it wrote.
    pub junit: String,
    /// The run folder, relative to the project.
    pub path: String,
}

/// The fixture project in which the failing cases ran once.
#[derive(Debug)]
pub struct Failed {
    pub root: PathBuf,
    pub vitest: FailedRun,
    /// Where Chromium is there.
    pub e2e: Option<FailedRun>,
}

static FAILED: std::sync::OnceLock<Option<Failed>> = std::sync::OnceLock::new();

/// The fixture project copied once for this test process, in which the failing
/// vitest case and (where Chromium is) the failing Playwright case ran once: a real
/// run costs seconds, so the tests that only read those runs (explain, the trace
/// command, the failure view, the trace pane) share it. It lives under the
/// target's temp folder, named by the process (copies of processes that are gone
/// are removed first); a test must not launch or write there. `None`, said,
/// without node.
pub fn failed() -> Option<&'static Failed> {
    FAILED
        .get_or_init(|| {
            if !node_ready() {
                return None;
            }
            let base = Path::new(env!("CARGO_TARGET_TMPDIR"));
            for e in std::fs::read_dir(base).into_iter().flatten().flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let gone = name
                    .strip_prefix("realworld-failed-")
                    .and_then(|pid| pid.parse::<u32>().ok())
                    .is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists());
                if gone {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
            let dir = base.join(format!("realworld-failed-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            let root = dir.join("project");
            copy_project(&root);
            let run = |case: &str, env: &[(&str, &Path)]| {
                let junit = dir.join(format!("{}.xml", case.replace('/', "_")));
                let o = super::cli::command()
                    .args(["run", "--root"])
                    .arg(&root)
                    .arg(case)
                    .arg("--junit")
                    .arg(&junit)
                    .envs(env.iter().copied())
                    .output()
                    .expect("testdeck run");
                let text = String::from_utf8_lossy(&o.stdout).into_owned();
                assert_eq!(
                    o.status.code(),
                    Some(1),
                    "{case} fails on purpose: {text}{}",
                    String::from_utf8_lossy(&o.stderr)
                );
                let id = case.rsplit('/').next().unwrap_or(case);
                let runs = super::cli::command()
                    .args(["runs", "--json", "--case", id, "--root"])
                    .arg(&root)
                    .output()
                    .expect("runs");
                let runs: serde_json::Value =
                    serde_json::from_slice(&runs.stdout).expect("runs --json");
                FailedRun {
                    text,
                    code: o.status.code(),
                    junit: std::fs::read_to_string(&junit).expect("junit"),
                    path: runs["runs"][0]["path"]
                        .as_str()
                        .expect("the run's folder")
                        .to_owned(),
                }
            };
            let vitest = run(FAILING_VITEST, &[]);
            let chromium = std::env::var_os("CHROMIUM_PATH")
                .filter(|p| !p.is_empty())
                .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
            let e2e = chromium
                .is_file()
                .then(|| run(FAILING_E2E, &[("CHROMIUM_PATH", chromium.as_path())]));
            Some(Failed { root, vitest, e2e })
        })
        .as_ref()
}

/// [`failed`] with its Playwright run: `None`, said, without node or Chromium.
pub fn failed_e2e() -> Option<(&'static Failed, &'static FailedRun)> {
    let f = failed()?;
    if let Some(e) = &f.e2e {
        return Some((f, e));
    }
    // says why it is skipped
    chromium();
    None
}
