//! The failure view (`W`): the rows `app::why` built — the whole message with the
//! runner's colours as theme styles, the diff, the stack with its source snippets,
//! what passed before — under a cursor over the frames, with the screenshot bound
//! to the failure beside them when the terminal has room. Also the details'
//! summary of a failed run, drawn from the same rows.

use super::super::app::preview::PreviewTarget;
use super::super::app::why::{Look, Row, WhyScreen};
use super::super::theme::Theme;
use super::artifacts::{Pictures, preview};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph, Wrap};

/// Columns the screenshot beside the rows takes, and the least the rows keep.
const PICTURE_COLS: u16 = 40;
const TEXT_COLS: u16 = 72;

fn style(look: Look, theme: &Theme) -> Style {
    theme.get(match look {
        Look::Title => "title",
        Look::Heading => "accent",
        Look::Text | Look::Frame(_) | Look::Snippet => "text",
        Look::Muted | Look::Folded => "muted",
        Look::Expected => "diff_expected",
        Look::Received => "diff_received",
        Look::Marked => "source_mark",
        Look::Passed => "passed",
        Look::Failed => "failed",
        Look::Artifact => "artifact_ref",
    })
}

/// One row as a line: text from the run keeps its SGR colours as styles over the
/// row's own style; a snippet's line number is muted; the frame under the cursor
/// is marked and selected.
pub fn line(r: &Row, cursor: Option<usize>, theme: &Theme) -> Line<'static> {
    let base = style(r.look, theme);
    if !r.marks.is_empty() {
        return marked(r, base);
    }
    match r.look {
        Look::Frame(k) if Some(k) == cursor => {
            let text = r.text.strip_prefix("  ").unwrap_or(&r.text);
            Line::from(vec![
                Span::styled("▸ ", theme.get("selection")),
                Span::styled(text.to_owned(), theme.get("selection")),
            ])
        }
        Look::Snippet => match r.text.split_once(" │ ") {
            Some((num, code)) => Line::from(vec![
                Span::styled(format!("{num} │ "), theme.get("muted")),
                Span::styled(code.to_owned(), base),
            ]),
            None => Line::styled(r.text.clone(), base),
        },
        _ => Line::from(super::sgr_line_spans(&r.text, base, theme)),
    }
}

/// A diff row whose differing characters are marked: drawn in its own style
/// reversed (the theme's `diff_expected` / `diff_received`, as a background).
fn marked(r: &Row, base: Style) -> Line<'static> {
    let mark = base.add_modifier(Modifier::REVERSED | Modifier::BOLD);
    let mut spans = Vec::new();
    let mut at = 0;
    for m in &r.marks {
        let (Some(before), Some(inside)) = (r.text.get(at..m.start), r.text.get(m.clone())) else {
            return Line::styled(r.text.clone(), base);
        };
        spans.push(Span::styled(before.to_owned(), base));
        spans.push(Span::styled(inside.to_owned(), mark));
        at = m.end;
    }
    spans.push(Span::styled(
        r.text.get(at..).unwrap_or_default().to_owned(),
        base,
    ));
    Line::from(spans)
}

/// The details' summary lines of a failed run.
pub fn summary(rows: &[Row], theme: &Theme) -> Vec<Line<'static>> {
    rows.iter().map(|r| line(r, None, theme)).collect()
}

/// The failure view over the whole screen but the status bar.
pub fn draw(w: &WhyScreen, pics: Pictures, cx: &super::DrawCtx, f: &mut Frame) {
    let theme = cx.theme;
    let full = Rect::new(0, 0, cx.size.0, cx.size.1.saturating_sub(1));
    super::clear_box(f, full);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme.get("border_focus"))
        .title(Span::styled(" Why it failed ", theme.get("title")))
        .title_bottom(Span::styled(
            " j/k frame · E edit at the frame · n next failure · i screenshot · Esc close ",
            theme.get("muted"),
        ));
    let inner = block.inner(full);
    f.render_widget(block, full);
    if w.digest().is_none() {
        f.render_widget(
            Paragraph::new(vec![
                Line::styled(
                    format!(" {}", testdeck_core::sanitize::escape(w.run())),
                    theme.get("muted"),
                ),
                Line::styled(" reading…", theme.get("muted")),
            ]),
            inner,
        );
        return;
    }
    let (text, side) = match w.screenshot() {
        Some(_) if inner.width >= TEXT_COLS + PICTURE_COLS => (
            Rect {
                width: inner.width - PICTURE_COLS - 1,
                ..inner
            },
            Some(Rect {
                x: inner.x + inner.width - PICTURE_COLS,
                width: PICTURE_COLS,
                height: inner.height.min(PICTURE_COLS / 2 + 2),
                ..inner
            }),
        ),
        _ => (inner, None),
    };
    let rows = w.rows();
    let from = w.scroll().min(rows.len().saturating_sub(1));
    // a row takes a line at least: the rows after the window are never drawn
    let shown = rows.len().saturating_sub(from).min(text.height as usize);
    let lines: Vec<Line> = rows[from..from + shown]
        .iter()
        .map(|r| line(r, Some(w.cursor()), theme))
        .collect();
    // the rows drawn whole: the rest are below
    let mut used = 0;
    let fit = lines
        .iter()
        .take_while(|l| {
            used += super::wrapped_rows(std::slice::from_ref(l), text.width);
            used <= text.height as usize
        })
        .count();
    let below = rows.len() - from - fit;
    let para = Paragraph::new(lines).wrap(Wrap { trim: false });
    f.render_widget(para, text);
    if from > 0 || below > 0 {
        let more = match (from, below) {
            (0, b) => format!(" ↓ {b} more "),
            (a, 0) => format!(" ↑ {a} above "),
            (a, b) => format!(" ↑ {a} · ↓ {b} more "),
        };
        let width = u16::try_from(more.chars().count()).unwrap_or(0);
        let at = Rect {
            x: full.x + full.width.saturating_sub(width + 2),
            y: full.y + full.height.saturating_sub(1),
            width: width.min(full.width),
            height: 1,
        };
        f.render_widget(Paragraph::new(more).style(theme.get("muted")), at);
    }
    if let (Some(r), Some((file, label))) = (side, w.screenshot()) {
        let target = PreviewTarget::File(file.to_path_buf(), label.to_owned());
        preview(pics, &target, theme, f, r, false);
    }
}
