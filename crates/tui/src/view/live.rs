//! The live pane: the timeline (or runtime events) of the selected or running run.

use super::super::action::RunData;
use super::super::app::{Live, RunRef, is_failure, is_output};
use super::super::theme::Theme;
use super::{empty_state, pane, time_of};
use testdeck_core::workspace::per_test;
use testdeck_core::workspace::timeline::TimelineEvent;

pub use super::super::app::snapshot::Around;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use std::collections::HashSet;
use testdeck_core::sanitize::escape;

fn status_style(status: &str, theme: &Theme) -> Style {
    match status {
        "ok" => theme.get("passed"),
        "failed" => theme.get("failed"),
        "skipped" => theme.get("skipped"),
        "info" => theme.get("info"),
        _ => theme.get("warning"),
    }
}

#[allow(clippy::many_single_char_names)] // r, f, w, h, l, s: the usual drawing names
pub fn draw(live: &Live, around: &Around, theme: &Theme, f: &mut Frame, r: Rect) {
    let title = title(live, around, theme, r.width);
    let block = pane(Line::from(title), around.focused, theme);
    let inner = block.inner(r);
    f.render_widget(block, r);
    let Some(run) = live.run() else {
        let lines = if matches!(live.wanted(), Some(RunRef::Launch(_))) {
            vec![Line::raw("Launching — waiting for its first event…")]
        } else if live.wanted().is_some() {
            vec![Line::raw("reading the run…")]
        } else if around.case_selected {
            vec![Line::raw("No runs of this case yet — r runs it")]
        } else {
            // what the pane would show, and how to get it
            super::headed(
                "A run's events as they happen",
                theme.get("text"),
                ["Select a case or a run to see its timeline"],
            )
        };
        empty_state(lines, theme, f, inner);
        return;
    };
    if live.visible_len() == 0 {
        let msg = nothing_matches(live, run);
        empty_state(vec![Line::raw(msg)], theme, f, inner);
        return;
    }
    let h = inner.height as usize;
    let has_focus = around.focused;
    let mut lines = Vec::with_capacity(h);
    if live.show_events() {
        for (pos, i) in live.list().visible(live.rows(), h) {
            let mut l = super::ellipsize(
                super::shift_left(
                    Line::styled(
                        escape(&run.runtime_events[i]).into_owned(),
                        theme.get("text"),
                    ),
                    live.hscroll(),
                ),
                inner.width as usize,
            );
            if pos == live.list().cursor && has_focus {
                l = l.style(theme.get("selection"));
            }
            lines.push(l);
        }
        f.render_widget(Paragraph::new(lines), inner);
        return;
    }
    // the steps and assertions an artifact refers to are marked
    let refs: HashSet<&str> = run
        .artifacts
        .iter()
        .flat_map(|a| [a.step_id.as_deref(), a.assertion_id.as_deref()])
        .flatten()
        .collect();
    lines.push(super::ellipsize(
        super::shift_left(
            Line::styled(
                format!(
                    "{:<12} {:<9} {:<7} {}",
                    "time", "type", "status", "name · message"
                ),
                theme.get("muted"),
            ),
            live.hscroll(),
        ),
        inner.width as usize,
    ));
    let rows = h.saturating_sub(1);
    let offset = if live.list().cursor >= live.list().offset + rows {
        live.list().cursor + 1 - rows.max(1)
    } else {
        live.list().offset
    };
    for (pos, i) in live.rows().enumerate().skip(offset).take(rows) {
        let spans = event_spans(&run.events[i], &refs, theme);
        let mut l = super::ellipsize(
            super::shift_left(Line::from(spans), live.hscroll()),
            inner.width as usize,
        );
        if pos == live.list().cursor && has_focus {
            l = l.style(theme.get("selection"));
        }
        lines.push(l);
    }
    f.render_widget(Paragraph::new(lines), inner);
}

/// The pane's title: what it shows, the run (cut at the front to fit `cols`),
/// its state, and every filter that is on.
fn title(live: &Live, around: &Around, theme: &Theme, cols: u16) -> Vec<Span<'static>> {
    let mut title = vec![Span::raw(if live.show_events() {
        " Runtime events "
    } else {
        " Timeline "
    })];
    // first, so a narrow pane still shows it
    if live.hscroll() > 0 {
        // the rows are scrolled sideways: by how much, and the way back
        title.push(Span::styled(
            format!("[→{} <] ", live.hscroll()),
            theme.get("accent"),
        ));
    }
    // the case and run, cut at the front when the pane is narrow: the filters
    // and the state after them always show
    let id_at = title.len();
    if let Some(run) = live.run() {
        let id = live.title_id();
        title.push(Span::styled(
            format!("{} ", escape(&id)),
            theme.get("muted"),
        ));
        if run.in_progress {
            title.push(Span::styled("● live ", theme.get("running")));
        } else if let Some(s) = around.ended {
            title.push(Span::styled(format!("ended · {s} "), theme.get("muted")));
        }
        if around.external {
            title.push(Span::styled("external ", theme.get("warning")));
        }
        if run.skipped > 0 && !live.show_events() {
            // the cap on kept events: say the top is not the file's first line
            title.push(Span::styled(
                format!("+{} earlier not loaded ", run.skipped),
                theme.get("warning"),
            ));
        }
    }
    if live.follow() {
        title.push(Span::styled("[follow] ", theme.get("accent")));
    } else {
        title.push(Span::styled("[paused] ", theme.get("warning")));
    }
    // every filter on is named, whichever view it applies to: a filter is never
    // on unseen
    for f in live.active_filters() {
        if around.editing && f.starts_with("[s: ") {
            continue; // shown below as the line being edited
        }
        let style = if f == "[failures]" {
            "failed"
        } else {
            "accent"
        };
        title.push(Span::styled(format!("{f} "), theme.get(style)));
    }
    if around.editing {
        title.push(Span::styled(
            format!("s: {}▏ ", escape(live.events_filter())),
            theme.get("input"),
        ));
    }
    if live.run().is_some() {
        let width: usize = title.iter().map(|s| s.content.chars().count()).sum();
        let room = usize::from(cols.saturating_sub(4));
        if width > room {
            let id = title[id_at].content.to_string();
            let keep = id.chars().count().saturating_sub(width - room).max(1);
            let cut: String = id.chars().skip(id.chars().count() - keep + 1).collect();
            title[id_at].content = format!("…{cut}").into();
        }
    }
    title
}

/// One timeline event's columns: time, type, status, the artifact mark, its
/// name and its own message.
fn event_spans(e: &TimelineEvent, refs: &HashSet<&str>, theme: &Theme) -> Vec<Span<'static>> {
    // the runner's own lines: dimmed, tagged out / err in the type column
    let output = is_output(e);
    let st = status_style(&e.status, theme);
    // an event an artifact refers to shows its id, the one the artifact names
    let marked = e.id.as_deref().filter(|id| refs.contains(id));
    let mut spans = vec![
        Span::styled(
            format!("{:<12} ", escape(&time_of(e.ts.as_deref().unwrap_or("")))),
            theme.get("muted"),
        ),
        Span::styled(
            format!("{:<9} ", escape(&e.kind)),
            theme.get(if output { "muted" } else { "accent" }),
        ),
        Span::styled(format!("{:<7} ", escape(&e.status)), st),
        Span::styled(
            marked.map_or(String::new(), |id| format!("◆ {} ", escape(id))),
            theme.get("artifact_ref"),
        ),
        // a test by its title path once; its steps and failures under it
        Span::styled(
            escape(&per_test::row_name(e)).into_owned(),
            if is_failure(e) {
                theme.get("failed")
            } else {
                theme.get("text")
            },
        ),
    ];
    let message = per_test::own_message(e);
    if !message.is_empty() {
        // a runner's colours (Playwright's, vitest's) are drawn, not escaped
        spans.push(Span::styled(" · ", theme.get("muted")));
        spans.extend(super::sgr_line_spans(&message, theme.get("muted"), theme));
    }
    spans
}

/// Why a run shows no row: no file, no event yet, or filters that match none.
fn nothing_matches(live: &Live, run: &RunData) -> String {
    if live.show_events() && run.runtime_events.is_empty() {
        "No runtime-events.jsonl in this run".to_owned()
    } else if run.events.is_empty() && !live.show_events() {
        if run.in_progress {
            "Waiting for the first event…".to_owned()
        } else {
            "The timeline is empty".to_owned()
        }
    } else if let Some(t) = live.type_filter().filter(|_| !live.show_events()) {
        // say which type is empty and how to get out of it
        format!(
            "No {} event matches — t shows the next type, Esc clears the filters",
            escape(t)
        )
    } else {
        "No event matches the filters (Esc clears them)".to_owned()
    }
}
