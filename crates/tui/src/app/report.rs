//! The domain report (`R`): which domain's `tests/report/<domain>/report.md` to read,
//! and the screen's model — its lines, each `report-stale` line with the logs' value,
//! the lines a person has still to write (`report-unwritten`), and the other report
//! problems under their line; a domain without a report shows its draft, and `u`
//! shows the report's update from the logs as a diff (`y` writes either).

use std::collections::{BTreeMap, BTreeSet};
use testdeck_core::problem::Problem;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::report::{Draft, PLACEHOLDER, Update};

/// What the report screen shows.
#[derive(Debug, Clone)]
pub enum ReportKind {
    /// The report on disk.
    Report,
    /// No report yet: the draft from the logs (`y` writes it).
    Draft(Box<Draft>),
    /// The report's update from the logs as a unified diff (`y` writes it).
    Update(Box<Update>),
}

/// What a line of the report is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub stale: bool,
    /// The logs' value for a stale number, the message otherwise (escaped).
    pub text: String,
    /// Where a stale number ends in its line (a byte offset into the escaped
    /// line): its marker goes beside it; `None`: not found, at the line's end.
    pub at: Option<usize>,
}

#[derive(Debug, Clone)]
pub struct ReportScreen {
    pub domain: String,
    pub kind: ReportKind,
    pub file: String,
    /// The report's lines, escaped.
    pub lines: Vec<String>,
    /// Notes by 0-based line.
    pub notes: BTreeMap<usize, Vec<Note>>,
    /// Problems without a line.
    pub general: Vec<String>,
    pub stale: usize,
    /// The lines that still hold the draft's placeholder (0-based).
    pub unwritten: BTreeSet<usize>,
    pub scroll: usize,
}

/// The logs' value of a `report-stale` message ("… is R in the report but L in the logs").
fn logs_value(message: &str) -> Option<&str> {
    message
        .rsplit_once(" but ")
        .and_then(|(_, v)| v.strip_suffix(" in the logs"))
}

/// The field and the report's value of a `report-stale` message
/// ("node \"x\": FIELD is R in the report but L in the logs").
fn field_and_value(message: &str) -> Option<(&str, &str)> {
    let (head, _) = message.rsplit_once(" but ")?;
    let (head, value) = head.strip_suffix(" in the report")?.rsplit_once(" is ")?;
    let field = head.rsplit_once(": ").map_or(head, |(_, f)| f);
    Some((field, value))
}

/// Where the number `value` of `field` ends in `line`, as the core's check reads
/// it: before `次 raw runs` / `次 passed` / `次 failed` / `个 case` in a
/// conclusion, before the `/` of `A / B 个 case` for the passed cases, else
/// after the field's name (`- totalRuns: 12`, `historicalSuccessRate=70%`).
fn number_end(line: &str, field: &str, value: &str) -> Option<usize> {
    let before = |marker: &str| -> Option<usize> {
        let at = line.find(marker)?;
        line[..at].rfind(value).map(|p| p + value.len())
    };
    let end = match field {
        "totalRuns" if line.contains("次 raw runs") => before("次 raw runs"),
        "passedRuns" if line.contains("次 passed") => before("次 passed"),
        "failedRuns" if line.contains("次 failed") => before("次 failed"),
        "latestCaseCount" if line.contains("个 case") => before("个 case"),
        "latestPassedCases" if line.contains("个 case") => {
            let head = &line[..line.find("个 case")?];
            let slash = head.rfind('/')?;
            head[..slash].rfind(value).map(|p| p + value.len())
        }
        _ => {
            let f = line.find(field)? + field.len();
            line[f..].find(value).map(|p| f + p + value.len())
        }
    }?;
    // its unit and its closing backtick stay with it (`81.8%`, `` `33` ``)
    let tail = line[end..]
        .chars()
        .take(2)
        .take_while(|c| matches!(c, '%' | '`'))
        .count();
    Some(end + tail)
}

impl ReportScreen {
    pub fn new(domain: &str, file: &str, text: &str, problems: &[Problem]) -> ReportScreen {
        let lines: Vec<String> = text.lines().map(|l| escape(l).into_owned()).collect();
        let mut notes: BTreeMap<usize, Vec<Note>> = BTreeMap::new();
        let mut general = Vec::new();
        let mut stale = 0;
        // a placeholder is marked on its own line (not as a note under it)
        for p in problems.iter().filter(|p| p.rule != "report-unwritten") {
            let is_stale = p.rule == "report-stale";
            stale += usize::from(is_stale);
            let text = match (is_stale, logs_value(&p.message)) {
                (true, Some(v)) => format!("logs: {}", escape(v)),
                _ => format!("{}: {}", p.rule, escape(&p.message)),
            };
            match p.line {
                Some(l) if (l as usize) <= lines.len().max(1) => {
                    let line = lines.get(l as usize - 1).map_or("", String::as_str);
                    let at = field_and_value(&p.message)
                        .filter(|_| is_stale)
                        .and_then(|(f, v)| number_end(line, f, &escape(v)));
                    notes.entry(l as usize - 1).or_default().push(Note {
                        stale: is_stale,
                        text,
                        at,
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
            domain: domain.to_owned(),
            kind: ReportKind::Report,
            file: escape(file).into_owned(),
            unwritten: unwritten(text),
            lines,
            notes,
            general,
            stale,
            scroll,
        }
    }

    /// The draft of a domain without a report.
    pub fn draft(d: Draft) -> ReportScreen {
        let mut v = ReportScreen::plain(&d.domain, &d.file, &d.text);
        v.unwritten = unwritten(&d.text);
        v.kind = ReportKind::Draft(Box::new(d));
        v
    }

    /// The update of a report, as its unified diff.
    pub fn update(u: Update) -> ReportScreen {
        let mut v = ReportScreen::plain(&u.domain, &u.file, &u.diff);
        // open on the first hunk
        v.scroll = v
            .lines
            .iter()
            .position(|l| l.starts_with("@@"))
            .unwrap_or(0);
        v.kind = ReportKind::Update(Box::new(u));
        v
    }

    fn plain(domain: &str, file: &str, text: &str) -> ReportScreen {
        ReportScreen {
            domain: domain.to_owned(),
            kind: ReportKind::Report,
            file: escape(file).into_owned(),
            lines: text.lines().map(|l| escape(l).into_owned()).collect(),
            notes: BTreeMap::new(),
            general: Vec::new(),
            stale: 0,
            unwritten: BTreeSet::new(),
            scroll: 0,
        }
    }

    /// The next line with a note, below the top one (shown two lines down).
    pub fn next_stale(&self) -> Option<usize> {
        let hunks = self
            .lines
            .iter()
            .enumerate()
            .filter(|(_, l)| matches!(self.kind, ReportKind::Update(_)) && l.starts_with("@@"))
            .map(|(i, _)| i);
        let mut at: Vec<usize> = self
            .notes
            .keys()
            .chain(&self.unwritten)
            .copied()
            .map(|l| l.saturating_sub(2))
            .chain(hunks)
            .collect();
        at.sort_unstable();
        at.into_iter().find(|&s| s > self.scroll)
    }
}

/// The lines of `text` that hold the draft's placeholder.
fn unwritten(text: &str) -> BTreeSet<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.contains(PLACEHOLDER))
        .map(|(i, _)| i)
        .collect()
}

/// The domain a report is asked for from the selected scope (`temp` has none).
pub fn domain_of(scope: Option<&str>) -> Option<String> {
    scope
        .and_then(|s| s.split('/').next())
        .filter(|d| !d.is_empty() && *d != "temp")
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_stale_number_is_found_where_it_ends() {
        let line = "共 12 次 raw runs，10 次 passed，2 次 failed，historicalSuccessRate=83.3%";
        let at = |f: &str, v: &str| number_end(line, f, v).map(|e| &line[..e]);
        assert_eq!(at("totalRuns", "12"), Some("共 12"));
        assert_eq!(at("passedRuns", "10"), Some("共 12 次 raw runs，10"));
        assert_eq!(
            at("failedRuns", "2").map(|s| s.ends_with("，2")),
            Some(true)
        );
        assert_eq!(at("historicalSuccessRate", "83.3"), Some(line));
        let ticks = "- 历史总数据: `33` 次 raw runs";
        assert_eq!(
            number_end(ticks, "totalRuns", "33").map(|e| &ticks[..e]),
            Some("- 历史总数据: `33`")
        );
        let cases = "latest: 3 / 4 个 case";
        assert_eq!(number_end(cases, "latestPassedCases", "3"), Some(9));
        assert_eq!(number_end(cases, "latestCaseCount", "4"), Some(13));
        assert_eq!(number_end("- totalRuns: 16", "totalRuns", "16"), Some(15));
        assert_eq!(
            field_and_value("node \"kb\": totalRuns is 16 in the report but 15 in the logs"),
            Some(("totalRuns", "16"))
        );
    }
}
