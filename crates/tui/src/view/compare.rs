//! The compare screen (`c`): two runs of a case side by side, drawn from the rows
//! `app::compare` built (first divergence highlighted, durations in columns).

use super::super::app::compare::{Cell, CompareScreen, Lead, Pieces, Row};
use super::super::theme::Theme;
use super::{fmt_ms, truncate};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph};

fn pieces_line(p: &Pieces, theme: &Theme) -> Line<'static> {
    Line::from(
        p.iter()
            .map(|(t, r)| Span::styled(t.clone(), theme.get(r)))
            .collect::<Vec<_>>(),
    )
}

fn pad(s: &str, cols: usize) -> String {
    let t = truncate(s, cols);
    let w = Span::raw(t.as_str()).width();
    format!("{t}{}", " ".repeat(cols.saturating_sub(w)))
}

/// A cell in `cols` columns: mark, text, the duration at the right.
fn cell_spans(c: Option<&Cell>, cols: usize, theme: &Theme) -> Vec<Span<'static>> {
    let Some(c) = c else {
        return vec![Span::styled(pad("—", cols), theme.get("muted"))];
    };
    let ms = c.ms.map(fmt_ms).unwrap_or_default();
    let text_cols = cols.saturating_sub(2 + ms.chars().count() + 1);
    vec![
        Span::styled(format!("{} ", c.mark), theme.get(c.role)),
        Span::styled(pad(&c.text, text_cols), theme.get("text")),
        Span::styled(format!(" {ms}"), theme.get("badge")),
    ]
}

/// Column widths for `w` columns: key, A, B (the lead is 2, Δ is 8, three separators 9).
fn columns(v: &CompareScreen, w: usize) -> (usize, usize, usize) {
    let longest = v
        .rows
        .iter()
        .filter_map(|r| match r {
            Row::Event(e) => Some(Span::raw(e.key.as_str()).width()),
            Row::Text(_) => None,
        })
        .max()
        .unwrap_or(5);
    let key = longest.clamp(5, (w * 3 / 10).max(5));
    let rest = w.saturating_sub(2 + key + 9 + 8);
    let a = rest / 2;
    (key, a, rest - a)
}

pub fn draw(v: &CompareScreen, cx: &super::DrawCtx, f: &mut Frame) {
    let theme = cx.theme;
    let full = Rect::new(0, 0, cx.size.0, cx.size.1.saturating_sub(1));
    super::clear_box(f, full);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme.get("border_focus"))
        .title(Span::styled(v.title.clone(), theme.get("title")))
        .title_bottom(Span::styled(
            " j/k scroll · n next difference · Esc close ",
            theme.get("muted"),
        ));
    let inner = block.inner(full);
    f.render_widget(block, full);
    let w = inner.width as usize;
    let (kw, aw, bw) = columns(v, w);
    let sep = || Span::styled(" │ ", theme.get("border"));
    let mut lines: Vec<Line> = v.head.iter().map(|p| pieces_line(p, theme)).collect();
    lines.push(Line::from(vec![
        Span::styled(format!("  {}", pad("event", kw)), theme.get("muted")),
        sep(),
        Span::styled(pad("A", aw), theme.get("muted")),
        sep(),
        Span::styled(pad("B", bw), theme.get("muted")),
        sep(),
        Span::styled("Δ", theme.get("muted")),
    ]));
    let body_h = (inner.height as usize).saturating_sub(lines.len());
    for row in v.rows.iter().skip(v.scroll).take(body_h) {
        lines.push(match row {
            Row::Text(p) => pieces_line(p, theme),
            Row::Event(e) => {
                let lead_role = match e.lead {
                    Lead::First => "failed",
                    Lead::Same => "muted",
                    _ => "warning",
                };
                let mut spans = vec![
                    Span::styled(format!("{} ", e.lead.mark()), theme.get(lead_role)),
                    Span::styled(pad(&e.key, kw), theme.get("text")),
                    sep(),
                ];
                spans.extend(cell_spans(e.a.as_ref(), aw, theme));
                spans.push(sep());
                spans.extend(cell_spans(e.b.as_ref(), bw, theme));
                spans.push(sep());
                spans.push(Span::styled(e.delta.clone(), theme.get("warning")));
                let line = Line::from(spans);
                if e.lead == Lead::First {
                    line.style(theme.get("selection"))
                } else {
                    line
                }
            }
        });
    }
    f.render_widget(Paragraph::new(lines).style(Style::default()), inner);
}
