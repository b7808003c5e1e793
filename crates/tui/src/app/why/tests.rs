use super::*;
use testdeck_core::workspace::failure::{Frame, SnippetLine};

fn frame(file: &str, line: u32, inside: bool) -> Frame {
    Frame {
        function: None,
        file: file.into(),
        line,
        column: Some(3),
        in_workspace: inside,
        snippet: inside.then(|| {
            vec![
                SnippetLine {
                    line: line - 1,
                    text: "before".into(),
                    marked: false,
                },
                SnippetLine {
                    line,
                    text: "expect(x).toEqual(y)".into(),
                    marked: true,
                },
            ]
        }),
    }
}

fn digest() -> Digest {
    Digest {
        run_id: "r1".into(),
        case_id: "c".into(),
        scope: "s".into(),
        status: "failed".into(),
        path: "tests/logs/s/c/r1".into(),
        failures: vec![Failure {
            kind: "assertion".into(),
            name: "same".into(),
            message: "expected 1 to equal 2".into(),
            styled: "\u{1b}[31mexpected 1\u{1b}[39m to equal 2\nsecond line".into(),
            expected: Some("[\n  2\n]".into()),
            received: Some("[\n  1\n]".into()),
            frames: vec![
                frame("tests/a.test.ts", 8, true),
                frame("node:internal/process/task_queues", 105, false),
                frame("node_modules/vitest/x.js", 1, false),
                frame("/elsewhere/y.js", 2, false),
                frame("tests/harness/oracle.ts", 19, true),
            ],
            ..Failure::default()
        }],
        ..Digest::default()
    }
}

#[test]
fn frames_outside_the_workspace_fold_into_one_line_and_the_cursor_skips_them() {
    let mut s = WhyScreen::new("tests/logs/s/c/r1", Some(&digest()), Path::new("/w"));
    let texts: Vec<&str> = s.rows().iter().map(|r| r.text.as_str()).collect();
    let folded: Vec<&&str> = texts.iter().filter(|t| t.contains("frames in")).collect();
    assert_eq!(
        folded,
        [&"  … 3 frames in node_modules / node internals"],
        "{texts:#?}"
    );
    assert!(
        !texts.iter().any(|t| t.contains("task_queues")),
        "{texts:#?}"
    );
    assert!(
        texts.contains(&"    ▶ 8 │ expect(x).toEqual(y)"),
        "{texts:#?}"
    );
    assert!(
        texts.contains(&"  second line"),
        "the message keeps its lines"
    );
    assert_eq!(
        s.edit_target(),
        Ok(EditTarget {
            file: "tests/a.test.ts".into(),
            line: Some(8)
        })
    );
    s.command(Command::MoveDown, 10);
    assert_eq!(
        s.edit_target(),
        Ok(EditTarget {
            file: "tests/harness/oracle.ts".into(),
            line: Some(19)
        })
    );
    s.command(Command::MoveDown, 10);
    assert_eq!(s.cursor(), 1, "the last frame of the workspace");
}

#[test]
fn expected_and_received_make_a_coloured_line_diff() {
    let s = WhyScreen::new("r", Some(&digest()), Path::new("/w"));
    let looks: Vec<(Look, &str)> = s
        .rows()
        .iter()
        .filter(|r| matches!(r.look, Look::Expected | Look::Received))
        .map(|r| (r.look, r.text.as_str()))
        .collect();
    assert_eq!(
        looks,
        [
            (Look::Expected, "  - Expected"),
            (Look::Received, "  + Received"),
            (Look::Expected, "  -   2"),
            (Look::Received, "  +   1"),
        ]
    );
    assert_eq!(
        line_diff("a\nb\nc", "a\nx\nc"),
        [
            (Look::Muted, "  a".to_owned()),
            (Look::Expected, "- b".to_owned()),
            (Look::Received, "+ x".to_owned()),
            (Look::Muted, "  c".to_owned()),
        ]
    );
}

#[test]
fn a_runner_diff_and_labelled_lines_are_coloured_by_their_side() {
    let mut d = digest();
    let f = &mut d.failures[0];
    f.styled = "Error: x\n\nExpected string: \u{1b}[32m\"Order confirmed\"\u{1b}[39m\nReceived string: \"Checkout\"\n\u{1b}[2m  - waiting\u{1b}[22m".into();
    f.expected = Some("\"Order confirmed\"".into());
    f.received = Some("\"Checkout\"".into());
    f.diff = Some("- Expected\n+ Received\n\n- 2\n+ 1".into());
    let s = WhyScreen::new("r", Some(&d), Path::new("/w"));
    let look = |t: &str| {
        s.rows()
            .iter()
            .find(|r| strip_sgr(&r.text).contains(t))
            .map(|r| r.look)
    };
    assert_eq!(look("Expected string:"), Some(Look::Expected));
    assert_eq!(look("Received string:"), Some(Look::Received));
    // a call-log line that starts with "-" is no diff outside a diff block
    assert_eq!(look("- waiting"), Some(Look::Text));
    assert_eq!(look("- 2"), Some(Look::Expected));
    assert_eq!(look("+ 1"), Some(Look::Received));
}

#[test]
fn a_string_diff_marks_the_characters_that_differ() {
    let pairs = |m: Option<(Marks, Marks)>| {
        m.map(|(a, b)| {
            let p = |v: Marks| v.into_iter().map(|r| (r.start, r.end)).collect::<Vec<_>>();
            (p(a), p(b))
        })
    };
    assert_eq!(
        pairs(char_diff("'https://a.dev/api/'", "'https://a.dev/api'")),
        Some((vec![(18, 19)], vec![]))
    );
    assert_eq!(
        pairs(char_diff("\"\"", "\"hello\"")),
        Some((vec![], vec![(1, 6)]))
    );
    // too little in common: the looks say it, marks would not help
    assert_eq!(char_diff("focused", "inactive"), None);
    assert_eq!(char_diff("same", "same"), None);
    // characters, not bytes
    assert_eq!(
        pairs(char_diff("héllo", "hello")),
        Some((vec![(1, 3)], vec![(1, 2)]))
    );
}

#[test]
fn a_file_of_tests_shows_each_failed_test_by_its_title_and_the_passed_in_one_line() {
    let d = tempfile::tempdir().expect("tmp");
    let root = d.path();
    testdeck_core::testkit::per_test::vitest_runs(root);
    let digest = Digest::read(root, &root.join(testdeck_core::testkit::per_test::VT_RUN));
    let mut s = WhyScreen::new("r", Some(&digest), root);
    let texts: Vec<&str> = s.rows().iter().map(|r| r.text.as_str()).collect();
    assert!(texts.contains(&"✓ 2 tests passed"), "{texts:#?}");
    assert!(
        texts.contains(&"✗ joinURL › with a base › keeps the trailing slash [t2.e1]"),
        "{texts:#?}"
    );
    // the diff's lone string pair marks the slash that differs
    let marked: Vec<(&str, Vec<(usize, usize)>)> = s
        .rows()
        .iter()
        .filter(|r| !r.marks.is_empty())
        .map(|r| {
            let m = r.marks.iter().map(|m| (m.start, m.end)).collect();
            (r.text.as_str(), m)
        })
        .collect();
    assert_eq!(
        marked,
        [("  - https://a.dev/api/", vec![(21, 22)])],
        "{texts:#?}"
    );
    // E: each failed test's own line, n: the next failed test
    assert_eq!(
        s.edit_target(),
        Ok(EditTarget::at(
            testdeck_core::testkit::per_test::VT_FILE,
            Some(7)
        ))
    );
    s.command(Command::MoveDown, 40);
    assert_eq!(
        s.edit_target(),
        Ok(EditTarget::at(
            testdeck_core::testkit::per_test::VT_FILE,
            Some(16)
        ))
    );
}
