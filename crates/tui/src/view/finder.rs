//! The fuzzy finder overlay: every case of both sources, matched characters highlighted.

use super::super::app::{Candidate, CaseRef, Finder};
use super::super::theme::Theme;
use super::{centered, pane};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use testdeck_core::sanitize::escape;

/// A candidate's status mark, as the tree and the catalog list draw it.
pub type StatusOf<'a> = dyn Fn(&CaseRef) -> Span<'static> + 'a;

#[allow(clippy::many_single_char_names)] // r, f, w, h, l, s: the usual drawing names
pub fn draw(
    fi: &Finder,
    (candidates, marks, status): (
        &[Candidate],
        &std::collections::BTreeSet<CaseRef>,
        &StatusOf,
    ),
    theme: &Theme,
    f: &mut Frame,
) {
    let area = f.area();
    let w = (area.width * 4 / 5).max(40);
    let h = (area.height * 7 / 10).max(8);
    let r = centered(area, w, h);
    super::clear_box(f, r);
    let block = pane(
        Line::from(vec![
            Span::raw(" Find cases "),
            Span::styled(
                format!("{}/{} ", fi.results().len(), candidates.len()),
                theme.get("muted"),
            ),
        ]),
        true,
        theme,
    );
    let inner = block.inner(r);
    f.render_widget(block, r);
    let [input, list] = Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(inner);
    f.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled("❯ ", theme.get("accent")),
            Span::styled(escape(fi.query()).into_owned(), theme.get("input")),
            Span::styled("▏", theme.get("accent")),
        ])),
        input,
    );
    if fi.results().is_empty() {
        let msg = if candidates.is_empty() {
            "No cases in this workspace"
        } else {
            "No match"
        };
        f.render_widget(
            Paragraph::new(format!("  {msg}")).style(theme.get("muted")),
            list,
        );
        return;
    }
    let h = list.height as usize;
    let skip = fi.cursor().saturating_sub(h.saturating_sub(1));
    let mut lines = Vec::new();
    // the matched characters of the rows drawn alone
    let mut q = fi.highlighter();
    let mut idx = Vec::new();
    for (pos, ci) in fi.results().iter().enumerate().skip(skip).take(h) {
        let Some(c) = candidates.get(*ci) else {
            continue;
        };
        q.positions(&c.text, &mut idx);
        let marked = marks.contains(&c.key);
        let mut spans = vec![
            Span::styled(
                if pos == fi.cursor() { "▌" } else { " " },
                theme.get("accent"),
            ),
            Span::styled(if marked { "● " } else { "  " }, theme.get("marked")),
            // its status, as the tree and the catalog list mark it
            status(&c.key),
            Span::raw(" "),
        ];
        // candidate text is already sanitized; highlight the matched characters
        let mut run = String::new();
        let mut run_hl = false;
        for (i, ch) in c.text.as_str().chars().enumerate() {
            let hl = idx.binary_search(&(i as u32)).is_ok();
            if hl != run_hl && !run.is_empty() {
                let st = if run_hl {
                    theme.get("match")
                } else {
                    theme.get("text")
                };
                spans.push(Span::styled(std::mem::take(&mut run), st));
            }
            run_hl = hl;
            run.push(ch);
        }
        if !run.is_empty() {
            spans.push(Span::styled(
                run,
                if run_hl {
                    theme.get("match")
                } else {
                    theme.get("text")
                },
            ));
        }
        spans.push(Span::styled(format!("  {}", c.source), theme.get("muted")));
        let mut l = Line::from(spans);
        if pos == fi.cursor() {
            l = l.style(theme.get("selection"));
        }
        lines.push(l);
    }
    f.render_widget(Paragraph::new(lines), list);
}
