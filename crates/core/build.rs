//! Embeds the demo workspace: writes `demo_files.rs` into OUT_DIR, listing every
//! file under `assets/demo` with `include_bytes!`, so `testdeck demo` works from
//! any folder.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=../../assets/demo");
    let manifest =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let demo = manifest.join("../../assets/demo");
    let mut files = Vec::new();
    collect(&demo, &demo, &mut files);
    // a stable order keeps the generated file (and the binary) reproducible
    files.sort();
    let mut out = String::from(
        "/// Every file of `assets/demo`: (path relative to the demo root, bytes, executable).\n\
         pub static DEMO_FILES: &[(&str, &[u8], bool)] = &[\n",
    );
    for (rel, abs, exec) in &files {
        let _ = writeln!(out, "    ({rel:?}, include_bytes!({abs:?}), {exec}),");
    }
    out.push_str("];\n");
    let dest = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("demo_files.rs");
    std::fs::write(&dest, out).expect("write demo_files.rs");
}

/// (relative path with `/`, absolute path, executable bit) of every regular file.
fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, String, bool)>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for ent in rd.flatten() {
        let path = ent.path();
        let Ok(ft) = ent.file_type() else { continue };
        if ft.is_dir() {
            collect(root, &path, files);
        } else if ft.is_file() {
            let Ok(rel) = path.strip_prefix(root) else {
                continue;
            };
            let rel: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            let rel = rel.join("/");
            // scripts stay executable even where the checkout lost the mode bit
            let exec = is_executable(&path)
                || path
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("sh"));
            files.push((rel, path.to_string_lossy().into_owned(), exec));
        }
    }
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(_path: &Path) -> bool {
    false
}
