//! The domain report screen (`R`): the report beside the tree, each `report-stale`
//! line in the failed style with the logs' value beside it, the other problems under
//! their line.

use super::super::app::report::ReportScreen;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph, Wrap};

/// Beside the tree: over the details, live and artifacts panes (all of the screen
/// below the tabs when the terminal is narrow).
fn area(cx: &super::DrawCtx) -> Rect {
    let a = &cx.areas;
    let tree = a.panes.tree;
    let x = tree.x + tree.width;
    if a.panes.narrow || cx.size.0.saturating_sub(x) < 40 {
        return Rect::new(0, tree.y, cx.size.0, tree.height);
    }
    Rect::new(x, tree.y, cx.size.0 - x, tree.height)
}

pub fn draw(v: &ReportScreen, cx: &super::DrawCtx, f: &mut Frame) {
    let theme = cx.theme;
    let r = area(cx);
    super::clear_box(f, r);
    let stale = if v.stale == 0 {
        Span::styled("no stale numbers ", theme.get("passed"))
    } else {
        Span::styled(format!("{} stale ", v.stale), theme.get("failed"))
    };
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme.get("border_focus"))
        .title(Line::from(vec![
            Span::styled(format!(" Report · {} · ", v.file), theme.get("title")),
            stale,
        ]))
        .title_bottom(Span::styled(
            " j/k scroll · n next problem · Esc close ",
            theme.get("muted"),
        ));
    let inner = block.inner(r);
    f.render_widget(block, r);
    let mut out: Vec<Line> = v
        .general
        .iter()
        .map(|g| Line::styled(format!("⚠ {g}"), theme.get("warning")))
        .collect();
    let h = inner.height as usize;
    for (i, l) in v.lines.iter().enumerate().skip(v.scroll) {
        if out.len() >= h {
            break;
        }
        let notes = v.notes.get(&i);
        let is_stale = notes.is_some_and(|n| n.iter().any(|n| n.stale));
        let text_style = if is_stale {
            theme.get("failed")
        } else {
            theme.get("text")
        };
        let mut spans = vec![Span::styled(format!("{:>4} ", i + 1), theme.get("muted"))];
        // each stale number's marker beside it: the line cut where each ends
        let mut marks: Vec<(usize, &str)> = notes
            .into_iter()
            .flatten()
            .filter(|n| n.stale)
            .map(|n| (n.at.unwrap_or(l.len()).min(l.len()), n.text.as_str()))
            .collect();
        marks.sort_by_key(|(at, _)| *at);
        let mut from = 0;
        for (at, text) in marks {
            let Some(part) = l.get(from..at) else {
                continue;
            };
            spans.push(Span::styled(part.to_owned(), text_style));
            spans.push(Span::styled(format!(" ⚠ {text}"), theme.get("warning")));
            from = at;
        }
        spans.push(Span::styled(
            l.get(from..).unwrap_or("").to_owned(),
            text_style,
        ));
        out.push(Line::from(spans));
        for n in notes.into_iter().flatten().filter(|n| !n.stale) {
            out.push(Line::styled(
                format!("     ⚠ {}", n.text),
                theme.get("warning"),
            ));
        }
    }
    // long report lines wrap instead of being cut at the edge
    f.render_widget(Paragraph::new(out).wrap(Wrap { trim: false }), inner);
}
