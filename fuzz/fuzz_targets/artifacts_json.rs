//! Fuzz artifacts.json in a real run folder: types, and paths that try to leave it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;
use testdeck_core::workspace::logs;

fn run_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir()
            .join(format!("testdeck-fuzz-artifacts-{}", std::process::id()))
            .join("tests/logs/api/r1");
        std::fs::create_dir_all(d.join("artifacts")).expect("run folder");
        std::fs::write(d.join("artifacts/shot.png"), b"png").expect("artifact");
        d
    })
}

fuzz_target!(|data: &[u8]| {
    let dir = run_dir();
    let root = dir.ancestors().nth(3).expect("root");
    std::fs::write(dir.join("artifacts.json"), data).expect("write");
    let (items, problems) = logs::read_artifacts(root, dir);
    for a in &items {
        // an artifact that leaves the run folder is never reported as existing
        assert!(a.inside || !a.exists, "{a:?}");
        if let Some(f) = a.file(dir) {
            assert!(a.inside, "{a:?} gave a file {f:?}");
        }
    }
    for p in &problems {
        let _ = p.to_string();
    }
});
