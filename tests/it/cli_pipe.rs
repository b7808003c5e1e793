//! `testdeck CMD | head`: a reader that goes away early must never make a command panic.

use std::io::Read;
use std::process::{Command, Stdio};

/// A workspace whose outputs are far larger than a pipe's buffer (64 KiB), so the
/// writer is still writing when the reader hangs up.
fn big_workspace() -> tempfile::TempDir {
    let tmp = crate::common::fs::scratch_dir();
    let mut plan = String::from("# plan\n");
    for i in 0..3000 {
        let dir = tmp
            .path()
            .join(format!("tests/big/backend/suite-{}/basic", i % 30));
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join(format!("case-number-{i}.test.ts")), "test();\n").expect("write");
        plan += "## case-number-";
        plan += &i.to_string();
        plan += "\n";
    }
    std::fs::create_dir_all(tmp.path().join("doc/test-plan")).expect("mkdir");
    std::fs::write(tmp.path().join("doc/test-plan/big.md"), plan).expect("plan");
    tmp
}

#[test]
fn closed_pipe_is_not_a_panic() {
    let ws = big_workspace();
    for args in [
        vec!["list"],
        vec!["list", "--json"],
        vec!["validate"],
        vec!["stats"],
        vec!["stats", "--markdown"],
        vec!["runs"],
        vec!["select"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_testdeck"))
            .args(&args)
            .arg("--root")
            .arg(ws.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        // read one byte, then hang up, like `head -c1`
        let mut stdout = child.stdout.take().expect("stdout");
        let mut one = [0u8; 1];
        let _ = stdout.read(&mut one);
        drop(stdout);
        let out = child.wait_with_output().expect("wait");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(101), "{args:?} panicked: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}
