//! The badges of watch mode, compare and the contract checks: on tree nodes, run rows,
//! the details pane and the status bar.

use super::super::app::{CaseRow, NodeKind};
use super::super::theme::Theme;
use ratatui::text::{Line, Span};
use testdeck_core::workspace::cases::CaseRef;

pub use super::super::app::snapshot::Badges;

/// The contract warnings of a run, when it was checked and has some.
fn contract_span(b: &Badges, path: &str, theme: &Theme) -> Option<Span<'static>> {
    b.contract
        .counts()
        .get(path)
        .filter(|&&n| n > 0)
        .map(|n| Span::styled(format!("⚠{n} "), theme.get("warning")))
}

/// A case of the tree: watched (always), and its latest run's contract warnings when
/// they fit in `room` columns (a badge never shortens the name).
pub fn case(b: &Badges, c: &CaseRow, theme: &Theme, room: usize) -> Vec<Span<'static>> {
    let mut v = Vec::new();
    if b.watch.watched().contains(&c.case_ref()) {
        v.push(Span::styled("watch ", theme.get("running")));
    }
    let (s, e) = c.run_range;
    if e > s {
        if let Some(r) = b.ws.and_then(|w| w.logs.runs.get(e - 1)) {
            let used: usize = v.iter().map(Span::width).sum();
            v.extend(contract_span(b, &r.path, theme).filter(|b| used + b.width() <= room));
        }
    }
    v
}

/// A folder of the tree: how many cases under it are watched.
pub fn folder(b: &Badges, ni: usize, theme: &Theme) -> Vec<Span<'static>> {
    if b.watch.watched().is_empty() {
        return Vec::new();
    }
    let d = b.tests.nodes()[ni].depth;
    let n = b.tests.nodes()[ni + 1..]
        .iter()
        .take_while(|m| m.depth > d)
        .filter(
            |m| matches!(m.kind, NodeKind::Case(c) if b.watch.watched().contains(&b.tests.cases()[c].case_ref())),
        )
        .count();
    if n == 0 {
        return Vec::new();
    }
    vec![Span::styled(format!("watch {n} "), theme.get("running"))]
}

/// A row of the Runs tab: picked as A for compare (always), contract warnings when
/// they fit in `room` columns.
pub fn run(b: &Badges, path: &str, theme: &Theme, room: usize) -> Vec<Span<'static>> {
    let mut v = Vec::new();
    if b.compare.pick() == Some(path) {
        v.push(Span::styled("A ", theme.get("marked")));
    }
    // started by another process while the cockpit was open: no launch of ours
    if b.changes.is_external(path) {
        v.push(Span::styled("external ", theme.get("warning")));
    }
    let used: usize = v.iter().map(Span::width).sum();
    v.extend(contract_span(b, path, theme).filter(|b| used + b.width() <= room));
    v
}

/// A catalog case: watched.
pub fn catalog_case(b: &Badges, id: &str, theme: &Theme) -> Vec<Span<'static>> {
    if b.watch.watched().contains(&CaseRef::Catalog(id.to_owned())) {
        vec![Span::styled("watch ", theme.get("running"))]
    } else {
        Vec::new()
    }
}

/// The status bar: what is watched, reruns in flight.
pub fn status(b: &Badges, theme: &Theme) -> Vec<Span<'static>> {
    if b.watch.watched().is_empty() {
        return Vec::new();
    }
    let mut s = format!("◉ watching {}", b.watch.watched().len());
    if b.watch.reruns() > 0 {
        s.push_str(" ⟳");
    } else if !b.watch.armed() {
        s.push('…');
    }
    vec![Span::styled(s, theme.get("running"))]
}

/// The details pane of a case: contract warnings over its history (checked runs only).
pub fn history(b: &Badges, c: &CaseRow, theme: &Theme) -> Option<Line<'static>> {
    let ws = b.ws?;
    let (s, e) = c.run_range;
    let runs = ws.logs.runs.get(s..e)?;
    let (mut warned, mut total) = (0, 0);
    for r in runs.iter().rev().take(crate::app::contract::HISTORY) {
        if let Some(&n) = b.contract.counts().get(&r.path) {
            warned += usize::from(n > 0);
            total += n;
        }
    }
    (total > 0).then(|| {
        Line::from(vec![
            Span::styled(format!("{:<11}", "contract"), theme.get("muted")),
            Span::styled(
                format!("⚠ {total} warnings in {warned} of the last runs (testdeck validate)"),
                theme.get("warning"),
            ),
        ])
    })
}
