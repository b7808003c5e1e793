//! The tab bar, the non-loopback HOST banner and the status bar.

use super::super::app::{App, Tab};
use super::super::theme::Theme;
use crate::sanitize::escape;
use crate::workspace::host::is_loopback_host as is_loopback;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::Paragraph;

pub fn tabs(app: &App, theme: &Theme, f: &mut Frame, r: Rect) {
    let mut spans = Vec::new();
    for (t, label) in [
        (Tab::Tests, " 1 Tests "),
        (Tab::Catalog, " 2 Catalog "),
        (Tab::Runs, " 3 Runs "),
    ] {
        let st = if app.tab == t {
            theme.get("tab_active")
        } else {
            theme.get("tab")
        };
        spans.push(Span::styled(label, st));
        spans.push(Span::raw(" "));
    }
    let marks = app.marks.len();
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

pub fn banner(app: &App, theme: &Theme, f: &mut Frame, r: Rect) {
    let text = format!(
        " ⚠ HOST is {} — not loopback: cases reach a remote service ",
        escape(&app.opts.host)
    );
    f.render_widget(Paragraph::new(text).style(theme.get("banner")), r);
}

pub fn status(app: &App, theme: &Theme, f: &mut Frame, r: Rect) {
    let bar = theme.get("status_bar");
    let sep = || Span::styled(" │ ", bar.patch(theme.get("muted")));
    let mut left = vec![Span::styled(
        format!(" {} ", escape(&app.opts.label)),
        theme.get("status_key"),
    )];
    let host_style = if is_loopback(&app.opts.host) {
        bar
    } else {
        theme.get("banner")
    };
    left.push(Span::styled(
        format!(" HOST {}", escape(&app.opts.host)),
        host_style,
    ));
    left.push(sep());
    match app.max_risk {
        Some(r) => {
            left.push(Span::styled("max risk ", bar));
            left.push(Span::styled(r.as_str(), super::risk_style(Some(r), theme)));
        }
        None => left.push(Span::styled("max risk —", bar)),
    }
    if !app.grants.granted.is_empty() {
        let g: Vec<String> = app
            .grants
            .granted
            .keys()
            .map(crate::exec::Grantable::label)
            .collect();
        left.push(sep());
        left.push(Span::styled(
            format!("auth {}", g.join(" ")),
            theme.get("risk_mutating"),
        ));
    }
    left.push(sep());
    if app.running > 0 {
        left.push(Span::styled(
            format!("▶ {} running", app.running),
            theme.get("running"),
        ));
    } else {
        left.push(Span::styled("idle", bar));
    }
    left.extend(super::badges::status(app, theme));
    left.push(sep());
    // a notice is news: it takes the place of the counts
    if let Some(n) = &app.notice {
        left.push(Span::styled(escape(n).into_owned(), theme.get("warning")));
    } else if app.loading() {
        left.push(Span::styled(
            format!("{} indexing…", app.spinner()),
            theme.get("running"),
        ));
    } else if let Some(ws) = &app.ws {
        if app.indexing {
            left.push(Span::styled(
                format!(
                    "{} cases · {} indexing history…",
                    app.tests.cases.len(),
                    app.spinner()
                ),
                theme.get("running"),
            ));
        } else {
            left.push(Span::styled(
                format!(
                    "{} cases · {} runs",
                    app.tests.cases.len(),
                    ws.logs.runs.len()
                ),
                bar,
            ));
        }
        if !ws.problems.is_empty() {
            left.push(sep());
            left.push(Span::styled(
                format!("⚠ {} problems", ws.problems.len()),
                theme.get("warning"),
            ));
        }
    }
    let pending = app.pending_keys();
    let mut right = Vec::new();
    if !pending.is_empty() {
        right.push(Span::styled(format!("{pending} "), theme.get("input")));
    }
    right.push(Span::styled(" ? help ", theme.get("status_key")));
    f.render_widget(
        Paragraph::new(super::spread(left, right, r.width as usize)).style(bar),
        r,
    );
}
