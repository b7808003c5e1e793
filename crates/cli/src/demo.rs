//! `testdeck demo`: copies the embedded demo workspace to a fresh folder (which `main`
//! then opens in the cockpit).

use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use testdeck_core::workspace::demo::write_demo;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Copy the demo workspace into DIR (missing or empty), print DIR and exit.
    #[arg(long, value_name = "DIR")]
    pub(crate) copy_to: Option<PathBuf>,
    /// Copy to a fresh temporary folder, print its path and exit (no TUI).
    #[arg(long)]
    pub(crate) path_only: bool,
    #[command(flatten)]
    pub(crate) look: super::Look,
}

/// Copy the demo; `Ok(dir)` when the cockpit is to be opened on the copy.
pub fn run(args: &Args) -> Result<PathBuf, ExitCode> {
    let dir = if let Some(dir) = &args.copy_to {
        if let Err(e) = prepare_dir(dir) {
            return Err(super::usage(&format!("demo: {}: {e}", dir.display())));
        }
        dir.clone()
    } else {
        match fresh_temp_dir() {
            Ok(d) => d,
            Err(e) => return Err(super::usage(&format!("demo: temporary folder: {e}"))),
        }
    };
    if let Err(e) = write_demo(&dir) {
        return Err(super::usage(&format!(
            "demo: writing {}: {e}",
            dir.display()
        )));
    }
    if args.copy_to.is_some() || args.path_only {
        let shown = testdeck_core::sanitize::escape(&dir.display().to_string()).into_owned();
        crate::outln!("{shown}");
        return Err(ExitCode::SUCCESS);
    }
    Ok(dir)
}

/// A `--copy-to` target must be missing or empty: never mix the demo into other files.
fn prepare_dir(dir: &Path) -> io::Result<()> {
    match std::fs::read_dir(dir) {
        Ok(mut rd) => {
            if rd.next().is_some() {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    "folder is not empty",
                ));
            }
            Ok(())
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => std::fs::create_dir_all(dir),
        Err(e) => Err(e),
    }
}

/// A new folder under the system's temporary folder, never one that existed.
fn fresh_temp_dir() -> io::Result<PathBuf> {
    let base = std::env::temp_dir();
    let mut last = None;
    for _ in 0..16 {
        let name = format!(
            "testdeck-demo-{}-{:06x}",
            std::process::id(),
            fastrand::u32(..0x0100_0000)
        );
        let dir = base.join(name);
        // create_dir (not _all) fails when the folder exists: no reuse of a stranger's folder
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free name")))
}
