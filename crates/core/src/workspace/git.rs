//! The `git` binary asked about the checkout holding a workspace: bounded in
//! output and time, in a process group of its own, optional (no git, no answer),
//! and a reader only. [`run`] is the one place git starts, and every call turns
//! off each program a repository (or an included file) can configure: the
//! fsmonitor hook, hooks, external diff and textconv drivers, every clean /
//! smudge / process filter by name, the pager, signature programs, submodule
//! recursion and lazy fetches of a partial clone; the system config is not read.
//! A repository owned by another user is refused as git refuses it (its
//! `safe.directory`, from the person's own config).

use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The most bytes of output read from one git command; the rest is dropped.
pub const MAX_OUTPUT: usize = 64 << 20;
/// How long one git command may take before it is killed.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// What a git command gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// Its stdout, at most [`MAX_OUTPUT`] bytes.
    pub stdout: Vec<u8>,
    /// The output was cut at [`MAX_OUTPUT`] or by [`TIMEOUT`].
    pub cut: bool,
}

/// Why git gave no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GitError {
    /// No `git` binary could be started.
    #[error("git could not be started: {0}")]
    NoGit(String),
    /// git ran and failed (not a checkout, an unknown revision …): its first stderr line.
    #[error("{0}")]
    Failed(String),
}

/// The settings given to every git call (`-c`, above every config file): each
/// program a repository's config could start is off. Filters are per name and
/// are added by [`filter_overrides`].
pub const READER_CONFIG: [&str; 13] = [
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "core.untrackedCache=false",
    "diff.ignoreSubmodules=all",
    "status.submoduleSummary=false",
    "submodule.recurse=false",
    "log.showSignature=false",
    "gpg.program=/dev/null",
    "gpg.ssh.program=/dev/null",
    "gpg.x509.program=/dev/null",
    "protocol.allow=never",
    "core.sshCommand=/dev/null",
];

/// The options added after each subcommand that has them: no external diff,
/// no textconv, no submodule recursion.
fn reader_options(sub: &str) -> &'static [&'static str] {
    match sub {
        "diff" => &["--no-ext-diff", "--no-textconv", "--ignore-submodules=all"],
        "log" | "show" => &["--no-ext-diff", "--no-textconv", "--no-show-signature"],
        "status" => &["--ignore-submodules=all"],
        _ => &[],
    }
}

/// A git command for `root` with no program of the repository's choosing: the
/// reader's settings, the environment that could name programs taken out.
fn command(root: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.arg("--no-pager")
        .arg("--no-optional-locks")
        .arg("--no-replace-objects");
    for c in READER_CONFIG {
        cmd.arg("-c").arg(c);
    }
    cmd.arg("-C").arg(root);
    for v in [
        "GIT_EXTERNAL_DIFF",
        "GIT_PAGER",
        "PAGER",
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_EDITOR",
        "GIT_CONFIG_SYSTEM",
    ] {
        cmd.env_remove(v);
    }
    // no prompt for credentials, no locale-dependent quoting, no system config,
    // no lazy fetch of a partial clone's missing objects
    cmd.env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_NO_LAZY_FETCH", "1")
        .env("GIT_PAGER", "cat")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        // its own process group: a Ctrl-C at the terminal is testdeck's to handle
        use std::os::unix::process::CommandExt as _;
        cmd.process_group(0);
    }
    cmd
}

/// The names of every filter driver any config git reads for `root` defines
/// (`filter.<name>.*`, included files too), from `git config`, which runs nothing.
fn filter_names(root: &Path) -> Vec<Vec<u8>> {
    let mut cmd = command(root);
    cmd.args(["config", "-z", "--name-only", "--get-regexp", r"^filter\."]);
    let Ok(out) = collect(cmd) else {
        return Vec::new();
    };
    let mut names: Vec<Vec<u8>> = out
        .stdout
        .split(|b| *b == 0)
        .filter_map(|key| {
            // `filter.<name>.<key>`: the name may hold dots, the key not
            let rest = key.strip_prefix(b"filter.")?;
            let dot = rest.iter().rposition(|b| *b == b'.')?;
            Some(rest[..dot].to_vec())
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Every filter driver of `names` turned off, as `GIT_CONFIG_KEY_<n>` /
/// `GIT_CONFIG_VALUE_<n>` pairs (a name may hold any byte, `=` too, which `-c`
/// could not carry): no clean, smudge or process program, and none required
/// (a required filter left without its program would make git fail).
fn filter_overrides(names: &[Vec<u8>]) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    use std::os::unix::ffi::OsStringExt as _;
    let mut env = Vec::new();
    let mut n = 0usize;
    for name in names {
        for (key, value) in [
            ("clean", ""),
            ("smudge", ""),
            ("process", ""),
            ("required", "false"),
        ] {
            let mut k = b"filter.".to_vec();
            k.extend_from_slice(name);
            k.push(b'.');
            k.extend_from_slice(key.as_bytes());
            env.push((
                format!("GIT_CONFIG_KEY_{n}").into(),
                std::ffi::OsString::from_vec(k),
            ));
            env.push((format!("GIT_CONFIG_VALUE_{n}").into(), value.into()));
            n += 1;
        }
    }
    env.push(("GIT_CONFIG_COUNT".into(), n.to_string().into()));
    env
}

/// Run `git -C root ARGS…` with no input, its output bounded, as a reader only
/// (see the module's text): the one place testdeck starts git.
pub fn run(root: &Path, args: &[&str]) -> Result<Output, GitError> {
    let mut cmd = command(root);
    if let Some((sub, rest)) = args.split_first() {
        cmd.arg(sub).args(reader_options(sub)).args(rest);
        // a subcommand that may read the work tree's files could clean them
        if matches!(*sub, "status" | "diff" | "ls-files" | "log") {
            cmd.envs(filter_overrides(&filter_names(root)));
        } else {
            cmd.env("GIT_CONFIG_COUNT", "0");
        }
    }
    collect(cmd)
}

/// Start `cmd` and read its output, bounded in bytes and time.
fn collect(mut cmd: Command) -> Result<Output, GitError> {
    let mut child = cmd.spawn().map_err(|e| GitError::NoGit(e.to_string()))?;
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let mut cut = false;
        if let Some(out) = stdout {
            let cap = MAX_OUTPUT as u64;
            let mut limited = out.take(cap + 1);
            let _ = limited.read_to_end(&mut buf);
            if buf.len() > MAX_OUTPUT {
                buf.truncate(MAX_OUTPUT);
                cut = true;
            }
        }
        let _ = tx.send((buf, cut));
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(err) = stderr {
            let _ = err.take(64 << 10).read_to_end(&mut buf);
        }
        buf
    });
    let (stdout, mut cut) = match rx.recv_timeout(TIMEOUT) {
        Ok(got) => got,
        Err(_) => (Vec::new(), true),
    };
    if cut {
        // too much or too long: what was read stands, the rest is not waited for
        let _ = child.kill();
    }
    let status = child.wait().map_err(|e| GitError::NoGit(e.to_string()))?;
    let err = err_reader.join().unwrap_or_default();
    if !status.success() && !cut {
        let first = String::from_utf8_lossy(&err)
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("git failed")
            .trim()
            .to_owned();
        return Err(GitError::Failed(first));
    }
    cut |= !status.success();
    Ok(Output { stdout, cut })
}

/// The folder of `root` inside its checkout (`a/b/`, empty at the top), or why
/// it is not in one.
pub fn prefix(root: &Path) -> Result<String, GitError> {
    let out = run(root, &["rev-parse", "--show-prefix"])?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// `path` (relative to the checkout's top) relative to the workspace whose
/// folder in the checkout is `prefix`; `None` outside it.
pub fn under_prefix<'a>(prefix: &str, path: &'a str) -> Option<&'a str> {
    path.strip_prefix(prefix)
}

/// Split NUL-separated output into its names (lossy UTF-8, empty ones dropped).
pub fn nul_fields(bytes: &[u8]) -> impl Iterator<Item = String> + '_ {
    bytes
        .split(|b| *b == 0)
        .filter(|f| !f.is_empty())
        .map(|f| String::from_utf8_lossy(f).into_owned())
}

/// Pathspecs that leave out testdeck's and the runner's own writes (run
/// folders are many, and never a change of a case).
pub const NOT_OWN_WRITES: [&str; 2] = [":(exclude)tests/logs", ":(exclude).pouch/tester/runs"];

/// The files under `pathspecs` that differ from the index or `HEAD`, or are
/// untracked (`git status --porcelain -z`), relative to the workspace root.
pub fn dirty(root: &Path, prefix: &str, pathspecs: &[&str]) -> Result<Vec<String>, GitError> {
    let mut args = vec!["status", "--porcelain", "-z", "--untracked-files=all", "--"];
    args.extend_from_slice(pathspecs);
    args.extend_from_slice(&NOT_OWN_WRITES);
    let out = run(root, &args)?;
    let mut files = Vec::new();
    let mut fields = out.stdout.split(|b| *b == 0).filter(|f| !f.is_empty());
    while let Some(f) = fields.next() {
        // `XY path`; a rename or copy is followed by its old path
        let (code, path) = (f.get(..2).unwrap_or(b""), f.get(3..).unwrap_or(b""));
        let path = String::from_utf8_lossy(path).into_owned();
        if let Some(p) = under_prefix(prefix, &path) {
            files.push(p.to_owned());
        }
        if code.contains(&b'R') || code.contains(&b'C') {
            if let Some(old) = fields.next() {
                let old = String::from_utf8_lossy(old).into_owned();
                if let Some(p) = under_prefix(prefix, &old) {
                    files.push(p.to_owned());
                }
            }
        }
    }
    Ok(files)
}

/// The files that differ between `rev` and the working tree (tracked ones:
/// `git diff --name-only -z REV`), relative to the workspace root.
pub fn changed_since(root: &Path, prefix: &str, rev: &str) -> Result<Vec<String>, GitError> {
    // `--end-of-options`: a revision that starts with `-` is never an option
    let out = run(
        root,
        &[
            "diff",
            "--name-only",
            "-z",
            "--no-renames",
            "--end-of-options",
            rev,
            "--",
            ".",
        ],
    )?;
    Ok(nul_fields(&out.stdout)
        .filter_map(|p| under_prefix(prefix, &p).map(str::to_owned))
        .collect())
}

/// The time of the newest commit that touched each file under `pathspecs`
/// (relative to the workspace root), newest history first, read in one pass.
pub fn commit_times(
    root: &Path,
    prefix: &str,
    pathspecs: &[&str],
) -> Result<std::collections::HashMap<String, i64>, GitError> {
    let mut args = vec![
        "log",
        "--no-renames",
        "--name-only",
        "-z",
        "--format=%x01%ct",
        "--",
    ];
    args.extend_from_slice(pathspecs);
    let out = run(root, &args)?;
    let mut times = std::collections::HashMap::new();
    let mut current: Option<i64> = None;
    for field in out.stdout.split(|b| *b == 0) {
        // a commit's line `\x01<time>\n` comes before its first name
        let mut field = field;
        if let Some(rest) = field.strip_prefix(b"\n") {
            field = rest;
        }
        if let Some(rest) = field.strip_prefix(&[1u8][..]) {
            let (t, names) = match rest.iter().position(|b| *b == b'\n') {
                Some(i) => (&rest[..i], &rest[i + 1..]),
                None => (rest, &b""[..]),
            };
            current = std::str::from_utf8(t)
                .ok()
                .and_then(|t| t.trim().parse().ok());
            field = names;
            if let Some(rest) = field.strip_prefix(b"\n") {
                field = rest;
            }
        }
        if field.is_empty() {
            continue;
        }
        let (Some(t), Ok(name)) = (current, std::str::from_utf8(field)) else {
            continue;
        };
        if let Some(p) = under_prefix(prefix, name) {
            times.entry(p.to_owned()).or_insert(t);
        }
    }
    Ok(times)
}

/// The untracked files that are not ignored (`git ls-files --others
/// --exclude-standard`), relative to the workspace root.
pub fn untracked(root: &Path, prefix: &str) -> Result<Vec<String>, GitError> {
    let out = run(
        root,
        &[
            "ls-files",
            "--others",
            "--exclude-standard",
            "--full-name",
            "-z",
            "--",
            ".",
            NOT_OWN_WRITES[0],
            NOT_OWN_WRITES[1],
        ],
    )?;
    Ok(nul_fields(&out.stdout)
        .filter_map(|p| under_prefix(prefix, &p).map(str::to_owned))
        .collect())
}

/// One path git's ignore rules hide, and the rule that does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignored {
    /// The ignore file holding the rule, as git names it.
    pub source: String,
    /// The rule's line in it (1-based).
    pub line: u32,
    /// The rule as written.
    pub pattern: String,
    /// The path asked about, as it was given.
    pub path: String,
}

/// Which of `paths` (relative to the workspace root; a folder ends with `/`)
/// git's ignore rules hide, whether tracked or not (`git check-ignore -v
/// --no-index`), each with the rule that hides it. None where git is not
/// there or the workspace is no checkout.
pub fn ignored(root: &Path, paths: &[&str]) -> Vec<Ignored> {
    if paths.is_empty() {
        return Vec::new();
    }
    let mut args = vec!["check-ignore", "-v", "--no-index", "--"];
    args.extend_from_slice(paths);
    // exit 1: none is ignored (git says nothing then)
    let Ok(out) = run(root, &args) else {
        return Vec::new();
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            // `<source>:<line>:<pattern>\t<path>`
            let (rule, path) = l.split_once('\t')?;
            let (source, rest) = rule.split_once(':')?;
            let (line, pattern) = rest.split_once(':')?;
            Some(Ignored {
                source: source.to_owned(),
                line: line.parse().ok()?,
                pattern: pattern.to_owned(),
                path: path.to_owned(),
            })
        })
        .collect()
}
