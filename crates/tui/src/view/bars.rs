//! The tab bar, the non-loopback HOST banner, the key-hint line and the status bar.

use super::super::app::Tab;
use super::super::theme::Theme;
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

pub use super::super::app::snapshot::Status;

const RANK_COUNTS: u8 = 0;
const RANK_PROBLEMS: u8 = 1;
const RANK_LABEL: u8 = 2;
const RANK_RISK: u8 = 3;
const RANK_AUTH: u8 = 4;

/// What is happening and the workspace's label: never shortened, never left out.
const RANK_KEPT: u8 = u8::MAX;

/// One part of the status bar: its full and its short form.
struct Part {
    full: Vec<Span<'static>>,
    short: Vec<Span<'static>>,
    /// When it shortens (and, past that, is left out): lowest first.
    rank: u8,
    /// A message: cut to the room left, with `…`, before anything is left out.
    message: bool,
}

impl Part {
    fn new(rank: u8, full: Vec<Span<'static>>, short: Vec<Span<'static>>) -> Part {
        Part {
            full,
            short,
            rank,
            message: false,
        }
    }
    fn same(full: Vec<Span<'static>>) -> Part {
        Part {
            short: full.clone(),
            full,
            rank: RANK_KEPT,
            message: false,
        }
    }
    /// A message: one span, cut with `…` when the bar is short of room.
    fn message(span: Span<'static>) -> Part {
        Part {
            short: vec![span.clone()],
            full: vec![span],
            rank: RANK_KEPT,
            message: true,
        }
    }
}

/// `span` cut to `cols` columns, its last one `…` when anything was cut.
fn cut(span: &Span<'static>, cols: usize) -> Span<'static> {
    if span.width() <= cols {
        return span.clone();
    }
    let text = format!(
        "{}…",
        super::truncate(&span.content, cols.saturating_sub(1))
    );
    Span::styled(text, span.style)
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
#[expect(
    clippy::too_many_lines,
    reason = "the status bar's segments left to right, each sized from what the earlier ones left"
)]
pub fn status(st: &Status, theme: &Theme, f: &mut Frame, r: Rect) {
    let bar = theme.get("status_bar");
    let muted = bar.patch(theme.get("muted"));
    let host_style = if is_loopback(&st.opts.host) {
        bar
    } else {
        theme.get("banner")
    };
    // the workspace and HOST: shortened to HOST alone only when nothing else is
    // left to give way (a bar narrower than they are)
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
    // this session's launches and the runs other processes are writing now
    let running = st.launch.running() + st.external_runs;
    if running > 0 {
        let external = match st.external_runs {
            0 => String::new(),
            n if n == running => " (external)".to_owned(),
            n => format!(" ({n} external)"),
        };
        doing.push(Span::styled(
            format!("▶ {running} running{external}"),
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
        parts.push(Part::message(Span::styled(
            escape(n).into_owned(),
            theme.get("warning"),
        )));
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
            let runs = super::plural(st.runs, "run", "runs");
            // the tests inside the case files, by each case's newest run
            let tests = st
                .badges
                .tests
                .stats()
                .get("")
                .and_then(|root| root.tests.as_ref())
                .map_or_else(String::new, |t| format!(" · {}", t.phrase()));
            parts.push(Part::new(
                RANK_COUNTS,
                vec![Span::styled(format!("{cases} · {runs}{tests}"), bar)],
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
    let left = fit_parts(parts, room, muted);
    f.render_widget(
        Paragraph::new(super::spread(left, right, r.width as usize)).style(bar),
        r,
    );
}

/// The parts laid out in `room` columns, separated by `sep_style` bars. When they
/// do not fit: the parts that may shorten do, in rank order (the label last);
/// then the message is cut with `…`; then the parts that may shorten are left
/// out, lowest rank first; at last the label gives way to HOST alone. What is
/// happening is never shortened.
fn fit_parts(
    parts: Vec<Part>,
    room: usize,
    sep_style: ratatui::style::Style,
) -> Vec<Span<'static>> {
    const SEP: usize = 3;
    // the least a cut message keeps: a few letters and `…`
    const MESSAGE_MIN: usize = 12;
    #[derive(Clone, Copy, PartialEq)]
    enum Form {
        Full,
        Short,
        Out,
    }
    let n = parts.len();
    let mut form = vec![Form::Full; n];
    let mut message_room: Option<usize> = None;
    let total = |form: &[Form], message_room: Option<usize>| -> usize {
        let shown: Vec<usize> = (0..n).filter(|&i| form[i] != Form::Out).collect();
        shown
            .iter()
            .map(|&i| {
                let p = &parts[i];
                let w = width(if form[i] == Form::Short {
                    &p.short
                } else {
                    &p.full
                });
                match message_room {
                    Some(m) if p.message => w.min(m),
                    _ => w,
                }
            })
            .sum::<usize>()
            + SEP * shown.len().saturating_sub(1)
    };
    let mut order: Vec<usize> = (0..n).filter(|&i| parts[i].rank != RANK_KEPT).collect();
    order.sort_by_key(|&i| parts[i].rank);
    let label = |i: usize| parts[i].rank == RANK_LABEL;
    // 1. shorten, the label excepted
    for &i in order.iter().filter(|&&i| !label(i)) {
        if total(&form, message_room) <= room {
            break;
        }
        form[i] = Form::Short;
    }
    // 2. cut the message to the room left, keeping a few letters
    let message = (0..n).find(|&i| parts[i].message);
    let cut_message = |form: &[Form]| -> Option<usize> {
        let i = message?;
        let over = total(form, None).saturating_sub(room);
        (over > 0).then(|| width(&parts[i].full).saturating_sub(over).max(MESSAGE_MIN))
    };
    message_room = cut_message(&form);
    // 3. leave out what may shorten, lowest rank first (the label excepted)
    for &i in order.iter().filter(|&&i| !label(i)) {
        if total(&form, message_room) <= room {
            break;
        }
        form[i] = Form::Out;
        message_room = cut_message(&form);
    }
    // 4. the label gives way to HOST alone, then the message to its `…`
    for &i in order.iter().filter(|&&i| label(i)) {
        if total(&form, message_room) > room {
            form[i] = Form::Short;
        }
    }
    if let Some(i) = message {
        let over = total(&form, message_room).saturating_sub(room);
        if over > 0 {
            let w = message_room.unwrap_or_else(|| width(&parts[i].full));
            message_room = Some(w.saturating_sub(over).max(1));
        }
    }
    let mut left = Vec::new();
    for (i, p) in parts.into_iter().enumerate() {
        if form[i] == Form::Out {
            continue;
        }
        if !left.is_empty() {
            left.push(Span::styled(" │ ", sep_style));
        }
        let spans = if form[i] == Form::Short {
            p.short
        } else {
            p.full
        };
        match message_room {
            Some(m) if p.message => left.extend(spans.iter().map(|s| cut(s, m))),
            _ => left.extend(spans),
        }
    }
    left
}

/// The key-hint line: `key words` pairs, each whole or not at all, as many as
/// fit the width from the first (the most used).
pub fn hints(hints: &[(String, String)], theme: &Theme, f: &mut Frame, r: Rect) {
    let room = usize::from(r.width);
    let mut spans = vec![Span::raw(" ")];
    let mut used = 1;
    for (key, words) in hints {
        let key = escape(key).into_owned();
        let words = escape(words).into_owned();
        let w = Span::raw(format!("{key} {words}  ")).width();
        // the last pair needs no trailing gap
        if used + w.saturating_sub(2) > room {
            break;
        }
        used += w;
        spans.push(Span::styled(key, theme.get("accent")));
        spans.push(Span::styled(format!(" {words}  "), theme.get("muted")));
    }
    f.render_widget(Paragraph::new(ratatui::text::Line::from(spans)), r);
}
