//! The cases that differ from a git revision (`--changed [REV]`): those whose
//! test file, plan entry or catalog case file changed, and those whose import
//! graph (`workspace::graph`) reaches a changed file; every case when a change
//! the graph cannot place changed (a config, `package.json`, a lockfile, a setup
//! file), saying why — the changes read from the `git` binary. A case the graph
//! does not cover (its test file is no JavaScript / TypeScript) and the catalog's
//! cases are concerned by any change to the code under test (`[watch] paths`).

use super::Workspace;
use super::config::WatchGlobs as _;
use super::config::glob_matches;
use super::git::{self, GitError};
use super::graph;
use super::stats::under;
use std::collections::{BTreeSet, HashMap};

/// The revision `--changed` compares with when none is given: the working tree
/// and the index against `HEAD`.
pub const DEFAULT_REV: &str = "HEAD";

/// Folders whose changes are testdeck's or the runner's own writes.
const OWN_WRITES: [&str; 2] = ["tests/logs", ".pouch/tester/runs"];

/// What changed, and the cases it concerns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changed {
    /// The files that differ (relative to the workspace root), sorted.
    pub files: Vec<String>,
    /// Tests-tree cases as `scope/caseId`, in the tree's order.
    pub tests: Vec<String>,
    /// Catalog case ids, in the catalog's order.
    pub catalog: Vec<String>,
    /// Every case is concerned (see [`Changed::every`]).
    pub sources: bool,
    /// Why every case is concerned (`vitest.config.ts changed: every case`).
    pub every: Option<String>,
    /// One line a changed file: what it reaches (`src/unused.ts changed:
    /// reaches no case`).
    pub notes: Vec<String>,
}

impl Changed {
    /// Whether a tests case (`scope/caseId`) is among them.
    pub fn has_test(&self, key: &str) -> bool {
        self.tests.iter().any(|k| k == key)
    }
}

/// Why the changes could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChangedError {
    /// The workspace is not inside a git checkout (or git is not there).
    #[error("--changed reads the changes from git, and {0} is not a git checkout ({1})")]
    NotACheckout(String, String),
    /// git refused the revision or failed.
    #[error("--changed {0}: {1}")]
    Git(String, String),
}

/// Whether a changed file is testdeck's own (the plan, the catalog, its config):
/// never a module of the graph.
fn is_own(f: &str) -> bool {
    f == "testdeck.toml" || under(f, "doc/test-plan") || under(f, ".pouch/tester")
}

/// The new-side line ranges (first line, count) each changed file's hunks touch.
type Hunks = HashMap<String, Vec<(u32, u32)>>;

/// The cases of `ws` that differ from `rev` (default [`DEFAULT_REV`]), every
/// module of the import graph parsed.
pub fn changed(ws: &Workspace, rev: Option<&str>) -> Result<Changed, ChangedError> {
    changed_in(ws, rev, None)
}

/// [`changed`] with the import index of the history cache folder `cache`: only
/// the modules whose bytes changed since the index was written are parsed.
pub fn changed_in(
    ws: &Workspace,
    rev: Option<&str>,
    cache: Option<&std::path::Path>,
) -> Result<Changed, ChangedError> {
    let rev = rev.unwrap_or(DEFAULT_REV);
    let root_shown = ws.root.display().to_string();
    let prefix = git::prefix(&ws.root).map_err(|e| match e {
        GitError::NoGit(m) | GitError::Failed(m) => ChangedError::NotACheckout(root_shown, m),
    })?;
    let fail = |e: GitError| ChangedError::Git(rev.to_owned(), e.to_string());
    let mut files: BTreeSet<String> = git::changed_since(&ws.root, &prefix, rev)
        .map_err(fail)?
        .into_iter()
        .collect();
    // untracked files are changes too (a new test file, a new plan)
    let untracked = git::untracked(&ws.root, &prefix).map_err(fail)?;
    files.extend(untracked.iter().cloned());
    files.retain(|f| !OWN_WRITES.iter().any(|d| under(f, d)));
    let plan_hunks = plan_hunks(ws, &prefix, rev, &files, &untracked).map_err(fail)?;
    let globs = ws.config.watch.globs(&ws.root);
    let watched = files
        .iter()
        .any(|f| globs.iter().any(|g| glob_matches(g, f)));
    // what the import graph places: every changed file but the plan's and the catalog's
    let placed: Vec<String> = files.iter().filter(|f| !is_own(f)).cloned().collect();
    let selection = if placed.is_empty() {
        graph::Selection::default()
    } else {
        graph::load::selection(ws, cache, &placed)
    };
    let every = selection.every.is_some();
    let mut out = Changed {
        sources: every,
        every: selection.every.clone(),
        notes: selection.notes.clone(),
        ..Changed::default()
    };
    for c in &ws.tests.cases {
        let hit = every
            || files.contains(&c.path)
            || selection.cases.contains(&c.key())
            || (watched && !graph::is_source(&c.path))
            || ws.plan.entries(&c.case_id).iter().any(|e| {
                plan_hunks.get(&e.file).is_some_and(|hunks| {
                    let len = u32::try_from(e.text.lines().count().max(1)).unwrap_or(u32::MAX);
                    let (start, end) = (e.line, e.line.saturating_add(len));
                    hunks
                        .iter()
                        .any(|&(first, n)| first < end && first.saturating_add(n.max(1)) > start)
                })
            });
        if hit {
            out.tests.push(c.key());
        }
    }
    if let Some(cat) = &ws.catalog {
        for c in &cat.cases {
            if every || watched || files.contains(&c.file) {
                out.catalog.push(c.id.clone());
            }
        }
    }
    out.files = files.into_iter().collect();
    Ok(out)
}

/// The changed lines of each changed plan file (`git diff -U0`); an untracked
/// plan file changed whole.
fn plan_hunks(
    ws: &Workspace,
    prefix: &str,
    rev: &str,
    files: &BTreeSet<String>,
    untracked: &[String],
) -> Result<Hunks, GitError> {
    let mut hunks = Hunks::new();
    if !files.iter().any(|f| under(f, "doc/test-plan")) {
        return Ok(hunks);
    }
    for f in untracked.iter().filter(|f| under(f, "doc/test-plan")) {
        hunks.insert(f.clone(), vec![(1, u32::MAX)]);
    }
    let out = git::run(
        &ws.root,
        &[
            "diff",
            "-U0",
            "--no-color",
            "--no-ext-diff",
            "--no-renames",
            "--end-of-options",
            rev,
            "--",
            "doc/test-plan",
        ],
    )?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(path) = line.strip_prefix("+++ ") {
            // `+++ b/path`, or `+++ /dev/null` for a deleted file
            current = path
                .strip_prefix("b/")
                .and_then(|p| git::under_prefix(prefix, p))
                .map(str::to_owned);
        } else if let (Some(rest), Some(file)) = (line.strip_prefix("@@ "), &current) {
            // `@@ -a,b +c,d @@`
            if let Some(new) = rest.split(' ').find_map(|w| w.strip_prefix('+')) {
                let mut it = new.splitn(2, ',');
                let first: u32 = it.next().and_then(|s| s.parse().ok()).unwrap_or(1);
                let n: u32 = it.next().and_then(|s| s.parse().ok()).unwrap_or(1);
                hunks.entry(file.clone()).or_default().push((first, n));
            }
        }
    }
    Ok(hunks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }

    fn git(root: &Path, args: &[&str]) {
        let ok = std::process::Command::new("git")
            .current_dir(root)
            .args(args)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
            .output()
            .expect("git")
            .status
            .success();
        assert!(ok, "git {args:?}");
    }

    #[test]
    fn test_files_plan_entries_sources_and_untracked() {
        if std::process::Command::new("git")
            .arg("--version")
            .output()
            .is_err()
        {
            return;
        }
        let d = tempfile::tempdir().expect("dir");
        let root = d.path();
        write(root, "tests/a/b/c/one.test.ts", "1\n");
        write(root, "tests/a/b/c/two.test.ts", "2\n");
        write(root, "tests/a/b/c/three.test.ts", "3\n");
        write(
            root,
            "doc/test-plan/a.md",
            "# plan\n\n## one\n\nWhat: one\n\n## two\n\nWhat: two\n\n## three\n\nWhat: three\n",
        );
        write(root, "src/app.js", "x\n");
        git(root, &["init", "-q"]);
        git(root, &["add", "."]);
        git(root, &["commit", "-q", "-m", "first"]);
        let ws = |root: &Path| Workspace::load(root).expect("ws");
        assert_eq!(
            changed(&ws(root), None).expect("changed"),
            Changed::default()
        );
        // a test file, and the plan entry of another
        write(root, "tests/a/b/c/one.test.ts", "1 edited\n");
        write(
            root,
            "doc/test-plan/a.md",
            "# plan\n\n## one\n\nWhat: one\n\n## two\n\nWhat: two, edited\n\n## three\n\nWhat: three\n",
        );
        let c = changed(&ws(root), None).expect("changed");
        assert_eq!(c.tests, ["a/b/c/one", "a/b/c/two"]);
        assert!(!c.sources);
        // staged counts as well; a new untracked case too
        git(root, &["add", "."]);
        write(root, "tests/a/b/c/four.test.ts", "4\n");
        let c = changed(&ws(root), None).expect("changed");
        assert_eq!(c.tests, ["a/b/c/four", "a/b/c/one", "a/b/c/two"]);
        // against a revision: what differs from it
        git(root, &["commit", "-q", "-m", "second"]);
        let c = changed(&ws(root), None).expect("changed");
        assert_eq!(c.tests, ["a/b/c/four"]);
        let c = changed(&ws(root), Some("HEAD~1")).expect("changed");
        assert_eq!(c.tests, ["a/b/c/four", "a/b/c/one", "a/b/c/two"]);
        // the code under test no case imports: none, and said
        write(root, "src/app.js", "y\n");
        let c = changed(&ws(root), None).expect("changed");
        assert!(!c.sources);
        assert_eq!(c.tests, ["a/b/c/four"]);
        assert_eq!(
            c.notes,
            [
                "src/app.js changed: reaches no case",
                "tests/a/b/c/four.test.ts changed: 1 case reaches it"
            ]
        );
        // imported by one case: that case
        write(
            root,
            "tests/a/b/c/three.test.ts",
            "import '../../../../src/app.js';\n",
        );
        git(root, &["commit", "-qam", "third"]);
        write(root, "src/app.js", "z\n");
        let c = changed(&ws(root), None).expect("changed");
        assert_eq!(c.tests, ["a/b/c/four", "a/b/c/three"]);
        // a config: every case, and why
        write(root, "package.json", "{}\n");
        let c = changed(&ws(root), None).expect("changed");
        assert!(c.sources);
        assert_eq!(c.every.as_deref(), Some("package.json changed: every case"));
        assert_eq!(c.tests.len(), 4);
        // a revision git does not know
        assert!(matches!(
            changed(&ws(root), Some("no-such-rev")),
            Err(ChangedError::Git(..))
        ));
    }

    #[test]
    fn no_program_the_repository_configures_runs_and_the_changes_are_right() {
        use crate::testkit::hostile_git::{arm, git as g, have_git, ran};
        if !have_git() {
            eprintln!("skipped: no git on this machine");
            return;
        }
        let d = tempfile::tempdir().expect("dir");
        let root = &d.path().join("repo");
        let log = d.path().join("ran.log");
        write(root, "tests/a/b/c/one.test.ts", "1\n");
        write(root, "tests/a/b/c/two.test.ts", "2\n");
        write(
            root,
            "doc/test-plan/a.md",
            "# plan\n\n## two\n\nWhat: two\n",
        );
        write(root, "src/app.js", "x\n");
        write(root, "other.txt", "x\n");
        g(root, &["init", "-q"]);
        g(root, &["add", "."]);
        g(root, &["commit", "-q", "-m", "first"]);
        arm(root, &d.path().join("programs"), &log);
        // changed only in the work tree, through a file a filter would clean
        write(root, "tests/a/b/c/one.test.ts", "1 edited\n");
        let ws = Workspace::load(root).expect("ws");
        let c = changed(&ws, None).expect("changed");
        assert_eq!(c.tests, ["a/b/c/one"]);
        assert!(!c.sources);
        let prefix = git::prefix(root).expect("prefix");
        let dirty = git::dirty(root, &prefix, &["tests", "doc/test-plan"]).expect("dirty");
        assert_eq!(dirty, ["tests/a/b/c/one.test.ts"]);
        let times = git::commit_times(root, &prefix, &["tests", "doc/test-plan"]).expect("log");
        assert!(times.contains_key("tests/a/b/c/two.test.ts"));
        // a plan entry and a watched source, each through its filter
        write(
            root,
            "doc/test-plan/a.md",
            "# plan\n\n## two\n\nWhat: two, edited\n",
        );
        write(root, "src/app.js", "y\n");
        let c = changed(&Workspace::load(root).expect("ws"), None).expect("changed");
        assert!(c.files.contains(&"doc/test-plan/a.md".to_owned()), "{c:?}");
        assert!(c.files.contains(&"src/app.js".to_owned()), "{c:?}");
        assert_eq!(ran(&log), Vec::<String>::new(), "a repository program ran");
        // the same checkout does run them for a git that is not told otherwise
        let plain = |args: &[&str]| {
            std::process::Command::new("git")
                .current_dir(root)
                .args(args)
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .output()
                .expect("git")
        };
        plain(&["status"]);
        plain(&["diff", "HEAD"]);
        let got = ran(&log);
        for p in ["fsmonitor", "filter-clean", "ext-diff"] {
            assert!(
                got.iter().any(|g| g == p),
                "{p} not run by plain git: {got:?}"
            );
        }
    }

    #[test]
    fn not_a_checkout_says_so() {
        let d = tempfile::tempdir().expect("dir");
        write(d.path(), "tests/a/b/c/one.test.ts", "1\n");
        let ws = Workspace::load(d.path()).expect("ws");
        let e = changed(&ws, None).expect_err("no git");
        assert!(matches!(e, ChangedError::NotACheckout(..)), "{e}");
        assert!(e.to_string().contains("not a git checkout"));
    }
}
