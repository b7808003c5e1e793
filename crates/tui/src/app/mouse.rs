//! What a mouse event can change on screen ([`ViewKey`]): a mouse event draws a
//! frame only when it moved. The event itself is routed by the App (`mod.rs`).

use super::{App, ListState, Overlay, Pane, Screen, Tab};

/// What a mouse event can change on screen: a mouse event draws a frame only
/// when this moved.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct ViewKey {
    place: (Tab, Pane),
    lists: [ListState; 6],
    follow: bool,
    overlay: Option<(u8, usize)>,
    screen: Option<(usize, usize)>,
    notice: Option<String>,
}

impl ViewKey {
    /// What a mouse event can move on screen: where the person is, every list
    /// position, the overlay's and the screen's scroll, the notice.
    pub(super) fn of(app: &App) -> ViewKey {
        let overlay = match app.layers.overlay() {
            None => None,
            Some(Overlay::Help { scroll } | Overlay::Data { scroll, .. }) => Some((0, *scroll)),
            Some(Overlay::Finder(f)) => Some((1, f.cursor())),
            Some(Overlay::Prompt(_)) => Some((2, 0)),
        };
        let screen = app.layers.screen().map(|s| match s {
            Screen::Compare(v) => (v.scroll, 0),
            Screen::Report(v) => (v.scroll, 0),
            Screen::Image { .. } => (0, 0),
            Screen::Trace(v) => (v.list(v.section()).cursor, 0),
            Screen::Why(v) => (v.scroll(), v.cursor()),
            Screen::Insights(v) => (v.scroll(), v.cursor_row().unwrap_or(0)),
        });
        ViewKey {
            place: (app.tab, app.focus),
            lists: [
                *app.tests.list(),
                *app.catalog.list(),
                *app.runs.list(),
                *app.live.list(),
                *app.live.artifacts(),
                *app.details.scroll(),
            ],
            follow: app.live.follow(),
            overlay,
            screen,
            notice: app.notice.clone(),
        }
    }
}
