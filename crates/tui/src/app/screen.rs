//! Full screens over the panes (a comparison, a domain report, a screenshot, a
//! Playwright trace, why a run failed): they take the keys until closed.

use super::super::action::Command;
use super::super::graphics::screen_body;
use super::super::image;
use super::compare::CompareScreen;
use super::insights::InsightsScreen;
use super::report::ReportScreen;
use super::trace::TraceView;
use super::why::WhyScreen;
use ratatui::layout::Rect;
use std::path::PathBuf;
use std::sync::Arc;

/// A full view over the panes: it takes the keys until closed.
#[derive(Debug, Clone)]
pub enum Screen {
    Compare(Box<CompareScreen>),
    Report(Box<ReportScreen>),
    /// A screenshot full screen (`file` inside its run folder, `label` its path in the run).
    Image {
        file: PathBuf,
        label: String,
    },
    /// A Playwright trace (its keys: `trace::TraceView::command`).
    Trace(Box<TraceView>),
    /// Why a run failed (`W`).
    Why(Box<WhyScreen>),
    /// What the history says (`I`; its keys: `insights::InsightsScreen::key`).
    Insights(Box<InsightsScreen>),
}

/// What a key did to a screen.
#[derive(Debug, PartialEq, Eq)]
pub enum ScreenOutcome {
    Stay,
    Close,
    /// Stay, and say this.
    Say(&'static str),
}

impl Screen {
    /// Key `c` on the screen; `page` is half the terminal's height.
    pub fn command(&mut self, c: Command, page: isize) -> ScreenOutcome {
        let (scroll, len, next): (&mut usize, usize, Option<usize>) = match self {
            Screen::Compare(v) => {
                let next = v.next_difference();
                (&mut v.scroll, v.rows.len(), next)
            }
            Screen::Report(v) => {
                let next = v.next_stale();
                (&mut v.scroll, v.lines.len(), next)
            }
            Screen::Why(v) => {
                if matches!(c, Command::Close | Command::Quit | Command::Confirm) {
                    return ScreenOutcome::Close;
                }
                return v
                    .command(c, page)
                    .map_or(ScreenOutcome::Stay, ScreenOutcome::Say);
            }
            Screen::Image { .. } | Screen::Trace(_) | Screen::Insights(_) => {
                return if matches!(c, Command::Close | Command::Quit | Command::Confirm) {
                    ScreenOutcome::Close
                } else {
                    ScreenOutcome::Stay
                };
            }
        };
        let max = len.saturating_sub(1) as isize;
        let to = |s: usize, d: isize| (s as isize).saturating_add(d).clamp(0, max.max(0)) as usize;
        match c {
            Command::Close | Command::Quit | Command::Confirm => return ScreenOutcome::Close,
            Command::MoveDown => *scroll = to(*scroll, 1),
            Command::MoveUp => *scroll = to(*scroll, -1),
            Command::PageDown => *scroll = to(*scroll, page),
            Command::PageUp => *scroll = to(*scroll, -page),
            Command::GoTop => *scroll = 0,
            Command::GoBottom => *scroll = max.max(0) as usize,
            Command::NextFailure => match next {
                Some(n) => *scroll = n,
                None => return ScreenOutcome::Say("no more differences"),
            },
            _ => {}
        }
        ScreenOutcome::Stay
    }
}

impl Screen {
    /// The terminal is `size` now: the trace's lists keep their cursors in view.
    pub(super) fn fit(&mut self, size: (u16, u16)) {
        if let Screen::Trace(v) = self {
            v.fit(size);
        }
    }

    /// The pictures the screen shows on a terminal of `size` (its screenshot, a
    /// trace's frames), decoded ones only (`cache`: the screenshots').
    pub(super) fn pictures(
        &self,
        cache: &image::Cache,
        size: (u16, u16),
    ) -> Vec<(PathBuf, Arc<image::Preview>, Rect)> {
        match self {
            Screen::Image { file, .. } => match cache.get(file) {
                Some(image::State::Ready(p)) => {
                    vec![(file.clone(), p.clone(), screen_body(size.0, size.1))]
                }
                _ => Vec::new(),
            },
            Screen::Trace(v) => v.pictures(size),
            _ => Vec::new(),
        }
    }
}
