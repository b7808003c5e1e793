//! The help overlay: the legend of the marks and badges, then the keys, generated
//! from the active keymap's `desc` so it can never drift from the keys.

use super::super::app::overlay::{LEGEND, help_box};
use super::super::keymap::Keymap;
use super::super::theme::Theme;
use super::{centered, pane};
use ratatui::Frame;
use ratatui::text::{Line, Span};

/// (mode, keys, desc) rows: bindings of one command with one desc share a row.
pub fn rows(km: &Keymap) -> Vec<(&'static str, String, String)> {
    km.help_rows()
}

/// The legend's lines: each mark in its own style, then what it means.
pub fn legend(theme: &Theme) -> Vec<Line<'static>> {
    let mut out = vec![Line::styled("legend", theme.get("title"))];
    for (mark, style, meaning) in LEGEND {
        out.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(format!("{mark:<10}"), theme.get(style)),
            Span::raw("  "),
            Span::styled(meaning, theme.get("text")),
        ]));
    }
    out.push(Line::raw(""));
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
    let mut out = legend(theme);
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
                testdeck_core::sanitize::escape(&desc).into_owned(),
                theme.get("text"),
            ),
        ]));
    }
    out
}

pub fn draw(keymap: &crate::keymap::Keymap, scroll: usize, cx: &super::DrawCtx, f: &mut Frame) {
    let theme = cx.theme;
    let area = f.area();
    let (w, h) = help_box(cx.size);
    let r = centered(area, w, h);
    super::clear_box(f, r);
    let block = pane(" Keys · Esc closes ", true, theme);
    super::scrolled_text(f, block, (lines(keymap, theme), false), scroll, r, theme);
}
