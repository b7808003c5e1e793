//! `testdeck list`: every case of both sources.

use super::print_json;
use serde_json::{Value, json};
use std::process::ExitCode;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::logs::RunStatus;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only one source.
    #[arg(long, value_parser = ["tests", "catalog"])]
    pub(crate) source: Option<String>,
    /// Fuzzy filter (fzf syntax), as the cockpit's finder matches: a tests case by
    /// its id and path, a catalog case by its id, title and category.
    #[arg(long)]
    pub filter: Option<String>,
    /// Only the cases whose test file, plan entry, catalog case file or watched
    /// source differ from REV in git (default: the working tree and index
    /// against HEAD); write `--changed=REV` before other arguments.
    #[arg(long, value_name = "REV", num_args = 0..=1, default_missing_value = "HEAD")]
    pub(crate) changed: Option<String>,
    /// One JSON document.
    #[arg(long)]
    pub json: bool,
}

/// Every tests-tree case (and every orphan: logs whose test file is gone) as JSON.
pub fn tests_cases(ws: &Workspace) -> Vec<Value> {
    let mut out = Vec::new();
    each_tests_case(ws, &mut |v| out.push(v));
    out
}

/// [`tests_cases`] one at a time (the JSON list streams them).
fn each_tests_case(ws: &Workspace, out: &mut dyn FnMut(Value)) {
    // flaky as the cockpit's tree says it: the core's statistics
    let flaky = testdeck_core::workspace::stats::flaky_cases(&ws.tests, &ws.logs);
    for c in &ws.tests.cases {
        let runs: Vec<_> = ws.logs.of_case(&c.scope, &c.case_id).collect();
        let latest = runs.last().map(|r| r.status.as_str());
        let mut v = json!({
            "source": "tests",
            "id": c.case_id,
            "path": c.path,
            "scope": c.scope,
            "domain": c.levels.domain,
            "layer": c.levels.layer,
            "suite": c.levels.suite,
            "groups": c.levels.groups,
            "registered": c.registered,
            "temp": c.temp,
            "outside": c.outside,
            "live": c.live,
            "orphan": false,
            "flaky": flaky.contains(&c.key()),
            "latestStatus": latest,
            "runCount": runs.iter().filter(|r| r.status.is_finished()).count(),
        });
        if let Some(e) = ws.plan.entry(&c.case_id) {
            v["plan"] = json!(e);
        }
        out(v);
    }
    // orphans: one entry per logged case without a test file
    for (start, end) in testdeck_core::workspace::cases::orphan_ranges(ws) {
        let group = &ws.logs.runs[start..end];
        let Some(r) = group.first() else { continue };
        let segs: Vec<&str> = r.scope.split('/').filter(|s| !s.is_empty()).collect();
        let temp = segs.first() == Some(&"temp");
        // the levels as a tests case reads them, but no domain is null here
        let levels = testdeck_core::workspace::tree::ScopeLevels::of(&segs);
        out(json!({
            "source": "tests",
            "id": r.case_id,
            "path": format!("tests/logs/{}", testdeck_core::workspace::tree::key(&r.scope, &r.case_id)),
            "scope": r.scope,
            "domain": segs.first(),
            "layer": levels.layer,
            "suite": levels.suite,
            "groups": levels.groups,
            "registered": temp || ws.plan.is_registered(&r.case_id),
            "temp": temp,
            "outside": testdeck_core::workspace::outside::is_outside_scope(&r.scope),
            "live": segs.iter().skip(1).any(|s| *s == "live"),
            "orphan": true,
            "flaky": flaky.contains(&r.key()),
            "latestStatus": group.last().map(|r| r.status.as_str()),
            "runCount": group.iter().filter(|r| r.status.is_finished()).count(),
        }));
    }
}

/// Every catalog case as JSON (empty without a catalog), in execution order.
pub fn catalog_cases(ws: &Workspace) -> Vec<Value> {
    let mut out = Vec::new();
    each_catalog_case(ws, &mut |v| out.push(v));
    out
}

/// [`catalog_cases`] one at a time.
fn each_catalog_case(ws: &Workspace, out: &mut dyn FnMut(Value)) {
    let Some(cat) = &ws.catalog else {
        return;
    };
    for c in &cat.cases {
        out(json!({
                "source": "catalog",
                "id": c.id,
                "path": c.file,
                "line": c.pos.line,
                "category": c.category,
                "title": c.title,
                "what": c.what,
                "risk": c.risk,
                "tag": c.tag,
                "lifecycle": c.lifecycle,
                "driver": c.driver,
                "automation": c.automation,
                "gate": c.gate,
                "session": c.session,
                "group": cat.group_of(&c.id),
                "how": c.how,
                "expected": c.expected,
                "maps_to": c.maps_to,
                "assume": c.assume,
                "setup": c.setup,
                "teardown": c.teardown,
                "notes": c.notes,
                "extra": c.extra,
        }));
    }
}

/// `{"cases": [...]}` written case by case to a buffered stdout, byte for byte
/// what [`print_json`] writes for the whole document: only one case is ever
/// held as a JSON value. (A JSON text holds no raw newline inside a string, so
/// indenting after each newline nests a case's pretty text exactly.)
struct CasesOut<W: std::io::Write> {
    out: W,
    count: usize,
    failed: bool,
}

impl<W: std::io::Write> CasesOut<W> {
    fn new(mut out: W) -> CasesOut<W> {
        let failed = out.write_all(b"{\n  \"cases\": [").is_err();
        CasesOut {
            out,
            count: 0,
            failed,
        }
    }

    fn push(&mut self, v: &Value) {
        if self.failed {
            return;
        }
        let Ok(text) = testdeck_core::sanitize::to_json(v, true) else {
            return;
        };
        let sep: &[u8] = if self.count == 0 {
            b"\n    "
        } else {
            b",\n    "
        };
        self.count += 1;
        let mut ok = self.out.write_all(sep).is_ok();
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                ok &= self.out.write_all(b"\n    ").is_ok();
            }
            ok &= self.out.write_all(line.as_bytes()).is_ok();
        }
        // a closed pipe (`| head`): stop writing, as print_json drops the rest
        self.failed = !ok;
    }

    fn finish(mut self) {
        if self.failed {
            return;
        }
        let end: &[u8] = if self.count == 0 {
            b"]\n}\n"
        } else {
            b"\n  ]\n}\n"
        };
        let _ = self.out.write_all(end);
        let _ = self.out.flush();
    }
}

/// The text the finder matches for this case (`fuzzy::tests_text`/`catalog_text`).
fn haystack(v: &Value) -> String {
    let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("");
    if s("source") == "catalog" {
        testdeck_core::workspace::fuzzy::catalog_text(s("id"), s("title"), s("category"))
    } else {
        testdeck_core::workspace::fuzzy::tests_text(s("id"), s("path"))
    }
}

#[expect(
    clippy::too_many_lines,
    reason = "the list command's output formats side by side over one selection"
)]
pub fn run(args: &Args, ws: &testdeck_core::workspace::Workspace) -> ExitCode {
    let changed = match args
        .changed
        .as_deref()
        .map(|rev| super::changed_cases(ws, rev))
    {
        None => None,
        Some(Ok(c)) => Some(c),
        Some(Err(code)) => return code,
    };
    if args.json && args.filter.is_none() && changed.is_none() {
        // streamed: the whole list never exists as one JSON value
        let mut out = CasesOut::new(std::io::BufWriter::with_capacity(
            64 << 10,
            std::io::stdout().lock(),
        ));
        if args.source.as_deref() != Some("catalog") {
            each_tests_case(ws, &mut |v| out.push(&v));
        }
        if args.source.as_deref() != Some("tests") {
            each_catalog_case(ws, &mut |v| out.push(&v));
        }
        out.finish();
        return ExitCode::SUCCESS;
    }
    let mut cases = Vec::new();
    if args.source.as_deref() != Some("catalog") {
        cases.extend(tests_cases(ws));
    }
    if args.source.as_deref() != Some("tests") {
        cases.extend(catalog_cases(ws));
    }
    if let Some(ch) = &changed {
        cases.retain(|c| {
            let s = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or("");
            if s("source") == "catalog" {
                ch.catalog.iter().any(|id| id == s("id"))
            } else {
                c["orphan"] != true
                    && ch.has_test(&testdeck_core::workspace::tree::key(s("scope"), s("id")))
            }
        });
    }
    if let Some(q) = &args.filter {
        let texts: Vec<String> = cases.iter().map(haystack).collect();
        let order = testdeck_core::workspace::fuzzy::rank(q, texts.iter().map(String::as_str));
        let mut slots: Vec<Option<Value>> = cases.into_iter().map(Some).collect();
        cases = order
            .into_iter()
            .filter_map(|(i, _)| slots.get_mut(i).and_then(Option::take))
            .collect();
    }
    if args.json {
        match &changed {
            // what the changes reach, and why every case when the graph cannot place one
            Some(ch) => print_json(&json!({
                "cases": cases,
                "changed": { "files": ch.files, "every": ch.every, "notes": ch.notes },
            })),
            None => print_json(&json!({ "cases": cases })),
        }
        return ExitCode::SUCCESS;
    }
    if let Some(ch) = &changed {
        // on stderr: stdout stays one line a case
        for n in &ch.notes {
            eprintln!("{}", escape(n));
        }
    }
    if cases.is_empty() && args.filter.is_none() {
        if let Some(rev) = &args.changed {
            // as `run --changed` says it: an empty answer is not silence (a change
            // that reaches no case has said so in its note)
            if changed.as_ref().is_none_or(|ch| ch.files.is_empty()) {
                crate::outln!("nothing differs from {}: no case changed", escape(rev));
            }
            return ExitCode::SUCCESS;
        }
    }
    for c in &cases {
        let s = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or("");
        if s("source") == "tests" {
            let mut badges = Vec::new();
            if c["outside"] == true {
                badges.push("outside");
            } else if c["temp"] == true {
                badges.push("temp");
            }
            if c["live"] == true {
                badges.push("live");
            }
            if c["registered"] == false {
                badges.push("unregistered");
            }
            if c["orphan"] == true {
                badges.push("orphan");
            }
            if c["flaky"] == true {
                badges.push("~flaky");
            }
            crate::outln!(
                "tests    {:<40} {:<12} runs={:<4} {}{}",
                escape(s("id")),
                c["latestStatus"].as_str().unwrap_or("—"),
                c["runCount"],
                escape(s("path")),
                if badges.is_empty() {
                    String::new()
                } else {
                    format!("  [{}]", badges.join(", "))
                }
            );
        } else {
            crate::outln!(
                "catalog  {:<16} {:<12} {:<11} {:<6} {:<8} {}",
                escape(s("id")),
                escape(s("category")),
                escape(s("risk")),
                escape(s("tag")),
                escape(s("lifecycle")),
                escape(s("title")),
            );
        }
    }
    ExitCode::SUCCESS
}

/// A short summary of a workspace (what `testdeck` prints before the TUI exists).
pub fn print_summary(ws: &Workspace) {
    let finished = ws
        .logs
        .runs
        .iter()
        .filter(|r| r.status.is_finished())
        .count();
    let in_progress = ws
        .logs
        .runs
        .iter()
        .filter(|r| r.status == RunStatus::InProgress)
        .count();
    crate::outln!("workspace  {}", escape(&ws.root.display().to_string()));
    crate::outln!(
        "tests      {} cases, {} runs ({} in progress)",
        ws.tests.cases.len(),
        finished,
        in_progress
    );
    crate::outln!("catalog    {} cases", catalog_cases(ws).len());
}
