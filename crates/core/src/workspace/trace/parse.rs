//! The JSON Lines entries of a trace read into the model: `before`/`after`
//! pairs joined by `callId` and nested by `parentId`, and every other line kind
//! a terminal can show.

use super::archive::{Archive, shown};
use super::{
    Action, Console, ErrorInfo, ErrorSource, Frame, Location, Output, Request, Stream, Trace,
    TraceError,
};
use crate::problem::Problem;
use serde_json::Value;
use std::collections::HashMap;

/// Actions nest at most this deep; a deeper (or circular) `parentId` chain
/// makes the action a top-level one (no recursion on hostile input).
const MAX_DEPTH: usize = 64;

/// Lines that are not JSON reported per entry; the rest are counted.
const BAD_LINES_SAID: usize = 5;

/// What an entry is, in the order they are read: the runner's own events first
/// (its steps are the tree), then each context's actions, network and stacks.
fn rank(name: &str) -> Option<(u8, u64)> {
    if name.contains('/') {
        return None;
    }
    let n = |stem: &str| {
        stem.split('-')
            .next()
            .and_then(|d| d.parse().ok())
            .unwrap_or(0)
    };
    if name == "test.trace" {
        return Some((0, 0));
    }
    [(".trace", 1), (".network", 2), (".stacks", 3)]
        .iter()
        .find_map(|(suffix, k)| name.strip_suffix(suffix).map(|stem| (*k, n(stem))))
}

struct Node {
    action: Action,
    parent: Option<String>,
}

#[derive(Default)]
struct State {
    nodes: Vec<Node>,
    by_id: HashMap<String, usize>,
}

#[expect(
    clippy::too_many_lines,
    reason = "one arm per trace entry kind, all writing into the same trace"
)]
pub(super) fn read_entries(t: &mut Trace, mut archive: Archive) {
    let limits = t.limits.clone();
    let mut entries: Vec<_> = archive
        .entries()
        .into_iter()
        .filter_map(|e| rank(&e.name).map(|(k, n)| (k, n, e)))
        .collect();
    entries.sort_by(|a, b| (a.0, a.1, &a.2.name).cmp(&(b.0, b.1, &b.2.name)));
    let mut st = State::default();
    let mut used = 0u64;
    for (kind, _, e) in entries {
        let left = limits.total.saturating_sub(used);
        if left == 0 || e.size > left {
            t.problems.push(Problem::error(
                &t.file,
                "trace-too-large",
                format!(
                    "{}: {} bytes would take the entries read over {} bytes in all: not read",
                    shown(&e.name),
                    e.size,
                    limits.total
                ),
            ));
            continue;
        }
        let cap = limits.entry.min(left);
        if kind == 3 {
            match archive.bytes(&e.name, cap, &limits) {
                Ok(b) => {
                    used += b.len() as u64;
                    stacks(&mut st, &b);
                }
                Err(s) => t.entry_problem(&e.name, &s),
            }
            continue;
        }
        let mut bad = (0usize, 0usize);
        let mut said = Vec::new();
        let mut no = 0usize;
        let r = archive.lines(&e.name, cap, &limits, |line| {
            no += 1;
            let Some(line) = line else {
                bad.1 += 1;
                said.push((no, format!("line over {} bytes: skipped", limits.line)));
                return;
            };
            // DOM snapshots are most of a trace's bytes and no terminal draws them
            if line.is_empty() || line.starts_with(br#"{"type":"frame-snapshot""#) {
                return;
            }
            match serde_json::from_slice::<Value>(line) {
                Ok(v) => event(t, &mut st, &v),
                Err(err) => {
                    bad.0 += 1;
                    if said.len() < BAD_LINES_SAID {
                        said.push((no, format!("not JSON: {err}")));
                    }
                }
            }
        });
        for (line, m) in said.iter().take(BAD_LINES_SAID) {
            t.problems.push(Problem::warning(
                &t.file,
                "trace-line",
                format!("{} line {line}: {m}", shown(&e.name)),
            ));
        }
        let more = (bad.0 + bad.1).saturating_sub(said.len().min(BAD_LINES_SAID));
        if more > 0 {
            t.problems.push(Problem::warning(
                &t.file,
                "trace-line",
                format!("{}: {more} more unreadable lines", shown(&e.name)),
            ));
        }
        match r {
            Ok(n) => used += n,
            Err((n, s)) => {
                used += n;
                t.entry_problem(&e.name, &s);
            }
        }
    }
    t.actions = tree(st.nodes);
    t.network.sort_by(|a, b| {
        a.start_ms
            .unwrap_or(f64::MAX)
            .total_cmp(&b.start_ms.unwrap_or(f64::MAX))
    });
    t.frames
        .sort_by(|a, b| a.timestamp_ms.total_cmp(&b.timestamp_ms));
    if let Some(v) = t.version.filter(|_| !t.version_known()) {
        t.problems.push(Problem::warning(
            &t.file,
            "trace-version",
            format!(
                "trace version {v} is newer than {}, the newest this reader knows: what is readable is shown",
                super::KNOWN_VERSION
            ),
        ));
    } else if t.version.is_none() && !t.actions.is_empty() {
        t.problems.push(Problem::warning(
            &t.file,
            "trace-version",
            "no context-options line names the trace's version: what is readable is shown",
        ));
    }
    t.archive = Some(archive);
}

fn s(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_owned)
}

fn f(v: &Value, k: &str) -> Option<f64> {
    v.get(k).and_then(Value::as_f64).filter(|x| x.is_finite())
}

fn u32_of(v: &Value, k: &str) -> u32 {
    v.get(k)
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(0)
}

/// `{message, stack}`, or the older `{error: {message, stack}}`, or a bare string.
fn error_info(v: &Value) -> Option<ErrorInfo> {
    if let Some(m) = v.as_str() {
        return Some(ErrorInfo {
            message: m.to_owned(),
            stack: None,
        });
    }
    if let Some(m) = s(v, "message") {
        return Some(ErrorInfo {
            message: m,
            stack: s(v, "stack"),
        });
    }
    v.get("error").and_then(error_info)
}

fn location(stack: Option<&Value>) -> Option<Location> {
    let top = stack?.as_array()?.first()?;
    Some(Location {
        file: s(top, "file")?,
        line: u32_of(top, "line"),
        column: u32_of(top, "column"),
    })
}

fn event(t: &mut Trace, st: &mut State, v: &Value) {
    match v.get("type").and_then(Value::as_str).unwrap_or_default() {
        "context-options" => {
            if t.version.is_none() {
                t.version = v.get("version").and_then(Value::as_u64);
                t.playwright_version = s(v, "playwrightVersion");
            }
            let browser = s(v, "browserName").filter(|b| !b.is_empty());
            if t.browser.is_none() {
                t.browser = browser;
            }
            if t.title.is_none() {
                t.title = s(v, "title");
            }
        }
        "before" => before(st, v),
        "after" => {
            let Some(&i) = v
                .get("callId")
                .and_then(Value::as_str)
                .and_then(|c| st.by_id.get(c))
            else {
                return;
            };
            let a = &mut st.nodes[i].action;
            if a.end_ms.is_none() {
                a.end_ms = f(v, "endTime");
            }
            if a.error.is_none() {
                a.error = v.get("error").and_then(error_info);
            }
        }
        "log" => {
            let id = v.get("callId").and_then(Value::as_str);
            if let (Some(&i), Some(m)) = (id.and_then(|c| st.by_id.get(c)), s(v, "message")) {
                st.nodes[i].action.log.push(m);
            }
        }
        "console" => t.console.push(Console {
            kind: s(v, "messageType").unwrap_or_default(),
            text: s(v, "text").unwrap_or_default(),
            location: v.get("location").and_then(console_location),
            time_ms: f(v, "time"),
        }),
        "event" => page_event(t, v),
        "error" => t.errors.push(TraceError {
            source: ErrorSource::Test,
            error: error_info(v).unwrap_or_default(),
            time_ms: f(v, "time").or_else(|| f(v, "timestamp")),
        }),
        kind @ ("stdout" | "stderr") => t.output.push(Output {
            stream: if kind == "stdout" {
                Stream::Stdout
            } else {
                Stream::Stderr
            },
            text: s(v, "text").unwrap_or_else(|| {
                let n = v.get("base64").and_then(Value::as_str).map_or(0, str::len);
                format!("<binary output, {n} base64 characters>")
            }),
            time_ms: f(v, "timestamp"),
        }),
        "screencast-frame" => {
            let entry = s(v, "file").or_else(|| s(v, "sha1").map(|h| format!("resources/{h}")));
            if let (Some(entry), Some(ts)) = (entry, f(v, "timestamp")) {
                t.frames.push(Frame {
                    page_id: s(v, "pageId").unwrap_or_default(),
                    entry,
                    timestamp_ms: ts,
                    width: u32_of(v, "width"),
                    height: u32_of(v, "height"),
                });
            }
        }
        "resource-snapshot" => {
            if let Some(r) = v.get("snapshot") {
                t.network.push(request(r));
            }
        }
        // traces before version 3 wrote one `action` line per finished call
        "action" => old_action(st, v),
        _ => {}
    }
}

fn before(st: &mut State, v: &Value) {
    let Some(id) = s(v, "callId") else {
        return;
    };
    let stack_loc = location(v.get("stack"));
    if let Some(&i) = st.by_id.get(&id) {
        // the library's side of a call the runner already recorded: the
        // runner's title and nesting win, the library adds what it lacks
        let a = &mut st.nodes[i].action;
        if a.location.is_none() {
            a.location = stack_loc;
        }
        return;
    }
    let class = s(v, "class").unwrap_or_default();
    let method = s(v, "method").unwrap_or_default();
    let params = v.get("params");
    let param = |k: &str| params.and_then(|p| s(p, k));
    let (title, subtitle) = match s(v, "title").or_else(|| s(v, "apiName")) {
        Some(title) => (title, s(v, "subtitle")),
        None => (
            format!("{class}.{method}"),
            param("selector").or_else(|| param("url")),
        ),
    };
    st.by_id.insert(id.clone(), st.nodes.len());
    st.nodes.push(Node {
        action: Action {
            call_id: id,
            title,
            subtitle,
            class,
            method,
            start_ms: f(v, "startTime").unwrap_or(0.0),
            location: stack_loc,
            ..Action::default()
        },
        parent: s(v, "parentId"),
    });
}

fn old_action(st: &mut State, v: &Value) {
    let Some(m) = v.get("metadata") else {
        return;
    };
    let Some(id) = s(m, "id") else {
        return;
    };
    if st.by_id.contains_key(&id) {
        return;
    }
    st.by_id.insert(id.clone(), st.nodes.len());
    st.nodes.push(Node {
        action: Action {
            call_id: id,
            title: s(m, "apiName").unwrap_or_else(|| {
                format!(
                    "{}.{}",
                    s(m, "type").unwrap_or_default(),
                    s(m, "method").unwrap_or_default()
                )
            }),
            class: s(m, "type").unwrap_or_default(),
            method: s(m, "method").unwrap_or_default(),
            start_ms: f(m, "startTime").unwrap_or(0.0),
            end_ms: f(m, "endTime"),
            error: m.get("error").and_then(error_info),
            location: location(m.get("stack")),
            log: m
                .get("log")
                .and_then(Value::as_array)
                .map(|l| {
                    l.iter()
                        .filter_map(|x| x.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
            ..Action::default()
        },
        parent: None,
    });
}

fn console_location(l: &Value) -> Option<String> {
    let url = s(l, "url").filter(|u| !u.is_empty())?;
    Some(format!(
        "{url}:{}:{}",
        u32_of(l, "lineNumber") + 1,
        u32_of(l, "columnNumber") + 1
    ))
}

fn page_event(t: &mut Trace, v: &Value) {
    let params = v.get("params");
    match v.get("method").and_then(Value::as_str) {
        Some("pageError") => {
            let error = params.and_then(|p| p.get("error")).and_then(error_info);
            t.errors.push(TraceError {
                source: ErrorSource::Page,
                error: error.unwrap_or_default(),
                time_ms: f(v, "time"),
            });
        }
        // the console as an event (versions before the `console` line)
        Some("console") => {
            if let Some(m) = params.and_then(|p| p.get("message")) {
                t.console.push(Console {
                    kind: s(m, "type").unwrap_or_default(),
                    text: s(m, "text").unwrap_or_default(),
                    location: m.get("location").and_then(console_location),
                    time_ms: f(v, "time"),
                });
            }
        }
        _ => {}
    }
}

fn request(r: &Value) -> Request {
    let req = r.get("request");
    let res = r.get("response");
    let status = res
        .and_then(|x| x.get("status"))
        .and_then(Value::as_i64)
        .filter(|&c| c > 0)
        .and_then(|c| u16::try_from(c).ok());
    let size = res
        .and_then(|x| x.get("content"))
        .and_then(|c| c.get("size"))
        .and_then(Value::as_i64)
        .or_else(|| res.and_then(|x| x.get("bodySize")).and_then(Value::as_i64))
        .and_then(|n| u64::try_from(n).ok());
    Request {
        method: req.and_then(|q| s(q, "method")).unwrap_or_default(),
        url: req.and_then(|q| s(q, "url")).unwrap_or_default(),
        status,
        duration_ms: f(r, "time").filter(|d| *d >= 0.0),
        size,
        failure: res.and_then(|x| s(x, "_failureText")),
        start_ms: f(r, "_monotonicTime"),
    }
}

/// `N-trace.stacks`: `{files: [..], stacks: [[callId, [[file, line, column, fn], ..]]]}`,
/// the call sites of a context's API calls (their `before` lines carry none).
fn stacks(st: &mut State, bytes: &[u8]) {
    let Ok(doc) = serde_json::from_slice::<Value>(bytes) else {
        return;
    };
    let files: Vec<&str> = doc
        .get("files")
        .and_then(Value::as_array)
        .map(|f| f.iter().map(|x| x.as_str().unwrap_or_default()).collect())
        .unwrap_or_default();
    for entry in doc
        .get("stacks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (Some(id), Some(top)) = (
            entry.get(0).and_then(Value::as_str),
            entry
                .get(1)
                .and_then(Value::as_array)
                .and_then(|fr| fr.first()),
        ) else {
            continue;
        };
        let Some(&i) = st.by_id.get(id) else {
            continue;
        };
        let n = |k: usize| top.get(k).and_then(Value::as_u64);
        let file = n(0)
            .and_then(|k| usize::try_from(k).ok())
            .and_then(|k| files.get(k));
        let a = &mut st.nodes[i].action;
        if let (None, Some(file)) = (&a.location, file) {
            a.location = Some(Location {
                file: (*file).to_owned(),
                line: n(1).and_then(|x| u32::try_from(x).ok()).unwrap_or(0),
                column: n(2).and_then(|x| u32::try_from(x).ok()).unwrap_or(0),
            });
        }
    }
}

/// The nodes nested by `parentId` (a missing, circular or too deep parent makes a
/// top-level action), each level by start time.
fn tree(nodes: Vec<Node>) -> Vec<Action> {
    fn build(i: usize, slots: &mut [Option<Action>], kids: &[Vec<usize>]) -> Option<Action> {
        let mut a = slots[i].take()?;
        a.children = kids[i]
            .iter()
            .filter_map(|&k| build(k, slots, kids))
            .collect();
        Some(a)
    }
    let index: HashMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.action.call_id.as_str(), i))
        .collect();
    let parent: Vec<Option<usize>> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            n.parent
                .as_deref()
                .and_then(|p| index.get(p).copied())
                .filter(|&p| p != i)
        })
        .collect();
    // a chain must reach a top-level action within MAX_DEPTH steps
    let kept: Vec<Option<usize>> = (0..nodes.len())
        .map(|i| {
            let mut at = parent[i];
            for _ in 0..MAX_DEPTH {
                match at {
                    None => return parent[i],
                    Some(p) => at = parent[p],
                }
            }
            None
        })
        .collect();
    let mut kids: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut roots = Vec::new();
    for (i, p) in kept.iter().enumerate() {
        match p {
            Some(p) => kids[*p].push(i),
            None => roots.push(i),
        }
    }
    let mut slots: Vec<Option<Action>> = nodes.into_iter().map(|n| Some(n.action)).collect();
    let start = |slots: &[Option<Action>], i: usize| slots[i].as_ref().map_or(0.0, |a| a.start_ms);
    for k in &mut kids {
        k.sort_by(|&a, &b| {
            start(&slots, a)
                .total_cmp(&start(&slots, b))
                .then(a.cmp(&b))
        });
    }
    roots.sort_by(|&a, &b| {
        start(&slots, a)
            .total_cmp(&start(&slots, b))
            .then(a.cmp(&b))
    });
    roots
        .iter()
        .filter_map(|&r| build(r, &mut slots, &kids))
        .collect()
}
