//! The details pane: every field of the selected case, folder or run, with its history.

use super::super::app::snapshot::Details;
use super::super::app::{CaseRow, CatalogTab, NodeKind, Tab, TestsTab};
use super::super::theme::Theme;
use super::badges::Badges;
use super::{empty_state, fmt_ms, pane};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::logs::{RawRun, RunStatus};
use testdeck_core::workspace::stats::{NodeStats, fmt_rate};
use testdeck_exec::record::PastVerdict;

/// Runs shown in the history strip.
use super::super::app::contract::HISTORY;
const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

fn field<'a>(name: &str, value: impl Into<String>, theme: &Theme) -> Line<'a> {
    Line::from(vec![
        Span::styled(format!("{name:<11}"), theme.get("muted")),
        Span::styled(value.into(), theme.get("text")),
    ])
}

fn field_spans<'a>(name: &str, mut value: Vec<Span<'a>>, theme: &Theme) -> Line<'a> {
    value.insert(0, Span::styled(format!("{name:<11}"), theme.get("muted")));
    Line::from(value)
}

/// A field whose value has its own style (a theme key).
fn field_styled<'a>(name: &str, value: impl Into<String>, style: &str, theme: &Theme) -> Line<'a> {
    field_spans(
        name,
        vec![Span::styled(value.into(), theme.get(style))],
        theme,
    )
}

/// Fields the schema does not know, one warning line each (`key = value`).
fn extra_lines<'a, 'm>(
    extra: impl IntoIterator<Item = (&'m String, &'m serde_json::Value)>,
    theme: &Theme,
    v: &mut Vec<Line<'a>>,
) {
    for (k, val) in extra {
        v.push(field_styled(
            "extra",
            format!("{} = {}", escape(k), escape(&val.to_string())),
            "warning",
            theme,
        ));
    }
}

/// The details' lines for the selection (`None` before the workspace is
/// loaded; empty when nothing is selected).
pub fn lines(d: &Details, theme: &Theme) -> Option<Vec<Line<'static>>> {
    let ws = d.ws?;
    // a failed run: why, under the title line (the whole of it is `W`)
    let why = super::why::summary(&d.why, theme);
    let mut rest = match d.tab {
        Tab::Tests => match d.node.map(|n| (n, &n.kind)) {
            Some((n, NodeKind::Folder)) => folder(d.tests, n, theme),
            Some((_, NodeKind::Case(c))) => case(&d.badges, &d.tests.cases()[*c], theme),
            None => Vec::new(),
        },
        Tab::Runs => match (d.run, d.record) {
            (Some((r, meta)), _) => run(r, meta, theme),
            (None, Some((path, rec))) => record(path, rec, theme),
            _ => Vec::new(),
        },
        Tab::Catalog => catalog((d.catalog, d.verdicts), ws, theme),
    };
    if !rest.is_empty() {
        rest.splice(1..1, why);
    }
    Some(rest)
}

/// How far the details pane can scroll at the current size (its wrapped rows
/// less the rows shown), for the app to keep its scroll inside.
pub fn max_scroll(lines: &[Line<'_>], r: Option<Rect>) -> usize {
    let Some(r) = r else {
        return 0;
    };
    let inner = ratatui::widgets::Block::bordered().inner(r);
    super::wrapped_rows(lines, inner.width).saturating_sub(inner.height as usize)
}

/// The details pane: `lines` (`None`: nothing loaded yet) scrolled to `scroll`;
/// `empty` says what it would show and how to get it when there is nothing.
pub fn draw(
    (lines, scroll, empty): (Option<Vec<Line<'static>>>, usize, [&'static str; 2]),
    has_focus: bool,
    theme: &Theme,
    f: &mut Frame,
    r: Rect,
) {
    let block = pane(" Details ", has_focus, theme);
    let Some(lines) = lines else {
        f.render_widget(block, r);
        return;
    };
    if lines.is_empty() {
        let inner = block.inner(r);
        f.render_widget(block, r);
        let [what, how] = empty;
        empty_state(
            super::headed(what, theme.get("text"), [how]),
            theme,
            f,
            inner,
        );
        return;
    }
    super::scrolled_text(f, block, (lines, true), scroll, r, theme);
}

fn stats_lines<'a>(s: Option<&NodeStats>, theme: &Theme) -> Vec<Line<'a>> {
    let Some(s) = s else {
        return vec![field(
            "stats",
            "— (temp cases count in no statistic)",
            theme,
        )];
    };
    let h = &s.historical;
    let l = &s.latest;
    vec![
        field_spans(
            "historical",
            tally(
                &super::plural(h.total_runs, "run", "runs"),
                h.passed_runs,
                h.failed_runs,
                super::tree::rate_span(h.historical_success_rate, theme),
                theme,
            ),
            theme,
        ),
        field_spans(
            "latest",
            tally(
                &super::plural(l.latest_case_count, "case", "cases"),
                l.latest_passed_cases,
                l.latest_failed_cases,
                Span::styled(fmt_rate(l.latest_success_rate), theme.get("text")),
                theme,
            ),
            theme,
        ),
    ]
}

/// What a run's timeline says of the tests inside its file (SPEC §1.2): how
/// many and how they ended, and a run that ran none says why (it is no pass and
/// no duration sample).
fn tests_lines<'a>(r: &RawRun, theme: &Theme) -> Vec<Line<'a>> {
    let mut v = Vec::new();
    if let Some(why) = r.no_tests() {
        v.push(field_styled(
            "tests",
            format!("ran no test: {} (no pass, no duration sample)", escape(why)),
            "warning",
            theme,
        ));
    } else if let Some(t) = r.test_counts() {
        v.push(field("tests", t.phrase(), theme));
    }
    v
}

/// `12 runs · 9 ✓ · 3 ✗ · 75%`: a count, how many of it passed and failed, the rate.
fn tally<'a>(
    count: &str,
    passed: impl std::fmt::Display,
    failed: impl std::fmt::Display,
    rate: Span<'a>,
    theme: &Theme,
) -> Vec<Span<'a>> {
    vec![
        Span::styled(format!("{count} · "), theme.get("text")),
        Span::styled(format!("{passed} ✓"), theme.get("passed")),
        Span::raw(" · "),
        Span::styled(format!("{failed} ✗"), theme.get("failed")),
        Span::raw(" · "),
        rate,
    ]
}

fn folder<'a>(tests: &TestsTab, n: &super::super::app::TreeNode, theme: &Theme) -> Vec<Line<'a>> {
    let s = tests.stats().get(&n.key);
    let mut v = vec![
        Line::from(vec![
            Span::styled("▾ ", theme.get("folder")),
            Span::styled(escape(&n.key).into_owned(), theme.get("title")),
        ]),
        field("kind", s.map_or("folder", |s| s.kind.as_str()), theme),
        field_spans(
            "cases",
            vec![
                Span::styled(format!("{}", n.count), theme.get("text")),
                Span::styled(
                    if n.failing > 0 {
                        format!("  ({} failing)", n.failing)
                    } else {
                        String::new()
                    },
                    theme.get("failed"),
                ),
            ],
            theme,
        ),
    ];
    v.extend(stats_lines(s, theme));
    if let Some(s) = s {
        v.push(field(
            "flaky",
            super::plural(s.flaky_cases, "case", "cases"),
            theme,
        ));
    }
    v
}

/// The history strip (oldest → newest) of the last finished runs.
pub fn history<'a>(runs: &[RawRun], theme: &Theme) -> Vec<Span<'a>> {
    let done: Vec<&RawRun> = runs.iter().filter(|r| r.status.is_finished()).collect();
    done[done.len().saturating_sub(HISTORY)..]
        .iter()
        .map(|r| match r.status {
            RunStatus::Passed => Span::styled("✓", theme.get("passed")),
            _ => Span::styled("✗", theme.get("failed")),
        })
        .collect()
}

/// A duration sparkline of the last finished runs, with min and max.
pub fn sparkline(runs: &[RawRun]) -> Option<String> {
    let d: Vec<u64> = runs
        .iter()
        .filter(|r| r.status.is_finished())
        .filter_map(RawRun::duration_ms)
        .collect();
    let d = &d[d.len().saturating_sub(HISTORY)..];
    let (lo, hi) = (*d.iter().min()?, *d.iter().max()?);
    let bars: String = d
        .iter()
        .map(|&x| {
            let i = if hi == lo {
                3
            } else {
                ((x - lo) * 7 / (hi - lo)) as usize
            };
            BARS[i.min(7)]
        })
        .collect();
    Some(format!("{bars}  {}–{}", fmt_ms(lo), fmt_ms(hi)))
}

#[expect(
    clippy::too_many_lines,
    reason = "one case's detail lines in the order they show"
)]
fn case<'a>(b: &Badges, c: &CaseRow, theme: &Theme) -> Vec<Line<'a>> {
    let Some(ws) = b.ws else {
        return Vec::new();
    };
    let runs = &ws.logs.runs[c.run_range.0..c.run_range.1];
    let mut v = vec![Line::from(vec![
        super::status_icon(c.latest, theme),
        Span::raw(" "),
        Span::styled(escape(&c.case_id).into_owned(), theme.get("title")),
    ])];
    v.push(field("scope", escape(&c.scope).into_owned(), theme));
    match c.test.map(|t| &ws.tests.cases[t]) {
        Some(t) => {
            v.push(field("path", escape(&t.path).into_owned(), theme));
            let l = &t.levels;
            let levels = [
                Some(l.domain.as_str()),
                l.layer.as_deref(),
                l.suite.as_deref(),
            ]
            .iter()
            .flatten()
            .map(|s| escape(s).into_owned())
            .collect::<Vec<_>>()
            .join(" › ");
            v.push(field("levels", levels, theme));
            if !l.groups.is_empty() {
                v.push(field(
                    "groups",
                    escape(&l.groups.join(" › ")).into_owned(),
                    theme,
                ));
            }
        }
        None => v.push(field_styled(
            "path",
            "orphan: its logs remain, the test file is gone",
            "warning",
            theme,
        )),
    }
    let mut flags = Vec::new();
    if c.live {
        flags.push(Span::styled(
            "LIVE (real model calls; asks before running) ",
            theme.get("badge_live"),
        ));
    }
    if c.temp {
        flags.push(Span::styled(
            "TEMP (non-gating, in no statistic) ",
            theme.get("badge_temp"),
        ));
    }
    if !c.registered {
        flags.push(Span::styled(
            "⚠ not registered in doc/test-plan/ ",
            theme.get("warning"),
        ));
    } else if !c.temp {
        flags.push(Span::styled("registered ", theme.get("passed")));
    }
    v.push(field_spans("flags", flags, theme));
    let strip = history(runs, theme);
    if strip.is_empty() {
        v.push(field("history", "no finished runs yet — r runs it", theme));
    } else {
        v.push(field_spans("history", strip, theme));
    }
    v.extend(super::badges::history(b, c, theme));
    if let Some(sp) = sparkline(runs) {
        v.push(field_styled("duration", sp, "accent", theme));
    }
    if let Some(last) = runs.last() {
        v.push(field_spans(
            "last run",
            vec![
                super::status_icon(Some(last.status), theme),
                Span::styled(
                    format!(" {} {}", escape(&last.run_id), last.status.as_str()),
                    theme.get("text"),
                ),
            ],
            theme,
        ));
        v.extend(tests_lines(last, theme));
    }
    v.extend(stats_lines(b.tests.stats().get(&c.key), theme));
    match ws.plan.entry(&c.case_id) {
        Some(e) => {
            v.push(field(
                "plan",
                format!("{}:{}", escape(&e.file), e.line),
                theme,
            ));
            if let Some(fields) = table_fields(&e.text) {
                // a table row reads as its header's fields, not as raw markdown
                for (name, value) in fields {
                    v.push(Line::from(vec![
                        Span::styled(format!("  {}: ", escape(&name)), theme.get("muted")),
                        Span::styled(escape(&value).into_owned(), theme.get("text")),
                    ]));
                }
            } else {
                for l in e.text.lines().take(30) {
                    v.push(Line::styled(format!("  {}", escape(l)), theme.get("muted")));
                }
            }
        }
        None if !c.temp => v.push(field_spans(
            "plan",
            vec![Span::styled("no entry in doc/test-plan/", Style::default())],
            theme,
        )),
        None => {}
    }
    v
}

/// A table-style plan entry (header row, `---` row, the case's row) as
/// (column, value) pairs; `None` for any other text.
fn table_fields(text: &str) -> Option<Vec<(String, String)>> {
    let cells = |l: &str| -> Vec<String> {
        let t = l.trim().trim_start_matches('|').trim_end_matches('|');
        t.split('|').map(|c| c.trim().to_owned()).collect()
    };
    let lines: Vec<&str> = text.lines().collect();
    let [head, sep, row] = lines.as_slice() else {
        return None;
    };
    let is_sep = |c: &String| !c.is_empty() && c.chars().all(|x| matches!(x, '-' | ':' | ' '));
    if !sep.trim_start().starts_with('|') || !cells(sep).iter().all(is_sep) {
        return None;
    }
    let fields: Vec<(String, String)> = cells(head)
        .into_iter()
        .zip(cells(row))
        .filter(|(_, v)| !v.is_empty())
        .collect();
    (!fields.is_empty()).then_some(fields)
}

fn run<'a>(
    r: &RawRun,
    full: Option<&testdeck_core::workspace::logs::Meta>,
    theme: &Theme,
) -> Vec<Line<'a>> {
    let e = |s: &str| escape(s).into_owned();
    let mut v = vec![
        Line::from(vec![
            super::status_icon(Some(r.status), theme),
            Span::styled(format!(" {}", e(&r.run_id)), theme.get("title")),
        ]),
        field("caseId", e(&r.case_id), theme),
        field("scope", e(&r.scope), theme),
        field("status", r.status.as_str(), theme),
        field("path", e(&r.path), theme),
    ];
    v.extend(tests_lines(r, theme));
    if let Some(m) = &r.meta {
        let opt = |o: Option<&str>| o.map_or_else(|| "—".into(), shown_time);
        v.push(field("startedAt", opt(m.started_at.as_deref()), theme));
        v.push(field("finishedAt", opt(m.finished_at.as_deref()), theme));
        let stats = m.stats();
        if let Some(d) = stats.duration_ms {
            v.push(field("duration", fmt_ms(d), theme));
        }
        let n = |x: Option<u64>| x.map_or_else(|| "—".to_owned(), |x| x.to_string());
        v.push(field(
            "stats",
            format!(
                "steps {} · assertions {} · errors {} · artifacts {}",
                n(stats.steps),
                n(stats.assertions),
                n(stats.errors),
                n(stats.artifacts)
            ),
            theme,
        ));
        // the rest of the meta is read on demand (the index keeps only the summary)
        let rt = full.map(|f| &f.runtime);
        v.push(field(
            "runtime",
            format!(
                "driver {} · target {} · model {}",
                opt(rt.and_then(|r| r.driver.as_deref())),
                opt(rt.and_then(|r| r.target.as_deref())),
                opt(rt.and_then(|r| r.model_name.as_deref()))
            ),
            theme,
        ));
        if let Some(s) = full.and_then(|f| f.schema_version).filter(|s| *s != 4) {
            v.push(field_styled(
                "schema",
                format!("schemaVersion {s} (expected 4)"),
                "warning",
                theme,
            ));
        }
        if let Some(f) = full {
            extra_lines(&f.extra, theme, &mut v);
        }
    } else if r.meta_broken {
        v.push(field_styled(
            "meta",
            "meta.json unreadable",
            "failed",
            theme,
        ));
    } else {
        v.push(field_styled(
            "meta",
            "no meta.json yet: in progress",
            "running",
            theme,
        ));
    }
    let mut missing = Vec::new();
    if !r.has_timeline {
        missing.push("timeline.jsonl");
    }
    if r.status.is_finished() && !r.has_runtime_events {
        missing.push("runtime-events.jsonl");
    }
    if r.status.is_finished() && !r.has_artifacts_json {
        missing.push("artifacts.json");
    }
    if !missing.is_empty() {
        v.push(field_styled(
            "missing",
            missing.join(", "),
            "warning",
            theme,
        ));
    }
    v
}

fn list_lines(name: &str, items: &[String], theme: &Theme, out: &mut Vec<Line<'_>>) {
    if items.is_empty() {
        return;
    }
    out.push(Line::styled(name.to_owned(), theme.get("muted")));
    for (i, it) in items.iter().enumerate() {
        out.push(Line::from(vec![
            Span::styled(format!("  {:>2}. ", i + 1), theme.get("muted")),
            Span::styled(escape(it).into_owned(), theme.get("text")),
        ]));
    }
}

#[expect(
    clippy::too_many_lines,
    reason = "a catalog entry's detail lines in the order they show"
)]
fn catalog<'a>(
    (tab, verdicts): (&CatalogTab, &[PastVerdict]),
    ws: &Workspace,
    theme: &Theme,
) -> Vec<Line<'a>> {
    use super::super::app::CatRow;
    use testdeck_core::workspace::catalog::{Driver, Lifecycle, Tag};
    let Some(cat) = ws.catalog.as_ref() else {
        return Vec::new();
    };
    let e = |s: &str| escape(s).into_owned();
    match tab.rows().get(tab.list().cursor) {
        Some(CatRow::Category(i)) => {
            let c = &cat.categories[*i];
            let mut v = vec![
                Line::styled(format!("▾ {}", e(&c.id)), theme.get("title")),
                field("title", e(&c.title), theme),
                field(
                    "cases",
                    cat.cases
                        .iter()
                        .filter(|x| x.category == c.id)
                        .count()
                        .to_string(),
                    theme,
                ),
                field(
                    "order",
                    format!("{} of {}", i + 1, cat.categories.len()),
                    theme,
                ),
            ];
            match cat.effective_probe(&c.id) {
                Some(p) => {
                    v.push(field("probe", e(&p.url), theme));
                    for s in &p.stop_if {
                        let vals: Vec<String> = s.values.iter().map(ToString::to_string).collect();
                        v.push(field(
                            "  stop_if",
                            e(&format!("{} in [{}]", s.field, vals.join(", "))),
                            theme,
                        ));
                    }
                }
                None => v.push(field("probe", "none", theme)),
            }
            v
        }
        Some(CatRow::Case(i)) => {
            let c = &cat.cases[*i];
            let opt = |o: Option<&str>| o.map_or_else(|| "—".to_owned(), e);
            let risk = c.risk.map_or("—", |r| r.as_str());
            let mut v = vec![
                Line::styled(e(&c.id), theme.get("title")),
                field("title", e(&c.title), theme),
                field("category", e(&c.category), theme),
                latest_verdict(verdicts.first(), theme),
                field_spans(
                    "risk",
                    vec![Span::styled(risk, super::risk_style(c.risk, theme))],
                    theme,
                ),
                field("lifecycle", opt(c.lifecycle.map(Lifecycle::as_str)), theme),
                field("tag", opt(c.tag.map(Tag::as_str)), theme),
                field("gate", opt(c.gate.as_deref()), theme),
                field("driver", opt(c.driver.map(Driver::as_str)), theme),
                field("automation", c.automation().as_str(), theme),
                field("session", opt(c.session.as_deref()), theme),
                field("file", format!("{}:{}", e(&c.file), c.pos.line), theme),
            ];
            if !c.what.is_empty() {
                v.push(field("what", e(&c.what), theme));
            }
            if let Some(r) = &c.how.run {
                // a script of several lines is shown as its lines, each escaped,
                // under the field's name (never one line with a literal `\n`)
                for (i, line) in r.trim_end().lines().enumerate() {
                    v.push(field(if i == 0 { "how.run" } else { "" }, e(line), theme));
                }
            }
            if let Some(u) = &c.how.url {
                v.push(field(
                    "how.url",
                    format!("{} {}", c.how.method(), e(u)),
                    theme,
                ));
            }
            v.push(field("timeout", format!("{}s", c.how.timeout), theme));
            list_lines("how.steps", &c.how.steps, theme, &mut v);
            let expected: Vec<String> = c
                .expected
                .iter()
                .map(|x| format!("{} {}", x.kind.map_or("?", |k| k.as_str()), x.value))
                .collect();
            list_lines("expected", &expected, theme, &mut v);
            if let Some(a) = &c.assume {
                v.push(field("assume", e(a), theme));
            }
            list_lines("maps_to", &c.maps_to, theme, &mut v);
            list_lines("setup", &c.setup, theme, &mut v);
            list_lines("teardown", &c.teardown, theme, &mut v);
            list_lines("notes", &c.notes, theme, &mut v);
            extra_lines(&c.extra, theme, &mut v);
            verdict_lines(verdicts, theme, &mut v);
            v
        }
        None => Vec::new(),
    }
}

/// How many past verdicts a catalog case's details list.
pub use super::super::app::snapshot::LAST_VERDICTS;

/// A catalog case's latest verdict, one line near the top (the list is below).
fn latest_verdict<'a>(latest: Option<&PastVerdict>, theme: &Theme) -> Line<'a> {
    let Some(p) = latest else {
        return field("verdict", "— (no run record has it)", theme);
    };
    let mut spans = vec![
        super::catalog::verdict_mark(Some(p.verdict), theme),
        Span::styled(
            format!(" {}", p.verdict.as_str()),
            super::catalog::verdict_mark(Some(p.verdict), theme).style,
        ),
        Span::styled(format!(" · {}", escape(&p.run_id)), theme.get("muted")),
    ];
    if p.by_person {
        spans.push(Span::styled(" · by a person", theme.get("info")));
    }
    field_spans("verdict", spans, theme)
}

/// A catalog case's last verdicts over the run records, newest first.
fn verdict_lines(past: &[PastVerdict], theme: &Theme, out: &mut Vec<Line<'_>>) {
    if past.is_empty() {
        out.push(field(
            "verdicts",
            "none yet (no run record has this case)",
            theme,
        ));
        return;
    }
    out.push(field(
        "verdicts",
        format!("last {} (newest first)", past.len()),
        theme,
    ));
    for p in past {
        let mut spans = vec![
            super::catalog::verdict_mark(Some(p.verdict), theme),
            Span::styled(
                format!(" {:<16} ", p.verdict.as_str()),
                super::catalog::verdict_mark(Some(p.verdict), theme).style,
            ),
            Span::styled(escape(&p.run_id).into_owned(), theme.get("muted")),
        ];
        if p.by_person {
            spans.push(Span::styled(" · by a person", theme.get("info")));
        }
        if let Some(n) = p.note.as_ref().or(p.reason.as_ref()) {
            spans.push(Span::styled(
                format!(" · {}", escape(n)),
                theme.get("muted"),
            ));
        }
        out.push(field_spans("", spans, theme));
    }
}

fn record<'a>(
    path: &str,
    rec: &Result<testdeck_exec::record::RunRecord, String>,
    theme: &Theme,
) -> Vec<Line<'a>> {
    let e = |s: &str| escape(s).into_owned();
    let r = match rec {
        Ok(r) => r,
        Err(p) => {
            return vec![
                Line::styled(e(path), theme.get("title")),
                Line::styled(e(p), theme.get("failed")),
            ];
        }
    };
    let mut v = vec![
        Line::styled(
            format!("{} · catalog run record", e(&r.run_id)),
            theme.get("title"),
        ),
        field("label", e(&r.label), theme),
        field("path", e(path), theme),
        field("startedAt", shown_time(&r.started_at), theme),
        field(
            "finishedAt",
            r.finished_at
                .as_deref()
                .map_or_else(|| "— (in progress)".into(), shown_time),
            theme,
        ),
        field("host", e(&r.host), theme),
        field("maxRisk", r.max_risk.as_str(), theme),
    ];
    if let (Some(c), b) = (&r.git_commit, &r.git_branch) {
        v.push(field(
            "git",
            format!("{} {}", e(c), b.as_deref().map(e).unwrap_or_default()),
            theme,
        ));
    }
    for a in &r.authorizations {
        v.push(field(
            "authorized",
            format!("{} by {} at {}", e(&a.what), e(&a.how), e(&a.when)),
            theme,
        ));
    }
    let counts: Vec<String> = r
        .counts()
        .iter()
        .filter(|(_, n)| n.as_u64().unwrap_or(0) > 0)
        .map(|(k, n)| format!("{n} {k}"))
        .collect();
    v.push(field("results", counts.join(" · "), theme));
    for (k, val) in &r.agent {
        v.push(field(
            "agent",
            format!("{} = {}", e(k), e(&val.to_string())),
            theme,
        ));
    }
    v
}

/// A run's moment as a person reads it (local zone, the date when not today;
/// see [`testdeck_core::clock`]); a text that is no RFC 3339 time as it is, escaped.
fn shown_time(s: &str) -> String {
    testdeck_core::clock::when_text(s).unwrap_or_else(|| escape(s).into_owned())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_table_row_reads_as_fields() {
        let t = "| case | what | why |\n| --- | :---: | --- |\n| a-b | 打开面板 | |";
        let f = super::table_fields(t).expect("a table");
        assert_eq!(
            f,
            [
                ("case".into(), "a-b".into()),
                ("what".into(), "打开面板".into())
            ]
        );
        assert!(super::table_fields("### a-b\n- What: x").is_none());
        assert!(super::table_fields("| a |\n| b |\n| c |").is_none());
    }
}
