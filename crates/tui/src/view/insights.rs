//! The Insights screen (`I`): the ranked lists `app::insights` built from the
//! core's figures, a cursor over their cases.

use super::super::app::insights::{InsightsScreen, Look};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph};

/// The Insights screen over the whole screen but the status bar.
pub fn draw(v: &InsightsScreen, cx: &super::DrawCtx, f: &mut Frame) {
    let theme = cx.theme;
    let full = Rect::new(0, 0, cx.size.0, cx.size.1.saturating_sub(1));
    super::clear_box(f, full);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme.get("border_focus"))
        .title(Span::styled(
            " Insights: what the history says ",
            theme.get("title"),
        ))
        .title_bottom(Span::styled(
            " j/k case · Enter select it in the tree · Esc close ",
            theme.get("muted"),
        ));
    let inner = block.inner(full);
    f.render_widget(block, full);
    let cursor = v.cursor_row();
    let lines: Vec<Line> = v
        .rows()
        .iter()
        .enumerate()
        .skip(v.scroll())
        .take(inner.height as usize)
        .map(|(i, r)| {
            let style = match r.look {
                _ if Some(i) == cursor => theme.get("selection"),
                Look::Heading => theme.get("accent"),
                Look::Note => theme.get("muted"),
                Look::Entry => theme.get("text"),
            };
            Line::styled(r.text.clone(), style)
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
}
