//! Drawing: `draw(&Snapshot…)`, and one file per pane, screen or overlay, drawn
//! from its component and a `DrawCtx`. No view takes the App or runs a domain
//! query: what a frame shows was handed over in the snapshot.

// r, f, w, h, l, s, v: the usual short names of drawing code
#![allow(clippy::many_single_char_names)]

pub mod artifacts;
pub mod badges;
pub mod bars;
pub mod catalog;
pub mod chart;
pub mod compare;
pub mod details;
pub mod finder;
pub mod help;
pub mod insights;
pub mod live;
pub mod overlay;
pub mod report;
pub mod runs;
pub mod trace;
pub mod tree;
pub mod why;

use super::app::layout::Areas;
use super::app::{CaseRef, InputTarget, Measured, Overlay, Pane, Screen, Tab};
use super::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph, Wrap};
use testdeck_core::workspace::logs::RunStatus;

/// What a pane, screen or overlay is drawn with besides its own component: the
/// theme, the terminal's size and where the panes go.
pub struct DrawCtx<'a> {
    pub theme: &'a Theme,
    pub size: (u16, u16),
    pub areas: Areas,
}

pub use super::app::snapshot::{Snapshot, TabCtx};

/// Draw the whole screen from `s`: the bars and panes, then the full screen
/// and the overlay on top, each from its component. Returns what only drawing
/// can know (how far the details' wrapped text scrolls), for `App::fit_scroll`.
pub fn draw(s: &Snapshot, theme: &Theme, f: &mut Frame) -> Measured {
    let cx = DrawCtx {
        theme,
        size: s.size,
        areas: s.areas,
    };
    let a = &cx.areas;
    bars::tabs((s.tab, s.marks.len()), theme, f, a.tabs);
    if let Some(b) = a.banner {
        bars::banner(&s.opts.host, theme, f, b);
    }
    let p = a.panes;
    match s.tab {
        Tab::Tests => tree::draw((s.tests, s.adding), &s.tab_ctx, theme, f, p.tree),
        Tab::Catalog => catalog::draw((s.catalog, s.runs), &s.tab_ctx, theme, f, p.tree),
        Tab::Runs => {
            let editing = s.layers.input() == Some(InputTarget::RunsFilter);
            runs::draw((s.runs, editing), &s.tab_ctx, theme, f, p.tree);
        }
    }
    let mut measured = Measured::default();
    if let Some(r) = p.details {
        let d = &s.details;
        let lines = details::lines(d, theme);
        let (text, chart) = details_split(s, r, lines.as_deref());
        measured.details_max =
            details::max_scroll(lines.as_deref().unwrap_or_default(), Some(text));
        details::draw((lines, d.scroll, d.empty), d.focused, theme, f, text);
        if let Some((drawn, c)) = chart {
            chart::draw(drawn, theme, f, c);
        }
    }
    if let Some(r) = p.live {
        live::draw(s.live, &s.around, theme, f, r);
    }
    if let Some(r) = p.artifacts {
        let focus = s.has_keys(Pane::Artifacts);
        let pictures = (&s.preview_target, pictures(s));
        artifacts::draw(s.live, pictures, focus, theme, f, r);
    }
    if let (Some(r), Some(h)) = (a.hints, &s.key_hints) {
        bars::hints(h, theme, f, r);
    }
    bars::status(&s.status, theme, f, a.status);
    screen_shown(s, &cx, f);
    overlay_shown(s, theme, f);
    measured
}

/// The full screen shown, if any, over the panes.
fn screen_shown(s: &Snapshot, cx: &DrawCtx, f: &mut Frame) {
    match s.layers.screen() {
        Some(Screen::Compare(v)) => compare::draw(v, cx, f),
        Some(Screen::Report(v)) => report::draw(v, cx, f),
        Some(Screen::Image { file, label }) => {
            artifacts::screen(pictures(s), file, label, cx.theme, f);
        }
        Some(Screen::Trace(v)) => trace::draw(v, (s.graphics, &s.opts.root), cx.theme, f),
        Some(Screen::Why(w)) => why::draw(w, pictures(s), cx, f),
        Some(Screen::Insights(v)) => insights::draw(v, cx, f),
        None => {}
    }
}

/// The overlay shown, if any, on top of everything.
fn overlay_shown(s: &Snapshot, theme: &Theme, f: &mut Frame) {
    match s.layers.overlay() {
        Some(Overlay::Help { scroll }) => {
            let cx = DrawCtx {
                theme,
                size: s.size,
                areas: s.areas,
            };
            help::draw(s.keymap, *scroll, &cx, f);
        }
        Some(Overlay::Finder(fi)) => {
            let status = |key: &CaseRef| -> Span<'static> {
                match key {
                    CaseRef::Tests { .. } => {
                        status_icon(s.case_row(key).and_then(|c| c.latest), theme)
                    }
                    CaseRef::Catalog(id) => {
                        catalog::verdict_mark(s.runs.latest().get(id).copied(), theme)
                    }
                }
            };
            finder::draw(fi, (s.candidates, s.marks, &status), theme, f);
        }
        Some(Overlay::Data {
            title,
            lines,
            scroll,
        }) => overlay::data(title, lines, *scroll, theme, f),
        Some(Overlay::Prompt(p)) => {
            overlay::prompt(p, (s.launch, s.reruns), s.keymap, theme, f);
        }
        None => {}
    }
}

/// The screenshots decoded so far and the terminal's picture protocol.
fn pictures<'a>(s: &Snapshot<'a>) -> artifacts::Pictures<'a> {
    artifacts::Pictures {
        previews: s.previews,
        graphics: s.graphics,
    }
}

/// The details pane `r` split: its text (`lines`) above, and below it the
/// duration chart of the selected case with two finished runs or more, when
/// the pane has the rows for the whole text and the chart (zoomed, often).
fn details_split<'a>(
    s: &Snapshot<'a>,
    r: Rect,
    lines: Option<&[Line<'_>]>,
) -> (Rect, Option<(&'a chart::Series, Rect)>) {
    if s.tab != Tab::Tests || r.height < chart::ROWS + chart::TEXT_ROWS {
        return (r, None);
    }
    let text_rows = lines.map_or(0, |l| wrapped_rows(l, r.width.saturating_sub(2)));
    if usize::from(r.height) < text_rows + 2 + usize::from(chart::ROWS) {
        return (r, None);
    }
    let Some(drawn) = s.details.chart else {
        return (r, None);
    };
    let [text, below] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(chart::ROWS)]).areas(r);
    (text, Some((drawn, below)))
}

/// A pane's frame: rounded, its title, the focus colour when focused.
pub fn pane<'a>(title: impl Into<Line<'a>>, focused: bool, theme: &Theme) -> Block<'a> {
    let (b, t) = if focused {
        (theme.get("border_focus"), theme.get("title"))
    } else {
        (theme.get("border"), theme.get("muted"))
    };
    Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(b)
        .title(title.into().style(t))
}

/// The pane's bottom border says how many rows are below the window (and above
/// it, once scrolled), so content under the fold is never a surprise.
pub fn with_more<'a>(block: Block<'a>, above: usize, below: usize, theme: &Theme) -> Block<'a> {
    let text = match (above, below) {
        (0, 0) => return block,
        (0, b) => format!(" ↓ {b} more "),
        (a, 0) => format!(" ↑ {a} above "),
        (a, b) => format!(" ↑ {a} · ↓ {b} more "),
    };
    block.title_bottom(Line::styled(text, theme.get("muted")).right_aligned())
}

/// Rows `lines` take wrapped (by display width, as they are drawn) in `width` columns.
pub fn wrapped_rows(lines: &[Line], width: u16) -> usize {
    Paragraph::new(lines.to_vec())
        .wrap(Wrap { trim: false })
        .line_count(width.max(1))
}

/// Wrapped text in `block` over `r`, scrolled to row `want` but never past its
/// end (the last row stays at the bottom), with the rows above and below on the
/// bottom border. The one scroll view of details, data overlays and help (which
/// does not wrap: `wrap` false, its rows are its lines, as the app counts them).
pub fn scrolled_text(
    f: &mut Frame,
    block: Block,
    (lines, wrap): (Vec<Line>, bool),
    want: usize,
    r: Rect,
    theme: &Theme,
) {
    let inner = block.inner(r);
    let para = Paragraph::new(lines);
    let para = if wrap {
        para.wrap(Wrap { trim: false })
    } else {
        para
    };
    let total = para.line_count(inner.width.max(1));
    let max = total.saturating_sub(inner.height as usize);
    let off = want.min(max);
    let block = with_more(block, off, max - off, theme);
    f.render_widget(
        para.block(block)
            .scroll((u16::try_from(off).unwrap_or(u16::MAX), 0)),
        r,
    );
}

/// `n` followed by `one` or `many`: "1 case", "3 cases".
pub fn plural<N: std::fmt::Display + PartialEq + From<u8> + Copy>(
    n: N,
    one: &str,
    many: &str,
) -> String {
    let word = if n == N::from(1) { one } else { many };
    format!("{n} {word}")
}

/// [`plural`] with the count grouped by thousands ([`testdeck_core::number::grouped`]).
pub fn plural_grouped(n: usize, one: &str, many: &str) -> String {
    let word = if n == 1 { one } else { many };
    format!("{} {word}", testdeck_core::number::grouped(n as u64))
}

/// The icon and style of a run status (`None`: never run).
pub fn status_icon(s: Option<RunStatus>, theme: &Theme) -> Span<'static> {
    match s {
        Some(RunStatus::Passed) => Span::styled("✓", theme.get("passed")),
        Some(RunStatus::Failed) => Span::styled("✗", theme.get("failed")),
        Some(RunStatus::InProgress) => Span::styled("…", theme.get("running")),
        Some(RunStatus::Cancelled) => Span::styled("⊘", theme.get("muted")),
        Some(RunStatus::Abandoned) => Span::styled("?", theme.get("warning")),
        None => Span::styled("·", theme.get("muted")),
    }
}

/// A row with `left` spans and `right` spans pushed to the right edge of `width`.
pub fn spread<'a>(left: Vec<Span<'a>>, right: Vec<Span<'a>>, width: usize) -> Line<'a> {
    // badges give way before the name does: keep at least 16 columns (or the whole name)
    spread_keeping(left, right, width, 16)
}

/// [`spread`], keeping up to `keep` columns of `left` before any badge but the
/// last gives way.
pub fn spread_keeping<'a>(
    mut left: Vec<Span<'a>>,
    mut right: Vec<Span<'a>>,
    width: usize,
    keep: usize,
) -> Line<'a> {
    let lw_full: usize = left.iter().map(Span::width).sum();
    let need = lw_full.min(keep);
    while right.len() > 1 && right.iter().map(Span::width).sum::<usize>() + need + 1 > width {
        // the last badge (the rate) stays; the ones before it go least important first
        right.remove(right.len() - 2);
    }
    let rw: usize = right.iter().map(Span::width).sum();
    let budget = width.saturating_sub(rw + 1);
    let mut lw = 0;
    let mut kept = Vec::new();
    for s in left.drain(..) {
        let w = s.width();
        if lw + w <= budget {
            lw += w;
            kept.push(s);
        } else {
            let room = budget.saturating_sub(lw);
            if room > 1 {
                let t = truncate(&s.content, room - 1);
                lw += Span::raw(t.as_str()).width() + 1;
                kept.push(Span::styled(format!("{t}…"), s.style));
            }
            break;
        }
    }
    if rw > 0 && rw < width {
        kept.push(Span::raw(" ".repeat(width.saturating_sub(lw + rw))));
        kept.extend(right);
    }
    Line::from(kept)
}

/// Clear `r` for an overlay. A double-width character just left of it would
/// spill its right half over the box's left border (the terminal draws it two
/// columns wide), so it gives way to a space.
pub fn clear_box(f: &mut Frame, r: Rect) {
    f.render_widget(ratatui::widgets::Clear, r);
    if r.x == 0 {
        return;
    }
    let buf = f.buffer_mut();
    for y in r.y..r.y.saturating_add(r.height) {
        if let Some(c) = buf.cell_mut((r.x - 1, y)) {
            if Span::raw(c.symbol()).width() > 1 {
                c.set_symbol(" ");
            }
        }
    }
}

/// A centred rectangle of at most `w` x `h` inside `area`.
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let [r] = Layout::horizontal([Constraint::Length(w.min(area.width))])
        .flex(Flex::Center)
        .areas(area);
    let [r] = Layout::vertical([Constraint::Length(h.min(area.height))])
        .flex(Flex::Center)
        .areas(r);
    r
}

/// An empty-state message with a headline: the headline in `style`, a blank line,
/// then what to know or do about it.
pub fn headed<S: Into<std::borrow::Cow<'static, str>>>(
    head: impl Into<std::borrow::Cow<'static, str>>,
    style: ratatui::style::Style,
    more: impl IntoIterator<Item = S>,
) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled(head, style), Line::raw("")];
    lines.extend(more.into_iter().map(Line::raw));
    lines
}

/// An empty-state message, centred in a pane.
pub fn empty_state(lines: Vec<Line<'static>>, theme: &Theme, f: &mut Frame, inner: Rect) {
    // as many rows as the lines take wrapped, so a long one never hides the next
    let h = u16::try_from(wrapped_rows(&lines, inner.width)).unwrap_or(u16::MAX);
    let [r] = Layout::vertical([Constraint::Length(h)])
        .flex(Flex::Center)
        .areas(inner);
    f.render_widget(
        Paragraph::new(lines)
            .style(theme.get("muted"))
            .alignment(ratatui::layout::Alignment::Center)
            .wrap(ratatui::widgets::Wrap { trim: true }),
        r,
    );
}

pub use testdeck_core::workspace::diff::fmt_ms;

/// The time of day of an ISO timestamp (`HH:MM:SS.mmm`) in the zone shown
/// (see [`testdeck_core::clock`]), or the text as is.
pub fn time_of(ts: &str) -> String {
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(ts) {
        return testdeck_core::clock::clock_ms(t, testdeck_core::clock::zone());
    }
    ts.split_once('T')
        .map_or(ts, |(_, t)| t)
        .chars()
        .take(12)
        .collect()
}

/// The style of a risk (muted when there is none).
pub fn risk_style(risk: Option<testdeck_exec::Risk>, theme: &Theme) -> ratatui::style::Style {
    use testdeck_exec::Risk;
    match risk {
        Some(Risk::Readonly) => theme.get("risk_readonly"),
        Some(Risk::Mutating) => theme.get("risk_mutating"),
        Some(Risk::Destructive) => theme.get("risk_destructive"),
        None => theme.get("muted"),
    }
}

/// `line` cut to `cols` columns, its last column `…` when anything was cut (a
/// row too long for its pane says so rather than ending mid-word unseen).
pub fn ellipsize(line: Line<'static>, cols: usize) -> Line<'static> {
    if line.width() <= cols || cols == 0 {
        return line;
    }
    let style = line.style;
    let mut room = cols - 1;
    let mut spans = Vec::new();
    for s in line.spans {
        if room == 0 {
            break;
        }
        let w = s.width();
        if w <= room {
            room -= w;
            spans.push(s);
        } else {
            let cut = truncate(&s.content, room);
            room = 0;
            spans.push(Span::styled(cut, s.style));
        }
    }
    let last = spans.last().map(|s| s.style).unwrap_or_default();
    spans.push(Span::styled("…", last));
    Line::from(spans).style(style)
}

/// `line` without its first `cols` columns, starting with `…` when anything was
/// left out (a row scrolled sideways says so, as a cut end does).
pub fn shift_left(line: Line<'static>, cols: usize) -> Line<'static> {
    if cols == 0 {
        return line;
    }
    let style = line.style;
    let mut skip = cols;
    let mut spans = Vec::new();
    for s in line.spans {
        if skip == 0 {
            spans.push(s);
            continue;
        }
        let w = s.width();
        if w <= skip {
            skip -= w;
            continue;
        }
        // the part of this span past the columns skipped
        let head = truncate(&s.content, skip);
        let rest = s.content[head.len()..].to_owned();
        skip = 0;
        spans.push(Span::styled(rest, s.style));
    }
    let first = spans.first().map(|s| s.style).unwrap_or_default();
    spans.insert(0, Span::styled("…", first));
    Line::from(spans).style(style)
}

/// The longest prefix of `s` that fits in `cols` terminal columns (wide characters count 2).
pub fn truncate(s: &str, cols: usize) -> String {
    let mut out = String::new();
    let mut w = 0;
    let mut buf = [0u8; 4];
    for c in s.chars() {
        let cw = Span::raw(&*c.encode_utf8(&mut buf)).width();
        if w + cw > cols {
            break;
        }
        w += cw;
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    /// A double-width character whose right half falls on an overlay's left border
    /// gives way to a space: the border is drawn whole.
    #[test]
    fn an_overlay_border_survives_a_wide_character_beside_it() {
        let mut t = Terminal::new(TestBackend::new(20, 3)).expect("terminal");
        t.draw(|f| {
            f.render_widget(Paragraph::new("測試測試測試測試測試"), f.area());
            // column 5 is the right half of the third character (columns 4–5)
            let r = Rect::new(5, 0, 10, 3);
            clear_box(f, r);
            f.render_widget(Block::bordered(), r);
        })
        .expect("draw");
        let b = t.backend().buffer();
        assert_eq!(
            b[(4, 0)].symbol(),
            " ",
            "the wide character was left to spill"
        );
        assert_eq!(b[(5, 0)].symbol(), "┌");
        assert_eq!(b[(2, 0)].symbol(), "試", "characters further left stay");
    }
}

/// The theme's stand-in for each of the 8 terminal colours (and their bright forms):
/// a colour from a run is drawn within the theme, at the theme's contrast.
const SGR_ROLES: [&str; 8] = [
    "muted", "failed", "passed", "warning", "accent", "marked", "info", "text",
];

/// `base` with the attributes an SGR sequence set: bold, italic, underline, reverse
/// as modifiers; a colour (16, 256 or true) as the theme's colour for the nearest
/// terminal colour; dim as the theme's muted colour. Without colour (`NO_COLOR`,
/// `--color never`) the theme has no colours, so only the modifiers stay.
pub fn sgr_style(
    base: ratatui::style::Style,
    a: testdeck_core::sanitize::Sgr,
    theme: &Theme,
) -> ratatui::style::Style {
    use ratatui::style::Modifier;
    use testdeck_core::sanitize::Attrs;
    let role =
        |c: testdeck_core::sanitize::SgrColor| theme.get(SGR_ROLES[usize::from(c.basic() & 7)]).fg;
    let mut s = base;
    for (attr, m) in [
        (Attrs::BOLD, Modifier::BOLD),
        (Attrs::ITALIC, Modifier::ITALIC),
        (Attrs::UNDERLINE, Modifier::UNDERLINED),
        (Attrs::REVERSE, Modifier::REVERSED),
    ] {
        if a.attrs.contains(attr) {
            s = s.add_modifier(m);
        }
    }
    if a.attrs.contains(Attrs::DIM) {
        match theme.get("muted").fg {
            Some(c) if !theme.no_color => s = s.fg(c),
            _ => s = s.add_modifier(Modifier::DIM),
        }
    }
    if let Some(c) = a.fg.and_then(role) {
        s = s.fg(c);
    }
    if let Some(c) = a.bg.and_then(role) {
        // the theme's colour behind, the theme's background in front: still readable
        s = s.bg(c).fg(theme.background);
    }
    s
}

/// Text from a run (a message, a data line, an output line) as spans: its SGR
/// colours drawn as styles over `base` ([`sgr_style`]), every other control escaped
/// ([`testdeck_core::sanitize::sgr_spans`]).
pub fn sgr_line_spans(
    text: &str,
    base: ratatui::style::Style,
    theme: &Theme,
) -> Vec<Span<'static>> {
    testdeck_core::sanitize::sgr_spans(text)
        .into_iter()
        .map(|(t, a)| Span::styled(t, sgr_style(base, a, theme)))
        .collect()
}

#[cfg(test)]
mod sgr_tests {
    use super::sgr_line_spans;
    use crate::theme::Theme;
    use ratatui::style::Modifier;

    #[test]
    fn runner_colours_are_the_themes_and_go_without_colour() {
        let msg = "\x1b[2mexpect(\x1b[22m\x1b[1;38;5;196mgot\x1b[0m \x1b[2Jx";
        let theme = Theme::builtin("dark", false).expect("dark");
        let base = theme.get("text");
        let v = sgr_line_spans(msg, base, &theme);
        let text: String = v.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text, "expect(got \\e[2Jx");
        assert_eq!(v[0].style.fg, theme.get("muted").fg);
        // 256-colour red is the theme's red, bold stays bold
        assert_eq!(v[1].style.fg, theme.get("failed").fg);
        assert!(v[1].style.add_modifier.contains(Modifier::BOLD));
        assert_eq!(v[2].style, base);
        let plain = Theme::builtin("dark", true).expect("dark");
        let v = sgr_line_spans(msg, plain.get("text"), &plain);
        assert!(
            v.iter()
                .all(|s| s.style.fg.is_none() && s.style.bg.is_none())
        );
        assert!(v[1].style.add_modifier.contains(Modifier::BOLD));
    }
}
