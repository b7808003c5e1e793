//! The domain report (`R`): `tests/report/<domain>/report.md` beside the tree, each
//! `report-stale` line in the failed style with the logs' value beside it, and the
//! other report problems under their line.

use super::super::app::App;
use super::super::theme::Theme;
use crate::problem::Problem;
use crate::sanitize::escape;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph};
use std::collections::BTreeMap;

/// What a line of the report is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub stale: bool,
    /// The logs' value for a stale number, the message otherwise (escaped).
    pub text: String,
}

#[derive(Debug, Clone)]
pub struct ReportView {
    pub file: String,
    /// The report's lines, escaped.
    pub lines: Vec<String>,
    /// Notes by 0-based line.
    pub notes: BTreeMap<usize, Vec<Note>>,
    /// Problems without a line.
    pub general: Vec<String>,
    pub stale: usize,
    pub scroll: usize,
}

/// The logs' value of a `report-stale` message ("… is R in the report but L in the logs").
fn logs_value(message: &str) -> Option<&str> {
    message
        .rsplit_once(" but ")
        .and_then(|(_, v)| v.strip_suffix(" in the logs"))
}

impl ReportView {
    pub fn new(file: &str, text: &str, problems: &[Problem]) -> ReportView {
        let lines: Vec<String> = text.lines().map(|l| escape(l).into_owned()).collect();
        let mut notes: BTreeMap<usize, Vec<Note>> = BTreeMap::new();
        let mut general = Vec::new();
        let mut stale = 0;
        for p in problems {
            let is_stale = p.rule == "report-stale";
            stale += usize::from(is_stale);
            let text = match (is_stale, logs_value(&p.message)) {
                (true, Some(v)) => format!("logs: {}", escape(v)),
                _ => format!("{}: {}", p.rule, escape(&p.message)),
            };
            match p.line {
                Some(l) if (l as usize) <= lines.len().max(1) => {
                    notes.entry(l as usize - 1).or_default().push(Note {
                        stale: is_stale,
                        text,
                    });
                }
                _ => general.push(text),
            }
        }
        // open on the first stale number
        let scroll = notes
            .iter()
            .find(|(_, n)| n.iter().any(|n| n.stale))
            .map_or(0, |(l, _)| l.saturating_sub(2));
        ReportView {
            file: escape(file).into_owned(),
            lines,
            notes,
            general,
            stale,
            scroll,
        }
    }

    /// The next line with a note, below the top one (shown two lines down).
    pub fn next_stale(&self) -> Option<usize> {
        self.notes
            .keys()
            .map(|l| l.saturating_sub(2))
            .find(|&s| s > self.scroll)
    }
}

/// Beside the tree: over the details, live and artifacts panes (all of the screen
/// below the tabs when the terminal is narrow).
fn area(app: &App) -> Rect {
    let a = app.areas();
    let x = a.tree.x + a.tree.width;
    if a.narrow || app.size.0.saturating_sub(x) < 40 {
        return Rect::new(0, a.tree.y, app.size.0, a.tree.height);
    }
    Rect::new(x, a.tree.y, app.size.0 - x, a.tree.height)
}

pub fn draw(app: &App, v: &ReportView, theme: &Theme, f: &mut Frame) {
    let r = area(app);
    f.render_widget(Clear, r);
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
        let mut spans = vec![
            Span::styled(format!("{:>4} ", i + 1), theme.get("muted")),
            Span::styled(
                l.clone(),
                if is_stale {
                    theme.get("failed")
                } else {
                    theme.get("text")
                },
            ),
        ];
        for n in notes.into_iter().flatten().filter(|n| n.stale) {
            spans.push(Span::styled(
                format!("  ⚠ {}", n.text),
                theme.get("warning"),
            ));
        }
        out.push(Line::from(spans));
        for n in notes.into_iter().flatten().filter(|n| !n.stale) {
            out.push(Line::styled(
                format!("     ⚠ {}", n.text),
                theme.get("warning"),
            ));
        }
    }
    f.render_widget(Paragraph::new(out), inner);
}
