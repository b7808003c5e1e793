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
use testdeck_core::workspace::logs::{RawRun, RunStatus};

/// Rows the chart takes, borders included.
pub const ROWS: u16 = 8;
/// The least rows the details keep above it.
pub const TEXT_ROWS: u16 = 6;
/// Runs the chart shows at most (the newest).
const RUNS: usize = 50;

/// What the chart draws.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    passed: Vec<(f64, f64)>,
    failed: Vec<(f64, f64)>,
    median: Option<[(f64, f64); 2]>,
    /// The x range: the runs' places.
    last_x: f64,
    /// The y range's top, in ms.
    top: u64,
    first_date: String,
    last_date: String,
}

/// The series of a case's runs (oldest first), with its median duration from the
/// core's figures; `None` below two finished runs with a duration.
pub fn series(runs: &[RawRun], median: Option<u64>) -> Option<Series> {
    let done: Vec<(&RawRun, u64)> = runs
        .iter()
        .filter(|r| r.status.is_finished())
        .filter_map(|r| Some((r, r.duration_ms()?)))
        .collect();
    let done = &done[done.len().saturating_sub(RUNS)..];
    if done.len() < 2 {
        return None;
    }
    let max = done.iter().map(|(_, d)| *d).max().unwrap_or(0);
    let top = max.max(median.unwrap_or(0)).max(1);
    let mut s = Series {
        passed: Vec::new(),
        failed: Vec::new(),
        median: None,
        last_x: (done.len() - 1) as f64,
        top,
        first_date: date(done[0].0),
        last_date: date(done[done.len() - 1].0),
    };
    for (i, (r, d)) in done.iter().enumerate() {
        let p = (i as f64, *d as f64);
        if r.status == RunStatus::Passed {
            s.passed.push(p);
        } else {
            s.failed.push(p);
        }
    }
    s.median = median.map(|m| [(0.0, m as f64), (s.last_x, m as f64)]);
    Some(s)
}

fn date(r: &RawRun) -> String {
    r.start_time()
        .map_or_else(|| "?".to_owned(), |t| t.format("%m-%d").to_string())
}

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
