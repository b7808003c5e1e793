//! Which command opens an artifact, and whether the person has trusted the workspace's own openers.
//!
//! A workspace is not the person's: its `testdeck.toml` may name any command as
//! an opener. So `o` runs the built-in openers, or those of the person's own
//! `$XDG_CONFIG_HOME/testdeck/config.toml` (`[open]`, the same form as
//! `testdeck.toml`'s); an opener from the workspace's `testdeck.toml` runs only
//! after the person trusted that file once. The trust is remembered in the XDG
//! state folder by the file's path and content hash, with the exact commands,
//! so a changed file asks again.

use super::read::{self, Kind};
use std::path::{Path, PathBuf};

/// Which opener an artifact gets: the three keys of an `[open]` table (its slots).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenerKind {
    /// `trace`: the opener of Playwright traces.
    Trace,
    /// `html`: the opener of HTML reports.
    Html,
    /// `default`: the opener of every other artifact.
    Default,
}

impl OpenerKind {
    /// The slot for an artifact of `kind` at `path`.
    pub fn of(kind: &str, path: &str) -> OpenerKind {
        match kind {
            "trace" => OpenerKind::Trace,
            "playwright-report" => OpenerKind::Html,
            _ if Path::new(path)
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("html")) =>
            {
                OpenerKind::Html
            }
            _ => OpenerKind::Default,
        }
    }

    fn key(self) -> &'static str {
        match self {
            OpenerKind::Trace => "trace",
            OpenerKind::Html => "html",
            OpenerKind::Default => "default",
        }
    }
}

/// The built-in opener of a slot. `npx --no` never installs a package unseen.
pub fn builtin(slot: OpenerKind) -> Vec<String> {
    let argv: &[&str] = match slot {
        OpenerKind::Trace => &["npx", "--no", "playwright", "show-trace"],
        OpenerKind::Html | OpenerKind::Default => &["xdg-open"],
    };
    argv.iter().map(|s| (*s).to_owned()).collect()
}

/// The person's own testdeck folders: configuration (`config.toml`, with
/// `[open]`) and state (the remembered trust `trusted-openers.toml`, the
/// cancelled runs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserDirs {
    /// `$XDG_CONFIG_HOME/testdeck`: `config.toml` (none: not known).
    pub config_dir: Option<PathBuf>,
    /// `$XDG_STATE_HOME/testdeck`: the remembered trust and the cancelled runs.
    pub state_dir: Option<PathBuf>,
}

impl UserDirs {
    /// `$XDG_CONFIG_HOME/testdeck` (default `~/.config/testdeck`) and
    /// `$XDG_STATE_HOME/testdeck` (default `~/.local/state/testdeck`).
    pub fn from_env() -> UserDirs {
        let xdg = |var: &str, default: &str| {
            std::env::var_os(var)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(default)))
                .map(|d| d.join("testdeck"))
        };
        UserDirs {
            config_dir: xdg("XDG_CONFIG_HOME", ".config"),
            state_dir: xdg("XDG_STATE_HOME", ".local/state"),
        }
    }

    fn trust_file(&self) -> Option<PathBuf> {
        self.state_dir.as_ref().map(|d| d.join(TRUST_FILE))
    }
}

/// The file in the state folder that remembers trusted workspace openers.
pub(crate) const TRUST_FILE: &str = "trusted-openers.toml";

/// What `o` does for one artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Run this argv (the file is appended by the caller).
    Run(Vec<String>),
    /// The workspace's `testdeck.toml` names this opener and is not trusted:
    /// ask the person, showing the exact command; [`trust`] on yes.
    Ask {
        /// The opener's command.
        argv: Vec<String>,
        /// The `testdeck.toml` that names it.
        file: PathBuf,
    },
    /// An opener set to `[]`: nothing to run.
    Nothing,
}

/// The `[open]` slot of a TOML text, when it names one.
fn slot_of(table: &toml::Table, slot: OpenerKind) -> Option<Vec<String>> {
    let v = table.get("open")?.as_table()?.get(slot.key())?.as_array()?;
    v.iter().map(|x| x.as_str().map(str::to_owned)).collect()
}

fn read_table(path: &Path, within: Option<&Path>) -> Option<(Vec<u8>, toml::Table)> {
    let bytes = read::read(path, within, Kind::Config).ok()?;
    let text = std::str::from_utf8(&bytes).ok()?;
    let table = toml::from_str::<toml::Table>(text).ok()?;
    Some((bytes, table))
}

/// FNV-1a 64 of the file (to notice a change; the commands themselves are
/// compared exactly too, so a collision can never smuggle one in).
fn hash(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("fnv1a64:{h:016x}")
}

/// The remembered entry for a workspace file: its path, hash and the opener.
fn entry(file: &Path, bytes: &[u8], slot: OpenerKind, argv: &[String]) -> toml::Table {
    let mut t = toml::Table::new();
    t.insert("path".into(), file.to_string_lossy().into_owned().into());
    t.insert("hash".into(), hash(bytes).into());
    t.insert("slot".into(), slot.key().into());
    t.insert(
        "command".into(),
        toml::Value::Array(argv.iter().map(|s| s.clone().into()).collect()),
    );
    t
}

fn trusted_entries(dirs: &UserDirs) -> Vec<toml::Table> {
    let Some(file) = dirs.trust_file() else {
        return Vec::new();
    };
    read_table(&file, None)
        .and_then(|(_, t)| t.get("trusted")?.as_array().cloned())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|v| v.as_table().cloned())
        .collect()
}

/// The workspace's own `testdeck.toml`, as an absolute path.
fn workspace_file(root: &Path) -> PathBuf {
    let f = root.join("testdeck.toml");
    std::path::absolute(&f).unwrap_or(f)
}

/// Decide which opener runs for `slot` in the workspace at `root`.
pub fn decide(root: &Path, dirs: &UserDirs, slot: OpenerKind) -> Decision {
    let ws_file = workspace_file(root);
    if let Some((bytes, table)) = read_table(&ws_file, Some(root)) {
        if let Some(argv) = slot_of(&table, slot) {
            let want = entry(&ws_file, &bytes, slot, &argv);
            if trusted_entries(dirs).contains(&want) {
                return if argv.is_empty() {
                    Decision::Nothing
                } else {
                    Decision::Run(argv)
                };
            }
            if argv.is_empty() {
                // switching an opener off needs no trust
                return Decision::Nothing;
            }
            return Decision::Ask {
                argv,
                file: ws_file,
            };
        }
    }
    let own = dirs
        .config_dir
        .as_ref()
        .and_then(|d| read_table(&d.join("config.toml"), None))
        .and_then(|(_, t)| slot_of(&t, slot));
    match own {
        Some(argv) if argv.is_empty() => Decision::Nothing,
        Some(argv) => Decision::Run(argv),
        None => Decision::Run(builtin(slot)),
    }
}

/// Remember that the person trusts `argv` as the `slot` opener of the
/// workspace's `testdeck.toml` as it is now.
pub fn trust(
    root: &Path,
    dirs: &UserDirs,
    slot: OpenerKind,
    argv: &[String],
) -> std::io::Result<()> {
    let Some(file) = dirs.trust_file() else {
        return Err(std::io::Error::other(
            "no state folder (set XDG_STATE_HOME or HOME)",
        ));
    };
    let ws_file = workspace_file(root);
    let bytes = read::read(&ws_file, Some(root), Kind::Config)
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let new = entry(&ws_file, &bytes, slot, argv);
    // older trust of the same file and slot is replaced: only the newest holds
    let mut all: Vec<toml::Table> = trusted_entries(dirs)
        .into_iter()
        .filter(|t| t.get("path") != new.get("path") || t.get("slot") != new.get("slot"))
        .collect();
    all.push(new);
    let mut doc = toml::Table::new();
    doc.insert(
        "trusted".into(),
        toml::Value::Array(all.into_iter().map(toml::Value::Table).collect()),
    );
    let text = toml::to_string(&doc).map_err(std::io::Error::other)?;
    if let Some(dir) = file.parent() {
        // the person's own state folder: 0700, never another user's
        read::own_folder(dir)?;
    }
    read::write_atomic(&file, text.as_bytes())
}

/// How much of an opener's stderr is kept (its end: the last line is the one shown).
const STDERR_TAIL: usize = 4096;

/// How long a failed opener's stderr is still read after it exited (a child it
/// left behind may hold the pipe open; what the opener wrote is there already).
const STDERR_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Why an opener failed: the one-line message for the status line (its exit
/// status, where to choose another opener, the last stderr line that says
/// something) and every stderr line it wrote that was kept, escaped, for the
/// problems list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenerFailure {
    /// The status line's message.
    pub message: String,
    /// The opener's stderr, one escaped line each (its last 4 KiB).
    pub stderr: Vec<String>,
}

/// The last of `lines` that says something: it has a letter (a box's border
/// `╚═══╝` or a blank line does not), and it is not npm's closing pointer to
/// its own log ("A complete log of this run can be found in…"). Trimmed.
pub fn telling_line<'a>(lines: impl DoubleEndedIterator<Item = &'a str>) -> Option<&'a str> {
    lines.map(str::trim).rfind(|l| {
        l.chars().any(char::is_alphabetic)
            && !l.contains("A complete log of this run can be found in")
    })
}

/// Run an opener `argv` (the file already appended) in the workspace root, wait for
/// it and say why it failed: its exit status, its own last stderr line that says
/// something (escaped) and where the person chooses another opener, with its
/// whole kept stderr. `Ok` when it succeeded.
pub fn run(root: &Path, argv: &[String]) -> Result<(), OpenerFailure> {
    use std::io::Read as _;
    use std::sync::{Arc, Mutex};
    let bare = |message: String| OpenerFailure {
        message,
        stderr: Vec::new(),
    };
    let Some((prog, args)) = argv.split_first() else {
        return Err(bare("no opener configured ([open] is empty)".into()));
    };
    let shown = crate::sanitize::escape(prog).into_owned();
    // first, so a status line that cuts the message still says where to go
    let hint = "another opener: [open] in config.toml";
    let mut child = std::process::Command::new(prog)
        .args(args)
        .current_dir(root)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| bare(format!("{shown}: {e} ({hint})")))?;
    let tail = Arc::new(Mutex::new(Vec::<u8>::new()));
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    if let Some(mut err) = child.stderr.take() {
        let tail = tail.clone();
        std::thread::spawn(move || {
            let mut chunk = [0u8; 1024];
            while let Ok(n) = err.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                let Ok(mut t) = tail.lock() else { break };
                t.extend_from_slice(&chunk[..n]);
                let over = t.len().saturating_sub(STDERR_TAIL);
                t.drain(..over);
            }
            let _ = done_tx.send(());
        });
    }
    let status = child
        .wait()
        .map_err(|e| bare(format!("{shown}: {e} ({hint})")))?;
    if status.success() {
        return Ok(());
    }
    let _ = done_rx.recv_timeout(STDERR_GRACE);
    let bytes = tail.lock().map(|t| t.clone()).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    let last = telling_line(text.lines())
        .map(|l| {
            let l: String = l.chars().take(200).collect();
            format!(": {}", crate::sanitize::escape(&l))
        })
        .unwrap_or_default();
    Err(OpenerFailure {
        message: format!("{shown}: {status} ({hint}){last}"),
        stderr: text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| crate::sanitize::escape(l.trim_end()).into_owned())
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A temp folder holding the workspace `ws/` and the person's `config/` and `state/`.
    fn setup() -> (tempfile::TempDir, PathBuf, UserDirs) {
        let d = tempfile::tempdir().expect("dir");
        let root = d.path().join("ws");
        std::fs::create_dir(&root).expect("mkdir");
        let p = UserDirs {
            config_dir: Some(d.path().join("config")),
            state_dir: Some(d.path().join("state")),
        };
        (d, root, p)
    }

    #[test]
    fn builtins_never_install() {
        let (_d, root, p) = setup();
        assert_eq!(
            decide(&root, &p, OpenerKind::Trace),
            Decision::Run(vec![
                "npx".into(),
                "--no".into(),
                "playwright".into(),
                "show-trace".into()
            ])
        );
        assert_eq!(OpenerKind::of("other", "a/report.HTML"), OpenerKind::Html);
        assert_eq!(OpenerKind::of("trace", "t.zip"), OpenerKind::Trace);
    }

    #[test]
    fn the_persons_config_runs_without_asking() {
        let (d, root, p) = setup();
        std::fs::create_dir_all(d.path().join("config")).expect("mkdir");
        std::fs::write(
            d.path().join("config/config.toml"),
            "[open]\ndefault = [\"my-viewer\", \"--new\"]\n",
        )
        .expect("w");
        assert_eq!(
            decide(&root, &p, OpenerKind::Default),
            Decision::Run(vec!["my-viewer".into(), "--new".into()])
        );
        assert_eq!(
            decide(&root, &p, OpenerKind::Html),
            Decision::Run(builtin(OpenerKind::Html))
        );
    }

    #[test]
    fn a_workspace_opener_asks_until_trusted_and_again_when_the_file_changes() {
        let (_d, root, p) = setup();
        std::fs::write(
            root.join("testdeck.toml"),
            "[open]\ndefault = [\"touch\", \"x\"]\n",
        )
        .expect("w");
        let argv = vec!["touch".to_owned(), "x".to_owned()];
        let Decision::Ask { argv: asked, .. } = decide(&root, &p, OpenerKind::Default) else {
            panic!("must ask");
        };
        assert_eq!(asked, argv);
        // the other slots are not the workspace's: built-in, no question
        assert_eq!(
            decide(&root, &p, OpenerKind::Trace),
            Decision::Run(builtin(OpenerKind::Trace))
        );
        trust(&root, &p, OpenerKind::Default, &argv).expect("trust");
        assert_eq!(
            decide(&root, &p, OpenerKind::Default),
            Decision::Run(argv.clone())
        );
        // any change of the file asks again, even one that keeps the command
        std::fs::write(
            root.join("testdeck.toml"),
            "# edited\n[open]\ndefault = [\"touch\", \"x\"]\n",
        )
        .expect("w");
        assert!(matches!(
            decide(&root, &p, OpenerKind::Default),
            Decision::Ask { .. }
        ));
        // without a state folder nothing can be remembered
        let none = UserDirs::default();
        assert!(trust(&root, &none, OpenerKind::Default, &argv).is_err());
    }

    #[test]
    fn a_hash_collision_cannot_trust_another_command() {
        let (_d, root, p) = setup();
        let text = "[open]\ndefault = [\"touch\", \"x\"]\n";
        std::fs::write(root.join("testdeck.toml"), text).expect("w");
        // a remembered entry with the right path and hash but another command
        trust(&root, &p, OpenerKind::Default, &["other".to_owned()]).expect("trust");
        assert!(matches!(
            decide(&root, &p, OpenerKind::Default),
            Decision::Ask { .. }
        ));
    }

    #[test]
    fn a_failing_opener_runs_in_the_root_and_says_its_last_stderr_line() {
        let (_d, root, _) = setup();
        let argv: Vec<String> = [
            "sh",
            "-c",
            "pwd > where; echo 'first line' >&2; printf 'cannot open \\033[31m%s\\n\\n' \"$0\" >&2; exit 1",
            "a.png",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        let failure = run(&root, &argv).expect_err("it exits 1");
        assert_eq!(failure.stderr[0], "first line");
        assert_eq!(
            failure.message,
            "sh: exit status: 1 (another opener: [open] in config.toml): \
             cannot open \\e[31ma.png"
        );
        let here = std::fs::read_to_string(root.join("where")).expect("ran in the root");
        assert_eq!(
            std::fs::canonicalize(here.trim()).expect("c"),
            std::fs::canonicalize(&root).expect("c")
        );
        let ok: Vec<String> = ["sh", "-c", "exit 0"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        assert_eq!(run(&root, &ok), Ok(()));
        // a box's border after the cause is decoration: the cause is the line shown
        let boxed: Vec<String> = [
            "sh",
            "-c",
            "printf '╔═══╗\\n║ No browser found ║\\n╚═══╝\\n' >&2; exit 1",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        let failure = run(&root, &boxed).expect_err("it exits 1");
        assert!(
            failure.message.ends_with("║ No browser found ║"),
            "{}",
            failure.message
        );
        assert_eq!(failure.stderr.len(), 3);
        let missing = vec!["testdeck-no-such-opener".to_owned()];
        assert!(
            run(&root, &missing)
                .expect_err("no such program")
                .message
                .contains("[open]")
        );
    }
}
