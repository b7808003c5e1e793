//! A recording editor for the tests of `E`: an executable `vi` (so the cockpit
//! gives it `+LINE file`) that writes its arguments, one a line, then its working
//! folder, to a file, and exits.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The editor, in a temp folder of its own.
pub struct Recording {
    _dir: tempfile::TempDir,
    vi: String,
    out: PathBuf,
}

impl Recording {
    pub fn new() -> Recording {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = crate::common::fs::scratch_dir();
        let vi = dir.path().join("vi");
        std::fs::write(
            &vi,
            "#!/bin/sh\n{ printf '%s\\n' \"$@\"; pwd; } > \"$EDITOR_OUT.tmp\"\nmv \"$EDITOR_OUT.tmp\" \"$EDITOR_OUT\"\n",
        )
        .expect("write the editor");
        std::fs::set_permissions(&vi, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let out = dir.path().join("args");
        Recording {
            vi: vi.to_str().expect("utf-8").to_owned(),
            out,
            _dir: dir,
        }
    }

    /// The executable.
    pub fn path(&self) -> &Path {
        Path::new(&self.vi)
    }

    /// The environment that makes it the editor (`VISUAL` emptied, `EDITOR` it).
    pub fn env(&self) -> [(&str, &str); 3] {
        [
            ("VISUAL", ""),
            ("EDITOR", &self.vi),
            ("EDITOR_OUT", self.out.to_str().expect("utf-8")),
        ]
    }

    /// Where it writes.
    pub fn out(&self) -> &Path {
        &self.out
    }

    /// What it wrote, once it did; taken, so the next `E` writes anew.
    pub fn take(&self) -> String {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(40) {
            if let Ok(s) = std::fs::read_to_string(&self.out) {
                std::fs::remove_file(&self.out).expect("take the editor's file");
                return s;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the editor never wrote {}", self.out.display());
    }
}
