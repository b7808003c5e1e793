//! The Runs tab: every run, newest first, filterable.

use super::super::app::{RunRow, RunsTab};
use super::super::theme::Theme;
use super::{empty_state, fmt_ms, headed, pane, spread, status_icon};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use testdeck_core::sanitize::escape;

/// The Runs tab; `editing`: its filter line is being typed.
pub fn draw(
    (runs, editing): (&RunsTab, bool),
    cx: &super::TabCtx,
    theme: &Theme,
    f: &mut Frame,
    r: Rect,
) {
    let total = runs.total(cx.ws);
    let mut title = vec![Span::raw(format!(
        " Runs · {}/{total} ",
        runs.visible().len()
    ))];
    if editing || !runs.filter().is_empty() {
        title.push(Span::styled(
            format!(
                "s: {}{} ",
                escape(runs.filter()),
                if editing { "▏" } else { "" }
            ),
            theme.get("input"),
        ));
    }
    let list = runs.list();
    let rows = r.height.saturating_sub(2) as usize;
    let block = super::with_more(
        pane(Line::from(title), cx.focused, theme),
        list.offset,
        list.below(runs.visible().len(), rows),
        theme,
    );
    let inner = block.inner(r);
    f.render_widget(block, r);
    let Some(ws) = cx.ws else {
        empty_state(
            vec![Line::raw(format!("{} indexing…", cx.spinner))],
            theme,
            f,
            inner,
        );
        return;
    };
    if runs.visible().is_empty() {
        let msg = if total == 0 {
            let hint = ["Runs appear under tests/logs/<scope>/<caseId>/<runId>/"];
            headed("No runs yet", theme.get("text"), hint)
        } else {
            vec![Line::raw("No run matches the filter (Esc clears it)")]
        };
        empty_state(msg, theme, f, inner);
        return;
    }
    let w = inner.width as usize;
    let mut lines = Vec::new();
    for (pos, &i) in runs.list().visible(runs.visible(), inner.height as usize) {
        let run = match i {
            RunRow::Tests(i) => &ws.logs.runs[i],
            RunRow::Record(r) => {
                let mut line = record_row(runs, r, theme, w);
                if pos == runs.list().cursor {
                    line = line.style(theme.get("selection"));
                }
                lines.push(line);
                continue;
            }
        };
        let left = vec![
            status_icon(Some(run.status), theme),
            Span::raw(" "),
            Span::styled(escape(&run.run_id).into_owned(), theme.get("muted")),
            Span::raw(" "),
            Span::styled(escape(&run.case_id).into_owned(), theme.get("text")),
            Span::styled(format!(" {}", escape(&run.scope)), theme.get("muted")),
        ];
        let duration = Span::styled(
            run.duration_ms().map(fmt_ms).unwrap_or_default(),
            theme.get("badge"),
        );
        let used: usize = left.iter().map(Span::width).sum::<usize>() + duration.width() + 1;
        let mut right = super::badges::run(&cx.badges, &run.path, theme, w.saturating_sub(used));
        right.push(duration);
        let mut line = spread(left, right, w);
        if pos == runs.list().cursor {
            line = line.style(theme.get("selection"));
        }
        lines.push(line);
    }
    f.render_widget(Paragraph::new(lines), inner);
}

/// A catalog run record: its verdict counts instead of one status.
fn record_row<'a>(runs: &RunsTab, i: usize, theme: &Theme, w: usize) -> Line<'a> {
    use testdeck_exec::record::{Outcome, Verdict};
    let Some((path, rec)) = runs.records().get(i) else {
        return Line::raw("");
    };
    match rec {
        Ok(r) => {
            let n = |v: Verdict| r.results.iter().filter(|c| c.verdict == v).count();
            let bad = n(Verdict::Fail) + n(Verdict::EnvironmentFail);
            let icon = match r.outcome() {
                Outcome::Failed => Span::styled("✗", theme.get("failed")),
                Outcome::Running => Span::styled("…", theme.get("running")),
                Outcome::Passed => Span::styled("✓", theme.get("passed")),
                // every case skipped or not run: nothing passed
                Outcome::NothingRan => Span::styled("·", theme.get("skipped")),
            };
            let left = vec![
                icon,
                Span::raw(" "),
                Span::styled(escape(&r.run_id).into_owned(), theme.get("muted")),
                Span::styled(" catalog", theme.get("badge_temp")),
            ];
            let mut right = vec![Span::styled(
                format!("{}✓ ", n(Verdict::Pass)),
                theme.get("passed"),
            )];
            if bad > 0 {
                right.push(Span::styled(format!("{bad}✗ "), theme.get("failed")));
            }
            let other = n(Verdict::Skipped) + n(Verdict::NotRun);
            if other > 0 {
                right.push(Span::styled(format!("{other}· "), theme.get("skipped")));
            }
            right.push(Span::styled(
                fmt_ms(r.results.iter().map(|c| c.duration_ms).sum()),
                theme.get("badge"),
            ));
            spread(left, right, w)
        }
        Err(_) => spread(
            vec![
                Span::styled("⚠ ", theme.get("warning")),
                Span::styled(escape(path).into_owned(), theme.get("muted")),
            ],
            vec![Span::styled("unreadable", theme.get("warning"))],
            w,
        ),
    }
}
