//! Sanitization audit of the headless text outputs: hostile strings (OSC 52,
//! clear-screen, BEL, C1 CSI, bidi overrides) injected into every field of a copy
//! of the demo workspace never reach stdout raw.

#![cfg(unix)]

use crate::common;
use common::cli::command;

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The hostile text as raw characters.
const EVIL: &str = "\u{1b}]52;c;SGVsbG8=\u{7}\u{1b}[2J\u{7}\u{9b}31m\u{202e}gnp.exe";
/// The same text in a YAML double-quoted scalar.
const EVIL_YAML: &str = "\\e]52;c;SGVsbG8=\\a\\e[2J\\a\\x9b31m\\u202egnp.exe";

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read_dir") {
        let e = e.expect("entry");
        if e.file_type().expect("type").is_dir() {
            files(&e.path(), out);
        } else {
            out.push(e.path());
        }
    }
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).expect("json")
}

/// Copy the demo and poison it.
fn hostile_demo() -> (tempfile::TempDir, PathBuf) {
    let tmp = crate::common::fs::scratch_dir();
    let root = tmp.path().join("demo");
    let out = command()
        .args(["demo", "--copy-to"])
        .arg(&root)
        .output()
        .expect("copy demo");
    assert!(out.status.success(), "{out:?}");
    let mut all = Vec::new();
    files(&root, &mut all);
    let evil = json_str(EVIL);
    for f in &all {
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let text = std::fs::read_to_string(f).unwrap_or_default();
        match name {
            // timeline: every field of a new event, and data
            "timeline.jsonl" | "runtime-events.jsonl" => {
                let line = format!(
                    "{{\"ts\":{evil},\"type\":{evil},\"name\":{evil},\"status\":{evil},\"id\":{evil},\"message\":{evil},\"data\":{{{evil}:{evil},\"nested\":[{evil}]}}}}\n"
                );
                std::fs::write(f, format!("{text}{line}{line}")).expect("write");
            }
            "meta.json" => {
                let mut v: serde_json::Value = serde_json::from_str(&text).expect("meta");
                let m = v.as_object_mut().expect("object");
                for k in ["startedAt", "finishedAt"] {
                    m.insert(k.into(), EVIL.into());
                }
                m.insert(
                    "runtime".into(),
                    serde_json::json!({"driver": EVIL, "target": EVIL, "modelName": EVIL}),
                );
                m.insert(EVIL.into(), EVIL.into());
                std::fs::write(f, v.to_string()).expect("write");
            }
            "artifacts.json" => {
                let v = serde_json::json!({"schemaVersion": 4, "items": [
                    {"id": EVIL, "kind": EVIL, "path": format!("artifacts/{EVIL}"), "refs": {"stepId": EVIL}},
                    {"id": "x", "kind": "screenshot", "path": format!("../{EVIL}")},
                ]});
                std::fs::write(f, v.to_string()).expect("write");
            }
            _ if f.extension().is_some_and(|e| e == "md") => {
                // plan and report text: headings, rows and words that name cases
                let extra = format!(
                    "\n# {EVIL}\n## director-plan-outline {EVIL}\n| director-plan-outline | {EVIL} |\n### 通过率 {EVIL}\n"
                );
                std::fs::write(f, format!("{extra}{text}{extra}")).expect("write");
            }
            _ if f.extension().is_some_and(|e| e == "yaml") => {
                // every plain one-line scalar of a text field becomes hostile
                let poisoned: Vec<String> = text
                    .lines()
                    .map(|l| {
                        for key in ["title: ", "what: ", "name: ", "note: ", "KB_NAME: "] {
                            if let Some(at) = l.find(key) {
                                let v = &l[at + key.len()..];
                                if !v.starts_with(['|', '>', '[', '{', '"', '\'', '&', '*']) {
                                    return format!("{}\"{EVIL_YAML}\"", &l[..at + key.len()]);
                                }
                            }
                        }
                        l.to_owned()
                    })
                    .collect();
                std::fs::write(f, poisoned.join("\n") + "\n").expect("write");
            }
            _ => {}
        }
    }
    // case and folder names
    for (dir, case) in [
        ("tests/ai/backend", "evil-case"),
        ("tests/docx/backend/export/basic", "evil-two"),
    ] {
        let folder = root
            .join(dir)
            .join(std::ffi::OsStr::from_bytes(format!("f{EVIL}").as_bytes()));
        std::fs::create_dir_all(&folder).expect("mkdir");
        std::fs::write(folder.join(format!("{case}{EVIL}.test.ts")), "//\n").expect("case");
        std::fs::write(folder.join(format!("{case}.test.ts")), "//\n").expect("case");
    }
    // a run whose folders carry the hostile text
    let run = root
        .join("tests/logs/ai/backend")
        .join(format!("f{EVIL}"))
        .join("evil-case")
        .join("20261121-145418-650");
    std::fs::create_dir_all(&run).expect("mkdir");
    std::fs::write(
        run.join("meta.json"),
        serde_json::json!({"runId": EVIL, "caseId": EVIL, "scope": EVIL, "status": EVIL})
            .to_string(),
    )
    .expect("meta");
    std::fs::write(
        run.join("timeline.jsonl"),
        format!("{{\"message\":{evil}}}\n"),
    )
    .expect("timeline");
    (tmp, root)
}

/// Bytes a terminal would act on: ESC, BEL, any C0 but newline and tab, DEL,
/// C1 (raw byte or UTF-8 encoded) and the bidi overrides.
fn leaks(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.chars().any(|c| {
            let u = c as u32;
            (u < 0x20 && c != '\t')
                || (0x7f..0xa0).contains(&u)
                || matches!(u, 0x202a..=0x202e | 0x2066..=0x2069)
        }) {
            found.push(format!("line {}: {line:?}", n + 1));
        }
    }
    // a raw C1 byte (0x9b alone) is not UTF-8: the output must be UTF-8 throughout
    if let Err(e) = std::str::from_utf8(bytes) {
        found.push(format!("not UTF-8 ({e}): a raw C1 byte may hide there"));
    }
    found
}

#[test]
fn no_hostile_byte_reaches_stdout() {
    let (_tmp, root) = hostile_demo();
    let timeline = {
        let mut all = Vec::new();
        files(&root.join("tests/logs"), &mut all);
        all.into_iter()
            .find(|p| p.ends_with("timeline.jsonl"))
            .expect("a timeline")
    };
    let tl = timeline.to_str().expect("utf-8 path").to_owned();
    let commands: Vec<Vec<&str>> = vec![
        vec!["list"],
        vec!["list", "--source", "catalog"],
        vec!["validate"],
        vec!["stats"],
        vec!["stats", "--markdown"],
        vec!["insights"],
        vec!["runs"],
        vec!["select"],
        vec!["select", "--max-risk", "destructive"],
        vec!["tail", &tl],
        vec!["tail", "--from-start", &tl],
    ];
    let mut problems = Vec::new();
    for args in &commands {
        let out: Output = common::cli::at(&root)
            .args(args)
            .env("NO_COLOR", "1")
            .output()
            .expect("run");
        assert_ne!(out.status.code(), Some(101), "{args:?}: {out:?}");
        assert!(!out.stdout.is_empty(), "{args:?} printed nothing: {out:?}");
        for l in leaks(&out.stdout) {
            problems.push(format!("{args:?} stdout {l}"));
        }
        for l in leaks(&out.stderr) {
            problems.push(format!("{args:?} stderr {l}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_hostile_text_is_there_escaped() {
    // the test above cannot pass by accident: the poison is loaded and shown escaped
    let (_tmp, root) = hostile_demo();
    let out = common::cli::at(&root).arg("list").output().expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\\e]52;c;SGVsbG8=\\x07"), "{text}");
    let out = common::cli::at(&root)
        .args(["list", "--source", "catalog"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\\e[2J"), "{text}");
}

/// Bytes from the cockpit's pty that did not come from its own drawing: any OSC
/// (`ESC ]`, testdeck never sends one), BEL, an ESC not starting a CSI or a
/// charset/keypad sequence, C1 controls (UTF-8 encoded, or raw: the output must be
/// UTF-8) and bidi overrides.
fn pty_leaks(bytes: &[u8]) -> Vec<String> {
    let mut found = Vec::new();
    for (i, w) in bytes.windows(2).enumerate() {
        if w[0] == 0x1b && !matches!(w[1], b'[' | b'(' | b')' | b'7' | b'8' | b'=' | b'>' | b'M') {
            found.push(format!("ESC {:?} at byte {i}", w[1] as char));
        }
    }
    if bytes.contains(&0x07) {
        found.push("BEL".into());
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => {
            for c in text.chars() {
                let u = c as u32;
                if (0x80..0xa0).contains(&u) || matches!(u, 0x202a..=0x202e | 0x2066..=0x2069) {
                    found.push(format!("U+{u:04X}"));
                }
            }
        }
        Err(e) => found.push(format!("not UTF-8: {e}")),
    }
    found
}

/// The cockpit walked through every pane and overlay on the poisoned demo, in a
/// real pseudo-terminal: nothing from the files reaches the terminal raw.
#[test]
fn no_hostile_byte_reaches_the_cockpit_pty() {
    let (_tmp, root) = hostile_demo();
    let cfg = crate::common::fs::scratch_dir();
    let mut s = common::Session::start(&root, cfg.path());
    s.wait_text(" runs │");
    // the tree, a case with poisoned timeline events, its event data, artifacts
    s.send("/");
    s.send("multi-doc");
    s.send("\r");
    s.wait_text("Timeline");
    for keys in ["\t\t", "G", "\r", "\x1b", "\t", "j"] {
        s.send(keys);
    }
    // the other tabs, problems, help, the report
    for keys in [
        "2", "j", "j", "j", "3", "j", "\r", "v", "p", "\x1b", "?", "\x1b", "1", "R", "\x1b",
    ] {
        s.send(keys);
    }
    let (_, out) = s.quit();
    let text = String::from_utf8_lossy(&out);
    assert!(
        text.contains("\\e]52"),
        "the poison was not drawn (escaped) at all"
    );
    let leaks = pty_leaks(&out);
    assert!(leaks.is_empty(), "{}", leaks.join("\n"));
}

/// Characters `--json` output must never carry raw (C0 but the newlines of
/// pretty output, DEL, C1, bidi controls).
fn json_raw(c: char) -> bool {
    let u = c as u32;
    (u < 0x20 && c != '\n')
        || (0x7f..0xa0).contains(&u)
        || matches!(u, 0x202a..=0x202e | 0x2066..=0x2069)
}

fn holds(v: &serde_json::Value, needle: &str) -> bool {
    match v {
        serde_json::Value::String(s) => s.contains(needle),
        serde_json::Value::Array(a) => a.iter().any(|x| holds(x, needle)),
        serde_json::Value::Object(m) => m
            .iter()
            .any(|(k, x)| k.contains(needle) || holds(x, needle)),
        _ => false,
    }
}

/// Every `--json` command on the poisoned demo: no raw control in the bytes, the
/// output parses, and the hostile strings come back equal to the originals.
#[test]
fn json_output_escapes_controls_and_keeps_the_strings() {
    let (_tmp, root) = hostile_demo();
    let mut timelines = Vec::new();
    files(&root.join("tests/logs"), &mut timelines);
    timelines.retain(|p| p.ends_with("timeline.jsonl"));
    timelines.sort();
    // two runs of one case for `diff`
    let runs: Vec<String> = timelines
        .windows(2)
        .find(|w| w[0].parent().and_then(Path::parent) == w[1].parent().and_then(Path::parent))
        .expect("a case with two runs")
        .iter()
        .map(|p| {
            p.parent()
                .expect("run")
                .strip_prefix(&root)
                .expect("inside")
                .to_str()
                .expect("utf-8")
                .to_owned()
        })
        .collect();
    let tl = timelines[0].to_str().expect("utf-8 path").to_owned();
    // (args, JSON Lines?, must hold the poison)
    let commands: Vec<(Vec<&str>, bool, bool)> = vec![
        (vec!["list", "--json"], false, true),
        (vec!["list", "--source", "catalog", "--json"], false, true),
        (vec!["validate", "--json"], false, true),
        (vec!["stats", "--json"], false, true),
        (vec!["insights", "--json"], false, false),
        (vec!["runs", "--json"], false, true),
        (vec!["select", "--json"], false, false),
        (
            vec!["select", "--max-risk", "destructive", "--json"],
            false,
            false,
        ),
        (
            vec!["diff", "--force", "--json", &runs[0], &runs[1]],
            false,
            true,
        ),
        (vec!["catalog", "csv", "--json"], false, false),
        (vec!["run", "--json", "TC-CLI-004"], true, true),
        (vec!["tail", "--json", &tl], true, true),
        (vec!["tail", "--json", "--from-start", &tl], true, true),
    ];
    let poison = "\u{1b}]52;c;SGVsbG8=\u{7}\u{1b}[2J\u{7}\u{9b}31m\u{202e}gnp.exe";
    assert_eq!(poison, EVIL);
    let mut problems = Vec::new();
    for (args, lines, poisoned) in &commands {
        let out: Output = common::cli::at(&root).args(args).output().expect("run");
        assert_ne!(out.status.code(), Some(101), "{args:?}: {out:?}");
        let text = String::from_utf8(out.stdout.clone()).expect("UTF-8 output");
        if let Some(c) = text.chars().find(|&c| json_raw(c)) {
            problems.push(format!("{args:?}: raw U+{:04X} in the output", c as u32));
        }
        let docs: Vec<serde_json::Value> = if *lines {
            text.lines()
                .map(|l| serde_json::from_str(l).expect("a JSON line"))
                .collect()
        } else {
            vec![serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}: {text}"))]
        };
        assert!(!docs.is_empty(), "{args:?} printed nothing");
        if *poisoned && !docs.iter().any(|d| holds(d, EVIL)) {
            problems.push(format!(
                "{args:?}: the hostile string did not come back whole"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
