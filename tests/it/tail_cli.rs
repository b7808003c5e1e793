//! `testdeck tail` as a person or a script runs it: the real binary on real files.
#![allow(clippy::unwrap_used)]

use assert_cmd::Command;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

fn ev(name: &str, status: &str) -> String {
    format!(
        "{{\"ts\":\"2026-03-15T10:15:30.112Z\",\"type\":\"step\",\"name\":\"{name}\",\"status\":\"{status}\",\"message\":\"did {name}\",\"data\":{{\"k\":1}}}}\n"
    )
}

fn write(dir: &Path, text: &str) -> std::path::PathBuf {
    let p = dir.join("timeline.jsonl");
    std::fs::write(&p, text).unwrap();
    p
}

fn tail() -> Command {
    let mut c = Command::cargo_bin("testdeck").unwrap();
    c.env_remove("NO_COLOR");
    c
}

#[test]
fn hostile_text_is_printed_escaped() {
    let dir = crate::common::fs::scratch_dir();
    // OSC 52 would write the clipboard, CSI 2J would clear the screen; C1 CSI too
    let line = "{\"ts\":\"2026-03-15T10:15:30.112Z\",\"type\":\"signal\",\"name\":\"console\\u001b[2J\",\"status\":\"info\",\"message\":\"copy \\u001b]52;c;SGVsbG8=\\u0007 then \\u009b31m red\",\"data\":{\"out\":\"\\u001b]52;c;cm0gLXJm\\u001b\\\\\"}}\n";
    let p = write(dir.path(), &(ev("open", "ok") + line));
    let out = tail().arg("tail").arg(&p).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        !stdout.chars().any(|c| c.is_control() && c != '\n'),
        "raw control characters reached the output: {stdout:?}"
    );
    assert!(
        stdout.contains("copy \\e]52;c;SGVsbG8=\\x07 then \\x9b31m red"),
        "{stdout}"
    );
    assert!(stdout.contains("console\\e[2J"), "{stdout}");
    // data is printed as JSON, whose own escaping shows the ESC
    assert!(
        stdout.contains("{\"out\":\"\\u001b]52;c;cm0gLXJm\\u001b\\\\\"}"),
        "{stdout}"
    );
    assert_eq!(stdout.lines().count(), 2);
    assert!(
        stdout
            .lines()
            .next()
            .unwrap()
            .starts_with("10:15:30.112 step      ok      open did open {\"k\":1}")
    );
}

#[test]
fn json_from_start_prints_every_event_and_exits() {
    let dir = crate::common::fs::scratch_dir();
    let text: String = (1..=25).map(|i| ev(&format!("e{i}"), "ok")).collect();
    let p = write(dir.path(), &text);
    let out = tail()
        .args(["tail", "--json", "--from-start"])
        .arg(&p)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let names: Vec<String> = stdout
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            assert!(v.is_object());
            v["name"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(names, (1..=25).map(|i| format!("e{i}")).collect::<Vec<_>>());
    // compact and faithful to the line
    assert_eq!(stdout.lines().next().unwrap(), ev("e1", "ok").trim_end());
}

#[test]
fn without_from_start_the_last_ten_come_first() {
    let dir = crate::common::fs::scratch_dir();
    let text: String = (1..=25).map(|i| ev(&format!("e{i}"), "ok")).collect();
    let p = write(dir.path(), &text);
    let out = tail().args(["tail"]).arg(&p).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let names: Vec<&str> = stdout
        .lines()
        .map(|l| l.split_whitespace().nth(3).unwrap())
        .collect();
    assert_eq!(
        names,
        (16..=25).map(|i| format!("e{i}")).collect::<Vec<_>>()
    );
}

#[test]
fn bad_lines_are_reported_and_still_shown() {
    let dir = crate::common::fs::scratch_dir();
    let mut bytes = ev("a", "ok").into_bytes();
    bytes.extend_from_slice(
        b"garbage \x1b[31m\n{\"type\":\"step\",\"name\":\"n\xff\",\"status\":\"ok\"}\n",
    );
    bytes.extend_from_slice(ev("b", "failed").as_bytes());
    bytes.extend_from_slice(b"{\"type\":\"run\",\"name\":\"no-newline\",\"status\":\"info\"}");
    let p = dir.path().join("timeline.jsonl");
    std::fs::write(&p, bytes).unwrap();
    let out = tail()
        .args(["tail", "--from-start"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let shown = p.display().to_string();
    assert!(stdout.contains("garbage \\e[31m"), "{stdout}");
    assert!(stdout.contains("n\u{fffd}"), "{stdout}");
    assert!(stdout.contains("no-newline"), "{stdout}");
    assert_eq!(stdout.lines().count(), 5, "{stdout}");
    assert!(
        stderr.contains(&format!("{shown}:2:1 error timeline-not-json")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{shown}:3:25 error timeline-not-utf8")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{shown}:5 warning timeline-incomplete-line")),
        "{stderr}"
    );
    // JSON Lines stay JSON: every stdout line is one object
    let out = tail()
        .args(["tail", "--json", "--from-start"])
        .arg(&p)
        .output()
        .unwrap();
    for l in String::from_utf8(out.stdout).unwrap().lines() {
        assert!(
            serde_json::from_str::<serde_json::Value>(l)
                .unwrap()
                .is_object()
        );
    }
}

#[test]
fn no_color_codes_when_stdout_is_not_a_terminal() {
    let dir = crate::common::fs::scratch_dir();
    let p = write(dir.path(), &ev("a", "failed"));
    // not a terminal: no color
    let out = tail().arg("tail").arg(&p).output().unwrap();
    assert!(!out.stdout.contains(&0x1b));
}

#[test]
fn a_missing_file_is_a_usage_error_unless_following() {
    let dir = crate::common::fs::scratch_dir();
    let out = tail()
        .arg("tail")
        .arg(dir.path().join("nope.jsonl"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = tail().arg("tail").arg(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn follow_streams_lines_as_a_writer_appends_them() {
    let dir = crate::common::fs::scratch_dir();
    let p = dir.path().join("run/timeline.jsonl");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("testdeck"))
        .args(["tail", "--follow", "--json"])
        .arg(&p)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (etx, erx) = mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    let err_reader = std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            if etx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let note = || {
        erx.recv_timeout(Duration::from_secs(30))
            .expect("a note from tail --follow")
    };
    // the folder and the file do not exist yet: it says so and waits
    assert!(note().contains("does not exist yet"));
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let next = || {
        rx.recv_timeout(Duration::from_secs(30))
            .expect("a line from tail --follow")
    };
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    let mut w = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&p)
        .unwrap();
    w.write_all(ev("one", "ok").as_bytes()).unwrap();
    assert!(next().contains("\"name\":\"one\""));
    // half a line is held until its end arrives
    let two = ev("two", "failed");
    w.write_all(&two.as_bytes()[..20]).unwrap();
    std::thread::sleep(Duration::from_millis(50));
    assert!(rx.try_recv().is_err());
    w.write_all(&two.as_bytes()[20..]).unwrap();
    assert!(next().contains("\"name\":\"two\""));
    // replaced by rename: the new file is followed from its start
    let tmp = dir.path().join("run/.tmp");
    std::fs::write(&tmp, ev("three", "ok")).unwrap();
    std::fs::rename(&tmp, &p).unwrap();
    assert!(next().contains("\"name\":\"three\""));
    assert!(note().contains("created"));
    assert!(note().contains("replaced"));
    child.kill().unwrap();
    child.wait().unwrap();
    reader.join().unwrap();
    err_reader.join().unwrap();
}

#[test]
fn a_big_file_prints_in_order_with_its_bad_line_reported() {
    let dir = crate::common::fs::scratch_dir();
    let mut text: String = (1..=5000).map(|i| ev(&format!("e{i}"), "ok")).collect();
    text.push_str("broken {\n");
    text.extend((5001..=6000).map(|i| ev(&format!("e{i}"), "ok")));
    let p = write(dir.path(), &text);
    for json in [true, false] {
        let mut cmd = tail();
        cmd.args(["tail", "--from-start"]).arg(&p);
        if json {
            cmd.arg("--json");
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        let stdout = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 6001);
        for (k, l) in lines.iter().enumerate() {
            let i = if k < 5000 { k + 1 } else { k };
            if k == 5000 {
                assert!(l.contains("broken {"), "{l}");
            } else {
                assert!(l.contains(&format!("did e{i}")), "line {k}: {l}");
            }
        }
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains(":5001:"), "{stderr}");
    }
}

/// `--json` prints each event as the seed's compact object: a line already in
/// that form comes out byte for byte as written (the fast path of a burst), any
/// other form is rewritten to it — the same output either way.
#[test]
fn json_lines_are_the_compact_form_whatever_the_input_form() {
    let dir = crate::common::fs::scratch_dir();
    let hostile = r#"{"type":"signal","name":"a\"b","status":"info","message":"\u001b]52;c;SGVsbG8=\u0007","data":{"k":[1,-2,null,{}]}}"#;
    let input = [
        ev("a", "ok").trim_end().to_owned(),
        r#"{ "type": "step", "ts": "2026-03-15T10:15:30.112Z", "name": "b", "status": "ok", "message": "did b", "data": {"k": 1} }"#.to_owned(),
        r#"{"type":"step","name":"c","status":"ok","message":"m","data":1.50,"x":[1, 2]}"#.to_owned(),
        r#"{"type":"step","name":"\/d\u0041","status":"ok","message":"m","data":null}"#.to_owned(),
        hostile.to_owned(),
    ];
    let p = write(dir.path(), &(input.join("\n") + "\n"));
    let out = tail()
        .args(["tail", "--from-start", "--json"])
        .arg(&p)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let got: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        got,
        [
            input[0].as_str(),
            r#"{"ts":"2026-03-15T10:15:30.112Z","type":"step","name":"b","status":"ok","message":"did b","data":{"k":1}}"#,
            r#"{"type":"step","name":"c","status":"ok","message":"m","data":1.5,"x":[1,2]}"#,
            r#"{"type":"step","name":"/dA","status":"ok","message":"m","data":null}"#,
            hostile,
        ]
    );
}
