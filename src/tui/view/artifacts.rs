//! The artifacts pane: the run's `artifacts.json` items, opened with `o`.

use super::super::app::{App, Pane};
use super::super::theme::Theme;
use super::{focused, pane, spread};
use crate::sanitize::escape;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::Paragraph;

pub fn draw(app: &App, theme: &Theme, f: &mut Frame, r: Rect) {
    let arts = app
        .live
        .run
        .as_ref()
        .map_or(&[][..], |r| r.artifacts.as_slice());
    let block = pane(
        format!(" Artifacts · {} ", arts.len()),
        focused(app, Pane::Artifacts),
        theme,
    );
    let inner = block.inner(r);
    f.render_widget(block, r);
    if arts.is_empty() {
        let msg = if app.live.run.is_some() {
            "no artifacts in this run"
        } else {
            "—"
        };
        f.render_widget(Paragraph::new(msg).style(theme.get("muted")), inner);
        return;
    }
    let w = inner.width as usize;
    let has_focus = focused(app, Pane::Artifacts);
    let skip = app
        .live
        .artifact_cursor
        .saturating_sub(inner.height.saturating_sub(1) as usize);
    let mut lines = Vec::new();
    for (i, a) in arts
        .iter()
        .enumerate()
        .skip(skip)
        .take(inner.height as usize)
    {
        let icon = match a.kind.as_str() {
            "trace" => "⧉",
            "screenshot" => "▣",
            "video" => "▶",
            "playwright-report" => "▤",
            "jsonl" => "≡",
            _ => "•",
        };
        let left = vec![
            Span::styled(
                format!("{icon} {:<17} ", escape(&a.kind)),
                theme.get("accent"),
            ),
            Span::styled(escape(&a.path).into_owned(), theme.get("text")),
        ];
        let mut right = Vec::new();
        if let Some(s) = &a.step_id {
            right.push(Span::styled(
                format!("◆ step {} ", escape(s)),
                theme.get("artifact_ref"),
            ));
        }
        if let Some(s) = &a.assertion_id {
            right.push(Span::styled(
                format!("◆ assert {} ", escape(s)),
                theme.get("artifact_ref"),
            ));
        }
        if !a.inside {
            right.push(Span::styled("outside run folder ", theme.get("failed")));
        } else if !a.exists {
            right.push(Span::styled("missing ", theme.get("warning")));
        }
        let mut l = spread(left, right, w);
        if i == app.live.artifact_cursor && has_focus {
            l = l.style(theme.get("selection"));
        }
        lines.push(l);
    }
    f.render_widget(Paragraph::new(lines), inner);
}
