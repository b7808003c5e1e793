//! `testdeck trace` on a real `trace.zip` (issue 25): the fixture's failing
//! Playwright spec runs on the system Chromium, and its trace is read back:
//! actions, the failed one with its error, console, network and a screencast
//! frame. Skipped (failing under `CI=true`) when node or Chromium is missing.

use crate::common;
use common::cli::command;
use common::realworld::failed_e2e;

use serde_json::Value;
use testdeck_core::workspace::trace::Trace;

/// `testdeck trace ARGS`: exit code, stdout, stderr.
fn trace(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
    let out = command().arg("trace").args(args).output().expect("trace");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn all_titles(actions: &Value, out: &mut Vec<String>) {
    for a in actions.as_array().expect("actions") {
        out.push(a["title"].as_str().unwrap_or_default().to_owned());
        all_titles(&a["children"], out);
    }
}

#[test]
fn a_real_failed_playwright_trace_shows_actions_error_console_network_and_a_frame() {
    // the shared project's failed Playwright run (read here, never written)
    let Some((f, e2e)) = failed_e2e() else {
        return;
    };
    let run = f.root.join(&e2e.path);
    // where the project's workflow put it: its artifacts.json says
    let (items, problems) = testdeck_core::workspace::logs::read_artifacts(&f.root, &run);
    assert!(problems.is_empty(), "{problems:?}");
    let zip = items
        .iter()
        .find(|a| a.kind == "trace")
        .and_then(|a| a.file(&run))
        .expect("a trace artifact inside the run folder");
    assert!(zip.is_file(), "{}", zip.display());

    // text: the tree of steps and calls, the failed one with its error and place
    let (code, text, err) = trace(&[zip.as_os_str()]);
    assert_eq!(code, Some(1), "a failed action: {text}{err}");
    assert!(err.is_empty(), "no problem: {err}");
    for want in [
        "version 10",
        "Actions\n",
        "✓ s1 fill the cart",
        "✓ Navigate /",
        "✗ s2 check out",
        "✗ a1 order-confirmed getByRole('status')",
        "Failed: a1 order-confirmed",
        "storefront-checkout.spec.ts:11:",
        "Expected: \"Order confirmed\"",
        "checkout clicked with 450 cents",
        "POST   404  http://127.0.0.1:",
        "/api/checkout",
        "GET    200  http://127.0.0.1:",
    ] {
        assert!(text.contains(want), "{want:?} missing:\n{text}");
    }
    assert!(!text.contains('\u{1b}'), "piped: no colour codes\n{text}");

    // JSON, here from the run folder (its artifacts.json names the trace)
    let (code, json, _) = trace(&[run.as_os_str(), "--json".as_ref()]);
    assert_eq!(code, Some(1));
    let v: Value = serde_json::from_str(&json).expect("one JSON document");
    assert_eq!(v["version"], 10);
    let mut titles = Vec::new();
    all_titles(&v["actions"], &mut titles);
    for t in [
        "s1 fill the cart",
        "Navigate",
        "s2 check out",
        "a1 order-confirmed",
    ] {
        assert!(titles.iter().any(|x| x == t), "{t}: {titles:?}");
    }
    let step = v["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .find(|a| a["title"] == "s2 check out")
        .expect("s2");
    let failed = step["children"]
        .as_array()
        .expect("children")
        .iter()
        .find(|a| a["title"] == "a1 order-confirmed")
        .expect("a1");
    let message = failed["error"]["message"].as_str().expect("message");
    assert!(
        message.contains("toHaveText") && !message.contains('\u{1b}'),
        "{message}"
    );
    assert_eq!(failed["location"]["line"], 11);
    assert!(failed["durationMs"].as_f64().is_some_and(|d| d > 0.0));
    assert!(
        v["console"]
            .as_array()
            .expect("console")
            .iter()
            .any(|c| c["type"] == "log" && c["text"] == "checkout clicked with 450 cents"),
        "{:#}",
        v["console"]
    );
    let network = v["network"].as_array().expect("network");
    assert!(
        network
            .iter()
            .any(|r| r["method"] == "POST" && r["status"] == 404 && r["durationMs"].is_number()),
        "{network:#?}"
    );
    assert!(v["errors"].as_array().is_some_and(|e| !e.is_empty()));

    // the screencast frame nearest the failed call's end is a JPEG
    let t = Trace::read(&zip, Some(&run), "trace.zip").expect("reads");
    let a = t.failed().expect("failed action");
    let (before, after) = t.action_frames(a);
    assert!(before.is_some() && after.is_some(), "{:?}", t.frames);
    let bytes = t.frame_bytes(after.expect("frame")).expect("frame bytes");
    assert!(bytes.starts_with(&[0xFF, 0xD8]), "a JPEG");
}

#[test]
fn a_file_that_is_no_trace_is_a_located_problem() {
    let d = crate::common::fs::scratch_dir();
    let f = d.path().join("trace.zip");
    std::fs::write(&f, "<html>a report, not a trace</html>").expect("write");
    let (code, out, err) = trace(&[f.as_os_str()]);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.is_empty());
    assert!(
        err.contains("trace.zip error trace-unreadable not a zip archive"),
        "{err}"
    );
    // a folder that is no run folder
    let (code, _, err) = trace(&[d.path().as_os_str()]);
    assert_eq!(code, Some(2));
    assert!(err.contains("artifacts"), "{err}");
}

/// Hostile `trace.zip` files through the binary: a bomb (by its declared size and
/// by its ratio), names that climb out or are absolute, a cut archive and a file
/// that is no zip — each a located problem, never a panic, a hang or a large
/// allocation: under a second and under 100 MB each.
#[test]
fn hostile_traces_are_located_problems_in_under_a_second_and_100_mb() {
    use common::procs::peak_rss_kib;
    use std::time::{Duration, Instant};
    use testdeck_core::testkit::zip::{E, stored, zeros_deflated, zip_of};
    const TEST_TRACE: &[u8] = br#"{"version":10,"type":"context-options","origin":"testRunner","browserName":"","monotonicTime":100}
"#;
    let valid = zip_of(&[stored("test.trace", TEST_TRACE)]);
    let cases: [(&str, Vec<u8>, &str); 5] = [
        (
            "bomb.zip",
            // 1 GiB of zeros in about 1 MB
            zip_of(&[E {
                name: "0-trace.trace",
                method: 8,
                data: zeros_deflated(1024),
                size: 1 << 30,
                crc: 0,
            }]),
            "error trace-too-large",
        ),
        (
            "ratio.zip",
            zip_of(&[E {
                name: "0-trace.trace",
                method: 8,
                data: zeros_deflated(64),
                size: 64 << 20,
                crc: 0,
            }]),
            "error trace-zip-bomb",
        ),
        (
            "climb.zip",
            zip_of(&[
                stored("../0-trace.trace", TEST_TRACE),
                stored("/etc/1-trace.trace", TEST_TRACE),
                stored("test.trace", TEST_TRACE),
            ]),
            "trace-entry-name",
        ),
        (
            "cut.zip",
            valid[..valid.len() / 2].to_vec(),
            "error trace-unreadable",
        ),
        (
            "page.zip",
            b"<html>a report, not a trace</html>".to_vec(),
            "error trace-unreadable",
        ),
    ];
    let d = crate::common::fs::scratch_dir();
    for (name, bytes, want) in cases {
        let f = d.path().join(name);
        std::fs::write(&f, bytes).expect("write");
        let mut cmd = command();
        cmd.arg("trace").arg(&f);
        let t0 = Instant::now();
        let (out, kib) = peak_rss_kib(cmd);
        let took = t0.elapsed();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(101), "{name}: {err}");
        assert!(out.status.code().is_some(), "{name}: killed: {err}");
        // located at the file, with its rule
        assert!(
            err.lines().any(|l| l.contains(name) && l.contains(want)),
            "{name}: no {want:?} in {err}"
        );
        assert!(took < Duration::from_secs(1), "{name} took {took:?}");
        assert!(kib < 100 << 10, "{name} peaked at {kib} KiB");
        eprintln!("{name}: {took:?}, peak {kib} KiB");
    }
}
