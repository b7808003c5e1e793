//! `testdeck trace`: a Playwright `trace.zip` as text or JSON (a thin adapter
//! over [`testdeck_core::workspace::trace`]).

use super::{EXIT_FOUND, EXIT_USAGE, print_json};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use testdeck_core::Problem;
use testdeck_core::sanitize::{escape, sgr_text, strip_sgr};
use testdeck_core::workspace::trace::{Action, ErrorInfo, ErrorSource, Location, Stream, Trace};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A trace.zip, or a run folder whose artifacts.json lists one.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
    /// One JSON document.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &Args) -> ExitCode {
    let t = match open(&args.path) {
        Ok(t) => t,
        Err(p) => {
            eprintln!("{p}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    for p in &t.problems {
        eprintln!("{p}");
    }
    if args.json {
        print_json(&document(&t));
    } else {
        crate::out!("{}", text(&t, testdeck_core::color::stdout()));
    }
    // like every command: 1 when it found a failure or a problem
    if t.failed().is_some() || !t.errors.is_empty() || t.problems.iter().any(Problem::is_error) {
        ExitCode::from(EXIT_FOUND)
    } else {
        ExitCode::SUCCESS
    }
}

/// The trace at `path`: the file itself, or the trace artifact of a run folder
/// (read only while it stays inside that folder).
fn open(path: &Path) -> Result<Trace, Problem> {
    let shown = path.display().to_string();
    if !path.is_dir() {
        return Trace::read(path, None, &shown);
    }
    let (items, problems) = testdeck_core::workspace::logs::read_artifacts(path, path);
    // several traces (one per failed test): the first failed test's own
    let timeline = path.join(testdeck_core::workspace::run_folder::TIMELINE);
    let (events, _) = testdeck_core::workspace::logs::read_timeline(path, &timeline);
    let failed = testdeck_core::workspace::per_test::failed_trace(&items, &events);
    let trace = failed
        .and_then(|i| items.get(i))
        .or_else(|| items.iter().find(|a| a.kind == "trace"));
    match trace.and_then(|a| a.file(path).map(|f| (a, f))) {
        Some((a, file)) => Trace::read(&file, Some(path), &format!("{shown}/{}", a.path)),
        None => Err(problems.into_iter().next().unwrap_or_else(|| {
            Problem::error(
                &shown,
                "trace-missing",
                "no trace artifact inside this run folder",
            )
        })),
    }
}

fn ms(d: Option<f64>) -> String {
    d.map_or_else(|| "unfinished".to_owned(), |d| format!("{}ms", d.round()))
}

fn loc(l: &Location) -> String {
    format!("{}:{}:{}", l.file, l.line, l.column)
}

/// A raw message for a terminal: its colours drawn or dropped, everything else
/// escaped, its lines kept.
fn block(s: &str, color: bool, indent: &str) -> String {
    let mut out = String::new();
    for l in s.lines() {
        let _ = writeln!(out, "{indent}{}", sgr_text(l, color));
    }
    out
}

fn title(a: &Action) -> String {
    match &a.subtitle {
        Some(s) => format!("{} {}", escape(&a.title), escape(s)),
        None => escape(&a.title).into_owned(),
    }
}

fn tree(out: &mut String, actions: &[Action], depth: usize, color: bool) {
    for a in actions {
        let pad = "  ".repeat(depth + 1);
        let mark = if a.error.is_some() {
            "✗"
        } else if a.end_ms.is_none() {
            "…"
        } else {
            "✓"
        };
        let _ = writeln!(out, "{pad}{mark} {}  {}", title(a), ms(a.duration_ms()));
        if let Some(e) = &a.error {
            let first = e.message.lines().next().unwrap_or_default();
            let _ = writeln!(out, "{pad}    {}", sgr_text(first, color));
            if let Some(l) = &a.location {
                let _ = writeln!(out, "{pad}    at {}", escape(&loc(l)));
            }
        }
        tree(out, &a.children, depth + 1, color);
    }
}

fn text(t: &Trace, color: bool) -> String {
    let mut out = String::new();
    let version = t.version.map_or_else(
        || "version unknown".to_owned(),
        |v| {
            if t.version_known() {
                format!("version {v}")
            } else {
                format!("version {v} (newer than this reader knows: what is readable)")
            }
        },
    );
    let _ = write!(out, "{}  {version}", escape(t.file()));
    if let Some(p) = &t.playwright_version {
        let _ = write!(out, "  Playwright {}", escape(p));
    }
    if let Some(b) = &t.browser {
        let _ = write!(out, "  {}", escape(b));
    }
    out.push('\n');
    if let Some(title) = &t.title {
        let _ = writeln!(out, "{}", escape(title));
    }
    let _ = writeln!(out, "\nActions");
    tree(&mut out, &t.actions, 0, color);
    if let Some(f) = t.failed() {
        let _ = write!(out, "\nFailed: {}", title(f));
        if let Some(l) = &f.location {
            let _ = write!(out, " at {}", escape(&loc(l)));
        }
        out.push('\n');
        if let Some(e) = &f.error {
            out.push_str(&block(&e.message, color, "  "));
        }
        // Playwright's message carries the call log already
        let logged = f
            .error
            .as_ref()
            .is_some_and(|e| e.message.contains("Call log:"));
        if !f.log.is_empty() && !logged {
            let _ = writeln!(out, "  Call log:");
            for l in &f.log {
                let _ = writeln!(out, "    {}", sgr_text(l, color));
            }
        }
    }
    if !t.errors.is_empty() {
        let _ = writeln!(out, "\nErrors ({})", t.errors.len());
        for e in &t.errors {
            let who = match e.source {
                ErrorSource::Page => "page",
                ErrorSource::Test => "test",
            };
            let first = e.error.message.lines().next().unwrap_or_default();
            let _ = writeln!(out, "  {who}  {}", sgr_text(first, color));
        }
    }
    let _ = writeln!(out, "\nConsole ({})", t.console.len());
    for c in &t.console {
        let _ = write!(out, "  {:<7} {}", escape(&c.kind), sgr_text(&c.text, color));
        if let Some(l) = &c.location {
            let _ = write!(out, "  {}", escape(l));
        }
        out.push('\n');
    }
    let _ = writeln!(out, "\nNetwork ({})", t.network.len());
    for r in &t.network {
        let status = r.status.map_or_else(|| "—".to_owned(), |s| s.to_string());
        let _ = write!(
            out,
            "  {:<6} {status:>3}  {}  {}",
            escape(&r.method),
            escape(&r.url),
            ms(r.duration_ms)
        );
        if let Some(n) = r.size {
            let _ = write!(out, "  {n} B");
        }
        if let Some(f) = &r.failure {
            let _ = write!(out, "  {}", escape(f));
        }
        out.push('\n');
    }
    if !t.output.is_empty() {
        let _ = writeln!(out, "\nOutput ({})", t.output.len());
        for o in &t.output {
            let s = match o.stream {
                Stream::Stdout => "stdout",
                Stream::Stderr => "stderr",
            };
            for l in o.text.lines() {
                let _ = writeln!(out, "  {s}  {}", sgr_text(l, color));
            }
        }
    }
    let _ = writeln!(out, "\nScreencast: {} frames", t.frames.len());
    out
}

/// Milliseconds to the microsecond (the trace's float noise dropped).
fn ms_json(d: f64) -> f64 {
    (d * 1000.0).round() / 1000.0
}

fn error_json(e: &ErrorInfo) -> Value {
    json!({
        "message": strip_sgr(&e.message),
        "stack": e.stack.as_deref().map(strip_sgr),
    })
}

fn action_json(a: &Action, zero: f64) -> Value {
    json!({
        "title": a.title,
        "subtitle": a.subtitle,
        "class": a.class,
        "method": a.method,
        "startMs": ms_json(a.start_ms - zero),
        "durationMs": a.duration_ms().map(ms_json),
        "error": a.error.as_ref().map(error_json),
        "location": a.location.as_ref().map(|l| json!({"file": l.file, "line": l.line, "column": l.column})),
        "log": a.log.iter().map(|l| strip_sgr(l)).collect::<Vec<_>>(),
        "children": a.children.iter().map(|c| action_json(c, zero)).collect::<Vec<_>>(),
    })
}

/// The `--json` document (docs/json.md): strings without colour codes, times
/// relative to the first action's start.
fn document(t: &Trace) -> Value {
    let zero = t
        .actions
        .iter()
        .map(|a| a.start_ms)
        .reduce(f64::min)
        .unwrap_or(0.0);
    json!({
        "file": t.file(),
        "version": t.version,
        "versionKnown": t.version_known(),
        "playwrightVersion": t.playwright_version,
        "browser": t.browser,
        "title": t.title,
        "actions": t.actions.iter().map(|a| action_json(a, zero)).collect::<Vec<_>>(),
        "failed": t.failed().map(|a| a.title.clone()),
        "errors": t.errors.iter().map(|e| {
            let mut v = error_json(&e.error);
            v["source"] = json!(match e.source { ErrorSource::Page => "page", ErrorSource::Test => "test" });
            v
        }).collect::<Vec<_>>(),
        "console": t.console.iter().map(|c| json!({
            "type": c.kind,
            "text": strip_sgr(&c.text),
            "location": c.location,
        })).collect::<Vec<_>>(),
        "network": t.network.iter().map(|r| json!({
            "method": r.method,
            "status": r.status,
            "url": r.url,
            "durationMs": r.duration_ms.map(ms_json),
            "size": r.size,
            "failure": r.failure,
        })).collect::<Vec<_>>(),
        "output": t.output.iter().map(|o| json!({
            "stream": match o.stream { Stream::Stdout => "stdout", Stream::Stderr => "stderr" },
            "text": strip_sgr(&o.text),
        })).collect::<Vec<_>>(),
        "frames": t.frames.iter().map(|f| json!({
            "entry": f.entry,
            "timestampMs": ms_json(f.timestamp_ms - zero),
            "width": f.width,
            "height": f.height,
        })).collect::<Vec<_>>(),
        "problems": t.problems,
    })
}
