//! Where each pane goes for a terminal size: one pure function shared by drawing and mouse hits.

use super::{App, Pane};
use ratatui::layout::{Constraint, Layout, Rect};

/// The rectangles of one frame. Optional panes are hidden on small terminals.
#[derive(Debug, Clone, Copy, Default)]
pub struct Areas {
    pub tabs: Rect,
    /// The red banner for a non-loopback HOST.
    pub banner: Option<Rect>,
    pub tree: Rect,
    pub details: Option<Rect>,
    pub live: Option<Rect>,
    pub artifacts: Option<Rect>,
    pub status: Rect,
    /// Only one pane fits beside the tree (or none, zoomed): it follows the focus.
    pub narrow: bool,
    /// The tree's share of the width, in percent.
    pub tree_pct: u16,
}

pub fn areas(w: u16, h: u16, app: &App) -> Areas {
    let full = Rect::new(0, 0, w, h);
    // the one classifier the policy uses, so the banner and the prompts agree
    let banner = !crate::workspace::host::is_loopback_host(&app.opts.host);
    let [tabs, banner_r, body, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(u16::from(banner)),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(full);
    let narrow = w < 100 || h < 22 || app.zoom;
    let tree_pct = app
        .tree_pct
        .unwrap_or(if w < 100 || h < 22 { 45 } else { 38 });
    let [tree, right] =
        Layout::horizontal([Constraint::Percentage(tree_pct), Constraint::Min(0)]).areas(body);
    let mut a = Areas {
        tabs,
        banner: banner.then_some(banner_r),
        tree,
        status,
        narrow,
        tree_pct,
        ..Areas::default()
    };
    if app.zoom {
        // the focused pane takes the whole body; Tab moves the zoom to the next one
        let empty = Rect::new(body.x, body.y, 0, 0);
        a.tree = empty;
        match app.focus {
            Pane::Tree => a.tree = body,
            Pane::Details => a.details = Some(body),
            Pane::Live => a.live = Some(body),
            Pane::Artifacts => a.artifacts = Some(body),
        }
        return a;
    }
    if narrow {
        match app.focus {
            Pane::Tree | Pane::Details => a.details = Some(right),
            Pane::Live => a.live = Some(right),
            Pane::Artifacts => a.artifacts = Some(right),
        }
    } else {
        let n_art = app.live.artifact_count() as u16;
        // a focused screenshot grows the pane to preview it under the list
        let previewing = app.focus == Pane::Artifacts
            && !matches!(app.preview_target(), super::preview::PreviewTarget::None);
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
        a.details = Some(details);
        a.live = Some(live);
        a.artifacts = Some(arts);
    }
    a
}
