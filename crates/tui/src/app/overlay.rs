//! Overlays over the panes — help, the finder, a data or problems view, the prompts —
//! and how their keys scroll them.

use super::super::action::Command;
use super::finder::{Candidate, Finder};
use super::input::Edit;
use testdeck_core::sanitize::escape;

#[derive(Debug, Clone)]
pub enum Prompt {
    /// Quit while runs are live.
    QuitLive,
    /// An authorization question before a launch.
    Authorize(Box<super::prompt::Asking>),
    /// A person's verdict for a case no process can judge.
    Judge(Box<super::prompt::Judging>),
    /// What a launch of several cases will do, before it starts.
    Preview(Box<super::prompt::Preview>),
    /// Trust the workspace's own opener (shown exactly) before it runs.
    TrustOpener(Box<TrustOpener>),
}

/// The question before a workspace opener runs for the first time.
#[derive(Debug, Clone)]
pub struct TrustOpener {
    pub slot: testdeck_core::workspace::openers::OpenerKind,
    /// The opener as `testdeck.toml` names it.
    pub argv: Vec<String>,
    /// The workspace file that names it.
    pub file: std::path::PathBuf,
    /// The artifact to open (absolute) and as shown (run-relative).
    pub target: String,
    pub shown: String,
    /// The first row of the question shown (it scrolls when it does not fit).
    pub scroll: usize,
}

#[derive(Debug, Clone)]
pub enum Overlay {
    Help {
        scroll: usize,
    },
    Finder(Finder),
    /// Pretty-printed event data.
    Data {
        title: String,
        lines: Vec<String>,
        scroll: usize,
    },
    Prompt(Prompt),
}

/// What a text input line edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputTarget {
    RunsFilter,
    EventsFilter,
    /// The caseId of the case `a` adds.
    NewCase,
}

/// The overlay stack over the panes: a full screen (compare, report, screenshot),
/// an overlay over it (help, finder, data, a prompt), and the filter line being
/// edited. The topmost takes the keys; drawing goes bottom to top.
#[derive(Debug, Default)]
pub struct Layers {
    overlay: Option<Overlay>,
    screen: Option<super::screen::Screen>,
    /// The screen a screen opened from it covers (the failure view under its
    /// screenshot): back when it closes.
    under: Option<super::screen::Screen>,
    input: Option<InputTarget>,
}

impl Layers {
    /// The overlay on top, if any.
    pub fn overlay(&self) -> Option<&Overlay> {
        self.overlay.as_ref()
    }

    /// The full screen over the panes, if any.
    pub fn screen(&self) -> Option<&super::screen::Screen> {
        self.screen.as_ref()
    }

    /// The filter line being edited, if any.
    pub fn input(&self) -> Option<InputTarget> {
        self.input
    }

    /// The keymap mode the next key is resolved in: the topmost layer's.
    pub fn mode(&self) -> &'static str {
        match &self.overlay {
            Some(Overlay::Finder(_)) => "finder",
            Some(Overlay::Prompt(Prompt::Authorize(a))) if a.typed() => "input",
            Some(Overlay::Prompt(Prompt::Judge(j))) if j.editing_note => "input",
            Some(Overlay::Prompt(Prompt::Judge(_))) => "judge",
            Some(Overlay::Prompt(Prompt::Preview(_))) => "preview",
            Some(Overlay::Prompt(_)) => "prompt",
            Some(Overlay::Help { .. } | Overlay::Data { .. }) => "overlay",
            None if matches!(self.screen, Some(super::screen::Screen::Trace(_))) => "trace",
            None if matches!(self.screen, Some(super::screen::Screen::Insights(_))) => "insights",
            None if self.screen.is_some() => "overlay",
            None if self.input.is_some() => "input",
            None => "normal",
        }
    }

    /// Show `o` on top (in place of the overlay there).
    pub(in crate::app) fn open(&mut self, o: Overlay) {
        self.overlay = Some(o);
    }

    /// Put back what `take` took (or nothing: it closed).
    pub(in crate::app) fn put(&mut self, o: Option<Overlay>) {
        self.overlay = o;
    }

    /// Take the overlay off to hand it a key (put back with `open` or `put`).
    pub(in crate::app) fn take(&mut self) -> Option<Overlay> {
        self.overlay.take()
    }

    pub(in crate::app) fn screen_mut(&mut self) -> Option<&mut super::screen::Screen> {
        self.screen.as_mut()
    }

    pub(in crate::app) fn show_screen(&mut self, s: super::screen::Screen) {
        self.under = None;
        self.screen = Some(s);
    }

    /// Show `s` over the screen shown, which comes back when `s` closes.
    pub(in crate::app) fn show_screen_over(&mut self, s: super::screen::Screen) {
        self.under = self.screen.replace(s);
    }

    pub(in crate::app) fn close_screen(&mut self) {
        self.screen = self.under.take();
    }

    /// Start editing the filter line of `t`.
    pub(in crate::app) fn edit(&mut self, t: InputTarget) {
        self.input = Some(t);
    }

    pub(in crate::app) fn stop_editing(&mut self) {
        self.input = None;
    }

    /// A key typed while the finder, or a prompt that takes text, is on top:
    /// its text edited (the finder's results found again in `candidates`);
    /// whether it took it.
    pub(in crate::app) fn typed(&mut self, e: Edit, candidates: &[Candidate]) -> bool {
        match &mut self.overlay {
            Some(Overlay::Finder(f)) => {
                match e {
                    Edit::Push(c) => f.type_char(Some(c)),
                    Edit::Pop => f.type_char(None),
                    Edit::Clear => f.clear(),
                }
                f.refind(candidates);
            }
            Some(Overlay::Prompt(Prompt::Authorize(a))) if a.typed() => e.apply(&mut a.typed),
            Some(Overlay::Prompt(Prompt::Judge(j))) if j.editing_note => e.apply(&mut j.note),
            _ => return false,
        }
        true
    }

    /// The pictures the screen shown holds, for the terminal's protocol: the
    /// screenshot screen's (from the previews decoded, `cache`) or a trace's
    /// frames, in a terminal of `size`; none for any other screen.
    pub(in crate::app) fn pictures(
        &self,
        cache: &crate::image::Cache,
        size: (u16, u16),
    ) -> Vec<crate::graphics::Picture> {
        self.screen
            .as_ref()
            .map_or_else(Vec::new, |s| s.pictures(cache, size))
    }

    /// The terminal is `size` now: the screen shown keeps its cursors in view.
    pub(in crate::app) fn fit(&mut self, size: (u16, u16)) {
        if let Some(s) = &mut self.screen {
            s.fit(size);
        }
    }
}

/// The marks and badges of the tree and the lists, what each means, and its theme
/// style: the legend of `?` (the tree's header line names the columns).
pub const LEGEND: [(&str, &str, &str); 17] = [
    (
        "✓ ✗ … ·",
        "passed",
        "latest run passed / failed / running / never run",
    ),
    (
        "✗3",
        "failed",
        "cases under the folder whose latest run failed",
    ),
    (
        "~2 ~flaky ~",
        "warning",
        "cases that both passed and failed on the same code",
    ),
    (
        "new✗ !",
        "failed",
        "new failure: latest run failed, the one before passed",
    ),
    (
        "stale ≈",
        "warning",
        "the case's files changed after its latest run started",
    ),
    ("5×", "badge", "runs of the case on record"),
    (
        "88.9%",
        "passed",
        "pass rate over every run on record (folders and cases)",
    ),
    ("⚠unreg ⚠", "warning", "not registered in the test plan"),
    ("orphan ∅", "muted", "run logs whose test file is gone"),
    (
        "TEMP T",
        "badge_temp",
        "a temporary case: counts in no statistic (a narrow row: signs)",
    ),
    ("LIVE L", "badge_live", "a live case: asks before it runs"),
    ("watch", "running", "watched: reruns when its files change"),
    ("⚠2", "warning", "contract warnings of the latest run"),
    ("●", "marked", "marked: r runs every marked case"),
    (
        "⇄1",
        "info",
        "run_together group 1: its cases run, or are left out, together",
    ),
    (
        "◆",
        "artifact_ref",
        "a timeline event an artifact refers to",
    ),
    (
        "out err",
        "muted",
        "a line the runner wrote (stdout / stderr); O hides them",
    ),
];

/// The help box's size on a terminal of `size`.
pub fn help_box(size: (u16, u16)) -> (u16, u16) {
    (72.min(size.0), size.1.saturating_sub(2))
}

/// The data overlay's size on a terminal of `size`.
pub fn data_box(size: (u16, u16)) -> (u16, u16) {
    (
        (size.0 * 4 / 5).max(40).min(size.0),
        size.1.saturating_sub(4).max(6).min(size.1),
    )
}

/// The last scroll row of `rows` rows in a bordered box `height` rows tall: the
/// last row at the bottom, never a blank box.
fn last_row(rows: usize, height: u16) -> usize {
    rows.saturating_sub(usize::from(height.saturating_sub(2)))
}

impl Overlay {
    /// A key on a scrolled overlay (help, data) on a terminal of `size`: scrolled,
    /// or `None` when it closes. `help_len` is the help's line count.
    pub fn scrolled(self, c: Command, help_len: usize, size: (u16, u16)) -> Option<Overlay> {
        match self {
            Overlay::Help { scroll } => {
                let max = last_row(help_len, help_box(size).1);
                scroll_overlay(c, scroll, max).map(|s| Overlay::Help { scroll: s })
            }
            Overlay::Data {
                title,
                lines,
                scroll,
            } => {
                let (w, h) = data_box(size);
                let text: Vec<ratatui::text::Line> = lines
                    .iter()
                    // the SGR sequences kept in a line take no column
                    .map(|l| ratatui::text::Line::raw(testdeck_core::sanitize::strip_sgr(l)))
                    .collect();
                let rows = ratatui::widgets::Paragraph::new(text)
                    .wrap(ratatui::widgets::Wrap { trim: false })
                    .line_count(w.saturating_sub(2).max(1));
                scroll_overlay(c, scroll, last_row(rows, h)).map(|s| Overlay::Data {
                    title,
                    lines,
                    scroll: s,
                })
            }
            other => Some(other),
        }
    }
}

/// Text to read in an overlay, escaped line by line.
pub fn text(title: &str, text: &str) -> Overlay {
    let lines = testdeck_core::sanitize::escape_keep_newlines(text)
        .lines()
        .map(str::to_owned)
        .collect();
    Overlay::Data {
        title: escape(title).into_owned(),
        lines,
        scroll: 0,
    }
}

/// The title of the problems overlay (before its count): `E` there edits the top problem.
pub const PROBLEMS_TITLE: &str = "Problems";

fn scroll_overlay(c: Command, scroll: usize, max: usize) -> Option<usize> {
    match c {
        Command::Close | Command::Quit | Command::Help => None,
        Command::MoveDown => Some((scroll + 1).min(max)),
        Command::MoveUp => Some(scroll.saturating_sub(1)),
        Command::PageDown => Some((scroll + 10).min(max)),
        Command::PageUp => Some(scroll.saturating_sub(10)),
        Command::GoTop => Some(0),
        Command::GoBottom => Some(max),
        _ => Some(scroll),
    }
}

/// Lines of the help overlay for `keymap`: the legend, then each mode's title
/// and rows, a blank line between modes (as `view::help::lines` draws them).
pub fn help_len(keymap: &crate::keymap::Keymap) -> usize {
    let rows = keymap.help_rows();
    let mut modes: Vec<&str> = rows.iter().map(|r| r.0).collect();
    modes.dedup();
    LEGEND.len() + 2 + rows.len() + (modes.len() * 2).saturating_sub(1)
}
