//! The Catalog tab: the tester catalog by category (an empty state until the catalog model lands).

use super::super::app::{App, Pane};
use super::super::theme::Theme;
use super::{empty_state, focused, pane};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

pub fn draw(app: &App, theme: &Theme, f: &mut Frame, r: Rect) {
    let block = pane(" Catalog ", focused(app, Pane::Tree), theme);
    let inner = block.inner(r);
    f.render_widget(block, r);
    let has = app.ws.as_ref().is_some_and(|w| w.catalog.is_some());
    let lines = if app.loading() {
        vec![Line::styled(
            format!("{} indexing…", app.spinner()),
            theme.get("running"),
        )]
    } else if has {
        vec![
            Line::styled("Tester catalog found", theme.get("text")),
            Line::raw(""),
            Line::raw(".pouch/tester/ is listed here by category"),
        ]
    } else {
        vec![
            Line::styled("No tester catalog here", theme.get("text")),
            Line::raw(""),
            Line::raw("A catalog lives in .pouch/tester/catalog.yaml"),
            Line::raw("with cases in .pouch/tester/cases/<category>.yaml"),
        ]
    };
    empty_state(lines, theme, f, inner);
}
