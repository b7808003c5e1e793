//! `testdeck explain` and the reason `run` gives a failed case (issue 25): on a
//! run folder a `sh` runner writes like vitest, then on the real fixture project's
//! vitest and Playwright runs.

use crate::common;
use common::cli::at;

use quick_xml::Reader;
use quick_xml::events::Event;
use serde_json::Value;
use std::path::Path;
use std::process::Output;

/// The failed message the `sh` runner's assertion carries (colours stripped).
const MESSAGE: &str =
    "expected [ { sku: 'tea', qty: 1 } ] to deeply equal [ { sku: 'tea', qty: 2 } ]";

/// A workspace whose runner writes one failed vitest-like run of `cart-merge`.
fn workspace() -> tempfile::TempDir {
    let dir = crate::common::fs::scratch_dir();
    let root = dir.path();
    common::fs::write(
        root,
        "tests/shop/backend/cart/cart-merge.test.ts",
        "import { expect, test } from 'vitest';\ntest('s1 merges two lines of one sku', () => {\n  const lines = [{ sku: 'tea', qty: 1 }];\n  expect(lines).toEqual([{ sku: 'tea', qty: 2 }]);\n});\n",
    );
    let runner =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/exec/failing-runner.sh");
    let runner = runner.display().to_string();
    common::fs::write(
        root,
        "testdeck.toml",
        &format!("[runner]\ncommand = [\"sh\", {}]\n", toml_str(&runner)),
    );
    dir
}

fn toml_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `explain ARGS… --json` as one document.
fn explain_json(root: &Path, target: &str) -> Value {
    let o = at(root)
        .args(["explain", target, "--json"])
        .output()
        .expect("explain");
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", out(&o)))
}

/// The `message` and body of every `<failure>` of a JUnit document.
fn junit_failures(xml: &str) -> Vec<(String, String)> {
    let mut reader = Reader::from_str(xml);
    let mut found = Vec::new();
    let mut inside = false;
    loop {
        let ev = reader.read_event().expect("well-formed XML");
        match &ev {
            Event::Start(e) | Event::Empty(e) if e.name().as_ref() == b"failure" => {
                let message = e
                    .attributes()
                    .filter_map(Result::ok)
                    .find(|a| a.key.as_ref() == b"message")
                    .map(|a| {
                        a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                            .expect("value")
                            .into_owned()
                    })
                    .unwrap_or_default();
                found.push((message, String::new()));
                inside = matches!(ev, Event::Start(_));
            }
            Event::Text(t) if inside => {
                let text = t.xml10_content().expect("text").into_owned();
                if let Some(last) = found.last_mut() {
                    last.1.push_str(&text);
                }
            }
            // `&amp;`, `&quot;`… arrive as references of their own
            Event::GeneralRef(r) if inside => {
                let c = r.resolve_char_ref().expect("reference").unwrap_or_else(|| {
                    match r.decode().expect("name").as_ref() {
                        "amp" => '&',
                        "lt" => '<',
                        "gt" => '>',
                        "quot" => '"',
                        "apos" => '\'',
                        other => panic!("unknown entity {other}"),
                    }
                });
                if let Some(last) = found.last_mut() {
                    last.1.push(c);
                }
            }
            Event::End(e) if e.name().as_ref() == b"failure" => inside = false,
            Event::Eof => break,
            _ => {}
        }
    }
    found
}

#[test]
fn run_gives_the_assertions_message_as_reason_in_text_and_junit_and_no_escape_text() {
    let ws = workspace();
    let junit = ws.path().join("out.xml");
    let o = at(ws.path())
        .args(["run", "cart-merge", "--junit"])
        .arg(&junit)
        .output()
        .expect("run");
    let text = out(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&format!("✗ shop/backend/cart/cart-merge fail ({MESSAGE})")),
        "{text}"
    );
    // the failed assertion streamed as one short line: its message's first line
    // and where, not its data (the stack through node_modules, the diff)
    let line = text
        .lines()
        .find(|l| l.contains("line-merged [a1]"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains(&format!("line-merged [a1] {MESSAGE} ("))
            && line.ends_with("cart-merge.test.ts:4)"),
        "{line}"
    );
    assert!(!text.contains("node_modules/@vitest"), "{text}");
    // the runner's colours: dropped when piped, never shown as text
    assert!(text.contains("RUN  v4.0.0"), "{text}");
    assert!(!text.contains("\\e[") && !text.contains('\u{1b}'), "{text}");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!stderr.contains("\\e["), "{stderr}");

    let xml = std::fs::read_to_string(&junit).expect("junit");
    let failures = junit_failures(&xml);
    assert_eq!(failures.len(), 1, "{xml}");
    assert_eq!(failures[0].0, MESSAGE, "{xml}");
    // the body is the plain digest: the diff and the failing line marked
    let body = &failures[0].1;
    assert!(body.contains("- Expected"), "{body}");
    assert!(
        body.contains("> 4 |   expect(lines).toEqual([{ sku: 'tea', qty: 2 }]);"),
        "{body}"
    );
    assert!(!body.contains("\\e[") && !body.contains('\u{1b}'), "{body}");

    // `runs --junit` (the history exported later) says the same
    let history = ws.path().join("history.xml");
    let o = at(ws.path())
        .args(["runs", "--case", "cart-merge", "--junit"])
        .arg(&history)
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    let xml = std::fs::read_to_string(&history).expect("runs junit");
    let failures = junit_failures(&xml);
    assert_eq!(failures.len(), 1, "{xml}");
    assert_eq!(failures[0].0, MESSAGE, "{xml}");
    assert!(failures[0].1.contains("- Expected"), "{xml}");

    // with colour on, the runner's colours are drawn as SGR, still never as text
    let o = at(ws.path())
        .args(["--color", "always", "run", "cart-merge"])
        .output()
        .expect("run");
    let text = out(&o);
    assert!(text.contains("\u{1b}[0;1;30;46m RUN "), "{text:?}");
    assert!(!text.contains("\\e["), "{text}");
}

#[test]
fn run_in_a_terminal_draws_the_runners_colours_and_never_shows_escape_text() {
    let ws = workspace();
    let cfg = crate::common::fs::scratch_dir();
    let mut cmd = common::Session::command(ws.path(), cfg.path());
    cmd.args(["run", "cart-merge"]);
    let s = common::Session::spawn(cmd, common::ROWS, common::COLS);
    s.wait_for("the summary", |sc| sc.contents().contains("summary:"));
    let parser = s.screen();
    let screen = parser.screen();
    let contents = screen.contents();
    assert!(!contents.contains("\\e["), "{contents}");
    assert!(
        contents.contains(&format!("fail ({MESSAGE})")),
        "{contents}"
    );
    // vitest's ` RUN ` badge keeps its style: bold on a cyan background
    let rows: Vec<String> = screen.rows(0, common::COLS).collect();
    let (row, col) = rows
        .iter()
        .enumerate()
        .find_map(|(r, text)| {
            let at = text.find(" RUN ")?;
            Some((r, text[..at].chars().count() + 1))
        })
        .unwrap_or_else(|| panic!("no RUN badge:\n{contents}"));
    let cell = screen
        .cell(
            u16::try_from(row).expect("row"),
            u16::try_from(col).expect("col"),
        )
        .expect("cell");
    assert_eq!(cell.contents(), "R");
    assert!(cell.bold(), "{cell:?}");
    assert_eq!(cell.bgcolor(), vt100::Color::Idx(6), "{cell:?}");
}

#[test]
fn explain_reads_the_failure_as_text_and_json() {
    let ws = workspace();
    let o = at(ws.path())
        .args(["run", "cart-merge"])
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(1), "{o:?}");

    let o = at(ws.path())
        .args(["explain", "shop/backend/cart/cart-merge"])
        .output()
        .expect("explain");
    let text = out(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    for want in [
        "✗ assertion line-merged [a1]",
        &format!("    {MESSAGE}"),
        "  at tests/shop/backend/cart/cart-merge.test.ts:4",
        "  diff:",
        "+     \"qty\": 1,",
        "    > 4 |   expect(lines).toEqual([{ sku: 'tea', qty: 2 }]);",
        "      3 |   const lines = [{ sku: 'tea', qty: 1 }];",
        "(+2 frames in node_modules or node internals)",
        "✗ step merges two lines of one sku [s1]",
        "before the first failure:",
        "  ok step opens the cart  done",
        "(bound to a1)",
        "artifacts/missing.log  (missing)",
        "runtime events: 2",
    ] {
        assert!(text.contains(want), "{want:?} in\n{text}");
    }
    assert!(!text.contains('\u{1b}') && !text.contains("\\e["), "{text}");
    // said once: the diff holds both sides; a step's name is not said again
    assert!(!text.contains("  expected: ["), "{text}");
    assert!(!text.contains("step opens the cart done"), "{text}");

    // a caseId alone, and the run folder itself, give the same digest
    let d = explain_json(ws.path(), "cart-merge");
    let path = d["path"].as_str().expect("path").to_owned();
    assert_eq!(explain_json(ws.path(), &path), d);
    assert_eq!(d["caseId"], "cart-merge");
    assert_eq!(d["scope"], "shop/backend/cart");
    assert_eq!(d["status"], "failed");
    assert_eq!(d["runId"], path.rsplit('/').next().expect("runId"));
    assert_eq!(d["runtimeEvents"], 2);
    let f = &d["failures"][0];
    assert_eq!(f["type"], "assertion");
    assert_eq!(f["name"], "line-merged");
    assert_eq!(f["message"], MESSAGE);
    assert_eq!(
        f["expected"],
        "[\n  {\n    \"qty\": 2,\n    \"sku\": \"tea\"\n  }\n]"
    );
    assert_eq!(
        f["received"],
        "[\n  {\n    \"qty\": 1,\n    \"sku\": \"tea\"\n  }\n]"
    );
    assert_eq!(
        f["location"],
        serde_json::json!({"file": "tests/shop/backend/cart/cart-merge.test.ts", "line": 4})
    );
    let frames = f["frames"].as_array().expect("frames");
    let places: Vec<(&str, bool)> = frames
        .iter()
        .map(|fr| {
            (
                fr["file"].as_str().expect("file"),
                fr["inWorkspace"] == true,
            )
        })
        .collect();
    assert_eq!(
        places,
        [
            ("tests/shop/backend/cart/cart-merge.test.ts", true),
            ("node_modules/@vitest/expect/dist/index.js", false),
            ("node:internal/process/task_queues", false),
        ]
    );
    assert_eq!(
        (frames[0]["line"].as_u64(), frames[0]["column"].as_u64()),
        (Some(4), Some(17))
    );
    let marked: Vec<&Value> = frames[0]["snippet"]
        .as_array()
        .expect("snippet")
        .iter()
        .filter(|l| l["marked"] == true)
        .collect();
    assert_eq!(marked.len(), 1);
    assert_eq!(marked[0]["line"], 4);
    assert_eq!(
        marked[0]["text"],
        "  expect(lines).toEqual([{ sku: 'tea', qty: 2 }]);"
    );
    assert_eq!(frames[1]["snippet"], Value::Null);
    assert_eq!(f["artifacts"], serde_json::json!(["shot-a1"]));
    assert_eq!(d["failures"][1]["type"], "step");
    assert_eq!(d["failures"][1]["message"], "the step's own failure");
    assert_eq!(d["failures"][1]["expected"], Value::Null);
    assert_eq!(d["failures"][1]["location"], Value::Null);
    assert_eq!(
        d["before"],
        serde_json::json!([{"type": "step", "name": "opens the cart", "status": "ok", "message": "step opens the cart done"}])
    );
    assert_eq!(d["artifacts"][0]["id"], "shot-a1");
    assert_eq!(d["artifacts"][0]["kind"], "screenshot");
    assert_eq!(d["artifacts"][0]["path"], "artifacts/a1.png");
    assert_eq!(d["artifacts"][0]["boundTo"], "a1");
    assert_eq!(d["artifacts"][1]["boundTo"], Value::Null);
    let all = d.to_string();
    assert!(!all.contains("\\u001b") && !all.contains('\u{1b}'), "{all}");

    // a name that is no run and no case is a usage error
    let o = at(ws.path())
        .args(["explain", "nothing-here"])
        .output()
        .expect("explain");
    assert_eq!(o.status.code(), Some(2), "{o:?}");
}

mod realworld {
    //! On `examples/realworld`: real vitest and Playwright failures.
    use super::{explain_json, junit_failures, out};
    use crate::common::cli::command;
    use crate::common::realworld::{FAILING_E2E, FAILING_VITEST, failed, failed_e2e};
    use std::path::Path;

    fn explain_text(root: &Path, case: &str) -> String {
        let o = command()
            .args(["explain", case, "--root"])
            .arg(root)
            .output()
            .expect("explain");
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        out(&o)
    }

    #[test]
    fn a_failed_vitest_object_diff_is_explained_and_is_runs_reason() {
        // the shared project's failed vitest run, as `run --junit` said it
        let Some(shared) = failed() else {
            return;
        };
        let case = FAILING_VITEST;
        let (text, code) = (&shared.vitest.text, shared.vitest.code);
        let failures = junit_failures(&shared.vitest.junit);
        assert_eq!(code, Some(1), "{text}");
        assert!(!text.contains("\\e[") && !text.contains('\u{1b}'), "{text}");
        let d = explain_json(&shared.root, "cart-line-merge");
        let f = &d["failures"][0];
        assert_eq!(f["type"], "assertion", "{d:#}");
        let message = f["message"].as_str().expect("message");
        assert!(message.contains("to deeply equal"), "{d:#}");
        // run's reason and JUnit's failure message are the assertion's message
        let first = message.lines().next().expect("line");
        // run's reason: the test's title path, the message's first line, its place
        assert!(
            text.contains(&format!(
                "✗ {case} fail (merges two lines of one sku: {first} (tests/{case}.test.ts:"
            )),
            "{first:?} in\n{text}"
        );
        assert_eq!(failures.len(), 1);
        assert_eq!(failures[0].0, first);
        // vitest's own expected / actual, and the failing line of the test
        assert!(
            f["expected"]
                .as_str()
                .expect("expected")
                .contains("\"qty\": 2"),
            "{d:#}"
        );
        assert!(
            f["received"]
                .as_str()
                .expect("received")
                .contains("\"qty\": 1"),
            "{d:#}"
        );
        // the case file's frame (the one data.location names) before the harness's
        let frame = &f["frames"][0];
        assert_eq!(frame["inWorkspace"], true, "{d:#}");
        assert_eq!(
            frame["file"], "tests/shop/backend/cart/boundary/cart-line-merge.test.ts",
            "{d:#}"
        );
        assert_eq!(f["frames"][1]["file"], "tests/harness/oracle.ts", "{d:#}");
        let marked = frame["snippet"]
            .as_array()
            .expect("snippet")
            .iter()
            .find(|l| l["marked"] == true)
            .and_then(|l| l["text"].as_str())
            .expect("marked line");
        assert!(
            marked.contains("await oracle(annotate, 'a1', 'same-sku-merged'"),
            "{d:#}"
        );
        let all = d.to_string();
        assert!(!all.contains("\\u001b"), "{all}");
        let text = explain_text(&shared.root, "cart-line-merge");
        assert!(text.contains(first), "{text}");
        assert!(text.contains("    > "), "{text}");
        assert!(text.contains("expected: "), "{text}");
    }

    #[test]
    fn a_failed_playwright_step_is_explained_and_is_runs_reason() {
        let Some((shared, e2e)) = failed_e2e() else {
            return;
        };
        let case = FAILING_E2E;
        let (text, code) = (&e2e.text, e2e.code);
        let failures = junit_failures(&e2e.junit);
        assert_eq!(code, Some(1), "{text}");
        assert!(!text.contains("\\e[") && !text.contains('\u{1b}'), "{text}");
        let d = explain_json(&shared.root, "storefront-checkout");
        let f = &d["failures"][0];
        assert_eq!(f["type"], "assertion", "{d:#}");
        let message = f["message"].as_str().expect("message");
        assert!(
            message.contains("toHaveText") || message.contains("toBeVisible"),
            "{d:#}"
        );
        // Playwright's message keeps its lines (the call log apart from the header)
        assert!(message.lines().count() > 2, "{d:#}");
        // the custom expect message names the check, the matcher's line what failed
        // run's reason: the test's title path, the message's first line, its place
        assert!(
            text.contains(&format!(
                "✗ {case} fail (checks out a cart: a1 order-confirmed (tests/{case}.spec.ts:11))"
            )),
            "in\n{text}"
        );
        // JUnit's failure message: the test's error's first line, as Playwright says it
        assert_eq!(failures[0].0, "Error: a1 order-confirmed");
        assert!(failures[0].1.contains("Call log:"), "{failures:?}");
        assert_eq!(f["expected"], "\"Order confirmed\"", "{d:#}");
        assert!(
            f["location"]["file"]
                .as_str()
                .is_some_and(|l| l.starts_with("tests/shop/e2e/")),
            "{d:#}"
        );
        assert_eq!(f["location"]["line"], 11, "{d:#}");
        let frame = &f["frames"][0];
        assert_eq!(frame["inWorkspace"], true, "{d:#}");
        assert!(frame["snippet"].is_array(), "{d:#}");
        let screenshot = d["artifacts"]
            .as_array()
            .expect("artifacts")
            .iter()
            .any(|a| a["kind"] == "screenshot");
        assert!(screenshot, "{d:#}");
        let text = explain_text(&shared.root, "storefront-checkout");
        assert!(text.contains("    Call log:"), "{text}");
        assert!(text.contains("    > 11 |"), "{text}");
        assert!(text.contains("screenshot"), "{text}");
        assert!(!text.contains('\u{1b}'), "{text}");
    }
}
