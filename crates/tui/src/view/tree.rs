//! The Tests tab: the tests tree with per-node badges.

use super::super::app::add_case::AddCase;
use super::super::app::tests_tab::Sort;
use super::super::app::{NodeKind, TestsTab};
use super::super::theme::Theme;
use super::{empty_state, headed, pane, spread, status_icon};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
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
    let mut block = pane(title(tests, adding, cx), cx.focused, theme);
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
        let read = cx.ws.is_some_and(|w| w.config.outside.is_some());
        let hint = [
            if read {
                "No file matches testdeck.toml [outside]"
            } else {
                "Your vitest / Playwright tests:"
            },
            if read {
                "`testdeck init --force` reads again"
            } else {
                "`testdeck init` shows them here"
            },
            "New: `testdeck new tests/<domain>/…`",
            "Adopt: `testdeck adopt FILE --to …`",
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
        let line = match tests.nodes()[ni].kind {
            NodeKind::Folder => folder_row(tests, ni, cx, theme, w),
            NodeKind::Case(ci) => case_row(tests, ni, ci, cx, theme, w),
        };
        lines.push(if pos == tests.list().cursor {
            line.style(theme.get("selection"))
        } else {
            line
        });
    }
    f.render_widget(Paragraph::new(lines), inner);
}

/// The pane's title: the name being typed by `a`, else the count and the sort.
fn title(tests: &TestsTab, adding: &AddCase, cx: &super::TabCtx) -> String {
    if let Some(file) = adding.adopting() {
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
    }
}

/// A folder's row: its mark, open sign, name and count, then its failing, flaky
/// and pass-rate columns.
fn folder_row(
    tests: &TestsTab,
    ni: usize,
    cx: &super::TabCtx,
    theme: &Theme,
    w: usize,
) -> Line<'static> {
    let n = &tests.nodes()[ni];
    let indent = "  ".repeat(n.depth);
    let mut left: Vec<Span> = Vec::new();
    let mut right: Vec<Span> = Vec::new();
    let stats = tests.stats().get(&n.key);
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
    spread(left, right, w)
}

/// A case's row: its mark, status and name, then its badges (each shrunk to its
/// one-column sign when the row is narrow), runs and pass rate.
fn case_row(
    tests: &TestsTab,
    ni: usize,
    ci: usize,
    cx: &super::TabCtx,
    theme: &Theme,
    w: usize,
) -> Line<'static> {
    let n = &tests.nodes()[ni];
    let indent = "  ".repeat(n.depth);
    let mut left: Vec<Span> = Vec::new();
    let mut right: Vec<Span> = Vec::new();
    let stats = tests.stats().get(&n.key);
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
    let prefix: usize = left.iter().map(Span::width).sum();
    left.push(Span::styled(n.label.clone(), name_style));
    // each badge in full and as its one-column sign (the legend of `?`)
    let mut badges: Vec<(String, char, &str)> = Vec::new();
    if c.live {
        badges.push(("LIVE".into(), 'L', "badge_live"));
    }
    if c.temp {
        badges.push(("TEMP".into(), 'T', "badge_temp"));
    }
    if !c.registered {
        badges.push(("⚠unreg".into(), '⚠', "warning"));
    }
    if c.orphan() {
        badges.push(("orphan".into(), '∅', "muted"));
    }
    if stats.is_some_and(|s| s.flaky_cases > 0) {
        badges.push(("~flaky".into(), '~', "warning"));
    }
    let figures = stats.and_then(|s| s.figures.as_ref());
    if figures.is_some_and(|f| f.new_failure) {
        badges.push(("new✗".into(), '!', "failed"));
    }
    if figures.is_some_and(|f| f.stale) {
        badges.push(("stale".into(), '≈', "warning"));
    }
    match c.latest {
        Some(RunStatus::InProgress) => badges.push(("running".into(), '↻', "running")),
        Some(RunStatus::Cancelled) => badges.push(("cancelled".into(), '⊘', "muted")),
        Some(RunStatus::Abandoned) => badges.push(("abandoned".into(), '?', "warning")),
        _ => {}
    }
    let runs = (c.runs > 0).then(|| Span::styled(format!("{}× ", c.runs), theme.get("badge")));
    let rate = rate_span(
        stats.and_then(|s| s.historical.historical_success_rate),
        theme,
    );
    // the name keeps 16 columns (or all of it) before any badge
    // (a longer name: 16 of its characters and the `…` that says it goes on)
    let name_w = n.label.chars().count();
    let keep = prefix
        + if name_w > NAME_KEEPS {
            NAME_KEEPS + 1
        } else {
            name_w
        };
    let full: usize = badges
        .iter()
        .map(|(t, _, _)| t.chars().count() + 1)
        .sum::<usize>()
        + runs.as_ref().map_or(0, Span::width)
        + rate.width();
    let narrow = full + keep + 1 > w;
    for (text, sign, style) in &badges {
        if narrow {
            right.push(Span::styled(sign.to_string(), theme.get(style)));
        } else {
            right.push(Span::styled(format!("{text} "), theme.get(style)));
        }
    }
    if narrow && !badges.is_empty() {
        right.push(Span::raw(" "));
    }
    right.extend(runs);
    right.push(rate);
    let used: usize = keep + right.iter().map(Span::width).sum::<usize>() + 1;
    let extra = super::badges::case(&cx.badges, c, theme, w.saturating_sub(used));
    // before the rate: on a row too narrow they give way first
    let at = right.len().saturating_sub(1);
    right.splice(at..at, extra);
    super::spread_keeping(left, right, w, keep)
}

fn mark_span(marked: bool, theme: &Theme) -> Span<'static> {
    if marked {
        Span::styled("●", theme.get("marked"))
    } else {
        Span::raw(" ")
    }
}

/// The columns of a case's name kept before any badge (the whole name when shorter).
pub const NAME_KEEPS: usize = 16;

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
