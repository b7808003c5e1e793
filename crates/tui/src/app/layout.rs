//! Where each pane goes for a terminal size: one pure function shared by drawing and mouse hits.

use super::Pane;
use ratatui::layout::{Constraint, Layout, Rect};

/// The rectangles of one frame.
#[derive(Debug, Clone, Copy, Default)]
pub struct Areas {
    pub tabs: Rect,
    /// The red banner for a non-loopback HOST.
    pub banner: Option<Rect>,
    pub panes: Panes,
    /// The key-hint line, above the status bar (`None`: hidden in the config).
    pub hints: Option<Rect>,
    pub status: Rect,
}

/// How the person arranged the panes; the terminal's size decides the rest.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sizing {
    /// The focused pane fills the screen below the tabs (`z`).
    pub zoom: bool,
    /// The tree's share of the width in percent, when the person set it (`+`/`-`).
    pub tree_pct: Option<u16>,
}

/// A terminal too small for all the panes beside the tree.
fn small(w: u16, h: u16) -> bool {
    w < 100 || h < 22
}

impl Sizing {
    /// The tree's share of the width at `w` × `h`, in percent.
    pub fn tree_pct(self, w: u16, h: u16) -> u16 {
        self.tree_pct.unwrap_or(if small(w, h) { 45 } else { 38 })
    }

    /// Widen (or narrow, `step` < 0) the tree from its share at `w` × `h`, within
    /// 20–80 %; all the panes come back from a zoom.
    pub fn widen(&mut self, step: i32, (w, h): (u16, u16)) {
        let pct = (i32::from(self.tree_pct(w, h)) + step).clamp(20, 80);
        self.tree_pct = u16::try_from(pct).ok();
        self.zoom = false;
    }
}

/// Where each [`Pane`] is. The ones beside the tree are hidden on small terminals,
/// and all but the focused one when zoomed.
#[derive(Debug, Clone, Copy, Default)]
pub struct Panes {
    /// Empty (at its place) while another pane is zoomed.
    pub tree: Rect,
    pub details: Option<Rect>,
    pub live: Option<Rect>,
    pub artifacts: Option<Rect>,
    /// Only one pane fits beside the tree (or none, zoomed): it follows the focus.
    pub narrow: bool,
}

impl Panes {
    /// Where pane `p` is (`None` when hidden).
    pub fn get(&self, p: Pane) -> Option<Rect> {
        match p {
            Pane::Tree => Some(self.tree),
            Pane::Details => self.details,
            Pane::Live => self.live,
            Pane::Artifacts => self.artifacts,
        }
    }

    /// Whether `p` can take the focus: it is shown, or it is shown when focused
    /// (only one fits beside the tree).
    pub fn focusable(&self, p: Pane) -> bool {
        self.narrow || self.get(p).is_some()
    }

    fn show(&mut self, p: Pane, r: Rect) {
        match p {
            Pane::Tree => self.tree = r,
            Pane::Details => self.details = Some(r),
            Pane::Live => self.live = Some(r),
            Pane::Artifacts => self.artifacts = Some(r),
        }
    }
}

/// What the layout reads: the HOST banner and the hints line shown, the zoom
/// and widths, the focused pane, the live pane (its artifacts) and the root.
pub struct Look<'a> {
    pub banner: bool,
    pub hints: bool,
    pub sizing: Sizing,
    pub focus: Pane,
    pub live: &'a super::Live,
    pub root: &'a std::path::Path,
}

/// The HOST banner is shown for `host`: the one classifier the policy uses,
/// so the banner and the prompts agree.
pub fn banner(host: &str) -> bool {
    !testdeck_core::workspace::host::is_loopback_host(host)
}

pub fn areas(w: u16, h: u16, app: &Look) -> Areas {
    let full = Rect::new(0, 0, w, h);
    let (banner, hints) = (app.banner, app.hints);
    let [tabs, banner_r, body, hints_r, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(u16::from(banner)),
        Constraint::Min(0),
        Constraint::Length(u16::from(hints)),
        Constraint::Length(1),
    ])
    .areas(full);
    let sizing = app.sizing;
    let narrow = small(w, h) || sizing.zoom;
    let tree_pct = sizing.tree_pct(w, h);
    let [tree, right] =
        Layout::horizontal([Constraint::Percentage(tree_pct), Constraint::Min(0)]).areas(body);
    let mut a = Areas {
        tabs,
        banner: banner.then_some(banner_r),
        panes: Panes {
            tree,
            narrow,
            ..Panes::default()
        },
        hints: hints.then_some(hints_r),
        status,
    };
    if sizing.zoom {
        // the focused pane takes the whole body; Tab moves the zoom to the next one
        a.panes.tree = Rect::new(body.x, body.y, 0, 0);
        a.panes.show(app.focus, body);
        return a;
    }
    if narrow {
        // beside a focused tree: the details
        let beside = match app.focus {
            Pane::Tree => Pane::Details,
            p => p,
        };
        a.panes.show(beside, right);
    } else {
        let n_art = app.live.artifact_count() as u16;
        // a focused screenshot grows the pane to preview it under the list
        let previewing = app.focus == Pane::Artifacts
            && !matches!(
                super::preview::target(app.live, app.root),
                super::preview::PreviewTarget::None
            );
        let arts_h = if previewing {
            n_art.min(6) + 2 + 2 * super::preview::PREVIEW_ROWS
        } else {
            (n_art + 2).clamp(3, 8)
        };
        let [details, live, arts] = Layout::vertical([
            Constraint::Percentage(42),
            Constraint::Min(5),
            Constraint::Length(arts_h),
        ])
        .areas(right);
        a.panes.details = Some(details);
        a.panes.live = Some(live);
        a.panes.artifacts = Some(arts);
    }
    a
}
