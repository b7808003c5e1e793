//! What the history says in the cockpit: the Insights screen (`I`, the ranked
//! lists of `testdeck insights` from the core, Enter jumps to a case), the change
//! times read off the loop for the stale badges, the tree's sort (`S`) and the
//! cases that changed against git (`C`). No drawing here: `view::insights` draws
//! the rows.

use super::super::action::Command;
use super::super::feature_work::FeatureWork;
use super::effect::Effect;
use super::tests_tab::TestsTab;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::cases::CaseRef;
use testdeck_core::workspace::changes::Update;
use testdeck_core::workspace::config::Insights as Settings;
use testdeck_core::workspace::diff::fmt_ms;
use testdeck_core::workspace::insights::ChangeTimesRead as _;
use testdeck_core::workspace::insights::{self, ChangeTimes, Durations};
use testdeck_core::workspace::stats::NodeKind;

/// How a row of the Insights screen is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Look {
    /// A list's title.
    Heading,
    /// How the list ranks, or what an empty list would show.
    Note,
    /// A case of a list: the figure, then its path.
    Entry,
}

/// One row: its look, its text (escaped), and the case it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub look: Look,
    pub text: String,
    /// `scope/caseId` of an entry.
    pub path: Option<String>,
}

/// What a key did on the Insights screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Stay,
    Close,
    /// Close, and select this case (`scope/caseId`).
    Jump(String),
}

/// The Insights screen (`I`): the six ranked lists, a cursor over their entries.
#[derive(Debug, Clone, Default)]
pub struct InsightsScreen {
    rows: Vec<Row>,
    /// The rows that are entries, in order.
    entries: Vec<usize>,
    /// Index into `entries`.
    cursor: usize,
    scroll: usize,
}

fn ms(v: Option<u64>) -> String {
    v.map_or_else(|| "—".to_owned(), fmt_ms)
}

impl InsightsScreen {
    /// The lists of the tests tab's figures (computed with the workspace's
    /// `[insights]` settings in the statistics' pass).
    pub(in crate::app) fn new(tests: &TestsTab, s: &Settings) -> InsightsScreen {
        let cases = tests
            .stats()
            .values()
            .filter(|n| n.kind == NodeKind::Case)
            .filter_map(|n| n.figures.as_ref().map(|f| (n.path.as_str(), f)));
        let changes = tests.change_times();
        let l = insights::lists(cases, changes, insights::DEFAULT_TOP);
        let mut v = InsightsScreen::default();
        let dur = |d: &Durations| {
            format!(
                "{:>7}  p90 {:>7}  last {:>7}",
                ms(d.median),
                ms(d.p90),
                ms(d.last)
            )
        };
        v.list(
            "Slowest",
            &format!("median of the last {} runs", s.window),
            "no case has a run with a duration yet",
            l.slowest
                .iter()
                .map(|e| (dur(&e.figure.duration_ms), &e.path)),
        );
        v.list(
            "Regressions",
            &format!(
                "latest run over {}× the median before it, and {} ms more",
                s.regression_ratio, s.regression_floor_ms
            ),
            "no latest run is slower than the runs before it",
            l.regressions.iter().map(|e| {
                let r = &e.figure;
                let ratio = r
                    .ratio
                    .map_or_else(|| "new".to_owned(), |x| format!("{x:.2}×"));
                (
                    format!(
                        "{ratio:>7}  {} → {}",
                        fmt_ms(r.median_before_ms),
                        fmt_ms(r.last_ms)
                    ),
                    &e.path,
                )
            }),
        );
        v.list(
            "Flakiest",
            &format!("pass↔fail flips over the last {} runs", s.window),
            "no case flips between passed and failed",
            l.flakiest.iter().map(|e| {
                let f = &e.figure;
                (
                    format!(
                        "{:>7.3}  {} flip{} in {} runs",
                        f.flaky_score,
                        f.flips,
                        if f.flips == 1 { "" } else { "s" },
                        f.runs
                    ),
                    &e.path,
                )
            }),
        );
        let failing = |f: &insights::Failing| {
            format!(
                "{:>4} run{}  since {}",
                f.streak,
                if f.streak == 1 { " " } else { "s" },
                escape(&f.failing_since)
            )
        };
        v.list(
            "New failures",
            "latest run failed, the one before passed",
            "no case newly failing",
            l.new_failures.iter().map(|e| (failing(&e.figure), &e.path)),
        );
        v.list(
            "Failing streaks",
            "latest runs failed, two or more in a row",
            "no case failing two runs or more in a row",
            l.failing_streaks
                .iter()
                .map(|e| (failing(&e.figure), &e.path)),
        );
        let none_stale = if changes.is_some() {
            "no case's files changed after its latest run"
        } else {
            "reading when the cases' files changed…"
        };
        v.list(
            "Stale",
            "the case's files changed after its latest run",
            none_stale,
            l.stale
                .iter()
                .map(|e| (format!("changed {}", escape(&e.figure.changed_at)), &e.path)),
        );
        v
    }

    fn list<'a>(
        &mut self,
        title: &str,
        how: &str,
        empty: &str,
        entries: impl Iterator<Item = (String, &'a String)>,
    ) {
        if !self.rows.is_empty() {
            self.rows.push(row(Look::Note, String::new(), None));
        }
        self.rows
            .push(row(Look::Heading, format!("{title}  ({how})"), None));
        let before = self.rows.len();
        for (figure, path) in entries {
            self.entries.push(self.rows.len());
            let text = format!("  {figure}  {}", escape(path));
            self.rows.push(row(Look::Entry, text, Some(path.clone())));
        }
        if self.rows.len() == before {
            self.rows
                .push(row(Look::Note, format!("  ({empty})"), None));
        }
    }

    /// The rows to draw.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// The row under the cursor (`None`: every list is empty).
    pub fn cursor_row(&self) -> Option<usize> {
        self.entries.get(self.cursor).copied()
    }

    /// The first row shown.
    pub fn scroll(&self) -> usize {
        self.scroll
    }

    /// A key; `page` is half the terminal's height.
    pub fn command(&mut self, c: Command, page: isize) -> Outcome {
        let page = usize::try_from(page).unwrap_or(1).max(1);
        let last = self.entries.len().saturating_sub(1);
        match c {
            Command::Close | Command::Quit => return Outcome::Close,
            Command::Open | Command::Confirm => {
                return match self.cursor_row().and_then(|r| self.rows[r].path.clone()) {
                    Some(p) => Outcome::Jump(p),
                    None => Outcome::Close,
                };
            }
            Command::MoveDown => self.cursor = (self.cursor + 1).min(last),
            Command::MoveUp => self.cursor = self.cursor.saturating_sub(1),
            Command::PageDown => self.cursor = (self.cursor + page).min(last),
            Command::PageUp => self.cursor = self.cursor.saturating_sub(page),
            Command::GoTop => self.cursor = 0,
            Command::GoBottom => self.cursor = last,
            _ => {}
        }
        // the cursor's row in view of the body (the screen less its borders)
        let body = (page * 2).saturating_sub(4).max(1);
        match self.cursor_row() {
            Some(r) if r < self.scroll => self.scroll = r.saturating_sub(1),
            Some(r) if r >= self.scroll + body => self.scroll = r + 1 - body,
            _ => {}
        }
        // the first case shows the top, the last one the lists after it
        if self.cursor == 0 {
            self.scroll = 0;
        } else if self.cursor == last {
            self.scroll = self.rows.len().saturating_sub(body);
        }
        Outcome::Stay
    }
}

fn row(look: Look, text: String, path: Option<String>) -> Row {
    Row { look, text, path }
}

/// Whether the workspace watch's updates touch a case's own files (the change
/// times are read again).
pub(in crate::app) fn touches_cases(updates: &[Update]) -> bool {
    updates.iter().any(|u| {
        matches!(
            u,
            Update::Case { .. }
                | Update::Tree(_)
                | Update::Plan(..)
                | Update::Catalog(..)
                | Update::RemoveCases(_)
        )
    })
}

/// The job that reads when each case's files changed (stale badges).
pub(in crate::app) fn change_times_job(ws: &Workspace) -> Effect {
    Effect::Work(FeatureWork::ChangeTimes {
        files: ChangeTimes::files(ws),
    })
}

/// `C`: ask git what differs from `HEAD` (as `--changed` selects), once the
/// workspace is loaded (`loaded`); what the status bar says meanwhile.
pub(super) fn ask_changed(loaded: bool) -> (String, Option<Effect>) {
    if !loaded {
        return ("still indexing".into(), None);
    }
    (
        "C: asking git what changed…".into(),
        Some(Effect::Work(FeatureWork::Changed)),
    )
}

/// What git said for `C`: the changed cases of `tests` and the catalog, to be
/// the marks (`None` when git failed), and what the status bar says.
pub(super) fn changed_marks(
    tests: &TestsTab,
    found: Result<testdeck_core::workspace::changed::Changed, String>,
) -> (String, Option<std::collections::BTreeSet<CaseRef>>) {
    let ch = match found {
        Err(e) => return (format!("C: {}", escape(&e)), None),
        Ok(ch) => ch,
    };
    let mut marks = std::collections::BTreeSet::new();
    for c in tests.cases() {
        if !c.orphan() && ch.has_test(&c.key) {
            marks.insert(c.case_ref());
        }
    }
    for id in &ch.catalog {
        marks.insert(CaseRef::Catalog(id.clone()));
    }
    let notice = match marks.len() {
        0 => "C: no case changed against HEAD".to_owned(),
        1 => "C: 1 changed case marked (r runs it)".to_owned(),
        n => format!("C: {n} changed cases marked (r runs them)"),
    };
    (notice, Some(marks))
}
