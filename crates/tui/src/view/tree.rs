//! The Tests tab: the tests tree with per-node badges.

use super::super::app::add_case::AddCase;
use super::super::app::tests_tab::Sort;
use super::super::app::{NodeKind, TestsTab};
use super::super::theme::Theme;
use super::{empty_state, headed, pane, spread, status_icon};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::Paragraph;
use testdeck_core::workspace::logs::RunStatus;
use testdeck_core::workspace::stats::fmt_rate;

#[allow(clippy::many_single_char_names)] // r, f, w, h, l, s: the usual drawing names
pub fn draw(
    (tests, adding): (&TestsTab, &AddCase),
    cx: &super::TabCtx,
    theme: &Theme,
    f: &mut Frame,
    r: Rect,
) {
    let title = if let Some(file) = adding.adopting() {
        // `a` on a temp case: the formal folder it moves to, being typed
        let name = file.rsplit('/').next().unwrap_or(file);
        format!(
            " Adopt {} into tests/{}▏ ",
            testdeck_core::sanitize::escape(name),
            testdeck_core::sanitize::escape(adding.typed())
        )
    } else if let Some(folder) = adding.folder() {
        // `a`: the caseId being typed, and its folder (the cursor is on it: its last
        // name is enough, the title of a narrow tree has no room for the whole scope)
        let last = folder.rsplit('/').next().unwrap_or(folder);
        format!(
            " New case in {}/: {}▏ ",
            testdeck_core::sanitize::escape(last),
            testdeck_core::sanitize::escape(adding.typed())
        )
    } else if cx.loading {
        " Tests ".to_owned()
    } else {
        // the tree's own order goes unnamed; another sort is named (`S`)
        match tests.sort() {
            Sort::Name => format!(" Tests · {} ", tests.cases().len()),
            s => format!(" Tests · {} · sort: {} ", tests.cases().len(), s.name()),
        }
    };
    let mut block = pane(title, cx.focused, theme);
    let rows = r.height.saturating_sub(3) as usize;
    let list = tests.list();
    block = super::with_more(
        block,
        list.offset,
        list.below(tests.visible().len(), rows),
        theme,
    );
    let inner = block.inner(r);
    f.render_widget(block, r);
    if let Some(e) = cx.load_error {
        let e = testdeck_core::sanitize::escape(e).into_owned();
        let lines = headed("Cannot open the workspace", theme.get("failed"), [e]);
        empty_state(lines, theme, f, inner);
        return;
    }
    if cx.loading {
        let head = format!("{} indexing workspace…", cx.spinner);
        let what = ["tests tree, logs, test plan, catalog"];
        empty_state(headed(head, theme.get("running"), what), theme, f, inner);
        return;
    }
    if tests.nodes().is_empty() {
        let hint = [
            "A case is tests/<domain>/<layer>/<suite>/…/<name>.test.ts",
            "Run logs appear under tests/logs/",
        ];
        let lines = headed("No test cases here", theme.get("text"), hint);
        empty_state(lines, theme, f, inner);
        return;
    }
    let w = inner.width as usize;
    // the header names the columns; `?` has the full legend
    let h = (inner.height as usize).saturating_sub(1);
    let mut lines = Vec::with_capacity(h + 1);
    lines.push(spread(
        vec![Span::styled(
            " ✗ failing ~ flaky N× runs",
            theme.get("muted"),
        )],
        vec![Span::styled("% runs passed", theme.get("muted"))],
        w,
    ));
    for (pos, &ni) in tests.list().visible(tests.visible(), h) {
        let n = &tests.nodes()[ni];
        let indent = "  ".repeat(n.depth);
        let mut left: Vec<Span> = Vec::new();
        let mut right: Vec<Span> = Vec::new();
        let stats = tests.stats().get(&n.key);
        match n.kind {
            NodeKind::Folder => {
                let open = tests.expanded().contains(&n.key);
                // the cases under it, and how many of them are marked
                let (under, marked) = tests.nodes()[ni + 1..]
                    .iter()
                    .take_while(|m| m.depth > n.depth)
                    .filter_map(|m| match m.kind {
                        NodeKind::Case(c) => Some(cx.marks.contains(&tests.cases()[c].case_ref())),
                        NodeKind::Folder => None,
                    })
                    .fold((0, 0), |(u, m), k| (u + 1, m + usize::from(k)));
                let marked_all = n.count > 0 && under > 0 && marked == under;
                left.push(mark_span(marked_all, theme));
                left.push(Span::raw(indent));
                left.push(Span::styled(
                    if open { "▾ " } else { "▸ " },
                    theme.get("folder"),
                ));
                left.push(Span::styled(n.label.clone(), theme.get("folder")));
                left.push(Span::styled(format!(" {}", n.count), theme.get("muted")));
                // marked cases hidden in a closed folder: the folder says how many
                if !open && marked > 0 {
                    right.push(Span::styled(format!("●{marked} "), theme.get("marked")));
                }
                right.extend(super::badges::folder(&cx.badges, ni, theme));
                if n.failing > 0 {
                    right.push(Span::styled(
                        format!("✗{} ", n.failing),
                        theme.get("failed"),
                    ));
                }
                if let Some(s) = stats {
                    if s.flaky_cases > 0 {
                        right.push(Span::styled(
                            format!("~{} ", s.flaky_cases),
                            theme.get("warning"),
                        ));
                    }
                    // the same column as a case's: passed runs of all on record
                    right.push(rate_span(s.historical.historical_success_rate, theme));
                }
            }
            NodeKind::Case(ci) => {
                let c = &tests.cases()[ci];
                left.push(mark_span(cx.marks.contains(&c.case_ref()), theme));
                left.push(Span::raw(indent));
                left.push(status_icon(c.latest, theme));
                left.push(Span::raw(" "));
                let name_style = if c.orphan() {
                    theme.get("muted")
                } else {
                    theme.get("text")
                };
                left.push(Span::styled(n.label.clone(), name_style));
                if c.live {
                    right.push(Span::styled("LIVE ", theme.get("badge_live")));
                }
                if c.temp {
                    right.push(Span::styled("TEMP ", theme.get("badge_temp")));
                }
                if !c.registered {
                    right.push(Span::styled("⚠unreg ", theme.get("warning")));
                }
                if c.orphan() {
                    right.push(Span::styled("orphan ", theme.get("muted")));
                }
                if stats.is_some_and(|s| s.flaky_cases > 0) {
                    right.push(Span::styled("~flaky ", theme.get("warning")));
                }
                let figures = stats.and_then(|s| s.figures.as_ref());
                if figures.is_some_and(|f| f.new_failure) {
                    right.push(Span::styled("new✗ ", theme.get("failed")));
                }
                if figures.is_some_and(|f| f.stale) {
                    right.push(Span::styled("stale ", theme.get("warning")));
                }
                match c.latest {
                    Some(RunStatus::InProgress) => {
                        right.push(Span::styled("running ", theme.get("running")));
                    }
                    Some(RunStatus::Cancelled) => {
                        right.push(Span::styled("cancelled ", theme.get("muted")));
                    }
                    Some(RunStatus::Abandoned) => {
                        right.push(Span::styled("abandoned ", theme.get("warning")));
                    }
                    _ => {}
                }
                if c.runs > 0 {
                    right.push(Span::styled(format!("{}× ", c.runs), theme.get("badge")));
                }
                right.push(rate_span(
                    stats.and_then(|s| s.historical.historical_success_rate),
                    theme,
                ));
                let used: usize = left.iter().chain(&right).map(Span::width).sum::<usize>() + 1;
                let badges = super::badges::case(&cx.badges, c, theme, w.saturating_sub(used));
                right.splice(0..0, badges);
            }
        }
        let mut line = spread(left, right, w);
        if pos == tests.list().cursor {
            line = line.style(theme.get("selection"));
        }
        lines.push(line);
    }
    f.render_widget(Paragraph::new(lines), inner);
}

fn mark_span(marked: bool, theme: &Theme) -> Span<'static> {
    if marked {
        Span::styled("●", theme.get("marked"))
    } else {
        Span::raw(" ")
    }
}

/// A pass rate coloured by how good it is.
pub fn rate_span(r: Option<f64>, theme: &Theme) -> Span<'static> {
    let st = match r {
        None => theme.get("muted"),
        Some(x) if x >= 100.0 => theme.get("passed"),
        Some(x) if x >= 80.0 => theme.get("warning"),
        Some(_) => theme.get("failed"),
    };
    Span::styled(format!("{:>6}", fmt_rate(r)), st)
}
