//! The domain report (`R`): which domain's `tests/report/<domain>/report.md` to read,
//! and the screen's model — its lines, each `report-stale` line with the logs' value,
//! and the other report problems under their line.

use std::collections::BTreeMap;
use testdeck_core::problem::Problem;
use testdeck_core::sanitize::escape;

/// What a line of the report is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub stale: bool,
    /// The logs' value for a stale number, the message otherwise (escaped).
    pub text: String,
}

#[derive(Debug, Clone)]
pub struct ReportScreen {
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

impl ReportScreen {
    pub fn new(file: &str, text: &str, problems: &[Problem]) -> ReportScreen {
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
        ReportScreen {
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

/// The domain a report is asked for from the selected scope (`temp` has none).
pub fn domain_of(scope: Option<&str>) -> Option<String> {
    scope
        .and_then(|s| s.split('/').next())
        .filter(|d| !d.is_empty() && *d != "temp")
        .map(str::to_owned)
}
