//! End-to-end watch mode: the built binary in a real pseudo-terminal (portable-pty),
//! read back through vt100; a real edit of a watched test file reruns the case.

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const ROWS: u16 = 32;
const COLS: u16 = 120;

struct Session {
    bytes: Arc<Mutex<Vec<u8>>>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

impl Session {
    fn start(root: &Path, config: &Path) -> Session {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("openpty");
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_testdeck"));
        cmd.arg("--root");
        cmd.arg(root);
        cmd.env("TERM", "xterm-256color");
        cmd.env("XDG_CONFIG_HOME", config);
        cmd.env_remove("HOST");
        cmd.env_remove("NO_COLOR");
        // the demo runner writes its timeline quickly
        cmd.env("DEMO_RUNNER_PACE", "0.05");
        let child = pty.slave.spawn_command(cmd).expect("spawn");
        drop(pty.slave);
        let mut reader = pty.master.try_clone_reader().expect("reader");
        let writer = pty.master.take_writer().expect("writer");
        let bytes = Arc::new(Mutex::new(Vec::new()));
        let sink = bytes.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().expect("lock").extend_from_slice(&buf[..n]);
            }
        });
        Session {
            bytes,
            writer,
            child,
            _master: pty.master,
        }
    }

    fn screen(&self) -> vt100::Parser {
        let mut p = vt100::Parser::new(ROWS, COLS, 0);
        p.process(&self.bytes.lock().expect("lock"));
        p
    }

    fn wait_for(&self, what: &str, f: impl Fn(&vt100::Screen) -> bool) {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(40) {
            if f(self.screen().screen()) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!(
            "timed out waiting for {what}:\n{}",
            self.screen().screen().contents()
        );
    }

    fn wait_text(&self, s: &str) {
        self.wait_for(s, |sc| sc.contents().contains(s));
    }

    fn send(&mut self, s: &str) {
        self.writer.write_all(s.as_bytes()).expect("write");
        self.writer.flush().expect("flush");
        // let the app read the keys one batch at a time, as a person types
        std::thread::sleep(Duration::from_millis(60));
    }

    fn quit(mut self) -> (vt100::Parser, Vec<u8>) {
        self.send("q");
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                assert!(status.success(), "exit status {status:?}");
                break;
            }
            assert!(start.elapsed() < Duration::from_secs(10), "did not quit");
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_millis(200));
        let p = self.screen();
        let b = self.bytes.lock().expect("lock").clone();
        (p, b)
    }
}

#[test]
fn watch_a_case_edit_its_file_see_it_rerun() {
    let ws = tempfile::tempdir().expect("tmp");
    testdeck::cli::demo::write_demo(ws.path()).expect("demo");
    let cfg = tempfile::tempdir().expect("cfg");
    let mut s = Session::start(ws.path(), cfg.path());
    s.wait_text("Tests · 21");
    s.wait_text("70 runs");
    s.send("/");
    s.send("'terminal-basic-command");
    s.wait_text("❯ 'terminal-basic-command");
    s.send("\r");
    s.wait_text("5× 100.0%");
    // the live pane shows the demo's last run until the rerun replaces it
    let old_run = "Timeline 20261127-125208-524";
    s.wait_text(old_run);
    s.send("w");
    // a readonly case that is not live: no prompt; armed once its folders are watched
    s.wait_text("watching 1 cases: a change");
    assert!(!s.screen().screen().contents().contains("Run a live case?"));
    let file = ws
        .path()
        .join("tests/ai/backend/tools/terminal/basic/terminal-basic-command.test.ts");
    let mut text = std::fs::read_to_string(&file).expect("test file");
    text.push_str("// edited while watched\n");
    std::fs::write(&file, text).expect("edit");
    // the rerun streams into the live pane, then its run reaches the tree
    s.wait_text("end pass");
    s.wait_text("watch rerun done: 1 pass");
    s.wait_text("6× 100.0%");
    s.wait_text("history    ✓✓✓✓✓✓");
    assert!(!s.screen().screen().contents().contains(old_run));
    s.send("3");
    // the demo's 70 tests runs, its catalog run record and the rerun
    s.wait_text("Runs · 72/72");
    let (p, _) = s.quit();
    assert!(!p.screen().alternate_screen());
}
