//! The tab bar, the non-loopback HOST banner and the status bar.

use super::super::app::launch::Launch;
use super::super::app::{App, Options, Tab};
use super::super::theme::Theme;
use super::badges::Badges;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::Paragraph;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::host::is_loopback_host as is_loopback;

/// The tab row: `tab` shown, `marks` cases marked.
pub fn tabs((tab, marks): (Tab, usize), theme: &Theme, f: &mut Frame, r: Rect) {
    let mut spans = Vec::new();
    for (t, label) in [
        (Tab::Tests, " 1 Tests "),
        (Tab::Catalog, " 2 Catalog "),
        (Tab::Runs, " 3 Runs "),
    ] {
        let st = if tab == t {
            theme.get("tab_active")
        } else {
            theme.get("tab")
        };
        spans.push(Span::styled(label, st));
        spans.push(Span::raw(" "));
    }
    let right = if marks > 0 {
        vec![Span::styled(
            format!("● {marks} marked "),
            theme.get("marked"),
        )]
    } else {
        vec![Span::styled("testdeck ", theme.get("title"))]
    };
    f.render_widget(
        Paragraph::new(super::spread(spans, right, r.width as usize)),
        r,
    );
}

/// The warning that HOST `host` is not loopback.
pub fn banner(host: &str, theme: &Theme, f: &mut Frame, r: Rect) {
    let text = format!(
        " ⚠ HOST is {} — not loopback: cases reach a remote service ",
        escape(host)
    );
    f.render_widget(Paragraph::new(text).style(theme.get("banner")), r);
}

/// What the status bar says, read from the components when a frame is drawn.
pub struct Status<'a> {
    pub opts: &'a Options,
    pub launch: &'a Launch,
    pub badges: Badges<'a>,
    pub notice: Option<&'a String>,
    pub loading: bool,
    pub indexing: bool,
    pub spinner: &'static str,
    pub history_progress: Option<(usize, usize)>,
    pub pending_keys: String,
}

impl App {
    /// What the status bar says.
    pub fn status(&self) -> Status<'_> {
        Status {
            opts: self.opts(),
            launch: self.launch(),
            badges: self.badges(),
            notice: self.notice().as_ref(),
            loading: self.loading(),
            indexing: self.indexing(),
            spinner: self.spinner(),
            history_progress: self.history_progress(),
            pending_keys: self.pending_keys(),
        }
    }
}

const RANK_COUNTS: u8 = 0;
const RANK_PROBLEMS: u8 = 1;
const RANK_LABEL: u8 = 2;
const RANK_RISK: u8 = 3;
const RANK_AUTH: u8 = 4;

/// One part of the status bar: its full and its short form.
struct Part {
    full: Vec<Span<'static>>,
    short: Vec<Span<'static>>,
    /// When it shortens: lowest first.
    rank: u8,
}

impl Part {
    fn new(rank: u8, full: Vec<Span<'static>>, short: Vec<Span<'static>>) -> Part {
        Part { full, short, rank }
    }
    fn same(full: Vec<Span<'static>>) -> Part {
        Part {
            short: full.clone(),
            full,
            rank: u8::MAX,
        }
    }
}

fn width(spans: &[Span]) -> usize {
    spans.iter().map(Span::width).sum()
}

/// The status bar, most important first: where (label, HOST), what is happening
/// (running, watching, the last notice or launch result), then the counts, the
/// problems, the max risk and the authorizations. When it does not fit, parts
/// shorten in rank order (the counts to the cases, the problems to a number, the
/// label, the max risk, at last the authorizations to a count); what is
/// happening is never shortened.
pub fn status(st: &Status, theme: &Theme, f: &mut Frame, r: Rect) {
    let bar = theme.get("status_bar");
    let muted = bar.patch(theme.get("muted"));
    let host_style = if is_loopback(&st.opts.host) {
        bar
    } else {
        theme.get("banner")
    };
    let mut parts = vec![Part::new(
        RANK_LABEL,
        vec![
            Span::styled(
                format!(" {} ", escape(&st.opts.label)),
                theme.get("status_key"),
            ),
            Span::styled(format!(" HOST {}", escape(&st.opts.host)), host_style),
        ],
        vec![Span::styled(
            format!(" {}", escape(&st.opts.host)),
            host_style,
        )],
    )];
    let mut doing = Vec::new();
    if st.launch.running() > 0 {
        doing.push(Span::styled(
            format!("▶ {} running", st.launch.running()),
            theme.get("running"),
        ));
    }
    for s in super::badges::status(&st.badges, theme) {
        if !doing.is_empty() {
            doing.push(Span::raw(" "));
        }
        doing.push(s);
    }
    if doing.is_empty() {
        doing.push(Span::styled("idle", bar));
    }
    parts.push(Part::same(doing));
    // a notice is news: it takes the place of the counts
    if let Some(n) = st.notice {
        parts.push(Part::same(vec![Span::styled(
            escape(n).into_owned(),
            theme.get("warning"),
        )]));
    } else if st.loading {
        parts.push(Part::same(vec![Span::styled(
            format!("{} indexing…", st.spinner),
            theme.get("running"),
        )]));
    } else if let Some(ws) = st.badges.ws {
        let cases = super::plural(st.badges.tests.cases().len(), "case", "cases");
        if st.indexing {
            let what = match st.history_progress {
                Some((done, total)) => format!(
                    "indexing {} / {}",
                    testdeck_core::number::grouped(done as u64),
                    super::plural_grouped(total, "run", "runs")
                ),
                None => "indexing history…".to_owned(),
            };
            parts.push(Part::same(vec![Span::styled(
                format!("{cases} · {} {what}", st.spinner),
                theme.get("running"),
            )]));
        } else {
            let runs = super::plural(ws.logs.runs.len(), "run", "runs");
            parts.push(Part::new(
                RANK_COUNTS,
                vec![Span::styled(format!("{cases} · {runs}"), bar)],
                vec![Span::styled(cases, bar)],
            ));
        }
        if !ws.problems.is_empty() {
            let n = ws.problems.len();
            parts.push(Part::new(
                RANK_PROBLEMS,
                vec![Span::styled(
                    format!("⚠ {}", super::plural(n, "problem", "problems")),
                    theme.get("warning"),
                )],
                vec![Span::styled(format!("⚠ {n}"), theme.get("warning"))],
            ));
        }
    }
    parts.push(match st.launch.max_risk() {
        Some(risk) => Part::new(
            RANK_RISK,
            vec![
                Span::styled("max risk ", bar),
                Span::styled(risk.as_str(), super::risk_style(Some(risk), theme)),
            ],
            vec![
                Span::styled("≤", bar),
                Span::styled(risk.as_str(), super::risk_style(Some(risk), theme)),
            ],
        ),
        None => Part::new(
            RANK_RISK,
            vec![Span::styled("max risk —", bar)],
            vec![Span::styled("≤—", bar)],
        ),
    });
    if !st.launch.grants().granted.is_empty() {
        let g: Vec<String> = st
            .launch
            .grants()
            .granted
            .keys()
            .map(testdeck_exec::Grantable::label)
            .collect();
        parts.push(Part::new(
            RANK_AUTH,
            vec![Span::styled(
                format!("auth {}", g.join(" ")),
                theme.get("risk_mutating"),
            )],
            vec![Span::styled(
                format!("auth {}", g.len()),
                theme.get("risk_mutating"),
            )],
        ));
    }
    let pending = &st.pending_keys;
    let mut right = Vec::new();
    if !pending.is_empty() {
        right.push(Span::styled(format!("{pending} "), theme.get("input")));
    }
    right.push(Span::styled(" ? help ", theme.get("status_key")));
    let room = (r.width as usize).saturating_sub(width(&right) + 1);
    let sep = 3;
    let mut short = vec![false; parts.len()];
    let total = |short: &[bool]| -> usize {
        parts
            .iter()
            .zip(short)
            .map(|(p, &s)| width(if s { &p.short } else { &p.full }))
            .sum::<usize>()
            + sep * (parts.len() - 1)
    };
    // the counts shorten first, the authorizations last of what may shorten;
    // what is happening never does
    let mut order: Vec<usize> = (0..parts.len()).collect();
    order.sort_by_key(|&i| parts[i].rank);
    for i in order {
        if total(&short) <= room || parts[i].rank == u8::MAX {
            break;
        }
        short[i] = true;
    }
    let mut left = Vec::new();
    for (i, (p, s)) in parts.into_iter().zip(short).enumerate() {
        if i > 0 {
            left.push(Span::styled(" │ ", muted));
        }
        left.extend(if s { p.short } else { p.full });
    }
    f.render_widget(
        Paragraph::new(super::spread(left, right, r.width as usize)).style(bar),
        r,
    );
}
