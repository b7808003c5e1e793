//! Helpers every integration test shares: the binary (`cli`), files (`fs`), the App
//! (`app`), run fixtures, and the binary in a real pty read back through vt100 (`Session`).
#![allow(dead_code)] // each test binary uses a part

pub mod adopt;
pub mod app;
pub mod cli;
pub mod editor;
pub mod fixtures;
pub mod fs;
pub mod procs;
pub mod realworld;

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The TUI fixture with `run` (a run folder of its `kb-search-empty`) in progress —
/// its timeline holding `line`, no meta.json — opened live through the finder
/// until `first` shows: the session, the run folder, and the temporary folders
/// that must outlive them.
pub fn open_in_progress(
    run: &str,
    line: &str,
    first: &str,
) -> (Session, std::path::PathBuf, [tempfile::TempDir; 2]) {
    let ws = crate::common::fs::scratch_dir();
    fixtures::write_fixture(ws.path(), false);
    let run = ws.path().join(run);
    std::fs::create_dir_all(&run).expect("mkdir");
    std::fs::write(run.join("timeline.jsonl"), line).expect("write");
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start(ws.path(), cfg.path());
    s.wait_text("Tests · 6");
    s.find("'kb-search-empty");
    s.wait_text(first);
    s.wait_text("● live");
    (s, run, [ws, cfg])
}

pub const ROWS: u16 = 32;
pub const COLS: u16 = 120;

/// The built binary in a real pseudo-terminal, its output kept as raw bytes.
pub struct Session {
    pub bytes: Arc<Mutex<Vec<u8>>>,
    writer: Box<dyn Write + Send>,
    pub child: Box<dyn portable_pty::Child + Send + Sync>,
    master: Box<dyn portable_pty::MasterPty + Send>,
}

impl Session {
    /// `testdeck --root ROOT` with its config folder, the default environment.
    pub fn start(root: &Path, config: &Path) -> Session {
        Session::start_with(root, config, &[])
    }

    /// The same, with extra environment variables (e.g. `DEMO_RUNNER_PACE`).
    pub fn start_with(root: &Path, config: &Path, env: &[(&str, &str)]) -> Session {
        let mut cmd = Session::command(root, config);
        // the startup graphics query gets no answer from this pty (its second of
        // waiting would read the first keys beside crossterm): half blocks unless a
        // test asks (tui_graphics_pty)
        cmd.env("TESTDECK_IMAGES", "halfblocks");
        for (k, v) in env {
            cmd.env(k, v);
        }
        Session::spawn(cmd, ROWS, COLS)
    }

    /// `testdeck --root ROOT` with its config folder, no HOST or NO_COLOR from the
    /// machine: to spawn at a size of the test's choosing.
    pub fn command(root: &Path, config: &Path) -> CommandBuilder {
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_testdeck"));
        cmd.arg("--root");
        cmd.arg(root);
        cmd.env("XDG_CONFIG_HOME", config);
        // the history cache beside the config, never the person's own
        cmd.env("XDG_CACHE_HOME", config.join("cache"));
        cmd.env_remove("HOST");
        cmd.env_remove("NO_COLOR");
        cmd
    }

    /// Any command in a real pseudo-terminal of `rows` × `cols`, its output kept.
    pub fn spawn(mut cmd: CommandBuilder, rows: u16, cols: u16) -> Session {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("openpty");
        cmd.env("TERM", "xterm-256color");
        let child = pty.slave.spawn_command(cmd).expect("spawn");
        keep_child(child.as_ref());
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
            master: pty.master,
        }
    }

    pub fn screen(&self) -> vt100::Parser {
        let mut p = vt100::Parser::new(ROWS, COLS, 0);
        p.process(&self.bytes.lock().expect("lock"));
        p
    }

    pub fn wait_for(&self, what: &str, f: impl Fn(&vt100::Screen) -> bool) {
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

    /// The terminal resized to `rows` × `cols` (the child gets SIGWINCH).
    pub fn resize(&mut self, rows: u16, cols: u16) {
        self.master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("resize");
    }

    /// The screen read back at `rows` × `cols` (a session spawned or resized to it).
    pub fn screen_sized(&self, rows: u16, cols: u16) -> vt100::Parser {
        let mut p = vt100::Parser::new(rows, cols, 0);
        p.process(&self.bytes.lock().expect("lock"));
        p
    }

    /// Wait, with the same generous deadline, for `f` on a `rows` × `cols` screen.
    pub fn wait_sized(&self, rows: u16, cols: u16, what: &str, f: impl Fn(&vt100::Screen) -> bool) {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(40) {
            if f(self.screen_sized(rows, cols).screen()) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!(
            "timed out waiting for {what}:\n{}",
            self.screen_sized(rows, cols).screen().contents()
        );
    }

    pub fn wait_text(&self, s: &str) {
        self.wait_for(s, |sc| sc.contents().contains(s));
    }

    pub fn send(&mut self, s: &str) {
        self.writer.write_all(s.as_bytes()).expect("write");
        self.writer.flush().expect("flush");
        // let the app read the keys one batch at a time, as a person types; a lone
        // Esc longer, since Esc and the next key read in one go are Alt+key (as in
        // any terminal) and a cockpit busy under a loaded test run reads late
        let pause = if s == "\x1b" { 250 } else { 60 };
        std::thread::sleep(Duration::from_millis(pause));
    }

    /// Find `query` with the finder (`/`, its overlay open, the query, its echo on screen, Enter).
    pub fn find(&mut self, query: &str) {
        self.send("/");
        self.wait_text("Find cases");
        self.send(query);
        self.wait_text(&format!("❯ {query}"));
        self.send("\r");
    }

    pub fn quit(mut self) -> (vt100::Parser, Vec<u8>) {
        self.send("q");
        let start = Instant::now();
        let mut sent = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                assert!(status.success(), "exit status {status:?}");
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(15),
                "did not quit:\n{}",
                self.screen().screen().contents()
            );
            // an Esc the test sent just before, read in one go with this `q` by a
            // busy cockpit, is Alt+q (as in any terminal): a person presses q again
            if sent.elapsed() > Duration::from_secs(3) {
                self.send("q");
                sent = Instant::now();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_millis(200));
        let p = self.screen();
        let b = self.bytes.lock().expect("lock").clone();
        (p, b)
    }
}

/// A pty child lives in a session of its own; the in-process launches of other
/// tests in this binary run the supervisor's sweep, which reaps the zombies of
/// other sessions it does not know: tell it this one is ours to wait for.
pub fn keep_child(child: &(dyn portable_pty::Child + Send + Sync)) {
    if let Some(pid) = child.process_id() {
        testdeck_exec::own_children::keep_own(pid);
    }
}

/// The row and column where `text` starts on the screen (columns counted in
/// characters), if it is there.
pub fn find_text(sc: &vt100::Screen, text: &str) -> Option<(u16, u16)> {
    let (rows, cols) = sc.size();
    for row in 0..rows {
        let line = sc.contents_between(row, 0, row, cols);
        if let Some(byte) = line.find(text) {
            let col = u16::try_from(line[..byte].chars().count()).ok()?;
            return Some((row, col));
        }
    }
    None
}
