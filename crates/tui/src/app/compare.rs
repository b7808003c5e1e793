//! Compare (`c`): the run picked as A, and the comparison screen's rows — both
//! headers, the timelines aligned A | B with the first divergence, changed fields as
//! − a / + b under their row, step durations with the delta, both artifact lists.

use testdeck_core::sanitize::escape;
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::diff::fmt_ms;
use testdeck_core::workspace::diff::{
    NO_DIVERGENCE, RunDiff, RunSide, SideEvent, delta, mark, value_text,
};
use testdeck_core::workspace::logs::RawRun;

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

/// How an aligned timeline row compares: the mark it leads with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lead {
    /// The first divergence.
    First,
    OnlyA,
    OnlyB,
    /// In both, its status or a shown field differs.
    Changed,
    Same,
}

impl Lead {
    /// `▶` first divergence, `-` only in A, `+` only in B, `~` fields differ.
    pub fn mark(self) -> &'static str {
        match self {
            Lead::First => "▶",
            Lead::OnlyA => "-",
            Lead::OnlyB => "+",
            Lead::Changed => "~",
            Lead::Same => " ",
        }
    }
}

/// One aligned timeline row.
#[derive(Debug, Clone)]
pub struct EventRow {
    pub lead: Lead,
    pub key: String,
    pub a: Option<Cell>,
    pub b: Option<Cell>,
    pub delta: String,
}

#[derive(Debug, Clone)]
pub enum Row {
    Text(Pieces),
    Event(Box<EventRow>),
}

/// Everything the view shows, built once when the comparison arrives.
#[derive(Debug, Clone)]
pub struct CompareScreen {
    pub title: String,
    /// The fixed head: run A, run B, the first divergence.
    pub head: [Pieces; 3],
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
        (escape(&s.ident.run_id).into_owned(), "text"),
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

impl CompareScreen {
    pub fn new(d: &RunDiff) -> CompareScreen {
        let head = [
            side_pieces("A", &d.a),
            side_pieces("B", &d.b),
            match &d.first_divergence {
                None => vec![(NO_DIVERGENCE.into(), "passed")],
                Some(fd) => vec![
                    ("first divergence: ".into(), "muted"),
                    (format!("#{} {}", fd.index + 1, escape(&fd.key)), "failed"),
                    (format!("  ({})", fd.why()), "warning"),
                ],
            },
        ];
        let first = d.first_divergence.as_ref().map(|f| f.index);
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
                Lead::First
            } else {
                match (&e.a, &e.b) {
                    (Some(_), None) => Lead::OnlyA,
                    (None, Some(_)) => Lead::OnlyB,
                    _ if changed || e.status_differs() => Lead::Changed,
                    _ => Lead::Same,
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
        CompareScreen {
            title: format!(" Compare · {key} "),
            head,
            rows,
            scroll,
        }
    }

    /// The next differing timeline row below the top one.
    pub fn next_difference(&self) -> Option<usize> {
        (self.scroll + 1..self.rows.len())
            .find(|&i| matches!(&self.rows[i], Row::Event(e) if e.lead != Lead::Same))
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

/// The compare feature's state: the run picked as A by `c`.
#[derive(Debug, Default)]
pub struct Compare {
    /// The run folder picked as A (relative to the root).
    pick: Option<String>,
}

/// What a `c` asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    /// Compare these two run folders (A, B).
    Open(String, String),
    /// Nothing to compare yet: say this.
    Say(String),
}

fn key_of(ws: &Workspace, path: &str) -> Option<String> {
    ws.logs
        .runs
        .iter()
        .find(|r| r.path == path)
        .map(RawRun::key)
}

impl Compare {
    /// The run folder picked as A, if any.
    pub fn pick(&self) -> Option<&str> {
        self.pick.as_deref()
    }

    /// `c` on a run of the Runs tab: pick it as A, or compare the pick with it (same case).
    pub fn on_run(&mut self, ws: &Workspace, run: &RawRun) -> Step {
        let (path, key) = (run.path.clone(), run.key());
        let id = escape(&run.run_id).into_owned();
        match self.pick.take() {
            Some(p) if p == path => Step::Say("compare: pick cleared".into()),
            Some(p) if key_of(ws, &p).as_deref() == Some(key.as_str()) => Step::Open(p, path),
            other => {
                let again = if other.is_some() {
                    "another case: "
                } else {
                    ""
                };
                self.pick = Some(path);
                Step::Say(format!(
                    "compare: {again}A = {id}; c on another run of {} for B",
                    escape(&key)
                ))
            }
        }
    }

    /// `c` on case `key` of the tests tree, `shown` the run in the live pane: the pick
    /// against it, else the case's default pair (latest passed, latest failed).
    pub fn on_case(&mut self, ws: &Workspace, key: &str, shown: Option<String>) -> Step {
        if let (Some(p), Some(s)) = (self.pick.clone(), shown) {
            if p != s
                && key_of(ws, &p).as_deref() == Some(key)
                && key_of(ws, &s).as_deref() == Some(key)
            {
                self.pick = None;
                return Step::Open(p, s);
            }
        }
        match testdeck_core::workspace::diff::default_pair(ws, key) {
            Ok((passed, failed)) => Step::Open(passed, failed),
            Err(e) => Step::Say(format!("compare: {}", escape(&e.to_string()))),
        }
    }
}
