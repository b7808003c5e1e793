//! The domain report screen (`R`): the report beside the tree, each `report-stale`
//! line in the failed style with the logs' value beside it, each line a person has
//! still to write marked `✎`, the other problems under their line; a domain's draft,
//! or the report's update as a diff (added lines in the passed style, removed ones
//! in the failed style).

use super::super::app::report::{ReportKind, ReportScreen};
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

#[expect(
    clippy::too_many_lines,
    reason = "the report screen's layout top to bottom; every part measures from the same rectangle"
)]
pub fn draw(v: &ReportScreen, cx: &super::DrawCtx, f: &mut Frame) {
    let theme = cx.theme;
    let r = area(cx);
    super::clear_box(f, r);
    let (what, status, keys) = match &v.kind {
        ReportKind::Report => {
            let status = if v.stale == 0 {
                Span::styled("no stale numbers ", theme.get("passed"))
            } else {
                Span::styled(format!("{} stale ", v.stale), theme.get("failed"))
            };
            (
                "Report",
                status,
                " j/k scroll · n next problem · u update · Esc close ",
            )
        }
        ReportKind::Draft(_) => (
            "Draft",
            Span::styled("not written yet ", theme.get("warning")),
            " j/k scroll · n next placeholder · y write it · Esc close ",
        ),
        ReportKind::Update(u) => (
            "Update",
            Span::styled(
                format!("{} changes ", u.changes.len()),
                theme.get("warning"),
            ),
            " j/k scroll · n next hunk · y write it · Esc close ",
        ),
    };
    let mut title = vec![
        Span::styled(format!(" {what} · {} · ", v.file), theme.get("title")),
        status,
    ];
    if !v.unwritten.is_empty() {
        title.push(Span::styled(
            format!("✎ {} to write ", v.unwritten.len()),
            theme.get("warning"),
        ));
    }
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme.get("border_focus"))
        .title(Line::from(title))
        .title_bottom(Span::styled(keys, theme.get("muted")));
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
        let diff = matches!(v.kind, ReportKind::Update(_));
        let text_style = if is_stale || (diff && l.starts_with('-') && !l.starts_with("---")) {
            theme.get("failed")
        } else if diff && l.starts_with('+') && !l.starts_with("+++") {
            theme.get("passed")
        } else if diff && (l.starts_with("@@") || l.starts_with("---") || l.starts_with("+++")) {
            theme.get("muted")
        } else {
            theme.get("text")
        };
        let mark = if v.unwritten.contains(&i) { "✎" } else { " " };
        let mut spans = vec![
            Span::styled(format!("{:>4}", i + 1), theme.get("muted")),
            Span::styled(mark, theme.get("warning")),
        ];
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
