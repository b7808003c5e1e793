//! The demo workspace embedded in the binary (`assets/demo`, listed by `build.rs`) and
//! writing it to a folder: what `testdeck demo` copies and the tests start from.

use std::io;
use std::path::Path;

include!(concat!(env!("OUT_DIR"), "/demo_files.rs"));

/// When the demo's own files (all but its run logs) say they last changed: before
/// its oldest run (2026-10-26), so a fresh copy shows no result as stale that is
/// not (a copy's files would otherwise all be newer than every run).
const FILES_CHANGED: u64 = 1_790_000_000; // 2026-09-21T14:13:20Z

/// Write every embedded demo file under `dir` (created when missing), keeping the
/// runner script executable and dating the files that are no run logs before the
/// oldest run. Returns the number of files written.
pub fn write_demo(dir: &Path) -> io::Result<usize> {
    for (rel, bytes, exec) in DEMO_FILES {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, bytes)?;
        if *exec {
            set_executable(&path)?;
        }
        if !rel.starts_with("tests/logs/") {
            let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(FILES_CHANGED);
            std::fs::File::options()
                .write(true)
                .open(&path)?
                .set_modified(when)?;
        }
    }
    Ok(DEMO_FILES.len())
}

#[cfg(unix)]
fn set_executable(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mut perm = std::fs::metadata(path)?.permissions();
    perm.set_mode(perm.mode() | 0o755);
    std::fs::set_permissions(path, perm)
}

#[cfg(not(unix))]
fn set_executable(_path: &Path) -> io::Result<()> {
    Ok(())
}
