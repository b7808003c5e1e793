//! The trace reader on zips built here byte by byte: a small trace of every line
//! kind, and the hostile ones (bomb, lying sizes, `..` and absolute names, cut
//! and non-zip files).
#![allow(
    clippy::too_many_lines,
    reason = "a test reads as one story, set up, act, check, top to bottom"
)]

use super::*;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use crate::testkit::zip::{E, stored, zeros_deflated, zip_of};

const TEST_TRACE: &str = r#"{"version":10,"type":"context-options","origin":"testRunner","browserName":"","playwrightVersion":"1.65.1","monotonicTime":100}
{"type":"before","callId":"c@1","startTime":110,"class":"Test","method":"test.step","title":"s1 fill","params":{},"stack":[{"file":"/p/a.spec.ts","line":5,"column":3}]}
{"type":"before","callId":"c@2","parentId":"c@1","startTime":120,"class":"Test","method":"pw:api","title":"Click","subtitle":"getByRole('button')","params":{},"stack":[{"file":"/p/a.spec.ts","line":6,"column":16}]}
{"type":"after","callId":"c@2","endTime":170}
{"type":"after","callId":"c@1","endTime":180}
{"type":"before","callId":"c@3","startTime":200,"class":"Test","method":"test.step","title":"s2 check","params":{},"stack":[{"file":"/p/a.spec.ts","line":9,"column":3}]}
{"type":"before","callId":"c@4","parentId":"c@3","startTime":210,"class":"Test","method":"expect","title":"a1 confirmed","params":{},"stack":[{"file":"/p/a.spec.ts","line":11,"column":66}]}
{"type":"after","callId":"c@4","endTime":400,"error":{"message":"Error: \u001b[31mExpected\u001b[39m: \"ok\"","stack":"Error: x\n    at /p/a.spec.ts:11:66"}}
{"type":"after","callId":"c@3","endTime":401,"error":{"message":"Error: a1"}}
{"type":"error","message":"Error: a1 failed","stack":"at /p/a.spec.ts:11:66"}
{"type":"stdout","timestamp":150,"text":"hello out\n"}
{"type":"stderr","timestamp":151,"base64":"AAEC"}
not json at all
"#;

const CONTEXT_TRACE: &str = r#"{"version":10,"type":"context-options","origin":"library","browserName":"chromium","title":"a.spec.ts:4 › checks out"}
{"type":"before","callId":"c@2","startTime":121,"class":"Frame","method":"click","params":{"selector":"internal:role=button"}}
{"type":"log","callId":"c@2","time":130,"message":"waiting for getByRole('button')"}
{"type":"log","callId":"c@2","time":140,"message":"  click action done"}
{"type":"after","callId":"c@2","endTime":169}
{"type":"frame-snapshot","snapshot":{"callId":"c@2","html":["HTML"]}}
{"type":"screencast-frame","pageId":"page@1","file":"screencast/page@1-2.jpeg","width":1280,"height":720,"timestamp":300}
{"type":"screencast-frame","pageId":"page@1","sha1":"f1.jpeg","width":1280,"height":720,"timestamp":115}
{"type":"console","messageType":"log","text":"checkout clicked","location":{"url":"http://h/","lineNumber":22,"columnNumber":14},"time":160}
{"type":"event","time":161,"class":"BrowserContext","method":"pageError","params":{"error":{"error":{"message":"boom","stack":"Error: boom\n    at http://h/:1:1","name":"Error"}}}}
{"type":"before","callId":"lib@9","startTime":260,"class":"Page","method":"goto","params":{"url":"/"}}
{"type":"after","callId":"lib@9","endTime":290}
"#;

const NETWORK: &str = r#"{"type":"resource-snapshot","snapshot":{"time":60.5,"_monotonicTime":250,"request":{"method":"POST","url":"http://h/api/checkout"},"response":{"status":404,"content":{"size":9}}}}
{"type":"resource-snapshot","snapshot":{"time":102.9,"_monotonicTime":125,"request":{"method":"GET","url":"http://h/"},"response":{"status":200,"content":{"size":1136}}}}
"#;

fn small_trace() -> Vec<u8> {
    zip_of(&[
        stored("test.trace", TEST_TRACE.as_bytes()),
        stored("0-trace.trace", CONTEXT_TRACE.as_bytes()),
        stored("0-trace.network", NETWORK.as_bytes()),
        stored(
            "0-trace.stacks",
            br#"{"files":["/p/a.spec.ts"],"stacks":[["lib@9",[[0,20,7,""]]]]}"#,
        ),
        stored("screencast/page@1-2.jpeg", b"\xFF\xD8\xFF\xE0late"),
        stored("resources/f1.jpeg", b"\xFF\xD8\xFF\xE0early"),
    ])
}

fn read(bytes: Vec<u8>) -> Result<Trace, Problem> {
    Trace::from_bytes(bytes.into(), "run/trace.zip", Limits::default())
}

#[test]
fn a_small_trace_reads_into_actions_console_errors_network_output_and_frames() {
    let t = read(small_trace()).expect("reads");
    assert_eq!(t.version, Some(10));
    assert!(t.version_known());
    assert_eq!(t.playwright_version.as_deref(), Some("1.65.1"));
    assert_eq!(t.browser.as_deref(), Some("chromium"));
    // steps, then the calls inside them; the library's lone call a top-level one
    let titles: Vec<(&str, Vec<&str>)> = t
        .actions
        .iter()
        .map(|a| {
            (
                a.title.as_str(),
                a.children.iter().map(|c| c.title.as_str()).collect(),
            )
        })
        .collect();
    assert_eq!(
        titles,
        [
            ("s1 fill", vec!["Click"]),
            ("s2 check", vec!["a1 confirmed"]),
            ("Page.goto", vec![]),
        ]
    );
    let click = &t.actions[0].children[0];
    assert_eq!(click.subtitle.as_deref(), Some("getByRole('button')"));
    assert_eq!(click.duration_ms(), Some(50.0));
    assert_eq!(
        click.log,
        ["waiting for getByRole('button')", "  click action done"],
        "the library's call log joins the runner's step of the same callId"
    );
    assert_eq!(t.actions[2].subtitle.as_deref(), Some("/"));
    assert_eq!(
        t.actions[2].location.as_ref().map(|l| (l.line, l.column)),
        Some((20, 7)),
        "from the stacks entry"
    );
    let failed = t.failed().expect("failed");
    assert_eq!(failed.title, "a1 confirmed");
    let e = failed.error.as_ref().expect("error");
    assert!(e.message.contains("\u{1b}[31mExpected"), "kept raw: {e:?}");
    assert!(
        e.stack
            .as_deref()
            .is_some_and(|s| s.contains("a.spec.ts:11:66"))
    );
    let loc = failed.location.as_ref().expect("location");
    assert_eq!(
        (loc.file.as_str(), loc.line, loc.column),
        ("/p/a.spec.ts", 11, 66)
    );
    assert!(!t.actions[0].failed() && t.actions[1].failed());

    assert_eq!(t.console.len(), 1);
    assert_eq!(t.console[0].kind, "log");
    assert_eq!(t.console[0].text, "checkout clicked");
    assert_eq!(t.console[0].location.as_deref(), Some("http://h/:23:15"));
    let errors: Vec<(ErrorSource, &str)> = t
        .errors
        .iter()
        .map(|e| (e.source, e.error.message.as_str()))
        .collect();
    assert_eq!(
        errors,
        [
            (ErrorSource::Test, "Error: a1 failed"),
            (ErrorSource::Page, "boom")
        ]
    );
    let net: Vec<(&str, Option<u16>, &str, Option<u64>)> = t
        .network
        .iter()
        .map(|r| (r.method.as_str(), r.status, r.url.as_str(), r.size))
        .collect();
    assert_eq!(
        net,
        [
            ("GET", Some(200), "http://h/", Some(1136)),
            ("POST", Some(404), "http://h/api/checkout", Some(9)),
        ],
        "by start time"
    );
    assert_eq!(t.network[0].duration_ms, Some(102.9));
    assert_eq!(t.output.len(), 2);
    assert_eq!(t.output[0].text, "hello out\n");
    assert_eq!(t.output[1].stream, Stream::Stderr);
    assert!(t.output[1].text.contains("binary"));

    // frames by time; the one nearest an action's start and end
    let entries: Vec<&str> = t.frames.iter().map(|f| f.entry.as_str()).collect();
    assert_eq!(entries, ["resources/f1.jpeg", "screencast/page@1-2.jpeg"]);
    let (before, after) = t.action_frames(click);
    assert_eq!(before.map(|f| f.entry.as_str()), Some("resources/f1.jpeg"));
    assert_eq!(after.map(|f| f.entry.as_str()), Some("resources/f1.jpeg"));
    let (_, after) = t.action_frames(failed);
    let bytes = t.frame_bytes(after.expect("frame")).expect("bytes");
    assert_eq!(bytes, b"\xFF\xD8\xFF\xE0late");
    let early = t.frame_bytes_near(0.0).expect("a frame").expect("bytes");
    assert!(early.starts_with(&[0xFF, 0xD8]));

    // the line that is not JSON is a located warning; the rest read
    let p: Vec<String> = t.problems.iter().map(ToString::to_string).collect();
    assert_eq!(t.problems.len(), 1, "{p:?}");
    assert_eq!(t.problems[0].file, "run/trace.zip");
    assert_eq!(t.problems[0].rule, "trace-line");
    assert!(p[0].contains("test.trace line 13: not JSON"), "{p:?}");
}

/// Read `bytes`, within a second, to the one error problem of `rule`.
fn refused(bytes: Vec<u8>, limits: Limits, rule: &str) -> String {
    let t0 = Instant::now();
    let p = match Trace::from_bytes(bytes.into(), "run/trace.zip", limits) {
        Err(p) => p,
        Ok(t) => t
            .problems
            .into_iter()
            .find(|p| p.rule == rule)
            .unwrap_or_else(|| panic!("no {rule} problem")),
    };
    assert!(t0.elapsed() < Duration::from_secs(1), "{:?}", t0.elapsed());
    assert_eq!((p.file.as_str(), p.rule.as_str()), ("run/trace.zip", rule));
    assert!(p.is_error());
    p.message
}

#[test]
fn a_zip_bomb_is_refused_by_its_declared_size_before_a_byte_is_inflated() {
    // 1 GiB of zeros in about 1 MB: four times the entry cap, over the total
    let bomb = zeros_deflated(1024);
    assert!(bomb.len() < 2 << 20, "{}", bomb.len());
    let zip = zip_of(&[E {
        name: "0-trace.trace",
        method: 8,
        data: bomb,
        size: 1 << 30,
        crc: 0,
    }]);
    let m = refused(zip, Limits::default(), "trace-too-large");
    assert!(m.starts_with("0-trace.trace: 1073741824 bytes"), "{m}");
    // within the caps, the ratio alone refuses it
    let zip = zip_of(&[E {
        name: "0-trace.trace",
        method: 8,
        data: zeros_deflated(64),
        size: 64 << 20,
        crc: 0,
    }]);
    let m = refused(zip, Limits::default(), "trace-zip-bomb");
    assert!(m.contains("compression ratio over"), "{m}");
}

#[test]
fn a_bomb_that_declares_a_small_size_stops_at_it() {
    // the headers say 1000 bytes; the stream holds 1 GiB of zeros: inflating
    // stops at the declared size (and would at the caps, were it larger)
    let zip = zip_of(&[E {
        name: "test.trace",
        method: 8,
        data: zeros_deflated(1024),
        size: 1000,
        crc: 0,
    }]);
    let m = refused(zip, Limits::default(), "trace-entry-unreadable");
    assert!(
        m.starts_with("test.trace: cannot be read: ") && m.contains("declared"),
        "{m}"
    );
}

#[test]
fn names_that_climb_out_or_are_absolute_are_never_looked_up() {
    let zip = zip_of(&[
        stored("../0-trace.trace", CONTEXT_TRACE.as_bytes()),
        stored("/etc/1-trace.trace", CONTEXT_TRACE.as_bytes()),
        stored("a/../../b", b"x"),
        stored("C:/win.trace", b"x"),
        stored("test.trace", TEST_TRACE.as_bytes()),
    ]);
    let t = read(zip).expect("the rest reads");
    let names: Vec<&str> = t
        .problems
        .iter()
        .filter(|p| p.rule == "trace-entry-name")
        .map(|p| p.message.as_str())
        .collect();
    assert_eq!(names.len(), 4, "{names:?}");
    assert!(names[0].contains("\"../0-trace.trace\"") && names[0].ends_with("ignored"));
    assert!(t.problems.iter().all(|p| p.file == "run/trace.zip"));
    // nothing of the refused entries was read: no console line, no log
    assert!(t.console.is_empty());
    assert_eq!(t.actions.len(), 2);
    for bad in ["../x", "/x", "a/../../b", "a\\..\\b", "C:x", "", "a\0b"] {
        assert!(!archive::safe_name(bad), "{bad:?}");
    }
    assert!(archive::safe_name("resources/a..b.jpeg"));
}

#[test]
fn a_cut_zip_and_a_file_that_is_no_zip_are_located_problems() {
    let whole = small_trace();
    for cut in [whole.len() / 2, whole.len() - 10, 30] {
        let m = refused(whole[..cut].to_vec(), Limits::default(), "trace-unreadable");
        assert!(
            m.starts_with("a truncated or damaged zip archive"),
            "{cut}: {m}"
        );
    }
    for junk in [&b"<html>not a zip</html>"[..], b"", b"PK"] {
        let m = refused(junk.to_vec(), Limits::default(), "trace-unreadable");
        assert!(m.contains("zip archive"), "{m}");
    }
    let m = refused(
        b"{\"type\":\"before\"}\n".to_vec(),
        Limits::default(),
        "trace-unreadable",
    );
    assert!(m.starts_with("not a zip archive"), "{m}");
}

#[test]
fn too_many_entries_are_refused_before_the_directory_is_read() {
    let entries: Vec<E<'_>> = (0..20).map(|_| stored("x", b"")).collect();
    let limits = Limits {
        entries: 10,
        ..Limits::default()
    };
    let m = refused(zip_of(&entries), limits, "trace-unreadable");
    assert_eq!(m, "20 entries is over the limit of 10: not read");
}

#[test]
fn a_deep_or_circular_parent_chain_stays_flat_enough() {
    fn depth(a: &[Action]) -> usize {
        a.iter().map(|c| 1 + depth(&c.children)).max().unwrap_or(0)
    }
    fn count(a: &[Action]) -> usize {
        a.iter().map(|c| 1 + count(&c.children)).sum()
    }
    let mut lines = String::new();
    for i in 0..500 {
        let _ = writeln!(
            lines,
            "{{\"type\":\"before\",\"callId\":\"c{i}\",\"parentId\":\"c{}\",\"startTime\":{i},\"title\":\"t{i}\"}}",
            if i == 0 { 499 } else { i - 1 }
        );
    }
    let t = read(zip_of(&[stored("test.trace", lines.as_bytes())])).expect("reads");
    assert_eq!(count(&t.actions), 500, "no action lost");
    assert!(depth(&t.actions) <= 65, "{}", depth(&t.actions));
}

#[test]
fn another_version_is_read_as_far_as_it_goes_and_said() {
    let lines = TEST_TRACE.replace("\"version\":10", "\"version\":12");
    let t = read(zip_of(&[stored("test.trace", lines.as_bytes())])).expect("reads");
    assert_eq!(t.version, Some(12));
    assert!(!t.version_known());
    assert_eq!(t.actions.len(), 2);
    let v = t
        .problems
        .iter()
        .find(|p| p.rule == "trace-version")
        .expect("said");
    assert!(
        v.message.starts_with("trace version 12 is newer than 10"),
        "{v}"
    );
}

#[test]
fn a_trace_file_is_read_through_the_bounded_reader() {
    let d = tempfile::tempdir().expect("tmp");
    let p = d.path().join("trace.zip");
    std::fs::write(&p, small_trace()).expect("write");
    let t = Trace::read(&p, Some(d.path()), "trace.zip").expect("reads");
    assert_eq!(t.actions.len(), 3);
    let e = Trace::read(d.path(), None, "dir").expect_err("a folder");
    assert_eq!(e.rule, "not-a-regular-file");
}
