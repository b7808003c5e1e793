//! `testdeck diff`: two runs of a case side by side (a thin adapter over
//! [`testdeck_core::workspace::diff`]).

use super::{EXIT_FOUND, print_json, usage};
use std::fmt::Write as _;
use std::process::ExitCode;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::diff::{
    self, FieldChange, NO_DIVERGENCE, RunDiff, RunSide, delta, mark, value_text,
};
use testdeck_core::workspace::logs::{Artifact, RunStatus};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Two runs: run folders (relative to the root or absolute) or runIds.
    #[arg(value_name = "RUN", num_args = 0..=2)]
    pub(crate) runs: Vec<String>,
    /// Compare the latest passed and the latest failed run of this case (caseId or scope/caseId).
    #[arg(long = "case", value_name = "CASEID", conflicts_with = "runs")]
    pub(crate) case_id: Option<String>,
    /// Compare runs of different cases anyway.
    #[arg(long)]
    pub(crate) force: bool,
    /// One JSON document.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &Args, ws: &testdeck_core::workspace::Workspace) -> ExitCode {
    let (dir_a, dir_b) = if let Some(case) = &args.case_id {
        match diff::default_pair(ws, case) {
            Ok((a, b)) => (ws.root.join(a), ws.root.join(b)),
            Err(e) => return usage(&format!("diff --case: {e}")),
        }
    } else {
        let [a, b] = args.runs.as_slice() else {
            return usage("diff: name two runs (folders or runIds), or use --case CASEID");
        };
        let resolve = |arg: &str| diff::resolve_run(ws, arg).map_err(|e| usage(&e.to_string()));
        match (resolve(a), resolve(b)) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(code), _) | (_, Err(code)) => return code,
        }
    };
    let d = match diff::diff_runs(&ws.root, &dir_a, &dir_b) {
        Ok(d) => d,
        Err(e) => return usage(&e),
    };
    if d.a.key() != d.b.key() && !args.force {
        return usage(&format!(
            "runs of different cases ({} and {}); use --force to compare them anyway",
            d.a.key(),
            d.b.key()
        ));
    }
    if args.json {
        print_json(&d);
    } else {
        print!("{}", text(&d));
    }
    if d.differs() {
        ExitCode::from(EXIT_FOUND)
    } else {
        ExitCode::SUCCESS
    }
}

fn ms(d: Option<u64>) -> String {
    d.map_or_else(String::new, |d| format!("{d}ms"))
}

fn width(s: &str) -> usize {
    s.chars().count()
}

fn pad(s: &str, w: usize) -> String {
    let n = width(s);
    if n >= w {
        s.to_owned()
    } else {
        format!("{s}{}", " ".repeat(w - n))
    }
}

fn side_line(label: &str, s: &RunSide) -> String {
    let mut line = format!(
        "{label}  {}  {} {}",
        escape(&s.ident.run_id),
        mark(s.status.as_str()),
        s.status.as_str()
    );
    if let Some(d) = s.duration_ms {
        let _ = write!(line, "  {d}ms");
    }
    if let Some(m) = &s.model_name {
        let _ = write!(line, "  model {}", escape(m));
    }
    let _ = write!(line, "  {}", escape(&s.path));
    line
}

fn cell(e: Option<&diff::SideEvent>, d: Option<u64>) -> String {
    match e {
        None => "—".into(),
        Some(s) => {
            let st = if s.event.status.is_empty() {
                "?".to_owned()
            } else {
                escape(&s.event.status).into_owned()
            };
            let mut c = format!("{} {st}", mark(&s.event.status));
            if d.is_some() {
                let _ = write!(c, " {}", ms(d));
            }
            c
        }
    }
}

/// A change worth a line of its own: `data.durationMs` is in the duration
/// columns already (it stays in the JSON `changes`).
fn shown_change(c: &FieldChange) -> bool {
    c.field != "data.durationMs"
}

fn change_line(c: &FieldChange) -> String {
    format!(
        "{}: {} → {}",
        escape(&c.field),
        value_text(c.a.as_ref()),
        value_text(c.b.as_ref())
    )
}

fn artifact_line(a: &Artifact) -> String {
    let mut s = format!(
        "{}  {}  {}",
        escape(&a.kind),
        escape(&a.id),
        escape(&a.path)
    );
    if !a.inside {
        s.push_str("  (outside the run folder: never opened)");
    } else if !a.exists {
        s.push_str("  (missing)");
    }
    s
}

/// The human form: both runs, meta differences, the aligned timelines with
/// the first divergence marked, changed fields, step durations, artifacts.
/// Every piece of text from the logs is escaped.
#[expect(
    clippy::too_many_lines,
    reason = "the diff's sections in the order they print"
)]
pub fn text(d: &RunDiff) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", side_line("A", &d.a));
    let _ = writeln!(out, "{}", side_line("B", &d.b));
    if d.a.key() != d.b.key() {
        let _ = writeln!(
            out,
            "cases differ: {} / {}",
            escape(&d.a.key()),
            escape(&d.b.key())
        );
    }
    let _ = writeln!(out);
    match &d.first_divergence {
        None => {
            let _ = writeln!(out, "{NO_DIVERGENCE}");
        }
        Some(fd) => {
            let _ = writeln!(
                out,
                "first divergence: #{} {}  ({})",
                fd.index + 1,
                escape(&fd.key),
                fd.why()
            );
        }
    }
    if !d.meta.is_empty() {
        let _ = writeln!(out, "\nmeta");
        for c in &d.meta {
            let _ = writeln!(out, "  {}", change_line(c));
        }
    }
    let _ = writeln!(out, "\ntimeline");
    let rows: Vec<(String, String, String, String, String)> = d
        .events
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let lead = if d.first_divergence.as_ref().is_some_and(|f| f.index == i) {
                "▶"
            } else {
                match (&e.a, &e.b) {
                    (Some(_), None) => "-",
                    (None, Some(_)) => "+",
                    _ if e.changes.iter().any(shown_change) => "~",
                    _ => " ",
                }
            };
            (
                lead.to_owned(),
                escape(&e.key).into_owned(),
                cell(e.a.as_ref(), e.duration_ms_a),
                cell(e.b.as_ref(), e.duration_ms_b),
                delta(e),
            )
        })
        .collect();
    let wk = rows.iter().map(|r| width(&r.1)).max().unwrap_or(0).max(5);
    let wa = rows.iter().map(|r| width(&r.2)).max().unwrap_or(0).max(1);
    let wb = rows.iter().map(|r| width(&r.3)).max().unwrap_or(0).max(1);
    let _ = writeln!(
        out,
        "  {}  {}  {}  Δ",
        pad("event", wk),
        pad("A", wa),
        pad("B", wb),
    );
    for (e, r) in d.events.iter().zip(&rows) {
        let line = format!(
            "{} {}  {}  {}  {}",
            r.0,
            pad(&r.1, wk),
            pad(&r.2, wa),
            pad(&r.3, wb),
            r.4
        );
        let _ = writeln!(out, "{}", line.trim_end());
        for c in e
            .changes
            .iter()
            .filter(|c| c.field != "status" && shown_change(c))
        {
            let _ = writeln!(out, "      {}", change_line(c));
        }
    }
    let _ = writeln!(out, "\nartifacts");
    for (label, list) in [("A", &d.artifacts.a), ("B", &d.artifacts.b)] {
        if list.is_empty() {
            let _ = writeln!(out, "  {label}: none");
        }
        for a in list {
            let _ = writeln!(out, "  {label}: {}", artifact_line(a));
        }
    }
    if !d.problems.is_empty() {
        let _ = writeln!(out, "\nproblems");
        for p in &d.problems {
            let _ = writeln!(out, "  {p}");
        }
    }
    if matches!(d.a.status, RunStatus::InProgress) || matches!(d.b.status, RunStatus::InProgress) {
        let _ = writeln!(
            out,
            "\nnote: a run without meta.json is in progress or abandoned"
        );
    }
    out
}
