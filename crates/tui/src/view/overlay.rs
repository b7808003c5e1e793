//! Small overlays: an event's data pretty-printed, and modal prompts.

use super::super::app::Prompt;
use super::super::app::launch::Launch;
use super::super::app::prompt::{Asking, Judging, Preview};
use super::super::theme::Theme;
use super::{centered, pane};
use crate::action::Command;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

/// `lines` are already sanitized but for their SGR sequences, drawn here as styles;
/// long ones wrap, the scroll stops at the end.
pub fn data(title: &str, lines: &[String], scroll: usize, theme: &Theme, f: &mut Frame) {
    let area = f.area();
    let (w, h) = super::super::app::overlay::data_box((area.width, area.height));
    let r = centered(area, w, h);
    super::clear_box(f, r);
    let text: Vec<Line> = lines
        .iter()
        .map(|l| Line::from(super::sgr_line_spans(l, theme.get("text"), theme)))
        .collect();
    let block = pane(format!(" {title} · Esc closes "), true, theme);
    super::scrolled_text(f, block, (text, true), scroll, r, theme);
}

/// The answer line of a yes/no prompt: `y` in the style of what yes does, `N`
/// (no) the default.
fn yes_no(yes_style: &str, yes: &'static str, no: &'static str, theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(" y ", theme.get(yes_style)),
        Span::raw(yes),
        Span::styled(" N ", theme.get("tab_active")),
        Span::raw(no),
    ])
}

/// The body of a prompt whose yes cannot be undone: what it is about, the
/// question, and the answer line with no (Enter) the default.
fn confirm_destructive(
    mut about: Vec<Line<'static>>,
    question: &'static str,
    yes: &'static str,
    theme: &Theme,
) -> Vec<Line<'static>> {
    about.extend([
        Line::raw(question),
        Line::raw(""),
        yes_no("risk_destructive", yes, " no (Enter)", theme),
    ]);
    about
}

/// Prompt `p`; `launch` counts the verdicts waiting and, with `reruns` (a
/// watch's), the runs that quitting would end.
pub fn prompt(
    p: &Prompt,
    (launch, reruns): (&Launch, usize),
    keymap: &crate::keymap::Keymap,
    theme: &Theme,
    f: &mut Frame,
) {
    let area = f.area();
    let (title, body): (String, Vec<Line>) = match p {
        Prompt::Authorize(a) => authorize(a, theme),
        Prompt::Judge(j) => judge(j, launch, theme),
        Prompt::TrustOpener(t) => {
            trust_opener(t, theme, f);
            return;
        }
        Prompt::Preview(p) => preview(p, keymap, theme, area),
        Prompt::QuitLive => (
            " Quit? ".to_owned(),
            confirm_destructive(
                // a watch rerun in flight is live too (it is why this asks)
                vec![Line::raw(match launch.running() + reruns {
                    1 => "1 run is live.".to_owned(),
                    n => format!("{n} runs are live."),
                })],
                "Quit and end them?",
                " yes, end them    ",
                theme,
            ),
        ),
    };
    let r = centered(area, PROMPT_WIDTH, prompt_height(&body, area, PROMPT_WIDTH));
    super::clear_box(f, r);
    f.render_widget(
        Paragraph::new(body)
            .style(theme.get("prompt"))
            .wrap(Wrap { trim: false })
            .block(pane(title, true, theme)),
        r,
    );
}

/// The authorization question: what the launch does, and the yes / no (or the
/// word to type).
fn authorize(a: &Asking, theme: &Theme) -> (String, Vec<Line<'static>>) {
    let (title, lines) = super::super::app::launch::prompt_text(&a.prompt);
    let mut body: Vec<Line> = lines
        .into_iter()
        .map(|l| Line::raw(testdeck_core::sanitize::escape(&l).into_owned()))
        .collect();
    body.push(Line::raw(""));
    if a.typed() {
        body.push(Line::from(vec![
            Span::styled("❯ ", theme.get("accent")),
            Span::styled(
                testdeck_core::sanitize::escape(&a.typed).into_owned(),
                theme.get("input"),
            ),
            Span::styled("▏", theme.get("accent")),
        ]));
        body.push(Line::styled("Enter confirms · Esc: no", theme.get("muted")));
    } else {
        body.push(yes_no(
            "risk_mutating",
            " yes    ",
            " no (Enter, Esc)",
            theme,
        ));
    }
    if !a.skipped.is_empty() {
        body.push(Line::styled(
            format!(
                "{} will be skipped",
                super::plural(a.skipped.len(), "case", "cases")
            ),
            theme.get("muted"),
        ));
    }
    (
        format!(" {} ", testdeck_core::sanitize::escape(&title)),
        body,
    )
}

/// A person's verdict: the case, its steps to tick, the verdicts and the note.
fn judge(j: &Judging, launch: &Launch, theme: &Theme) -> (String, Vec<Line<'static>>) {
    let mut body = vec![Line::styled(
        testdeck_core::sanitize::escape(&format!("{} {}", j.case_id, j.title)).into_owned(),
        theme.get("title"),
    )];
    for (i, s) in j.steps.iter().enumerate() {
        let ticked = j.ticked.get(i).copied().unwrap_or(false);
        let line = Line::raw(format!(
            "  {} {}. {}",
            if ticked { "☑" } else { "☐" },
            i + 1,
            testdeck_core::sanitize::escape(s)
        ));
        body.push(if i == j.cursor {
            line.style(theme.get("selection"))
        } else {
            line
        });
    }
    body.push(Line::raw(""));
    for (i, v) in super::super::app::launch::VERDICTS.iter().enumerate() {
        let st = if i == j.choice {
            theme.get("selection")
        } else {
            theme.get("text")
        };
        body.push(Line::styled(
            format!("  {} {}", if i == j.choice { "▸" } else { " " }, v.as_str()),
            st,
        ));
    }
    body.push(Line::from(vec![
        Span::styled("note ", theme.get("muted")),
        Span::styled(
            testdeck_core::sanitize::escape(&j.note).into_owned(),
            theme.get("input"),
        ),
        Span::styled(if j.editing_note { "▏" } else { "" }, theme.get("accent")),
    ]));
    body.push(Line::styled(
        if j.steps.is_empty() {
            "j/k choose · i note · Enter records · Esc leaves it not-run"
        } else {
            "j/k move · Space ticks · i note · Enter records · Esc: not-run"
        },
        theme.get("muted"),
    ));
    // several cases wait for a person: say which one this is
    let total = j.nth + launch.verdicts_waiting();
    let title = if total > 1 {
        format!(" Your verdict · {} of {total} ", j.nth)
    } else {
        " Your verdict ".to_owned()
    };
    (title, body)
}

/// What a launch will do: its line, a window of its cases, and the choices
/// named as the keymap says them.
fn preview(
    p: &Preview,
    keymap: &crate::keymap::Keymap,
    theme: &Theme,
    area: Rect,
) -> (String, Vec<Line<'static>>) {
    // the keys and words of the keymap, as the key-hint line says them
    let mut choices = Vec::new();
    for (cmd, style) in [
        (Command::Confirm, theme.get("risk_mutating")),
        (Command::Close, theme.get("selection")),
    ] {
        if let Some((keys, word)) = keymap.choice("preview", cmd) {
            if !choices.is_empty() {
                choices.push(Span::raw("    "));
            }
            choices.push(Span::styled(format!(" {keys} "), style));
            choices.push(Span::raw(format!(" {word}")));
        }
    }
    if !p.temp.is_empty() {
        choices.push(Span::raw(if p.with_temp {
            "    t  leave temp out"
        } else {
            "    t  bring temp in"
        }));
    }
    let mut body = vec![Line::raw(p.line.clone())];
    if let Some(r) = p.raise {
        body.push(Line::from(vec![
            Span::styled(" m ", theme.get("accent")),
            Span::raw(format!(
                " raise the max risk to {} for this launch",
                r.as_str()
            )),
        ]));
    }
    // the cases by name, a window of them (j / k scroll)
    // what the box holds besides the rows: its borders, the line (wrapped),
    // the offer, the blanks, the scroll line and the choices
    let inner_w = usize::from(PROMPT_WIDTH.min(area.width).saturating_sub(2)).max(1);
    let head = p.line.chars().count().div_ceil(inner_w) + usize::from(p.raise.is_some());
    let window = usize::from(area.height)
        .saturating_sub(head + 8)
        .clamp(1, PREVIEW_ROWS);
    body.push(Line::raw(""));
    for r in p.rows.iter().skip(p.scroll).take(window) {
        let style = if r.starts_with('✗') {
            theme.get("skipped")
        } else if r.starts_with('?') {
            theme.get("warning")
        } else {
            theme.get("text")
        };
        body.push(Line::styled(r.clone(), style));
    }
    let below = p.rows.len().saturating_sub(p.scroll + window);
    if p.scroll > 0 || below > 0 {
        body.push(Line::styled(
            format!(
                "rows {}–{} of {} · j/k scroll",
                p.scroll + 1,
                (p.scroll + window).min(p.rows.len()),
                p.rows.len()
            ),
            theme.get("muted"),
        ));
    }
    body.push(Line::raw(""));
    body.push(Line::from(choices));
    (
        if p.rerun {
            " Rerun failed? ".to_owned()
        } else {
            " Launch? ".to_owned()
        },
        body,
    )
}

/// The most case rows a launch preview shows at once (j / k scroll the rest).
const PREVIEW_ROWS: usize = 10;

/// The trust question of a workspace opener: the rows the app counts (so `y`
/// waits for the same end the person sees) from `t.scroll`, a `↓ more` line
/// while rows are left below, and the y/N line, which always shows.
fn trust_opener(t: &super::super::app::overlay::TrustOpener, theme: &Theme, f: &mut Frame) {
    use super::super::app::opener::{trust_page, trust_rows};
    let area = f.area();
    let size = (area.width, area.height);
    let rows = trust_rows(t, size);
    let page = trust_page(size);
    let last = rows.len().saturating_sub(1);
    let mut body: Vec<Line> = rows
        .iter()
        .enumerate()
        .skip(t.scroll)
        .take(page)
        .map(|(i, r)| {
            if i == 0 || i == last {
                Line::raw(r.clone())
            } else {
                Line::styled(r.clone(), theme.get("risk_destructive"))
            }
        })
        .collect();
    let below = rows.len().saturating_sub(t.scroll + page);
    body.push(if below > 0 {
        Line::styled(
            format!("↓ more: {below} rows below · ↓ PgDn scroll · y waits for the end"),
            theme.get("accent"),
        )
    } else {
        Line::raw("")
    });
    body.push(yes_no(
        "risk_destructive",
        " yes, trust and run    ",
        " no (Enter)",
        theme,
    ));
    let height = u16::try_from(body.len() + 2).unwrap_or(u16::MAX);
    let r = centered(area, PROMPT_WIDTH, height);
    super::clear_box(f, r);
    f.render_widget(
        Paragraph::new(body).style(theme.get("prompt")).block(pane(
            " Run the workspace's opener? ".to_owned(),
            true,
            theme,
        )),
        r,
    );
}

/// The prompt box's width when the terminal has room.
const PROMPT_WIDTH: u16 = 64;

/// Rows a prompt box needs for `body` wrapped inside `width` columns (borders
/// included): counted by the same word wrapping that draws it, by display width
/// (double-width characters count two), so its choices line is never cut off.
fn prompt_height(body: &[Line], area: ratatui::layout::Rect, width: u16) -> u16 {
    let inner = width.min(area.width).saturating_sub(2).max(1);
    u16::try_from(super::wrapped_rows(body, inner) + 2).unwrap_or(u16::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Wide characters take two columns: a line of 40 of them needs 2 rows of 62.
    #[test]
    fn prompt_height_counts_display_width_and_word_wrap() {
        let area = ratatui::layout::Rect::new(0, 0, 140, 40);
        let wide = Line::raw("測".repeat(40));
        assert_eq!(prompt_height(&[wide], area, 64), 2 + 2);
        let words = Line::raw("word ".repeat(30));
        assert_eq!(prompt_height(std::slice::from_ref(&words), area, 64), 3 + 2);
        let narrow = ratatui::layout::Rect::new(0, 0, 30, 40);
        assert_eq!(prompt_height(&[words], narrow, 64), 6 + 2);
    }
}
