//! The cockpit — the release binary — in a pseudo-terminal that answers no
//! terminal query, as the person's terminal would run it: its screen kept by a
//! reader thread (vt100), hooks that see each screen when its bytes arrive (so a
//! figure is timed by the read, not by a poll), keys typed, and its own config,
//! state and cache folders (`XDG_*_HOME` under one folder).

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Sees each screen the reader thread has, with the time its bytes were read.
pub type Hook = Box<dyn FnMut(&vt100::Screen, Instant) + Send>;

/// How to start the cockpit.
pub struct Start {
    pub rows: u16,
    pub cols: u16,
    /// `TESTDECK_IMAGES`: `halfblocks` writes no graphics query, `auto` does.
    pub images: &'static str,
    /// The folder holding `config/`, `state/` and `cache/` (the `XDG_*_HOME`
    /// folders); `None`: a temporary one.
    pub home: Option<PathBuf>,
    pub hooks: Vec<Hook>,
}

impl Start {
    /// `rows` × `cols`, half blocks, a temporary home, no hook.
    pub fn new(rows: u16, cols: u16) -> Start {
        Start {
            rows,
            cols,
            images: "halfblocks",
            home: None,
            hooks: Vec::new(),
        }
    }

    pub fn images(mut self, images: &'static str) -> Start {
        self.images = images;
        self
    }

    pub fn home(mut self, home: &Path) -> Start {
        self.home = Some(home.to_path_buf());
        self
    }

    pub fn hook(mut self, hook: Hook) -> Start {
        self.hooks.push(hook);
        self
    }
}

/// The cockpit (or another program) running in its pty; dropping it kills it.
pub struct Cockpit {
    child: Box<dyn portable_pty::Child + Send + Sync>,
    pub screen: Arc<Mutex<vt100::Parser>>,
    writer: Box<dyn std::io::Write + Send>,
    _master: Box<dyn portable_pty::MasterPty + Send>,
    /// Just before the spawn.
    pub spawned: Instant,
    /// The temporary home (when none was given), deleted with it.
    home: Option<tempfile::TempDir>,
}

impl Cockpit {
    /// Start `exe` on the workspace `root`.
    pub fn open(exe: &Path, root: &Path, start: Start) -> Cockpit {
        let Start {
            rows,
            cols,
            images,
            home,
            hooks,
        } = start;
        let tmp = home.is_none().then(|| tempfile::tempdir().expect("home"));
        let home = home
            .or_else(|| tmp.as_ref().map(|t| t.path().to_path_buf()))
            .unwrap_or_default();
        let mut cmd = CommandBuilder::new(exe);
        cmd.arg("--root");
        cmd.arg(root);
        cmd.env("TERM", "xterm-256color");
        for (var, dir) in [
            ("XDG_CONFIG_HOME", "config"),
            ("XDG_STATE_HOME", "state"),
            ("XDG_CACHE_HOME", "cache"),
        ] {
            let d = home.join(dir);
            std::fs::create_dir_all(&d).expect("home");
            cmd.env(var, d);
        }
        cmd.env("TESTDECK_IMAGES", images);
        for v in ["TERM_PROGRAM", "LC_TERMINAL", "NO_COLOR"] {
            cmd.env_remove(v);
        }
        let mut c = Cockpit::program(cmd, (rows, cols), hooks);
        c.home = tmp;
        c
    }

    /// Any program `cmd` in the same kind of pty (`fzf` beside the finder),
    /// `hooks` seeing its screens.
    pub fn program(cmd: CommandBuilder, (rows, cols): (u16, u16), mut hooks: Vec<Hook>) -> Cockpit {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("pty");
        let screen = Arc::new(Mutex::new(vt100::Parser::new(rows, cols, 0)));
        let mut reader = pty.master.try_clone_reader().expect("reader");
        let spawned = Instant::now();
        let child = pty.slave.spawn_command(cmd).expect("spawn");
        drop(pty.slave);
        let s2 = screen.clone();
        std::thread::spawn(move || {
            let mut b = vec![0u8; 1 << 16];
            loop {
                let n = match std::io::Read::read(&mut reader, &mut b) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => n,
                };
                let now = Instant::now();
                if let Ok(mut p) = s2.lock() {
                    p.process(&b[..n]);
                    for h in &mut hooks {
                        h(p.screen(), now);
                    }
                }
            }
        });
        let writer = pty.master.take_writer().expect("writer");
        Cockpit {
            child,
            screen,
            writer,
            _master: pty.master,
            spawned,
            home: None,
        }
    }

    /// Type `s`, then leave the cockpit 100 ms to take it.
    pub fn send(&mut self, s: &str) {
        let _ = self.writer.write_all(s.as_bytes());
        let _ = self.writer.flush();
        std::thread::sleep(Duration::from_millis(100));
    }

    /// Type `s` at once, no pause after it.
    pub fn press(&mut self, s: &str) {
        let _ = self.writer.write_all(s.as_bytes());
        let _ = self.writer.flush();
    }

    /// The screen's text now.
    pub fn text(&self) -> String {
        self.screen
            .lock()
            .map(|p| p.screen().contents())
            .unwrap_or_default()
    }

    pub fn shows(&self, t: &str) -> bool {
        self.text().contains(t)
    }

    /// Wait until the screen shows `t` (`false`: not within `limit`).
    pub fn wait(&self, t: &str, limit: Duration) -> bool {
        let start = Instant::now();
        while !self.shows(t) {
            if start.elapsed() > limit {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        true
    }

    pub fn pid(&self) -> u32 {
        self.child.process_id().unwrap_or(0)
    }

    pub fn ended(&mut self) -> bool {
        self.child.try_wait().ok().flatten().is_some()
    }

    /// Type `keys` and wait up to `limit` for the cockpit to end; killed when
    /// it does not. Whether it ended by itself.
    pub fn quit(&mut self, keys: &[&str], limit: Duration) -> bool {
        for k in keys {
            self.send(k);
        }
        let start = Instant::now();
        while !self.ended() {
            if start.elapsed() > limit {
                let _ = self.child.kill();
                let _ = self.child.wait();
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        true
    }

    /// Wait until the process's CPU time grows by at most a tick in each
    /// quarter second for a second (its work done), at most `limit`.
    pub fn settle(&self, limit: Duration) {
        let pid = self.pid();
        let start = Instant::now();
        let (mut last, mut quiet) = (super::cpu_ticks(pid).unwrap_or(0), 0);
        while quiet < 4 && start.elapsed() < limit {
            std::thread::sleep(Duration::from_millis(250));
            let Some(now) = super::cpu_ticks(pid) else {
                return;
            };
            quiet = if now.saturating_sub(last) <= 1 {
                quiet + 1
            } else {
                0
            };
            last = now;
        }
    }
}

impl Drop for Cockpit {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The tree pane's title counts the cases (`Tests · N`): the tree is drawn.
pub fn tree_drawn(screen: &str) -> bool {
    screen.contains("Tests · ")
}

/// The runs the status line counts (`N cases · M runs`) once the history is
/// indexed (no `indexing` on it); `None` before, or while a notice takes the
/// counts' place.
pub fn history_count(screen: &str) -> Option<u64> {
    let status = screen.lines().rev().find(|l| !l.trim().is_empty())?;
    if status.contains("indexing") {
        return None;
    }
    let at = status
        .find("cases · ")
        .map(|i| i + "cases · ".len())
        .or_else(|| status.find("case · ").map(|i| i + "case · ".len()))?;
    let mut words = status[at..].split_whitespace();
    let n = words.next()?.replace(',', "").parse().ok()?;
    words.next()?.starts_with("run").then_some(n)
}

/// The first time a screen satisfies a predicate, as a hook records it.
#[derive(Clone, Default)]
pub struct FirstSeen(Arc<Mutex<Option<Instant>>>);

impl FirstSeen {
    /// The hook that records the first screen whose text satisfies `pred`.
    pub fn hook(&self, pred: impl Fn(&str) -> bool + Send + 'static) -> Hook {
        let at = self.0.clone();
        Box::new(move |screen: &vt100::Screen, now: Instant| {
            let Ok(mut at) = at.lock() else { return };
            if at.is_none() && pred(&screen.contents()) {
                *at = Some(now);
            }
        })
    }

    pub fn get(&self) -> Option<Instant> {
        self.0.lock().ok().and_then(|a| *a)
    }

    /// Wait up to `limit` for it.
    pub fn wait(&self, limit: Duration) -> Option<Instant> {
        let start = Instant::now();
        loop {
            if let Some(t) = self.get() {
                return Some(t);
            }
            if start.elapsed() > limit {
                return None;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// From the spawn of `exe` on `root` to its first frame (the tree pane's title
/// on the screen) in a `rows` × `cols` pty that answers no query, `n` times,
/// with `TESTDECK_IMAGES=images` (`auto`: the graphics query written;
/// `halfblocks`: none). Sorted; a start that never drew within 30 s is left out.
pub fn first_frame_bare(
    exe: &Path,
    root: &Path,
    images: &'static str,
    n: usize,
    (rows, cols): (u16, u16),
) -> Vec<Duration> {
    let mut times = Vec::new();
    for _ in 0..n {
        let seen = FirstSeen::default();
        let c = Cockpit::open(
            exe,
            root,
            Start::new(rows, cols)
                .images(images)
                .hook(seen.hook(|s| s.contains("Tests"))),
        );
        if let Some(t) = seen.wait(Duration::from_secs(30)) {
            times.push(t - c.spawned);
        }
    }
    times.sort();
    times
}

/// The time of the last bytes read from a pty, as a hook records it: a key's
/// answer is over when no byte followed for a while.
#[derive(Clone, Default)]
pub struct LastRead(Arc<Mutex<Option<Instant>>>);

impl LastRead {
    /// The hook that records each read.
    pub fn hook(&self) -> Hook {
        let at = self.0.clone();
        Box::new(move |_: &vt100::Screen, now: Instant| {
            if let Ok(mut at) = at.lock() {
                *at = Some(now);
            }
        })
    }

    /// From `sent` to the last bytes read before `quiet` without any, at most
    /// `limit` after `sent`; `None` when nothing was read after `sent`.
    pub fn answer(&self, sent: Instant, quiet: Duration, limit: Duration) -> Option<Duration> {
        loop {
            std::thread::sleep(Duration::from_millis(2));
            let last = self.0.lock().ok().and_then(|a| *a).filter(|l| *l > sent);
            match last {
                Some(l) if l.elapsed() >= quiet => return Some(l - sent),
                Some(l) if sent.elapsed() > limit => return Some(l - sent),
                None if sent.elapsed() > limit => return None,
                _ => {}
            }
        }
    }
}
