//! The Catalog tab: the tester catalog by category, in execution order, with each case's
//! risk, tag, lifecycle (pending/retired greyed), gate, driver and automation.

use super::super::app::{CatRow, CatalogTab, RunsTab};
use super::super::theme::Theme;
use super::{empty_state, headed, pane, risk_style, spread, spread_keeping};

/// Columns of a catalog row's id and title kept before its badges give way.
const TITLE_KEEP: usize = 40;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::cases::CaseRef;
use testdeck_core::workspace::catalog::{Automation, Lifecycle};

/// The Catalog tab: its rows, with each case's latest verdict from the run records.
#[expect(
    clippy::too_many_lines,
    reason = "the catalog pane's rows in one pass, each from the same widths and marks"
)]
pub fn draw(
    (catalog, runs): (&CatalogTab, &RunsTab),
    cx: &super::TabCtx,
    theme: &Theme,
    f: &mut Frame,
    r: Rect,
) {
    let cat = cx.ws.and_then(|w| w.catalog.as_ref());
    let title = cat.map_or_else(
        || " Catalog ".to_owned(),
        |c| {
            format!(
                " Catalog · {} · {} ",
                super::plural(c.cases.len(), "case", "cases"),
                super::plural(c.categories.len(), "category", "categories")
            )
        },
    );
    let list = catalog.list();
    let rows = r.height.saturating_sub(2) as usize;
    let block = super::with_more(
        pane(title, cx.focused, theme),
        list.offset,
        list.below(catalog.rows().len(), rows),
        theme,
    );
    let inner = block.inner(r);
    f.render_widget(block, r);
    let Some(cat) = cat else {
        let lines = if cx.loading {
            vec![Line::styled(
                format!("{} indexing…", cx.spinner),
                theme.get("running"),
            )]
        } else {
            let hint = [
                "A catalog lives in .pouch/tester/catalog.yaml",
                "with cases in .pouch/tester/cases/<category>.yaml",
            ];
            headed("No tester catalog here", theme.get("text"), hint)
        };
        empty_state(lines, theme, f, inner);
        return;
    };
    if catalog.rows().is_empty() {
        let hint = ["Add cases in .pouch/tester/cases/<category>.yaml"];
        let lines = headed("The catalog has no cases", theme.get("text"), hint);
        empty_state(lines, theme, f, inner);
        return;
    }
    let w = inner.width as usize;
    // the risk column is as wide as the widest risk shown, not always 11
    let risk_w = cat
        .cases
        .iter()
        .map(|c| c.risk.map_or(1, |r| r.as_str().len()))
        .max()
        .unwrap_or(1);
    let mut lines = Vec::new();
    for (pos, row) in catalog
        .list()
        .visible(catalog.rows(), inner.height as usize)
    {
        let mut line = match *row {
            CatRow::Category(i) => {
                let c = &cat.categories[i];
                let n = cat.cases.iter().filter(|x| x.category == c.id).count();
                let probe = if cat.effective_probe(&c.id).is_some() {
                    "probe "
                } else {
                    ""
                };
                spread(
                    vec![
                        Span::styled(format!("▾ {}", escape(&c.id)), theme.get("folder")),
                        Span::styled(format!(" {n}  "), theme.get("muted")),
                        Span::styled(escape(&c.title).into_owned(), theme.get("muted")),
                    ],
                    vec![Span::styled(probe, theme.get("info"))],
                    w,
                )
            }
            CatRow::Case(i) => {
                let c = &cat.cases[i];
                let marked = cx.marks.contains(&CaseRef::Catalog(c.id.clone()));
                let inactive = matches!(c.lifecycle, Some(Lifecycle::Pending | Lifecycle::Retired));
                let name = if inactive {
                    theme.get("muted")
                } else {
                    theme.get("text")
                };
                let mut right = super::badges::catalog_case(&cx.badges, &c.id, theme);
                if let Some(l) = c.lifecycle.filter(|l| *l != Lifecycle::Active) {
                    right.push(Span::styled(format!("{l} "), theme.get("muted")));
                }
                if let Some(g) = &c.gate {
                    right.push(Span::styled(
                        format!("gate:{} ", escape(g)),
                        theme.get("warning"),
                    ));
                }
                match c.automation() {
                    Automation::Automated => {}
                    a => right.push(Span::styled(format!("{a} "), theme.get("badge_temp"))),
                }
                if let Some(d) = c.driver {
                    right.push(Span::styled(format!("{d} "), theme.get("badge")));
                }
                if let Some(t) = c.tag {
                    right.push(Span::styled(format!("{t} "), theme.get("badge")));
                }
                let risk = c.risk.map_or("—", |r| r.as_str());
                right.push(Span::styled(
                    format!("{risk:>risk_w$}"),
                    risk_style(c.risk, theme),
                ));
                // the title is read before the driver and tag badges: they give
                // way first
                spread_keeping(
                    vec![
                        Span::styled(if marked { "●" } else { " " }, theme.get("marked")),
                        Span::raw(" "),
                        verdict_mark(runs.latest().get(&c.id).copied(), theme),
                        Span::raw(" "),
                        Span::styled(escape(&c.id).into_owned(), name),
                        // a run_together member: runs (or is left out) with its group
                        Span::styled(
                            cat.group_of(&c.id)
                                .map_or_else(String::new, |g| format!(" ⇄{}", g + 1)),
                            theme.get("info"),
                        ),
                        Span::styled(format!("  {}", escape(&c.title)), theme.get("muted")),
                    ],
                    right,
                    w,
                    TITLE_KEEP,
                )
            }
        };
        if pos == catalog.list().cursor {
            line = line.style(theme.get("selection"));
        }
        lines.push(line);
    }
    f.render_widget(Paragraph::new(lines), inner);
}

/// A catalog case's latest verdict over the run records, one cell: ✓ passed, ✗
/// failed, · skipped or not run, blank when no record has it.
pub fn verdict_mark(v: Option<testdeck_exec::record::Verdict>, theme: &Theme) -> Span<'static> {
    use testdeck_exec::record::Verdict;
    match v {
        None => Span::raw(" "),
        Some(Verdict::Pass) => Span::styled("✓", theme.get("passed")),
        Some(Verdict::Fail | Verdict::EnvironmentFail) => Span::styled("✗", theme.get("failed")),
        Some(Verdict::Skipped | Verdict::NotRun) => Span::styled("·", theme.get("skipped")),
    }
}
