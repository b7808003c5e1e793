//! Full screens over the panes (a comparison, a domain report, a screenshot, a
//! Playwright trace, why a run failed): they take the keys until closed.

use super::super::action::Command;
use super::super::feature_work::FeatureResult;
use super::super::graphics::screen_body;
use super::super::image;
use super::compare::CompareScreen;
use super::insights::InsightsScreen;
use super::pane::Ctx;
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

/// The screens as components: a key goes to the screen shown; a feature's result
/// to the screen it opens or fills.
impl Screen {
    /// Key `c` on the screen shown: the trace's, the Insights', the failure view's
    /// `i`, the report's `u` and `y`, the rest scroll or close it.
    pub(super) fn key(&mut self, c: Command, cx: &mut Ctx) {
        match self {
            Screen::Trace(v) => v.key(c, cx),
            Screen::Insights(v) => v.key(c, cx),
            Screen::Why(w) if c == Command::PreviewImage => w.show_screenshot(cx),
            Screen::Report(v) if matches!(c, Command::ReportUpdate | Command::Apply) => {
                v.key(c, cx);
            }
            s => match s.command(c, (cx.shared.size.1 / 2).max(1) as isize) {
                ScreenOutcome::Close => cx.close_screen(),
                ScreenOutcome::Say(m) => cx.say(m),
                ScreenOutcome::Stay => {}
            },
        }
    }

    /// The terminal is `size` now: the trace's lists keep their cursors in view.
    pub(super) fn fit(&mut self, size: (u16, u16)) {
        if let Screen::Trace(v) = self {
            v.fit(size);
        }
    }
}

impl Screen {
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

/// A screen's background result (`shown`: the screen over the panes): the
/// comparison or the report shows, the trace shown fills in. (The others' are
/// not the screens'.)
pub(super) fn done(shown: &mut Option<Screen>, d: FeatureResult, cx: &mut Ctx) {
    match d {
        FeatureResult::Compare(r) => super::compare::came_back(r, cx),
        FeatureResult::Report { .. }
        | FeatureResult::ReportDraft { .. }
        | FeatureResult::ReportUpdate(_)
        | FeatureResult::ReportWritten { .. } => super::report::done(d, cx),
        FeatureResult::Trace { .. } | FeatureResult::TraceFrame { .. } => {
            if let Some(Screen::Trace(v)) = shown {
                v.done(d, cx.shared.size);
            }
        }
        _ => {}
    }
}

/// Run `run`'s failure digest came back: the failure view shown, of that run and
/// still without one, shows it.
pub(super) fn digest(
    shown: &mut Option<Screen>,
    run: &str,
    d: &testdeck_core::workspace::failure::Digest,
    cx: &mut Ctx,
) {
    if let Some(Screen::Why(w)) = shown {
        w.digest_done(run, d, cx);
    }
}
