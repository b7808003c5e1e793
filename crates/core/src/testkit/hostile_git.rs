//! A git checkout armed as an attacker would hand it over: every program its
//! `.git/config` (and a file it includes), its `.gitattributes` and its hooks
//! can name appends its own name to a log, so a test sees which ran.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The programs [`arm`] configures, by the name each writes to the log.
pub const PROGRAMS: [&str; 10] = [
    "fsmonitor",
    "ext-diff",
    "pager",
    "textconv",
    "filter-clean",
    "filter-smudge",
    "filter-process",
    "included-filter",
    "hook",
    "gpg",
];

/// `git ARGS` in `root` with no config but the repository's (the person's
/// global and the system's left out), as a test sets a checkout up.
pub fn git(root: &Path, args: &[&str]) {
    let ok = Command::new("git")
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

/// Whether a `git` binary is there (the tests that need one say they are skipped).
pub fn have_git() -> bool {
    Command::new("git").arg("--version").output().is_ok()
}

fn program(dir: &Path, log: &Path, name: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    let p = dir.join(format!("{name}.sh"));
    // a filter or pager passes its input through; the log is what the test reads
    std::fs::write(
        &p,
        format!(
            "#!/bin/sh\necho {name} >> '{}'\ncat 2>/dev/null\nexit 0\n",
            log.display()
        ),
    )
    .expect("program");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    p
}

/// Arm the checkout at `root` (already a repository): each of [`PROGRAMS`] is
/// configured, written in `programs` (outside the checkout) and appends its
/// name to `log` when run. `.gitattributes` sends `tests/**` through a clean
/// and smudge filter, `doc/**` through a process filter and a textconv driver,
/// `src/**` through a filter defined only in an included file.
pub fn arm(root: &Path, programs: &Path, log: &Path) {
    std::fs::create_dir_all(programs).expect("programs");
    let p = |n: &str| program(programs, log, n).display().to_string();
    let included = programs.join("included.gitconfig");
    std::fs::write(
        &included,
        format!(
            "[filter \"inc\"]\n\tclean = {}\n\trequired = true\n",
            p("included-filter")
        ),
    )
    .expect("included");
    let config = [
        ("core.fsmonitor", p("fsmonitor")),
        ("diff.external", p("ext-diff")),
        ("core.pager", p("pager")),
        ("pager.status", p("pager")),
        ("pager.diff", p("pager")),
        ("pager.log", p("pager")),
        ("diff.tc.textconv", p("textconv")),
        ("filter.cx.clean", p("filter-clean")),
        ("filter.cx.smudge", p("filter-smudge")),
        ("filter.px.process", p("filter-process")),
        ("gpg.program", p("gpg")),
        ("log.showSignature", "true".to_owned()),
        ("include.path", included.display().to_string()),
    ];
    for (k, v) in &config {
        git(root, &["config", k, v]);
    }
    std::fs::write(
        root.join(".gitattributes"),
        "tests/** filter=cx\ndoc/** filter=px diff=tc\nsrc/** filter=inc\n",
    )
    .expect("attributes");
    let hooks = root.join(".git/hooks");
    std::fs::create_dir_all(&hooks).expect("hooks");
    let hook = p("hook");
    for h in [
        "post-index-change",
        "post-checkout",
        "reference-transaction",
        "pre-auto-gc",
        "fsmonitor-watchman",
        "post-commit",
        "pre-commit",
    ] {
        let dest = hooks.join(h);
        std::fs::copy(&hook, &dest).expect("hook");
    }
}

/// What ran: the names in `log` (none when it is not there).
pub fn ran(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}
