//! The compare view (`c`): two runs of a case side by side — both headers, the
//! timelines aligned A | B with the first divergence highlighted, changed fields as
//! − a / + b under their row, step durations with the delta, both artifact lists.

use super::super::app::App;
use super::super::theme::Theme;
use super::{fmt_ms, truncate};
use crate::sanitize::escape;
use crate::workspace::diff::{
    DivergenceReason, RunDiff, RunSide, SideEvent, delta, mark, value_text,
};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph};

/// Pieces of a line: the text (escaped already) and its theme role.
pub type Pieces = Vec<(String, &'static str)>;

/// One side of an aligned row.
#[derive(Debug, Clone)]
pub struct Cell {
    pub mark: &'static str,
    pub role: &'static str,
    /// `status message`, escaped.
    pub text: String,
    pub ms: Option<u64>,
}

/// One aligned timeline row.
#[derive(Debug, Clone)]
pub struct EventRow {
    /// `▶` first divergence, `-` only in A, `+` only in B, `~` fields differ.
    pub lead: &'static str,
    pub key: String,
    pub a: Option<Cell>,
    pub b: Option<Cell>,
    pub delta: String,
    pub first: bool,
    pub differs: bool,
}

#[derive(Debug, Clone)]
pub enum Row {
    Text(Pieces),
    Event(Box<EventRow>),
}

/// Everything the view shows, built once when the comparison arrives.
#[derive(Debug, Clone)]
pub struct CompareView {
    pub title: String,
    /// The fixed head: run A, run B, the first divergence.
    pub head: Vec<Pieces>,
    pub rows: Vec<Row>,
    /// The first body row shown.
    pub scroll: usize,
}

fn status_role(status: &str) -> &'static str {
    match status {
        "ok" | "passed" => "passed",
        "failed" => "failed",
        "skipped" => "skipped",
        "in-progress" => "running",
        _ => "info",
    }
}

fn side_pieces(label: &str, s: &RunSide) -> Pieces {
    let st = s.status.as_str();
    let mut v = vec![
        (format!("{label}  "), "title"),
        (escape(&s.run_id).into_owned(), "text"),
        ("  ".into(), "text"),
        (format!("{} {st}", mark(st)), status_role(st)),
    ];
    if let Some(d) = s.duration_ms {
        v.push((format!("  {}", fmt_ms(d)), "badge"));
    }
    if let Some(m) = &s.model_name {
        v.push((format!("  model {}", escape(m)), "info"));
    }
    v.push((format!("  {}", escape(&s.path)), "muted"));
    v
}

fn cell(e: Option<&SideEvent>, ms: Option<u64>) -> Option<Cell> {
    let e = &e?.event;
    let status = if e.status.is_empty() { "?" } else { &e.status };
    let mut text = escape(status).into_owned();
    if !e.message.is_empty() {
        text.push(' ');
        text.push_str(&escape(&e.message));
    }
    Some(Cell {
        mark: mark(&e.status),
        role: status_role(&e.status),
        text,
        ms,
    })
}

/// A field change worth its own lines (the duration is in the columns already).
fn shown(field: &str) -> bool {
    field != "status" && field != "data.durationMs"
}

impl CompareView {
    pub fn new(d: &RunDiff) -> CompareView {
        let mut head = vec![side_pieces("A", &d.a), side_pieces("B", &d.b)];
        let first = d.first_divergence.as_ref().map(|f| f.index);
        head.push(match &d.first_divergence {
            None => vec![(
                "first divergence: none (same events, same statuses)".into(),
                "passed",
            )],
            Some(fd) => {
                let why = match fd.reason {
                    DivergenceReason::Status => format!(
                        "status {} → {}",
                        escape(fd.a.as_ref().map_or("", |e| e.status.as_str())),
                        escape(fd.b.as_ref().map_or("", |e| e.status.as_str()))
                    ),
                    DivergenceReason::OnlyInA => "only in A".into(),
                    DivergenceReason::OnlyInB => "only in B".into(),
                };
                vec![
                    ("first divergence: ".into(), "muted"),
                    (format!("#{} {}", fd.index + 1, escape(&fd.key)), "failed"),
                    (format!("  ({why})"), "warning"),
                ]
            }
        });
        let mut rows = Vec::new();
        if !d.meta.is_empty() {
            rows.push(Row::Text(vec![("meta".into(), "title")]));
            for c in &d.meta {
                change_rows(&mut rows, &c.field, c.a.as_ref(), c.b.as_ref());
            }
            rows.push(Row::Text(Vec::new()));
        }
        let mut scroll = 0;
        for (i, e) in d.events.iter().enumerate() {
            let is_first = first == Some(i);
            let changed = e.changes.iter().any(|c| shown(&c.field));
            let lead = if is_first {
                "▶"
            } else {
                match (&e.a, &e.b) {
                    (Some(_), None) => "-",
                    (None, Some(_)) => "+",
                    _ if changed || e.status_differs() => "~",
                    _ => " ",
                }
            };
            if is_first {
                scroll = rows.len();
            }
            rows.push(Row::Event(Box::new(EventRow {
                lead,
                key: escape(&e.key).into_owned(),
                a: cell(e.a.as_ref(), e.duration_ms_a),
                b: cell(e.b.as_ref(), e.duration_ms_b),
                delta: delta(e),
                first: is_first,
                differs: lead != " ",
            })));
            for c in e.changes.iter().filter(|c| shown(&c.field)) {
                change_rows(&mut rows, &c.field, c.a.as_ref(), c.b.as_ref());
            }
        }
        rows.push(Row::Text(Vec::new()));
        rows.push(Row::Text(vec![("artifacts".into(), "title")]));
        for (label, list) in [("A", &d.artifacts.a), ("B", &d.artifacts.b)] {
            if list.is_empty() {
                rows.push(Row::Text(vec![(format!("  {label}  none"), "muted")]));
            }
            for a in list {
                let mut v = vec![
                    (format!("  {label}  "), "title"),
                    (format!("{:<18}", escape(&a.kind)), "info"),
                    (escape(&a.path).into_owned(), "text"),
                ];
                if !a.inside {
                    v.push(("  (outside the run folder)".into(), "failed"));
                } else if !a.exists {
                    v.push(("  (missing)".into(), "warning"));
                }
                rows.push(Row::Text(v));
            }
        }
        if !d.problems.is_empty() {
            rows.push(Row::Text(Vec::new()));
            rows.push(Row::Text(vec![("problems".into(), "title")]));
            for p in &d.problems {
                rows.push(Row::Text(vec![(format!("  {p}"), "warning")]));
            }
        }
        let key = if d.a.key() == d.b.key() {
            escape(&d.a.key()).into_owned()
        } else {
            format!("{} / {}", escape(&d.a.key()), escape(&d.b.key()))
        };
        CompareView {
            title: format!(" Compare · {key} "),
            head,
            rows,
            scroll,
        }
    }

    /// The next differing timeline row below the top one.
    pub fn next_difference(&self) -> Option<usize> {
        (self.scroll + 1..self.rows.len())
            .find(|&i| matches!(&self.rows[i], Row::Event(e) if e.differs))
    }
}

/// `− field: a` / `+ field: b` under a row (a side without the value is left out).
fn change_rows(
    rows: &mut Vec<Row>,
    field: &str,
    a: Option<&serde_json::Value>,
    b: Option<&serde_json::Value>,
) {
    let f = escape(field);
    if a.is_some() || b.is_none() {
        rows.push(Row::Text(vec![(
            format!("      − {f}: {}", value_text(a)),
            "failed",
        )]));
    }
    if b.is_some() || a.is_none() {
        rows.push(Row::Text(vec![(
            format!("      + {f}: {}", value_text(b)),
            "passed",
        )]));
    }
}

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
fn columns(v: &CompareView, w: usize) -> (usize, usize, usize) {
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

pub fn draw(app: &App, v: &CompareView, theme: &Theme, f: &mut Frame) {
    let full = Rect::new(0, 0, app.size.0, app.size.1.saturating_sub(1));
    f.render_widget(Clear, full);
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
                    "▶" => "failed",
                    " " => "muted",
                    _ => "warning",
                };
                let mut spans = vec![
                    Span::styled(format!("{} ", e.lead), theme.get(lead_role)),
                    Span::styled(pad(&e.key, kw), theme.get("text")),
                    sep(),
                ];
                spans.extend(cell_spans(e.a.as_ref(), aw, theme));
                spans.push(sep());
                spans.extend(cell_spans(e.b.as_ref(), bw, theme));
                spans.push(sep());
                spans.push(Span::styled(e.delta.clone(), theme.get("warning")));
                let line = Line::from(spans);
                if e.first {
                    line.style(theme.get("selection"))
                } else {
                    line
                }
            }
        });
    }
    f.render_widget(Paragraph::new(lines).style(Style::default()), inner);
}
