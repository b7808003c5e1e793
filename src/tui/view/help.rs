//! The help overlay, generated from the active keymap's `desc` so it can never drift from the keys.

use super::super::app::App;
use super::super::keymap::{Keymap, MODES};
use super::super::theme::Theme;
use super::{centered, pane};
use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

/// (mode, keys, desc) rows: bindings of one command with one desc share a row.
pub fn rows(km: &Keymap) -> Vec<(&'static str, String, String)> {
    let mut out: Vec<(&'static str, String, String)> = Vec::new();
    for mode in MODES {
        let mut seen: Vec<(super::super::action::Command, &str, usize)> = Vec::new();
        for b in km.bindings(mode) {
            if let Some((_, _, at)) = seen.iter().find(|(c, d, _)| *c == b.run && *d == b.desc) {
                let row = &mut out[*at];
                row.1.push_str(", ");
                row.1.push_str(&b.keys());
                continue;
            }
            seen.push((b.run, &b.desc, out.len()));
            let desc = if b.desc.is_empty() {
                b.run.name().to_owned()
            } else {
                b.desc.clone()
            };
            out.push((mode, b.keys(), desc));
        }
    }
    out
}

pub fn lines(km: &Keymap, theme: &Theme) -> Vec<Line<'static>> {
    let rows = rows(km);
    let kw = rows
        .iter()
        .map(|r| r.1.chars().count())
        .max()
        .unwrap_or(8)
        .min(24);
    let mut out = Vec::new();
    let mut last = "";
    for (mode, keys, desc) in rows {
        if mode != last {
            if !last.is_empty() {
                out.push(Line::raw(""));
            }
            out.push(Line::styled(mode, theme.get("title")));
            last = mode;
        }
        out.push(Line::from(vec![
            Span::styled(format!("  {keys:<kw$}  "), theme.get("accent")),
            Span::styled(
                crate::sanitize::escape(&desc).into_owned(),
                theme.get("text"),
            ),
        ]));
    }
    out
}

pub fn draw(app: &App, theme: &Theme, f: &mut Frame, scroll: usize) {
    let area = f.area();
    let r = centered(area, 72, area.height.saturating_sub(2));
    f.render_widget(Clear, r);
    let block = pane(" Keys · Esc closes ", true, theme);
    let all = lines(&app.keymap, theme);
    let para = Paragraph::new(all).block(block).scroll((scroll as u16, 0));
    f.render_widget(para, r);
}
