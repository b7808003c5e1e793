//! The duration chart of a case in the Details pane: its finished runs (x: the
//! run's place, oldest first; y: its duration), passed and failed runs drawn
//! with different marks, the median of the core's figures as a line, the axes
//! labelled with durations and the first and last run's dates.

use super::super::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::symbols::Marker;
use ratatui::text::Span;
use ratatui::widgets::{Axis, Block, BorderType, Chart, Dataset, GraphType};
use testdeck_core::workspace::diff::fmt_ms;

/// Rows the chart takes, borders included.
pub const ROWS: u16 = 8;
/// The least rows the details keep above it.
pub const TEXT_ROWS: u16 = 6;
pub use super::super::app::snapshot::Series;

/// Draw the chart in `r` (bordered).
pub fn draw(s: &Series, theme: &Theme, f: &mut Frame, r: Rect) {
    let mut sets = Vec::new();
    if let Some(m) = &s.median {
        sets.push(
            Dataset::default()
                .name("median")
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(theme.get("muted"))
                .data(m),
        );
    }
    sets.push(
        Dataset::default()
            .name("✓ passed")
            .marker(Marker::Dot)
            .graph_type(GraphType::Scatter)
            .style(theme.get("passed"))
            .data(&s.passed),
    );
    sets.push(
        Dataset::default()
            .name("✗ failed")
            .marker(Marker::Block)
            .graph_type(GraphType::Scatter)
            .style(theme.get("failed"))
            .data(&s.failed),
    );
    let muted = theme.get("muted");
    let runs = s.last_x as usize + 1;
    let x = Axis::default()
        .bounds([0.0, s.last_x.max(1.0)])
        .style(muted)
        .labels([
            Span::styled(s.first_date.clone(), muted),
            Span::styled(format!("{runs} runs"), muted),
            Span::styled(s.last_date.clone(), muted),
        ]);
    let y = Axis::default()
        .bounds([0.0, s.top as f64])
        .style(muted)
        .labels([
            Span::styled("0ms", muted),
            Span::styled(fmt_ms(s.top / 2), muted),
            Span::styled(fmt_ms(s.top), muted),
        ]);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme.get("border"))
        .title(Span::styled(" duration per run ", theme.get("title")));
    let chart = Chart::new(sets)
        .block(block)
        .x_axis(x)
        .y_axis(y)
        .hidden_legend_constraints((
            ratatui::layout::Constraint::Percentage(50),
            ratatui::layout::Constraint::Percentage(60),
        ));
    f.render_widget(chart, r);
}
