//! Small overlays: an event's data pretty-printed, and modal prompts.

use super::super::app::{App, Prompt};
use super::super::theme::Theme;
use super::{centered, pane};
use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

/// `lines` are already sanitized.
pub fn data(title: &str, lines: &[String], scroll: usize, theme: &Theme, f: &mut Frame) {
    let area = f.area();
    let r = centered(
        area,
        (area.width * 4 / 5).max(40),
        area.height.saturating_sub(4).max(6),
    );
    f.render_widget(Clear, r);
    let text: Vec<Line> = lines
        .iter()
        .map(|l| Line::styled(l.clone(), theme.get("text")))
        .collect();
    let block = pane(format!(" {title} · Esc closes "), true, theme);
    f.render_widget(
        Paragraph::new(text)
            .block(block)
            .wrap(Wrap { trim: false })
            .scroll((scroll.min(u16::MAX as usize) as u16, 0)),
        r,
    );
}

pub fn prompt(app: &App, p: &Prompt, theme: &Theme, f: &mut Frame) {
    let area = f.area();
    let (title, body): (&str, Vec<Line>) = match p {
        Prompt::QuitLive => (
            " Quit? ",
            vec![
                Line::raw(format!("{} runs are live.", app.running)),
                Line::raw("Quit and end them?"),
                Line::raw(""),
                Line::from(vec![
                    Span::styled(" y ", theme.get("risk_destructive")),
                    Span::raw(" yes, end them    "),
                    Span::styled(" N ", theme.get("selection")),
                    Span::raw(" no (Enter)"),
                ]),
            ],
        ),
    };
    let r = centered(area, 50, body.len() as u16 + 2);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(body)
            .style(theme.get("prompt"))
            .wrap(Wrap { trim: false })
            .block(pane(title, true, theme)),
        r,
    );
}
