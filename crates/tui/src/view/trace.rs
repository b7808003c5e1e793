//! The trace pane, full screen: the header (version, browser, title), the section
//! tabs, and the section shown — the action tree beside the selected action's
//! frames and its error, place and call log; or console, network, output rows.

use super::super::app::trace::{self, SECTIONS, Section, TraceView, picture_body};
use super::super::graphics::Graphics;
use super::super::image::{self, HalfBlocks, State};
use super::super::theme::Theme;
use super::{sgr_line_spans, spread, with_more};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph, Wrap};
use std::path::Path;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::trace::{Action, Frame as TraceFrame};

/// While the trace is read.
pub const READING: &str = "reading trace…";

/// The trace pane over the whole screen. `root` resolves the actions' sources.
pub fn draw(v: &TraceView, (graphics, root): (&Graphics, &Path), theme: &Theme, f: &mut Frame) {
    let r = f.area();
    super::clear_box(f, r);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme.get("border_focus"))
        .title(Span::styled(
            format!(" Trace · {} ", escape(v.label())),
            theme.get("title"),
        ))
        .title_bottom(Span::styled(
            " Tab section · j/k move · Enter whole action · n failed · E source · o opener · Esc close ",
            theme.get("muted"),
        ));
    f.render_widget(block, r);
    let a = v.areas((r.width, r.height));
    if let Some(e) = v.failure() {
        let lines = vec![
            Line::styled(escape(e).into_owned(), theme.get("failed")),
            Line::raw(""),
            Line::styled(
                "nothing of it could be read as a Playwright trace (o hands it to its opener)",
                theme.get("muted"),
            ),
        ];
        f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), a.body);
        return;
    }
    let Some(t) = v.trace() else {
        f.render_widget(
            Paragraph::new(Line::styled(READING, theme.get("muted"))),
            a.header,
        );
        return;
    };
    // the header: the version found (or the warning), the browser, the test
    let mut head = Vec::new();
    if t.version_known() {
        head.push(Span::styled(
            format!("version {}", t.version.unwrap_or_default()),
            theme.get("muted"),
        ));
    } else {
        let found = t
            .version
            .map_or_else(|| "none".to_owned(), |n| n.to_string());
        head.push(Span::styled(
            format!("unknown trace version {found}: showing what is readable"),
            theme.get("warning"),
        ));
    }
    for part in [&t.playwright_version, &t.browser, &t.title]
        .into_iter()
        .flatten()
        .filter(|s| !s.is_empty())
    {
        head.push(Span::styled(" · ", theme.get("muted")));
        head.push(Span::styled(escape(part).into_owned(), theme.get("text")));
    }
    if !t.problems.is_empty() {
        head.push(Span::styled(
            format!(
                " · {} problems: {}",
                t.problems.len(),
                escape(&t.problems[0].to_string())
            ),
            theme.get("warning"),
        ));
    }
    f.render_widget(Paragraph::new(Line::from(head)), a.header);
    // the section tabs with their counts
    let mut tabs = Vec::new();
    for (i, s) in SECTIONS.iter().enumerate() {
        let n = match s {
            Section::Actions => t.actions.len(),
            Section::Console => t.console.len() + t.errors.len(),
            Section::Network => t.network.len(),
            Section::Output => v.len(Section::Output),
        };
        let style = if *s == v.section() {
            theme.get("selection")
        } else {
            theme.get("muted")
        };
        tabs.push(Span::styled(format!(" {} {} {n} ", i + 1, s.name()), style));
        tabs.push(Span::raw(" "));
    }
    f.render_widget(Paragraph::new(Line::from(tabs)), a.tabs);
    match v.section() {
        Section::Actions => {
            actions(v, theme, f, a.list);
            detail(v, root, theme, f, a.detail);
            let (start, end) = v.selected_frames();
            let sel = v.selected();
            let at = |fr: Option<&TraceFrame>, what: &str| {
                let t0 = sel.map_or(0.0, |x| x.start_ms);
                fr.map(|fr| format!("{what} · frame at {:+.0} ms", fr.timestamp_ms - t0))
            };
            picture(v, graphics, (start, at(start, "start")), theme, f, a.start);
            picture(v, graphics, (end, at(end, "end")), theme, f, a.end);
        }
        s => text(v, s, theme, f, a.body),
    }
}

/// The action tree: indented, marked, with durations.
fn actions(v: &TraceView, theme: &Theme, f: &mut Frame, r: Rect) {
    let len = v.len(Section::Actions);
    if len == 0 {
        f.render_widget(
            Paragraph::new(Line::styled("no actions in this trace", theme.get("muted"))),
            r,
        );
        return;
    }
    let list = v.list(Section::Actions);
    let h = usize::from(r.height);
    let w = usize::from(r.width);
    let mut lines = Vec::with_capacity(h);
    for i in list.offset..(list.offset + h).min(len) {
        let Some((depth, a)) = v.action_row(i) else {
            continue;
        };
        let (mark, style) = mark(a, theme);
        let mut left = vec![
            Span::raw("  ".repeat(depth.min(12))),
            Span::styled(format!("{mark} "), style),
            Span::styled(
                escape(&a.title).into_owned(),
                if a.error.is_some() {
                    theme.get("failed")
                } else {
                    theme.get("text")
                },
            ),
        ];
        if let Some(s) = a.subtitle.as_deref().filter(|s| !s.is_empty()) {
            left.push(Span::styled(format!(" {}", escape(s)), theme.get("muted")));
        }
        let right = vec![Span::styled(
            a.duration_ms().map(trace::duration).unwrap_or_default(),
            theme.get("muted"),
        )];
        let mut l = spread(left, right, w);
        if i == list.cursor {
            l = l.style(theme.get("selection"));
        }
        lines.push(l);
    }
    f.render_widget(Paragraph::new(lines), r);
}

/// ✓ passed, ✗ failed (itself or inside), … never ended.
fn mark(a: &Action, theme: &Theme) -> (&'static str, ratatui::style::Style) {
    if a.failed() {
        ("✗", theme.get("failed"))
    } else if a.end_ms.is_none() {
        ("…", theme.get("running"))
    } else {
        ("✓", theme.get("passed"))
    }
}

/// The selected action: its title, duration and place, its error (every line, its
/// colours as styles), its call log.
fn detail(v: &TraceView, root: &Path, theme: &Theme, f: &mut Frame, r: Rect) {
    let Some(a) = v.selected() else {
        return;
    };
    let block = Block::new()
        .borders(ratatui::widgets::Borders::TOP)
        .border_style(theme.get("border"))
        .title(Span::styled(" selected ", theme.get("muted")));
    let inner = block.inner(r);
    f.render_widget(block, r);
    let mut lines = Vec::new();
    let (m, style) = mark(a, theme);
    let mut title = vec![
        Span::styled(format!("{m} "), style),
        Span::styled(escape(&a.title).into_owned(), theme.get("title")),
    ];
    if let Some(s) = a.subtitle.as_deref().filter(|s| !s.is_empty()) {
        title.push(Span::styled(format!(" {}", escape(s)), theme.get("muted")));
    }
    lines.push(Line::from(title));
    let mut facts = vec![Span::styled(
        format!(
            "{} · {}",
            escape(&a.method),
            a.duration_ms()
                .map_or_else(|| "never ended".to_owned(), trace::duration)
        ),
        theme.get("muted"),
    )];
    lines.push(Line::from(std::mem::take(&mut facts)));
    if let Some(loc) = &a.location {
        let (file, inside) = v.shown_file(&loc.file, root);
        facts.push(Span::styled("at ", theme.get("muted")));
        facts.push(Span::styled(
            format!("{}:{}", escape(&file), loc.line),
            theme.get("accent"),
        ));
        facts.push(Span::styled(
            if inside {
                " · E opens it"
            } else {
                " · outside the workspace"
            },
            theme.get("muted"),
        ));
        lines.push(Line::from(facts));
    }
    if let Some(e) = &a.error {
        let base = theme.get("failed");
        for l in e.message.lines() {
            lines.push(Line::from(sgr_line_spans(l, base, theme)));
        }
    }
    if !a.log.is_empty() {
        lines.push(Line::styled("call log", theme.get("muted")));
        for l in &a.log {
            lines.push(Line::from(sgr_line_spans(
                &format!("  {l}"),
                theme.get("text"),
                theme,
            )));
        }
    }
    // more than fits: the last row says so, and Enter shows it all
    let rows = super::wrapped_rows(&lines, inner.width);
    let fits = usize::from(inner.height);
    if rows > fits && inner.height > 1 {
        let text = Rect {
            height: inner.height - 1,
            ..inner
        };
        f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), text);
        f.render_widget(
            Paragraph::new(Line::styled(
                format!("↓ {} more rows · Enter shows it all", rows + 1 - fits),
                theme.get("muted"),
            )),
            Rect {
                y: inner.y + inner.height - 1,
                height: 1,
                ..inner
            },
        );
        return;
    }
    f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

/// A frame's picture under its caption: the protocol's, else half blocks.
fn picture(
    v: &TraceView,
    graphics: &Graphics,
    (frame, caption): (Option<&TraceFrame>, Option<String>),
    theme: &Theme,
    f: &mut Frame,
    r: Rect,
) {
    if r.width == 0 || r.height < 2 {
        return;
    }
    let top = Rect { height: 1, ..r };
    let body = picture_body(r);
    let cap =
        |text: String, style: &str| Paragraph::new(Line::styled(text, theme.get(style))).centered();
    let Some(frame) = frame else {
        f.render_widget(cap("no screencast frame".into(), "muted"), top);
        return;
    };
    let caption = caption.unwrap_or_default();
    match v.frame_state(&frame.entry) {
        None | Some(State::Pending) => {
            f.render_widget(cap(format!("{caption} · decoding…"), "muted"), top);
        }
        Some(State::Failed(e)) => {
            f.render_widget(cap(caption, "muted"), top);
            f.render_widget(
                Paragraph::new(Line::styled(escape(e).into_owned(), theme.get("warning")))
                    .wrap(Wrap { trim: true }),
                body,
            );
        }
        Some(State::Ready(p)) => {
            let size = format!("{}×{}", p.width, p.height);
            f.render_widget(cap(format!("{caption} · {size}"), "muted"), top);
            if let Some(proto) = graphics.protocol(&v.picture_key(&frame.entry), body) {
                f.render_widget(ratatui_image::Image::new(proto), body);
                return;
            }
            if theme.no_color {
                f.render_widget(
                    cap("the picture needs colour".into(), "muted"),
                    Rect { height: 1, ..body },
                );
                return;
            }
            let img = image::for_cells(&p.image, body.width, body.height);
            f.render_widget(HalfBlocks(&img), body);
        }
    }
}

/// A text section (console, network, output): a header row, then its rows.
fn text(v: &TraceView, s: Section, theme: &Theme, f: &mut Frame, r: Rect) {
    let rows = v.text_rows(s);
    let head = match s {
        Section::Console => "type     message".to_owned(),
        Section::Network => trace::network_header(),
        _ => "stream".to_owned(),
    };
    f.render_widget(
        Paragraph::new(Line::styled(head, theme.get("muted"))),
        Rect { height: 1, ..r },
    );
    let body = Rect {
        y: r.y + 1,
        height: r.height.saturating_sub(1),
        ..r
    };
    if rows.is_empty() {
        let none = match s {
            Section::Console => "no console messages and no page errors",
            Section::Network => "no network requests",
            _ => "no output",
        };
        f.render_widget(Paragraph::new(Line::styled(none, theme.get("muted"))), body);
        return;
    }
    let list = v.list(s);
    let h = usize::from(body.height);
    let lines: Vec<Line> = list
        .visible(rows, h)
        .map(|(i, row)| {
            let l = Line::styled(row.text.clone(), theme.get(row.style));
            if i == list.cursor {
                l.style(theme.get("selection"))
            } else {
                l
            }
        })
        .collect();
    let below = list.below(rows.len(), h);
    let block = with_more(Block::new(), list.offset, below, theme);
    let inner = block.inner(body);
    f.render_widget(block, body);
    f.render_widget(Paragraph::new(lines), inner);
}
