use super::*;

const VITEST_STACK: &str = "AssertionError: expected [ { sku: 'tea', priceCents: 450, qty: 2 } ] to deeply equal [ …(1) ]\n    at Module.oracle (/w/tests/harness/oracle.ts:18:18)\n    at processTicksAndRejections (node:internal/process/task_queues:105:5)\n    at /w/tests/shop/backend/cart/boundary/cart-line-merge.test.ts:9:3\n    at file:///w/node_modules/@vitest/runner/dist/chunk-hooks.js:155:11\n    at async runTest (file:///w/node_modules/@vitest/runner/dist/index.js:781:11)";

#[test]
fn v8_frames_of_a_vitest_stack() {
    let frames = parse_stack(VITEST_STACK);
    let got: Vec<(Option<&str>, &str, u32, Option<u32>)> = frames
        .iter()
        .map(|f| (f.function.as_deref(), f.file.as_str(), f.line, f.column))
        .collect();
    assert_eq!(
        got,
        [
            (
                Some("Module.oracle"),
                "/w/tests/harness/oracle.ts",
                18,
                Some(18)
            ),
            (
                Some("processTicksAndRejections"),
                "node:internal/process/task_queues",
                105,
                Some(5)
            ),
            (
                None,
                "/w/tests/shop/backend/cart/boundary/cart-line-merge.test.ts",
                9,
                Some(3)
            ),
            (
                None,
                "file:///w/node_modules/@vitest/runner/dist/chunk-hooks.js",
                155,
                Some(11)
            ),
            (
                Some("async runTest"),
                "file:///w/node_modules/@vitest/runner/dist/index.js",
                781,
                Some(11)
            ),
        ]
    );
}

#[test]
fn a_playwright_stack_in_colour_and_lines_that_are_no_frame() {
    let stack = "Error: \u{1b}[2mexpect(\u{1b}[22m\u{1b}[31mlocator\u{1b}[39m\u{1b}[2m).\u{1b}[22mtoHaveText\n\nCall log:\n  - Expect \"toHaveText\" with timeout 5000ms\n  - waiting at the door: 3\n\n    at /w/tests/shop/e2e/storefront/scenario/storefront-checkout.spec.ts:14:40\n    at <anonymous>";
    let frames = parse_stack(stack);
    assert_eq!(frames.len(), 1, "{frames:?}");
    assert_eq!(
        frames[0].file,
        "/w/tests/shop/e2e/storefront/scenario/storefront-checkout.spec.ts"
    );
    assert_eq!((frames[0].line, frames[0].column), (14, Some(40)));
}

#[test]
fn frames_are_placed_in_the_workspace_or_not() {
    let s = Sources::new(Path::new("/w"));
    assert_eq!(
        s.place("/w/tests/a.test.ts"),
        ("tests/a.test.ts".into(), true)
    );
    assert_eq!(
        s.place("file:///w/tests/my%20case.test.ts"),
        ("tests/my case.test.ts".into(), true)
    );
    assert_eq!(
        s.place("file:///w/node_modules/vitest/x.js"),
        ("node_modules/vitest/x.js".into(), false)
    );
    assert_eq!(
        s.place("node:internal/process/task_queues"),
        ("node:internal/process/task_queues".into(), false)
    );
    assert_eq!(
        s.place("/elsewhere/x.ts"),
        ("/elsewhere/x.ts".into(), false)
    );
    assert_eq!(s.place("../x.ts"), ("../x.ts".into(), false));
    assert_eq!(s.place("tests/b.spec.ts"), ("tests/b.spec.ts".into(), true));
}

#[test]
fn expected_and_received_of_playwright_jest_and_chai_messages() {
    let pw = "Error: \u{1b}[2mexpect(\u{1b}[22m\u{1b}[31mlocator\u{1b}[39m\u{1b}[2m).\u{1b}[22mtoHaveText\u{1b}[2m(\u{1b}[22m\u{1b}[32mexpected\u{1b}[39m\u{1b}[2m)\u{1b}[22m failed\n\nLocator:  getByRole('heading')\nExpected string: \u{1b}[32m\"Order confirmed\"\u{1b}[39m\nReceived string: \u{1b}[31m\"Checkout\"\u{1b}[39m\nTimeout:  5000ms\n\nCall log:\n  - Expect \"toHaveText\" with timeout 5000ms";
    assert_eq!(
        expected_received(pw),
        (
            Some("\"Order confirmed\"".into()),
            Some("\"Checkout\"".into())
        )
    );
    let jest = "expect(received).toBe(expected) // Object.is equality\n\nExpected: 0\nReceived: 1";
    assert_eq!(
        expected_received(jest),
        (Some("0".into()), Some("1".into()))
    );
    assert_eq!(
        expected_received("AssertionError: expected 1 to deeply equal +0"),
        (Some("+0".into()), Some("1".into()))
    );
    assert_eq!(
        expected_received("expected 'a' to be 'b'"),
        (Some("'b'".into()), Some("'a'".into()))
    );
    // prose that merely mentions the words is no value
    assert_eq!(
        expected_received("the page Expected the user to log in: never"),
        (None, None)
    );
    assert_eq!(expected_received("Timed out after 5000ms"), (None, None));
}

#[test]
fn a_diff_block_of_a_message() {
    let m = "expected [ …(2) ] to deeply equal [ …(1) ]\n\n\u{1b}[32m- Expected\u{1b}[39m\n\u{1b}[31m+ Received\u{1b}[39m\n\n  [\n-   { \"qty\": 2 }\n+   { \"qty\": 1 },\n  ]";
    let d = diff_block(m).expect("diff");
    assert!(d.starts_with("- Expected\n+ Received\n"), "{d}");
    assert!(d.ends_with("  ]"), "{d}");
    assert_eq!(diff_block("- Expected nothing"), None);
}

#[test]
fn error_fields_win_over_the_message() {
    let (ev, _) = crate::workspace::timeline::parse_line(
            br#"{"type":"assertion","name":"a","status":"failed","id":"a1","message":"a did not hold","data":{"error":{"message":"\u001b[31mexpected 1 to deeply equal +0\u001b[39m","expected":"0","actual":"1","diff":"- Expected\n+ Received\n\n- 0\n+ 1","stack":"AssertionError: x\n    at /nowhere/t.test.ts:3:5"},"location":{"file":"/nowhere/t.test.ts","line":3}}}"#,
        );
    let mut s = Sources::new(Path::new("/w"));
    let f = failure_of(&ev, &[], &mut s);
    assert_eq!(f.message, "expected 1 to deeply equal +0");
    assert_eq!(f.expected.as_deref(), Some("0"));
    assert_eq!(f.received.as_deref(), Some("1"));
    assert_eq!(
        f.diff.as_deref(),
        Some("- Expected\n+ Received\n\n- 0\n+ 1")
    );
    assert_eq!(
        f.location,
        Some(Location {
            file: "/nowhere/t.test.ts".into(),
            line: 3
        })
    );
    assert_eq!(f.frames.len(), 1);
    assert!(!f.frames[0].in_workspace);
    assert_eq!(f.frames[0].snippet, None);
}

#[test]
fn the_reason_is_one_line_of_the_first_failed_assertion() {
    let failure = |kind: &str, name: &str, message: &str| Failure {
        kind: kind.into(),
        name: name.into(),
        message: message.into(),
        ..Failure::default()
    };
    let mut d = Digest {
        failures: vec![
            failure("step", "check out", "step check out failed"),
            failure("error", "runner/error", "Error: boom\n    at x.js:1:1"),
        ],
        ..Digest::default()
    };
    assert_eq!(d.reason().as_deref(), Some("boom"));
    // Playwright's custom expect message names the check; the matcher's line follows
    d.failures.push(failure(
        "assertion",
        "order-confirmed",
        "Error: a1 order-confirmed\n\nexpect(locator).toHaveText(expected) failed\n\nLocator: x",
    ));
    assert_eq!(
        d.reason().as_deref(),
        Some("a1 order-confirmed: expect(locator).toHaveText(expected) failed")
    );
    assert_eq!(Digest::default().reason(), None);
}

#[test]
fn the_frame_data_location_names_comes_first() {
    let (ev, _) = crate::workspace::timeline::parse_line(
            br#"{"type":"assertion","name":"a","status":"failed","data":{"error":{"message":"m","stack":"E\n    at oracle (/w/tests/harness/oracle.ts:19:20)\n    at /w/node_modules/x.js:1:1\n    at /w/tests/a.test.ts:8:9"},"location":{"file":"/w/tests/a.test.ts","line":8}}}"#,
        );
    let f = failure_of(&ev, &[], &mut Sources::new(Path::new("/w")));
    let files: Vec<&str> = f.frames.iter().map(|f| f.file.as_str()).collect();
    assert_eq!(
        files,
        [
            "tests/a.test.ts",
            "tests/harness/oracle.ts",
            "node_modules/x.js"
        ]
    );
}

use crate::testkit::per_test as fx;

#[test]
fn a_playwright_file_of_six_tests_gives_two_failures_each_by_its_title_and_line() {
    let d = tempfile::tempdir().expect("tmp");
    let root = d.path();
    fx::playwright_run(root);
    let dg = Digest::read(root, &root.join(fx::PW_RUN));
    assert!(dg.problems.is_empty(), "{:?}", dg.problems);
    let got: Vec<(Option<&str>, String, Option<Location>)> = dg
        .failures
        .iter()
        .map(|f| (f.test.as_deref(), f.title(), f.location.clone()))
        .collect();
    let want: Vec<(Option<&str>, String, Option<Location>)> = fx::PW_FAILED
        .iter()
        .map(|(id, title, _, line)| {
            let at = Location {
                file: fx::PW_SPEC.into(),
                line: *line,
            };
            (Some(*id), (*title).to_owned(), Some(at))
        })
        .collect();
    assert_eq!(
        got, want,
        "the failed test.steps and tests say nothing twice"
    );
    assert_eq!(dg.passed.len(), 4, "{:?}", dg.passed);
    assert_eq!(dg.passed[0], "PostsSearch › renders the search input");
    for (f, (id, ..)) in dg.failures.iter().zip(fx::PW_FAILED) {
        assert_eq!(
            f.artifacts,
            [format!("failure-{id}"), format!("trace-{id}")],
            "its own screenshot and trace"
        );
        let first = &f.frames[0];
        assert!(first.in_workspace, "{:?}", f.frames);
        let marked: Vec<&SnippetLine> = first
            .snippet
            .iter()
            .flatten()
            .filter(|l| l.marked)
            .collect();
        assert!(marked[0].text.contains("await expect("), "{marked:?}");
    }
    let text = dg.text();
    assert!(text.contains("✓ 4 tests passed"), "{text}");
    assert_eq!(text.matches("toBeFocused() failed").count(), 1, "{text}");
    assert!(
            text.contains(
                "✗ PostsSearch › should focus and select input on Cmd+K shortcut [t3.e1]\n    Error: expect(locator).toBeFocused() failed"
            ),
            "{text}"
        );
    assert!(!text.contains("expected:"), "the message says it: {text}");
    assert!(text.contains("(+1 frames in node_modules"), "{text}");
    assert!(
        text.contains("                                               ^"),
        "a caret at column 48: {text}"
    );
    assert_eq!(
        dg.reason().as_deref(),
        Some(
            "PostsSearch › should focus and select input on Cmd+K shortcut: expect(locator).toBeFocused() failed (tests/web/e2e/search/posts-search.spec.ts:16) (+1 more failed test)"
        )
    );
    // the artifacts bound to each failure come first, each to its own test
    let bound: Vec<(&str, Option<&str>)> = dg
        .artifacts
        .iter()
        .map(|a| (a.id.as_str(), a.bound_to.as_deref()))
        .collect();
    assert_eq!(
        bound,
        [
            ("trace-t3", Some("t3.e1")),
            ("failure-t3", Some("t3.e1")),
            ("trace-t5", Some("t5.e1")),
            ("failure-t5", Some("t5.e1")),
            ("report", None),
            ("trace-t1", None),
        ]
    );
}

#[test]
fn a_vitest_file_of_nested_describes_gives_each_failure_its_title_path_and_values() {
    let d = tempfile::tempdir().expect("tmp");
    let root = d.path();
    fx::vitest_runs(root);
    let dg = Digest::read(root, &root.join(fx::VT_RUN));
    let titles: Vec<Vec<&str>> = dg
        .failures
        .iter()
        .map(|f| f.title_path.iter().map(String::as_str).collect())
        .collect();
    assert_eq!(
        titles,
        [
            vec!["joinURL", "with a base", "keeps the trailing slash"],
            vec!["joinURL", "segments", "splits every part"],
        ]
    );
    let f = &dg.failures[0];
    assert_eq!(f.expected.as_deref(), Some("'https://a.dev/api/'"));
    assert_eq!(f.received.as_deref(), Some("'https://a.dev/api'"));
    assert_eq!(
        (f.frames[0].file.as_str(), f.frames[0].line),
        (fx::VT_FILE, 7)
    );
    assert_eq!(f.frames.iter().filter(|f| !f.in_workspace).count(), 2);
    let text = dg.text();
    // the diff holds both sides: no expected / received dumps again
    assert!(!text.contains("expected: "), "{text}");
    assert_eq!(text.matches("- Expected").count(), 2, "{text}");
    assert!(text.contains("✓ 2 tests passed"), "{text}");
    assert!(!text.contains("before the first failure"), "{text}");
    // the run that passed: every test, no failure
    let ok = Digest::read(root, &root.join(fx::VT_PASSED_RUN));
    assert!(ok.failures.is_empty());
    assert_eq!(ok.passed.len(), 4);
    assert_eq!(ok.reason(), None);
}

#[test]
fn an_old_log_says_a_step_and_its_assertion_once_and_names_a_step_once() {
    let d = tempfile::tempdir().expect("tmp");
    let root = d.path();
    let run = root.join("tests/logs/s/c/20260101-000000-001");
    std::fs::create_dir_all(&run).expect("mkdir");
    // the old Playwright reporter: the assertion, then its test.step with the same error
    let timeline = r#"{"type":"step","name":"open the page","status":"ok","id":"s1","message":"step open the page done","data":{"durationMs":3}}
{"type":"assertion","name":"order-confirmed","status":"failed","id":"a1","message":"order-confirmed did not hold","data":{"error":{"message":"Error: a1 order-confirmed\n\nExpected string: \"Order confirmed\"\nReceived string: \"Checkout\""}}}
{"type":"step","name":"check out","status":"failed","id":"s2","message":"step check out failed","data":{"error":{"message":"Error: a1 order-confirmed\n\nExpected string: \"Order confirmed\"\nReceived string: \"Checkout\""}}}
"#;
    std::fs::write(run.join("timeline.jsonl"), timeline).expect("write");
    std::fs::write(
            run.join("artifacts.json"),
            r#"{"schemaVersion":4,"items":[{"id":"shot","kind":"screenshot","path":"artifacts/failure.png","refs":{"stepId":"s2"}}]}"#,
        )
        .expect("write");
    let dg = Digest::read(root, &run);
    assert_eq!(dg.failures.len(), 1, "{:?}", dg.failures);
    assert_eq!(dg.failures[0].id.as_deref(), Some("a1"));
    assert_eq!(
        dg.failures[0].artifacts,
        ["shot"],
        "the step's artifact kept"
    );
    assert_eq!(dg.failures[0].test, None);
    let text = dg.text();
    assert!(text.contains("✗ assertion order-confirmed [a1]"), "{text}");
    assert!(text.contains("  ok step open the page  done"), "{text}");
    assert!(!text.contains("step open the page done"), "{text}");
    assert_eq!(dg.passed, Vec::<String>::new());
}

#[test]
fn a_failed_event_is_one_short_line_for_a_stream() {
    let (ev, _) = crate::workspace::timeline::parse_line(
            br#"{"type":"assertion","name":"a b","status":"failed","id":"t1.e1","message":"m","data":{"kind":"test-error","test":"t1","error":{"message":"Error: expected 1 to be 2\n\nmore"},"location":{"file":"tests/a.test.ts","line":4,"column":9},"stack":"at /w/node_modules/x.js:1:1"}}"#,
        );
    let s = short_event(&ev).expect("a failure");
    assert_eq!(s.message, "expected 1 to be 2 (tests/a.test.ts:4)");
    assert!(s.data.is_null());
    let (ok, _) = crate::workspace::timeline::parse_line(
        br#"{"type":"step","name":"x","status":"ok","message":"passed","data":null}"#,
    );
    assert!(short_event(&ok).is_none());
}
