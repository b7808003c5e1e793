//! Files the tests write: parents created, every failure a panic naming the step.

use std::path::Path;

/// Write `text` to `root/rel`, creating the parent folders.
pub fn write(root: &Path, rel: &str, text: &str) {
    write_file(&root.join(rel), text);
}

/// Write `text` to `path`, creating the parent folders.
pub fn write_file(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// The lines of the file at `path`, none when it is not there (yet).
pub fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Copy the tree `from` into `to` (created), files and folders only.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir") {
        let e = e.expect("entry");
        let dst = to.join(e.file_name());
        if e.file_type().expect("type").is_dir() {
            copy_dir(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), &dst).expect("copy");
        }
    }
}

/// A temporary copy of the demo workspace, written by the library as `testdeck demo` does.
pub fn demo_copy() -> tempfile::TempDir {
    let d = scratch_dir();
    testdeck_core::workspace::demo::write_demo(d.path()).expect("demo");
    d
}

/// A temporary folder on a memory file system where there is one (`/dev/shm`),
/// else in the usual temp folder: every test's folders are made here. Their
/// point is not the disk, and on ext4 making and deleting hundreds of thousands
/// of small files and folders (every test's workspace, config and state) spent
/// a third of the suite's CPU in the inode allocator (`find_inode_bit`,
/// `recently_deleted` in a profile); on a loaded disk its journal made the
/// heaviest tests minutes long.
pub fn scratch_dir() -> tempfile::TempDir {
    tempfile::tempdir_in("/dev/shm")
        .or_else(|_| tempfile::tempdir())
        .expect("tempdir")
}
