//! The cockpit's `App` in a test: loaded on a root, driven synchronously, drawn in a `TestBackend`.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use testdeck_core::tail::live_run::load_run;
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::changes::{Change, Reader};
use testdeck_tui::action::{Action, Command};
use testdeck_tui::app::{App, Effect, Measured, Options};
use testdeck_tui::feature_work::FeatureWork;
use testdeck_tui::keymap::Keymap;
use testdeck_tui::runtime::{read_records, run_now};
use testdeck_tui::theme::Theme;

/// Which background jobs `settle` runs itself (each test file chooses: a job's answer
/// changes what is drawn, e.g. the contract badges, so a file whose snapshots leave
/// them out must not run them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Jobs {
    None,
    /// Only the compare view's job.
    Compare,
    /// Every job that ends by itself (all but the watch).
    Finite,
}

/// What `settle` does itself, as the runtime would; every other effect is handed back.
#[derive(Clone, Copy, Debug)]
pub struct Runs {
    /// Read the run folders asked for (`Effect::LoadRun`, and the details'
    /// `meta.json`: `FeatureWork::RunMeta`).
    pub folders: bool,
    pub jobs: Jobs,
    /// Read again what the model asks for: the whole workspace and the records
    /// (`Effect::Reload`), run folders a launch wrote (`Effect::ReadRuns`), the
    /// records alone (`Effect::ReadRecords`).
    pub reload: bool,
}

impl Runs {
    /// Nothing: every effect handed back.
    pub const NOTHING: Runs = Runs {
        folders: false,
        jobs: Jobs::None,
        reload: false,
    };
    /// The run folders only.
    pub const FOLDERS: Runs = Runs {
        folders: true,
        ..Runs::NOTHING
    };
    /// The run folders and the compare job.
    pub const COMPARE: Runs = Runs {
        jobs: Jobs::Compare,
        ..Runs::FOLDERS
    };
    /// The run folders and every job that ends by itself.
    pub const JOBS: Runs = Runs {
        jobs: Jobs::Finite,
        ..Runs::FOLDERS
    };
    /// The run folders and what the model reads again (reloads, a launch's runs and records).
    pub const RELOADS: Runs = Runs {
        reload: true,
        ..Runs::FOLDERS
    };
}

/// The options `testdeck --root ROOT` gives the App in a test: HOST 127.0.0.1 and
/// never the process environment (the machine's HOST must not leak in).
pub fn options(root: &Path, label: &str) -> Options {
    Options {
        label: label.into(),
        root: root.to_path_buf(),
        host: "127.0.0.1".into(),
        use_env: false,
    }
}

/// An `App` on the default keymap with the root its effects are run against; it
/// derefs to the `App`, whose state a test reads through its methods.
pub struct Deck {
    pub app: App,
    pub root: PathBuf,
    runs: Runs,
}

impl Deref for Deck {
    type Target = App;
    fn deref(&self) -> &App {
        &self.app
    }
}

impl DerefMut for Deck {
    fn deref_mut(&mut self) -> &mut App {
        &mut self.app
    }
}

impl Deck {
    /// `App::new` with `opts`, nothing loaded yet.
    pub fn new(opts: Options, runs: Runs) -> Deck {
        let root = opts.root.clone();
        let app = App::new(opts, Keymap::builtin("default").expect("default keymap"));
        Deck { app, root, runs }
    }

    /// The terminal resized to `w`×`h`.
    pub fn sized(mut self, w: u16, h: u16) -> Deck {
        self.app.update(Action::Resize(w, h));
        self
    }

    /// The workspace indexed and handed to the App, its effects settled.
    pub fn loaded(mut self) -> Deck {
        let ws = Workspace::load(&self.root).expect("load");
        let fx = self.app.update(Action::Loaded(Box::new(ws)));
        self.settle(fx);
        self
    }

    /// The catalog's run records read and handed to the App, their effects settled.
    pub fn with_records(mut self) -> Deck {
        let fx = self.app.update(Action::Records(read_records(&self.root)));
        self.settle(fx);
        self
    }

    /// Run `fx` as the runtime does, synchronously, as far as `Runs` says (and what
    /// they lead to); returns the effects left.
    pub fn settle(&mut self, fx: Vec<Effect>) -> Vec<Effect> {
        let mut left = Vec::new();
        for e in fx {
            let more = match e {
                Effect::LoadRun(p) if self.runs.folders => {
                    let data = load_run(&self.root, &p);
                    self.app.update(Action::RunLoaded(Box::new(data)))
                }
                Effect::Work(job) if self.runs_job(&job) => match run_now(job, &self.root) {
                    Some(d) => self.app.update(Action::WorkDone(Box::new(d))),
                    None => Vec::new(),
                },
                Effect::Reload if self.runs.reload => {
                    // the index's effects run before the records are read, as they
                    // arrive in that order from the runtime
                    let ws = Workspace::load(&self.root).expect("reload");
                    let more = self.app.update(Action::Loaded(Box::new(ws)));
                    left.extend(self.settle(more));
                    self.app.update(Action::Records(read_records(&self.root)))
                }
                Effect::ReadRuns(runs) if self.runs.reload => {
                    // as the runtime reads them: the workspace's settings as they are now
                    let config = self.app.domain().ws().expect("loaded").config.clone();
                    let changes = runs.into_iter().map(Change::Logs).collect();
                    let updates = Reader::new(&self.root, &config).read(&changes);
                    self.app.update(Action::Changed(updates))
                }
                Effect::ReadRecords if self.runs.reload => {
                    self.app.update(Action::Records(read_records(&self.root)))
                }
                other => {
                    left.push(other);
                    continue;
                }
            };
            left.extend(self.settle(more));
        }
        left
    }

    fn runs_job(&self, job: &FeatureWork) -> bool {
        if matches!(job, FeatureWork::RunMeta(_)) {
            return self.runs.folders;
        }
        match self.runs.jobs {
            Jobs::None => false,
            Jobs::Compare => matches!(job, FeatureWork::Compare { .. }),
            Jobs::Finite => !matches!(job, FeatureWork::Watch(..)),
        }
    }

    /// One key with modifiers, its effects settled; returns the effects left.
    pub fn key_with(&mut self, code: KeyCode, m: KeyModifiers) -> Vec<Effect> {
        let fx = self.app.on_key(KeyEvent::new(code, m));
        self.settle(fx)
    }

    /// One key, no modifier, its effects settled; returns the effects left.
    pub fn key(&mut self, code: KeyCode) -> Vec<Effect> {
        self.key_with(code, KeyModifiers::NONE)
    }

    /// Each character typed as a key; returns the effects all of them left.
    pub fn keys(&mut self, ks: &str) -> Vec<Effect> {
        let mut left = Vec::new();
        for c in ks.chars() {
            left.extend(self.key(KeyCode::Char(c)));
        }
        left
    }

    /// The failure digest of the selection's failed run read and handed to the
    /// App, as the runtime does with the job it asked for (the details' summary
    /// and `W` show it).
    pub fn with_digest(&mut self) {
        if let Some(run) = self.app.shared().failed_run().map(str::to_owned) {
            if let Some(d) = run_now(FeatureWork::Digest { run }, &self.root) {
                let fx = self.app.update(Action::WorkDone(Box::new(d)));
                self.settle(fx);
            }
        }
    }

    /// A command as the keymap would send it, its effects settled.
    pub fn cmd(&mut self, c: Command) -> Vec<Effect> {
        let fx = self.app.update(Action::Cmd(c));
        self.settle(fx)
    }

    /// The keys on pane `p`, moved there as a person does (Tab, pane after pane).
    pub fn focus_on(&mut self, p: testdeck_tui::app::Pane) {
        for _ in 0..testdeck_tui::app::PANES.len() {
            if self.app.focus() == p {
                return;
            }
            self.cmd(Command::NextPane);
        }
        assert_eq!(self.app.focus(), p, "pane {p:?} is not shown");
    }

    /// The tree's cursor on node `key`, and what selecting it loads.
    pub fn jump(&mut self, key: &str) {
        assert!(self.app.jump_to(key), "no node {key}");
        self.cmd(Command::Noop);
    }
}

/// The built-in dark theme, the one the snapshots are drawn in.
pub fn dark() -> Theme {
    Theme::builtin("dark", false).expect("dark")
}

/// One frame of `app` in `theme`, drawn into a `TestBackend` of the App's size.
pub fn render(app: &App, theme: &Theme) -> Terminal<TestBackend> {
    render_measured(app, theme).0
}

/// [`render`], and what the frame measured (as the loop hands it to `fit_scroll`).
pub fn render_measured(app: &App, theme: &Theme) -> (Terminal<TestBackend>, Measured) {
    // drawn in UTC whatever zone the machine is in (the snapshots show times)
    testdeck_core::clock::set_zone(testdeck_core::clock::Zone::Utc);
    let mut t = Terminal::new(TestBackend::new(app.size().0, app.size().1)).expect("terminal");
    let mut m = Measured::default();
    t.draw(|f| m = testdeck_tui::view::draw(&app.snapshot(), theme, f))
        .expect("draw");
    (t, m)
}

/// One frame of `app` in the dark theme.
pub fn draw(app: &App) -> Terminal<TestBackend> {
    render(app, &dark())
}

/// The frame's text, rows joined as `TestBackend` shows them.
pub fn text(t: &Terminal<TestBackend>) -> String {
    t.backend().to_string()
}

/// The frame's rows, one string each.
pub fn rows(t: &Terminal<TestBackend>) -> Vec<String> {
    let b = t.backend().buffer();
    (0..b.area.height)
        .map(|y| {
            (0..b.area.width)
                .map(|x| b[(x, y)].symbol().to_owned())
                .collect()
        })
        .collect()
}
