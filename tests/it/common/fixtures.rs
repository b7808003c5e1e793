//! Fixture workspaces for the TUI's snapshot, end-to-end tests and benchmarks (which
//! include this file by path): a small one that shows every badge, and a generated
//! large one. Written with plain files; not part of the library.

use std::fmt::Write as _;
use std::path::Path;

fn put(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    if let Some(d) = p.parent() {
        let _ = std::fs::create_dir_all(d);
    }
    let _ = std::fs::write(p, text);
}

/// `YYYYMMDD-HHmmss-SSS` for day `d` (1-based in March 2026) and minute `m`.
pub fn run_id(d: u32, m: u32) -> String {
    format!(
        "202603{:02}-10{:02}{:02}-000",
        d.clamp(1, 28),
        (m / 60) % 60,
        m % 60
    )
}

fn iso(run_id: &str, plus_s: u32) -> String {
    let s: u32 = run_id[13..15].parse().unwrap_or(0) + plus_s;
    format!(
        "{}-{}-{}T{}:{}:{:02}.000Z",
        &run_id[0..4],
        &run_id[4..6],
        &run_id[6..8],
        &run_id[9..11],
        &run_id[11..13],
        s.min(59)
    )
}

#[allow(clippy::too_many_arguments)] // a fixture writer: each argument is one field of the run
/// Write one finished (or, with `status = None`, in-progress) run with its timeline.
pub fn write_run(
    root: &Path,
    scope: &str,
    case_id: &str,
    run: &str,
    status: Option<&str>,
    duration_ms: u64,
    events: &[(&str, &str, &str, &str)],
    artifacts: &[(&str, &str, Option<&str>)],
) {
    let dir = format!("tests/logs/{scope}/{case_id}/{run}");
    let mut tl = String::new();
    for (i, (kind, name, st, msg)) in events.iter().enumerate() {
        let ev = serde_json::json!({
            "ts": iso(run, i as u32),
            "type": kind,
            "name": name,
            "status": st,
            "id": format!("{}{}", &kind[..1], i),
            "message": msg,
            "data": {"index": i, "detail": format!("{name} detail")},
        });
        let _ = writeln!(tl, "{ev}");
    }
    put(root, &format!("{dir}/timeline.jsonl"), &tl);
    let Some(status) = status else { return };
    let items: Vec<serde_json::Value> = artifacts
        .iter()
        .enumerate()
        .map(|(i, (kind, path, step))| {
            put(root, &format!("{dir}/{path}"), "artifact");
            serde_json::json!({"id": format!("a{i}"), "kind": kind, "path": path, "refs": {"stepId": step}})
        })
        .collect();
    put(
        root,
        &format!("{dir}/artifacts.json"),
        &serde_json::json!({"schemaVersion": 4, "items": items}).to_string(),
    );
    put(
        root,
        &format!("{dir}/runtime-events.jsonl"),
        "{\"event\":\"boot\",\"pid\":42}\n{\"event\":\"exit\",\"code\":0}\n",
    );
    let meta = serde_json::json!({
        "schemaVersion": 4,
        "runId": run,
        "caseId": case_id,
        "scope": scope,
        "status": status,
        "startedAt": iso(run, 0),
        "finishedAt": iso(run, 5),
        "stats": {"durationMs": duration_ms, "steps": 2, "assertions": 1, "errors": u64::from(status == "failed"), "artifacts": artifacts.len()},
        "runtime": {"driver": "node", "target": "local", "modelName": "none"},
    });
    put(root, &format!("{dir}/meta.json"), &meta.to_string());
}

const OK_EVENTS: [(&str, &str, &str, &str); 4] = [
    ("run", "start", "info", "run started"),
    ("step", "open terminal", "ok", ""),
    ("assertion", "exit code is 0", "ok", ""),
    ("run", "end", "ok", "passed"),
];
const FAIL_EVENTS: [(&str, &str, &str, &str); 5] = [
    ("run", "start", "info", "run started"),
    ("step", "send message", "ok", ""),
    (
        "assertion",
        "reply is shown",
        "failed",
        "expected a reply within 5s",
    ),
    ("error", "timeout", "failed", "no reply"),
    ("run", "end", "failed", "failed"),
];

/// A small workspace with every badge: passed, failed, flaky, live, temp, unregistered,
/// orphan, artifacts. With `hostile`, a case name and a timeline message carry
/// terminal escape sequences (OSC 52 clipboard write, clear screen).
#[expect(
    clippy::too_many_lines,
    reason = "writes the fixture workspace file by file, as a reader of the test expects to see it"
)]
pub fn write_fixture(root: &Path, hostile: bool) {
    put(
        root,
        "doc/test-plan/ai.md",
        "# AI test plan\n\n## terminal-basic-command\n\n- What: runs a shell command through the terminal tool\n- Why: the basic path of the tool\n- Oracle: exit code 0 and output shown\n\n| caseId | What | Why |\n| --- | --- | --- |\n| chat-send-message | sends a chat message | the main flow |\n| terminal-live-model | asks a real model | live check |\n",
    );
    for f in [
        "tests/ai/backend/tools/terminal/basic/terminal-basic-command.test.ts",
        "tests/ai/backend/tools/terminal/live/terminal-live-model.test.ts",
        "tests/ai/e2e/chat/scenario/chat-send-message.test.ts",
        "tests/kb/backend/search/basic/kb-search-empty.test.ts",
        "tests/temp/probe/probe-scratch.test.ts",
    ] {
        put(root, f, "// a case\n");
    }
    let s = "ai/backend/tools/terminal/basic";
    write_run(
        root,
        s,
        "terminal-basic-command",
        &run_id(1, 0),
        Some("passed"),
        1200,
        &OK_EVENTS,
        &[],
    );
    write_run(
        root,
        s,
        "terminal-basic-command",
        &run_id(2, 0),
        Some("failed"),
        2400,
        &FAIL_EVENTS,
        &[],
    );
    write_run(
        root,
        s,
        "terminal-basic-command",
        &run_id(3, 0),
        Some("passed"),
        900,
        &OK_EVENTS,
        &[],
    );
    write_run(
        root,
        s,
        "terminal-basic-command",
        &run_id(4, 0),
        Some("passed"),
        1500,
        &OK_EVENTS,
        &[],
    );
    let e = "ai/e2e/chat/scenario";
    write_run(
        root,
        e,
        "chat-send-message",
        &run_id(3, 5),
        Some("passed"),
        8000,
        &OK_EVENTS,
        &[],
    );
    write_run(
        root,
        e,
        "chat-send-message",
        &run_id(5, 5),
        Some("failed"),
        9100,
        &FAIL_EVENTS,
        &[
            ("screenshot", "artifacts/failure.png", Some("s1")),
            ("trace", "artifacts/trace.zip", None),
            (
                "playwright-report",
                "artifacts/playwright/report/index.html",
                None,
            ),
        ],
    );
    write_run(
        root,
        "kb/backend/search/basic",
        "kb-old-case",
        &run_id(1, 9),
        Some("passed"),
        300,
        &OK_EVENTS,
        &[],
    );
    write_run(
        root,
        "temp/probe",
        "probe-scratch",
        &run_id(6, 1),
        Some("passed"),
        100,
        &OK_EVENTS,
        &[],
    );
    if hostile {
        let evil = "evil\u{1b}]52;c;SGVsbG8=\u{7}\u{1b}[2Jcase";
        put(
            root,
            &format!("tests/kb/backend/search/basic/{evil}.test.ts"),
            "",
        );
        write_run(
            root,
            "kb/backend/search/basic",
            evil,
            &run_id(7, 0),
            Some("failed"),
            10,
            &[(
                "step",
                "evil\u{1b}[2J step",
                "failed",
                "boom \u{1b}]52;c;SGVsbG8=\u{7} \u{1b}[2J \u{9b}31m end",
            )],
            &[],
        );
    }
}

/// A generated workspace of `domains` x 5 suites x 4 groups x `per_group` cases, each
/// with `runs` runs (for benchmarks: 10 x 5 x 4 x 50 = 10k cases).
pub fn generate(root: &Path, domains: usize, per_group: usize, runs: usize) {
    let mut plan = String::from("# plan\n");
    for d in 0..domains {
        for s in 0..5 {
            for (g, group) in ["basic", "boundary", "scenario", "live"].iter().enumerate() {
                for c in 0..per_group {
                    let case = format!("d{d}-s{s}-g{g}-case-{c}");
                    let scope = format!("domain-{d}/backend/suite-{s}/{group}");
                    put(root, &format!("tests/{scope}/{case}.test.ts"), "");
                    let _ = writeln!(plan, "| {case} | what | why |");
                    for r in 0..runs {
                        let status = if (c + r) % 7 == 0 { "failed" } else { "passed" };
                        write_run(
                            root,
                            &scope,
                            &case,
                            &run_id(1 + (r as u32 % 28), r as u32),
                            Some(status),
                            100 + (r as u64 * 37) % 900,
                            &OK_EVENTS[..2],
                            &[],
                        );
                    }
                }
            }
        }
    }
    put(root, "doc/test-plan/plan.md", &plan);
}
