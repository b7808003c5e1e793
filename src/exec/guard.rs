//! The guardian: a tiny watchdog process that SIGKILLs every case's process group
//! still running when testdeck dies, even by SIGKILL (which no handler sees).
//!
//! At the first launch testdeck starts `sh` with a script (below) in its own process
//! group, its stdin the read end of a pipe whose write end only testdeck holds (std
//! opens it close-on-exec, so no case inherits it). testdeck never writes to the
//! pipe, so the guardian can never get it killed by SIGPIPE; instead it keeps the
//! process groups it has started, one a line, in a small file it replaces
//! atomically at each start and end. When testdeck exits for any reason the kernel
//! closes the pipe, `read` sees end of file, and the guardian kills each group
//! named in the file, removes the file and exits. A group is taken off the file as
//! soon as it is gone, so a reused group id is never signalled.

use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;

/// The guardian's script: `$1` is the file of process groups. It ignores the
/// terminal's signals (it has its own group anyway) so that only the end of
/// testdeck ends it.
const SCRIPT: &str = r#"trap '' INT TERM HUP QUIT PIPE
while read -r _; do :; done
if [ -f "$1" ]; then
  while read -r g; do
    case $g in ''|*[!0-9]*) ;; *) kill -9 -"$g" 2>/dev/null ;; esac
  done < "$1"
fi
rm -f "$1"
"#;

struct Guardian {
    /// Holds the write end of the pipe (its stdin) until testdeck exits:
    /// its closing is what wakes the guardian.
    _child: Child,
    file: PathBuf,
    groups: Vec<u32>,
}

static GUARDIAN: Mutex<Option<Guardian>> = Mutex::new(None);

/// Note that process group `pgid` was started: should testdeck die before
/// [`release`], the guardian kills it. Starts the guardian at the first call;
/// when it cannot be started (no `sh`, no temp folder) the groups are only
/// covered by the usual end-of-case cleanup.
pub fn watch(pgid: u32) {
    let Ok(mut g) = GUARDIAN.lock() else { return };
    if g.is_none() {
        *g = start();
    }
    if let Some(guardian) = g.as_mut() {
        guardian.groups.push(pgid);
        guardian.save();
    }
}

/// Note that process group `pgid` is gone (nothing of it is left to kill).
pub fn release(pgid: u32) {
    let Ok(mut g) = GUARDIAN.lock() else { return };
    if let Some(guardian) = g.as_mut() {
        guardian.groups.retain(|&p| p != pgid);
        guardian.save();
    }
}

fn start() -> Option<Guardian> {
    let file = std::env::temp_dir().join(format!(
        "testdeck-guard-{}-{:08x}",
        std::process::id(),
        fastrand::u32(..)
    ));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&file)
        .ok()?;
    let child = Command::new("sh")
        .arg("-c")
        .arg(SCRIPT)
        .arg("testdeck-guard")
        .arg(&file)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // out of the terminal's foreground group: a Ctrl-C meant for testdeck
        // must not reach it
        .process_group(0)
        .spawn();
    if let Ok(c) = child {
        Some(Guardian {
            _child: c,
            file,
            groups: Vec::new(),
        })
    } else {
        let _ = std::fs::remove_file(&file);
        None
    }
}

impl Guardian {
    fn save(&self) {
        let mut text = String::new();
        for g in &self.groups {
            text.push_str(&g.to_string());
            text.push('\n');
        }
        // write beside, then rename: the guardian never reads half a list. No
        // fsync: the list matters only while this machine is up.
        let tmp = self.file.with_extension("new");
        if std::fs::write(&tmp, text).is_ok() {
            let _ = std::fs::rename(&tmp, &self.file);
        }
    }
}
