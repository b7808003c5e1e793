//! Run folders of a case file holding many framework tests, written by hand as
//! the reporters write them (docs/per-test-events.md, followed field by field):
//! a Playwright-like spec of 6 tests, 2 failing, each failure with its own
//! `trace.zip` and screenshot (and a passing test's trace listed before them, as
//! a project that keeps every trace has it); a vitest-like file of nested `describe`s, 2 of
//! its tests failing with expected / actual; and the same vitest file passing.
//! The sources they point into are written too, so snippets read.

use super::random_changes::write;
use super::zip::{stored, zip_of};
use serde_json::{Value, json};
use std::path::Path;

/// The Playwright spec, relative to the workspace root.
pub const PW_SPEC: &str = "tests/web/e2e/search/posts-search.spec.ts";
/// Its run folder.
pub const PW_RUN: &str = "tests/logs/web/e2e/search/posts-search/20260301-100000-001";
/// The two failed tests: (step id, title path, the line of `test(`, the line of the failed `expect`).
pub const PW_FAILED: [(&str, &str, u32, u32); 2] = [
    (
        "t3",
        "PostsSearch › should focus and select input on Cmd+K shortcut",
        13,
        16,
    ),
    (
        "t5",
        "PostsSearch › should focus and select input on Ctrl+K shortcut",
        24,
        27,
    ),
];
/// The action each failed test's trace names as failed.
pub const PW_FAILED_ACTIONS: [&str; 2] = ["Expect \"toBeFocused\"", "Expect \"toHaveValue\""];

/// The vitest file, relative to the workspace root.
pub const VT_FILE: &str = "tests/lib/unit/url/join-url.test.ts";
/// Its failed run folder.
pub const VT_RUN: &str = "tests/logs/lib/unit/url/join-url/20260301-100000-002";
/// Its passed run folder (a later run).
pub const VT_PASSED_RUN: &str = "tests/logs/lib/unit/url/join-url/20260301-100000-003";
/// The two failed tests: (step id, title path, the line of the failed `expect`).
pub const VT_FAILED: [(&str, &str, u32); 2] = [
    ("t2", "joinURL › with a base › keeps the trailing slash", 7),
    ("t4", "joinURL › segments › splits every part", 16),
];

const PW_SOURCE: &str = "import { test, expect } from '@playwright/test';

test.describe('PostsSearch', () => {
  test.beforeEach(async ({ page }) => {
    await page.goto('/posts');
  });

  test('renders the search input', async ({ page }) => {
    await expect(page.getByRole('searchbox')).toBeVisible();
  });

  // the shortcut opens the search
  test('should focus and select input on Cmd+K shortcut', async ({ page }) => {
    await page.getByRole('searchbox').fill('hello');
    await page.keyboard.press('Meta+K');
    await expect(page.getByRole('searchbox')).toBeFocused();
  });

  test('filters posts as you type', async ({ page }) => {
    await page.getByRole('searchbox').fill('rust');
    await expect(page.getByRole('article')).toHaveCount(2);
  });

  test('should focus and select input on Ctrl+K shortcut', async ({ page }) => {
    await page.getByRole('searchbox').fill('hello');
    await page.keyboard.press('Control+K');
    await expect(page.getByRole('searchbox')).toHaveValue('');
  });

  test('clears on Escape', async ({ page }) => {
    await page.keyboard.press('Escape');
  });

  test('shows no results', async ({ page }) => {
    await page.getByRole('searchbox').fill('zzz');
  });
});
";

const VT_SOURCE: &str = "import { describe, expect, test } from 'vitest';
import { joinURL } from '../../../../src/url';

describe('joinURL', () => {
  describe('with a base', () => {
    test('keeps the trailing slash', () => {
      expect(joinURL('https://a.dev', 'api/')).toBe('https://a.dev/api/');
    });
    test('joins two parts', () => {
      expect(joinURL('a', 'b')).toBe('a/b');
    });
  });

  describe('segments', () => {
    test('splits every part', () => {
      expect(joinURL('a/b', 'c').split('/')).toEqual(['a', 'b', 'c', 'd']);
    });
    test('keeps an empty input', () => {
      expect(joinURL('')).toBe('');
    });
  });
});
";

fn lines(events: &[Value]) -> String {
    let mut out = String::new();
    for e in events {
        out.push_str(&e.to_string());
        out.push('\n');
    }
    out
}

fn meta(run: &str, case: &str, scope: &str, status: &str) -> String {
    let run_id = run.rsplit('/').next().unwrap_or(run);
    json!({
        "schemaVersion": 4, "runId": run_id, "caseId": case, "scope": scope,
        "status": status, "startedAt": "2026-03-01T10:00:00Z",
        "finishedAt": "2026-03-01T10:00:05Z",
        "stats": {"durationMs": 5000, "steps": 6, "assertions": 0, "errors": 2, "artifacts": 4},
        "runtime": {"driver": "playwright", "target": "http://127.0.0.1:5173", "modelName": "none"}
    })
    .to_string()
}

/// One test's `step` (docs/per-test-events.md).
fn test_step(
    id: &str,
    title: &[&str],
    file: &str,
    line: u32,
    status: &str,
    error: &str,
    project: Option<&str>,
) -> Value {
    let message = match status {
        "ok" => "passed".to_owned(),
        "failed" => format!("failed: {error}"),
        _ => "skipped".to_owned(),
    };
    let mut data = json!({
        "kind": "test", "titlePath": title,
        "location": {"file": file, "line": line, "column": 3},
        "durationMs": 120, "retry": 0
    });
    if let Some(p) = project {
        data["project"] = json!(p);
    }
    json!({
        "ts": "2026-03-01T10:00:01.000Z", "type": "step", "name": title.join(" › "),
        "status": status, "id": id, "message": message, "data": data
    })
}

/// A trace of one failed test: a fill, a key press, the failed expect.
fn trace(spec_abs: &str, key: &str, action: &str, line: u32) -> Vec<u8> {
    let stack = |l: u32, c: u32| json!([{"file": spec_abs, "line": l, "column": c}]);
    let events = [
        json!({"version": 8, "type": "context-options", "origin": "testRunner", "browserName": "", "playwrightVersion": "1.65.0", "monotonicTime": 100}),
        json!({"type": "before", "callId": "c@1", "startTime": 110, "class": "Test", "method": "pw:api", "title": "Fill \"hello\"", "params": {}, "stack": stack(line - 2, 40)}),
        json!({"type": "after", "callId": "c@1", "endTime": 150}),
        json!({"type": "before", "callId": "c@2", "startTime": 160, "class": "Test", "method": "pw:api", "title": format!("Press \"{key}\""), "params": {}, "stack": stack(line - 1, 25)}),
        json!({"type": "after", "callId": "c@2", "endTime": 170}),
        json!({"type": "before", "callId": "c@3", "startTime": 180, "class": "Test", "method": "expect", "title": action, "params": {}, "stack": stack(line, 48)}),
        json!({"type": "after", "callId": "c@3", "endTime": 5180, "error": {"message": format!("Error: expect(locator) failed: {action}"), "stack": format!("Error: x\n    at {spec_abs}:{line}:48")}}),
    ];
    zip_of(&[stored("test.trace", lines(&events).as_bytes())])
}

/// The Playwright run: 6 tests, `t3` and `t5` failed, each with its own trace
/// and screenshot (`refs` naming the test's step and its first failure).
#[expect(
    clippy::too_many_lines,
    reason = "writes a whole Playwright run's files as the real runner does, in its order"
)]
pub fn playwright_run(root: &Path) {
    write(root, PW_SPEC, PW_SOURCE);
    let abs = root.join(PW_SPEC).display().to_string();
    let title = |t: &str| ["PostsSearch".to_owned(), t.to_owned()];
    let passed = [
        ("t1", "renders the search input", 8),
        ("t2", "filters posts as you type", 19),
        ("t4", "clears on Escape", 30),
        ("t6", "shows no results", 34),
    ];
    let mut events = vec![json!({
        "ts": "2026-03-01T10:00:00.000Z", "type": "run", "name": "run/start", "status": "info",
        "message": "run started", "data": {"code": null, "env": []}
    })];
    let step = |id: &str, t: &str, line: u32, status: &str, err: &str| {
        let tp = title(t);
        let tp: Vec<&str> = tp.iter().map(String::as_str).collect();
        test_step(id, &tp, PW_SPEC, line, status, err, Some("chromium"))
    };
    let failed_msgs = [
        (
            "expect(locator).toBeFocused() failed",
            "Error: expect(locator).toBeFocused() failed\n\nLocator:  getByRole('searchbox')\nExpected: focused\nReceived: inactive\nTimeout:  5000ms\n\nCall log:\n  - Expect \"toBeFocused\" with timeout 5000ms\n  - waiting for getByRole('searchbox')\n",
            "Meta+K",
        ),
        (
            "expect(locator).toHaveValue(expected) failed",
            "Error: expect(locator).toHaveValue(expected) failed\n\nLocator:  getByRole('searchbox')\nExpected string: \"\"\nReceived string: \"hello\"\nTimeout:  5000ms\n\nCall log:\n  - Expect \"toHaveValue\" with timeout 5000ms\n",
            "Control+K",
        ),
    ];
    // the HTML report first: the failed test's trace is what a reader opens
    write(
        root,
        &format!("{PW_RUN}/artifacts/playwright/report/index.html"),
        "<!doctype html><title>report</title>\n",
    );
    let mut items = vec![
        json!({"id": "report", "kind": "playwright-report", "path": "artifacts/playwright/report/index.html", "refs": {}}),
    ];
    // a passing test's trace too (a project that keeps every trace), listed first
    write(root, &format!("{PW_RUN}/artifacts/tests/t1/trace.zip"), "");
    std::fs::write(
        root.join(PW_RUN).join("artifacts/tests/t1/trace.zip"),
        zip_of(&[stored(
            "test.trace",
            br#"{"version":8,"type":"context-options","origin":"testRunner"}"#,
        )]),
    )
    .expect("trace");
    items.push(json!({"id": "trace-t1", "kind": "trace", "path": "artifacts/tests/t1/trace.zip", "refs": {"stepId": "t1"}}));
    for (id, t, line) in &passed[..2] {
        events.push(step(id, t, *line, "ok", ""));
    }
    for (k, ((id, name, test_line, line), (first, whole, key))) in
        PW_FAILED.iter().zip(failed_msgs).enumerate()
    {
        let own = name.rsplit(" › ").next().unwrap_or(name);
        events.push(step(id, own, *test_line, "failed", first));
        // its test.step, failed by the same error
        events.push(json!({
            "ts": "2026-03-01T10:00:02.000Z", "type": "step", "name": format!("{name} › press the shortcut"),
            "status": "failed", "id": format!("{id}.1"), "message": format!("failed: {first}"),
            "data": {"kind": "test.step", "test": id, "location": {"file": PW_SPEC, "line": line - 1, "column": 5},
                     "durationMs": 5000, "error": {"message": whole}}
        }));
        let stack = format!(
            "{whole}\n    at {abs}:{line}:48\n    at {root}/node_modules/playwright/lib/matchers/matchers.js:120:12",
            root = root.display()
        );
        events.push(json!({
            "ts": "2026-03-01T10:00:02.100Z", "type": "assertion", "name": name, "status": "failed",
            "id": format!("{id}.e1"), "message": first,
            "data": {"kind": "test-error", "test": id,
                     "error": {"message": whole},
                     "location": {"file": PW_SPEC, "line": line, "column": 48},
                     "stack": stack}
        }));
        let dir = format!("artifacts/tests/{id}");
        write(root, &format!("{PW_RUN}/{dir}/trace.zip"), "");
        std::fs::write(
            root.join(PW_RUN).join(&dir).join("trace.zip"),
            trace(&abs, key, PW_FAILED_ACTIONS[k], *line),
        )
        .expect("trace");
        std::fs::write(
            root.join(PW_RUN).join(&dir).join("failure.png"),
            b"\x89PNG\r\n\x1a\n",
        )
        .expect("png");
        items.push(json!({"id": format!("trace-{id}"), "kind": "trace", "path": format!("{dir}/trace.zip"), "refs": {"stepId": id}}));
        items.push(json!({"id": format!("failure-{id}"), "kind": "screenshot", "path": format!("{dir}/failure.png"), "refs": {"stepId": id, "assertionId": format!("{id}.e1")}}));
        if k == 0 {
            let (pid, pt, pl) = passed[2];
            events.push(step(pid, pt, pl, "ok", ""));
        }
    }
    let (pid, pt, pl) = passed[3];
    events.push(step(pid, pt, pl, "ok", ""));
    events.push(json!({
        "ts": "2026-03-01T10:00:05.000Z", "type": "run", "name": "run/finish", "status": "failed",
        "message": "2 of 6 tests failed", "data": {"tests": {"total": 6, "passed": 4, "failed": 2, "skipped": 0}}
    }));
    write(root, &format!("{PW_RUN}/timeline.jsonl"), &lines(&events));
    write(root, &format!("{PW_RUN}/runtime-events.jsonl"), "");
    write(
        root,
        &format!("{PW_RUN}/artifacts.json"),
        &json!({"schemaVersion": 4, "items": items}).to_string(),
    );
    write(
        root,
        &format!("{PW_RUN}/meta.json"),
        &meta(PW_RUN, "posts-search", "web/e2e/search", "failed"),
    );
}

/// The vitest file's runs: a failed one (`t2`, `t4` failed with expected /
/// actual and vitest's diff) and, later, a passed one listing every test.
pub fn vitest_runs(root: &Path) {
    write(root, VT_FILE, VT_SOURCE);
    let abs = root.join(VT_FILE).display().to_string();
    let tests: [(&str, [&str; 3], u32); 4] = [
        ("t1", ["joinURL", "with a base", "joins two parts"], 9),
        (
            "t2",
            ["joinURL", "with a base", "keeps the trailing slash"],
            6,
        ),
        ("t3", ["joinURL", "segments", "keeps an empty input"], 18),
        ("t4", ["joinURL", "segments", "splits every part"], 15),
    ];
    let errors = [
        json!({
            "message": "expected 'https://a.dev/api' to be 'https://a.dev/api/' // Object.is equality",
            "expected": "'https://a.dev/api/'", "actual": "'https://a.dev/api'",
            "diff": "- Expected\n+ Received\n\n- https://a.dev/api/\n+ https://a.dev/api"
        }),
        json!({
            "message": "expected [ 'a', 'b', 'c' ] to deeply equal [ 'a', 'b', 'c', 'd' ]",
            "expected": "[\n  \"a\",\n  \"b\",\n  \"c\",\n  \"d\",\n]", "actual": "[\n  \"a\",\n  \"b\",\n  \"c\",\n]",
            "diff": "- Expected\n+ Received\n\n  [\n    \"a\",\n    \"b\",\n    \"c\",\n-   \"d\",\n  ]"
        }),
    ];
    let start = json!({
        "ts": "2026-03-01T10:00:00.000Z", "type": "run", "name": "run/start", "status": "info",
        "message": "run started", "data": {"code": null, "env": []}
    });
    let node_modules = format!(
        "file://{}/node_modules/@vitest/runner/dist/index.js",
        root.display()
    );
    let mut failed = vec![start.clone()];
    let mut passed = vec![start];
    for (id, title, line) in tests {
        let fail = VT_FAILED.iter().position(|(f, ..)| *f == id);
        passed.push(test_step(id, &title, VT_FILE, line, "ok", "", None));
        let Some(k) = fail else {
            failed.push(test_step(id, &title, VT_FILE, line, "ok", "", None));
            continue;
        };
        let (_, name, at) = VT_FAILED[k];
        let first = errors[k]["message"].as_str().unwrap_or_default().to_owned();
        failed.push(test_step(id, &title, VT_FILE, line, "failed", &first, None));
        let mut error = errors[k].clone();
        let stack = format!(
            "AssertionError: {first}\n    at {abs}:{at}:46\n    at {node_modules}:155:11\n    at async runTest ({node_modules}:781:11)"
        );
        error["stack"] = json!(stack);
        failed.push(json!({
            "ts": "2026-03-01T10:00:01.500Z", "type": "assertion", "name": name, "status": "failed",
            "id": format!("{id}.e1"), "message": first,
            "data": {"kind": "test-error", "test": id, "error": error,
                     "location": {"file": VT_FILE, "line": at, "column": 46}, "stack": stack}
        }));
    }
    for (events, status) in [(&mut failed, "failed"), (&mut passed, "ok")] {
        let n = if status == "failed" { 2 } else { 0 };
        events.push(json!({
            "ts": "2026-03-01T10:00:02.000Z", "type": "run", "name": "run/finish", "status": status,
            "message": format!("{n} of 4 tests failed"),
            "data": {"tests": {"total": 4, "passed": 4 - n, "failed": n, "skipped": 0}}
        }));
    }
    for (run, events, status) in [
        (VT_RUN, &failed, "failed"),
        (VT_PASSED_RUN, &passed, "passed"),
    ] {
        write(root, &format!("{run}/timeline.jsonl"), &lines(events));
        write(root, &format!("{run}/runtime-events.jsonl"), "");
        write(
            root,
            &format!("{run}/artifacts.json"),
            r#"{"schemaVersion":4,"items":[]}"#,
        );
        write(
            root,
            &format!("{run}/meta.json"),
            &meta(run, "join-url", "lib/unit/url", status),
        );
    }
}
