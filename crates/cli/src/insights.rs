//! `testdeck insights`: ranked lists from the history — slowest, duration
//! regressions, flakiest by score, new failures, failing streaks, stale results.

use super::{Ctx, print_json};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::process::ExitCode;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::config::Insights as Settings;
use testdeck_core::workspace::insights::ChangeTimesRead as _;
use testdeck_core::workspace::insights::{self, ChangeTimes, Durations, Lists};
use testdeck_core::workspace::stats::{self, NodeKind};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only cases at or below this scope (e.g. `ai/backend`).
    #[arg(long)]
    pub(crate) scope: Option<String>,
    /// Only runs started on or after this date (`YYYY-MM-DD` or RFC 3339).
    #[arg(long)]
    pub(crate) since: Option<String>,
    /// How many entries each list keeps.
    #[arg(long, default_value_t = insights::DEFAULT_TOP, value_name = "N")]
    pub(crate) top: usize,
    /// One JSON document.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &Args, ctx: &Ctx) -> ExitCode {
    let window = match super::stats::window(args.scope.as_ref(), args.since.as_deref()) {
        Ok(w) => w,
        Err(code) => return code,
    };
    let ws = match ctx.workspace() {
        Ok(ws) => ws,
        Err(code) => return code,
    };
    let settings = ws.config.insights;
    let changes = ChangeTimes::read_in(&ws, crate::cache_dir().as_deref());
    let nodes = stats::compute_with(&ws.tests, &ws.logs, &window, &settings, Some(&changes));
    // cases outside the tree count in no pass rate, but insights include them
    let outside = stats::outside_figures(&ws.logs, &window, &settings, Some(&changes));
    let lists = insights::lists(
        nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Case)
            .filter_map(|n| n.figures.as_ref().map(|f| (n.path.as_str(), f)))
            .chain(outside.iter().map(|(p, f)| (p.as_str(), f))),
        Some(&changes),
        args.top,
    );
    if args.json {
        let mut doc = serde_json::to_value(&lists).unwrap_or_else(|_| json!({}));
        // an outside case's entry is marked (its path is under `temp/outside/`)
        if let Some(all) = doc.as_object_mut() {
            let entries = all.values_mut().filter_map(Value::as_array_mut).flatten();
            for entry in entries.filter_map(Value::as_object_mut) {
                let path = entry
                    .get("path")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let scope = path.rsplit_once('/').map_or("", |(s, _)| s);
                if testdeck_core::workspace::outside::is_outside_scope(scope) {
                    entry.insert("outside".to_owned(), Value::Bool(true));
                }
            }
        }
        doc["settings"] = json!({
            "window": settings.window,
            "regressionRatio": settings.regression_ratio,
            "regressionFloorMs": settings.regression_floor_ms,
            "flakyThreshold": settings.flaky_threshold,
        });
        print_json(&doc);
    } else {
        crate::out!(
            "{}",
            text(&lists, &settings, testdeck_core::color::stdout())
        );
    }
    ExitCode::SUCCESS
}

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const RED: &str = "\x1b[31m";
const YELLOW: &str = "\x1b[33m";
const DIM: &str = "\x1b[2m";

/// `1.2s`, `340ms`, `—`.
fn ms(v: Option<u64>) -> String {
    match v {
        None => "—".to_owned(),
        Some(v) if v >= 10_000 => format!("{:.0}s", v as f64 / 1000.0),
        Some(v) if v >= 1000 => format!("{:.1}s", v as f64 / 1000.0),
        Some(v) => format!("{v}ms"),
    }
}

/// The lists for a person: one heading each, its entries ranked, paths escaped.
#[expect(
    clippy::too_many_lines,
    reason = "the text report's sections in the order they print"
)]
fn text(l: &Lists, s: &Settings, color: bool) -> String {
    let paint = |code: &str, t: &str| {
        if color {
            format!("{code}{t}{RESET}")
        } else {
            t.to_owned()
        }
    };
    let mut out = String::new();
    let heading = |out: &mut String, title: &str, how: &str, empty: bool| {
        let _ = writeln!(out, "{} {}", paint(BOLD, title), paint(DIM, how));
        if empty {
            let _ = writeln!(out, "  (none)");
        }
    };
    let shown = |x: &Durations| (ms(x.median), ms(x.p90), ms(x.last));
    heading(
        &mut out,
        "Slowest",
        &format!("(median of the last {} runs)", s.window),
        l.slowest.is_empty(),
    );
    for e in &l.slowest {
        let (median, p90, last) = shown(&e.figure.duration_ms);
        let _ = writeln!(
            out,
            "  {median:>7}  p90 {p90:>7}  last {last:>7}  {}",
            escape(&e.path)
        );
    }
    out.push('\n');
    heading(
        &mut out,
        "Regressions",
        &format!(
            "(latest run over {}× the median before it, and {} ms more)",
            s.regression_ratio, s.regression_floor_ms
        ),
        l.regressions.is_empty(),
    );
    for e in &l.regressions {
        let r = &e.figure;
        let ratio = r
            .ratio
            .map_or_else(|| "new".to_owned(), |x| format!("{x:.2}×"));
        let _ = writeln!(
            out,
            "  {:>7}  {:>7} was {:>7}  {}",
            paint(RED, &ratio),
            ms(Some(r.last_ms)),
            ms(Some(r.median_before_ms)),
            escape(&e.path)
        );
    }
    out.push('\n');
    heading(
        &mut out,
        "Flakiest",
        &format!(
            "(flips on the same code / (runs − 1) over the last {} runs, above {})",
            s.window, s.flaky_threshold
        ),
        l.flakiest.is_empty(),
    );
    for e in &l.flakiest {
        let f = &e.figure;
        let _ = writeln!(
            out,
            "  {}  {:>2} {} in {:>2} runs  {}",
            paint(YELLOW, &format!("{:.3}", f.flaky_score)),
            f.flips,
            if f.flips == 1 { "flip " } else { "flips" },
            f.runs,
            escape(&e.path)
        );
    }
    out.push('\n');
    heading(
        &mut out,
        "New failures",
        "(the latest run failed, the one before passed)",
        l.new_failures.is_empty(),
    );
    for e in &l.new_failures {
        let _ = writeln!(
            out,
            "  {}  run {}",
            paint(RED, &escape(&e.path)),
            escape(&e.figure.latest_run)
        );
    }
    out.push('\n');
    heading(
        &mut out,
        "Failing streaks",
        "(failed runs in a row up to the latest)",
        l.failing_streaks.is_empty(),
    );
    for e in &l.failing_streaks {
        let f = &e.figure;
        let _ = writeln!(
            out,
            "  {:>4} runs  since {}  {}",
            paint(RED, &f.streak.to_string()),
            escape(&f.failing_since),
            escape(&e.path)
        );
    }
    out.push('\n');
    heading(
        &mut out,
        "Stale",
        "(its test file or plan entry changed after its latest run started)",
        l.stale.is_empty(),
    );
    for e in &l.stale {
        let f = &e.figure;
        let _ = writeln!(
            out,
            "  {}  changed {}, run {} started {}",
            paint(YELLOW, &escape(&e.path)),
            f.changed_at,
            escape(&f.latest_run),
            f.latest_started_at
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_a_person_reads_them() {
        assert_eq!(ms(None), "—");
        assert_eq!(ms(Some(340)), "340ms");
        assert_eq!(ms(Some(1250)), "1.2s");
        assert_eq!(ms(Some(12_500)), "12s");
    }

    #[test]
    fn text_is_escaped_and_coloured_only_when_asked() {
        let mut l = Lists::default();
        l.new_failures.push(insights::Entry {
            path: "a/b/\u{1b}]52;x".into(),
            figure: insights::Failing {
                failing_since: "r1".into(),
                streak: 1,
                latest_run: "r1".into(),
            },
        });
        let plain = text(&l, &Settings::default(), false);
        assert!(!plain.contains('\u{1b}'), "{plain}");
        assert!(plain.contains("(none)"));
        let coloured = text(&l, &Settings::default(), true);
        assert!(coloured.contains(RED));
        assert!(!coloured.contains("\u{1b}]52"));
    }
}
