//! Hostile workspaces run through the real binary: symlink loops and links out of
//! the workspace, unreadable folders, a file swapped for a folder while scanning,
//! 100k files in one folder, hostile and non-UTF-8 names, a 1 GB timeline.

#![cfg(unix)]

use crate::common;
use common::{cli::command, fs::write_file as write, procs::peak_rss_kib};

use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Run `testdeck --root ROOT ARGS`; it must end by itself and never panic.
fn td(root: &Path, args: &[&str]) -> Output {
    let out = common::cli::at(root)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run testdeck");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(101), "{args:?} panicked: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    out
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A run folder with meta.json and a timeline.
fn run_folder(logs: &Path, scope: &str, case_id: &str, run_id: &str) -> PathBuf {
    let dir = logs.join(scope).join(case_id).join(run_id);
    write(
        &dir.join("meta.json"),
        &format!(
            r#"{{"schemaVersion":4,"runId":"{run_id}","caseId":"{case_id}","scope":"{scope}","status":"passed","startedAt":"2026-11-21T14:54:18.650Z","finishedAt":"2026-11-21T14:54:20.537Z","stats":{{"durationMs":1887}}}}"#
        ),
    );
    write(
        &dir.join("timeline.jsonl"),
        "{\"ts\":\"2026-11-21T14:54:18.650Z\",\"type\":\"run\",\"name\":\"run/start\",\"status\":\"info\",\"message\":\"started\"}\n",
    );
    dir
}

/// A small workspace with one case and one run of it.
fn workspace(root: &Path) {
    write(&root.join("tests/ai/basic/good-case.test.ts"), "// case\n");
    write(&root.join("doc/test-plan/ai.md"), "# ai\n\n## good-case\n");
    run_folder(
        &root.join("tests/logs"),
        "ai/basic",
        "good-case",
        "20261121-145418-650",
    );
}

const TEXT_COMMANDS: [&[&str]; 5] = [&["list"], &["validate"], &["runs"], &["stats"], &["select"]];

#[test]
fn symlinks_are_never_followed_out_of_the_workspace() {
    let tmp = crate::common::fs::scratch_dir();
    let root = tmp.path().join("ws");
    let outside = tmp.path().join("outside");
    workspace(&root);
    // what lies outside: a case, a run, a report, a plan and an artifact, all "stolen"
    write(&outside.join("stolen-case.test.ts"), "// stolen\n");
    write(&outside.join("report.md"), "# stolen 域测试报告\n");
    write(&outside.join("plan.md"), "stolen-case stolen-secret\n");
    write(&outside.join("secret.png"), "stolen-secret");
    run_folder(&outside, "x", "stolen-run", "20261121-145418-651");
    symlink(&outside, root.join("tests/ai/evil")).expect("link");
    symlink(root.join("tests/ai"), root.join("tests/ai/basic/loop")).expect("loop");
    symlink(root.join("tests"), root.join("tests/logs/ai/loop")).expect("loop");
    symlink(outside.join("x"), root.join("tests/logs/ai/x")).expect("link");
    std::fs::create_dir_all(root.join("tests/report")).expect("mkdir");
    symlink(&outside, root.join("tests/report/evil")).expect("link");
    symlink(outside.join("plan.md"), root.join("doc/test-plan/evil.md")).expect("link");
    // artifacts: a link to a file outside, a dangling link, a climb out
    let run = root.join("tests/logs/ai/basic/good-case/20261121-145418-650");
    std::fs::create_dir_all(run.join("artifacts")).expect("mkdir");
    symlink(outside.join("secret.png"), run.join("artifacts/shot.png")).expect("link");
    symlink(outside.join("later.png"), run.join("artifacts/later.png")).expect("link");
    write(
        &run.join("artifacts.json"),
        r#"{"schemaVersion":4,"items":[{"id":"a","kind":"screenshot","path":"artifacts/shot.png"},{"id":"b","kind":"screenshot","path":"artifacts/later.png"},{"id":"c","kind":"screenshot","path":"../../../../../../outside/secret.png"}]}"#,
    );
    for args in TEXT_COMMANDS {
        let out = td(&root, args);
        let text = stdout(&out);
        assert!(!text.contains("stolen"), "{args:?} read outside:\n{text}");
    }
    for args in [
        &["list", "--json"][..],
        &["runs", "--json"],
        &["stats", "--json"],
    ] {
        let text = stdout(&td(&root, args));
        assert!(!text.contains("stolen"), "{args:?} read outside:\n{text}");
    }
    let v = stdout(&td(&root, &["validate"]));
    assert!(v.contains("symlink-not-followed"), "{v}");
    // every artifact that leads out is refused, the dangling link included
    let escapes = v.matches("artifact-path-escapes").count();
    assert_eq!(escapes, 3, "{v}");
    // the library agrees: none of them is a file to open
    let ws = testdeck_core::Workspace::load(&root).expect("load");
    assert_eq!(ws.tests.cases.len(), 1);
    let (items, _) = testdeck_core::workspace::logs::read_artifacts(&root, &run);
    assert!(items.iter().all(|a| a.file(&run).is_none()), "{items:?}");
}

#[test]
fn source_folders_that_are_links_are_not_read() {
    let tmp = crate::common::fs::scratch_dir();
    let root = tmp.path().join("ws");
    let outside = tmp.path().join("outside");
    write(&root.join("tests/ai/basic/good-case.test.ts"), "// case\n");
    run_folder(
        &outside.join("logs"),
        "ai/basic",
        "stolen-run",
        "20261121-145418-651",
    );
    write(
        &outside.join("report/ai/report.md"),
        "# stolen 域测试报告\n",
    );
    write(&outside.join("plan/ai.md"), "stolen-case\n");
    write(
        &outside.join("cases/api.yaml"),
        "category: API\ncases:\n  - id: TC-API-001\n    title: stolen\n",
    );
    write(
        &root.join(".pouch/tester/catalog.yaml"),
        "categories:\n  - id: API\n",
    );
    symlink(outside.join("logs"), root.join("tests/logs")).expect("link");
    symlink(outside.join("report"), root.join("tests/report")).expect("link");
    std::fs::create_dir_all(root.join("doc")).expect("mkdir");
    symlink(outside.join("plan"), root.join("doc/test-plan")).expect("link");
    symlink(outside.join("cases"), root.join(".pouch/tester/cases")).expect("link");
    for args in TEXT_COMMANDS {
        let text = stdout(&td(&root, args));
        assert!(!text.contains("stolen"), "{args:?} read outside:\n{text}");
    }
    let v = stdout(&td(&root, &["validate"]));
    for f in [
        "tests/logs",
        "tests/report",
        "doc/test-plan",
        ".pouch/tester/cases",
    ] {
        assert!(
            v.lines()
                .any(|l| l.starts_with(f) && l.contains("symlink-not-followed")),
            "{f}:\n{v}"
        );
    }
}

/// Whether this process can read a folder whose permissions forbid it (root can).
fn permissions_bind(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_err()
}

/// `testdeck --root ROOT ARGS` as the unprivileged user `nobody` (through
/// `setpriv`), when this process is root and that works here: root reads through
/// `chmod 000`, nobody does not.
fn td_as_nobody(root: &Path, args: &[&str]) -> Option<Output> {
    let exe = assert_cmd::cargo::cargo_bin!("testdeck");
    let run = |extra: &[&str]| {
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(exe)
            .args(extra)
            .env("NO_COLOR", "1")
            .output()
            .ok()
    };
    // the binary must be reachable by nobody (not the case under a private home)
    if !run(&["--version"]).is_some_and(|o| o.status.success()) {
        return None;
    }
    let mut all = vec!["--root", root.to_str()?];
    all.extend_from_slice(args);
    let out = run(&all)?;
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(101), "{args:?} panicked: {err}");
    Some(out)
}

#[test]
fn unreadable_folders_are_reported_and_the_rest_loads() {
    let tmp = crate::common::fs::scratch_dir();
    // readable by others, so an unprivileged user can see the rest of it
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let root = tmp.path().join("ws");
    workspace(&root);
    write(&root.join("tests/ai/locked/locked-case.test.ts"), "//\n");
    run_folder(
        &root.join("tests/logs"),
        "ai/locked",
        "locked-case",
        "20261121-145418-652",
    );
    let locked = [
        root.join("tests/ai/locked"),
        root.join("tests/logs/ai/locked"),
    ];
    for d in &locked {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    }
    // as root, chmod 000 stops nobody: run as an unprivileged user where possible
    let (enforced, list, runs, validate) = if permissions_bind(&locked[0]) {
        (
            true,
            stdout(&td(&root, &["list"])),
            stdout(&td(&root, &["runs"])),
            stdout(&td(&root, &["validate"])),
        )
    } else if let Some(list) = td_as_nobody(&root, &["list"]) {
        let runs = td_as_nobody(&root, &["runs"]).expect("runs as nobody");
        let validate = td_as_nobody(&root, &["validate"]).expect("validate as nobody");
        (true, stdout(&list), stdout(&runs), stdout(&validate))
    } else {
        (
            false,
            stdout(&td(&root, &["list"])),
            stdout(&td(&root, &["runs"])),
            stdout(&td(&root, &["validate"])),
        )
    };
    for d in &locked {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).expect("chmod back");
    }
    // the rest always loads
    assert!(list.contains("good-case"), "{list}");
    assert!(runs.contains("good-case"), "{runs}");
    if enforced {
        assert!(!list.contains("locked-case"), "{list}");
        assert!(validate.contains("tests/ai/locked"), "{validate}");
        assert!(validate.contains("unreadable"), "{validate}");
        assert!(validate.contains("tests/logs/ai/locked"), "{validate}");
    } else {
        eprintln!(
            "running as a privileged user without a way to drop privileges: chmod 000 \
             does not stop reads here, so only 'the rest loads' was checked"
        );
    }
}

#[test]
fn a_file_swapped_for_a_folder_mid_scan_never_panics() {
    let tmp = crate::common::fs::scratch_dir();
    let root = tmp.path().join("ws");
    workspace(&root);
    let case = root.join("tests/ai/basic/swap-case.test.ts");
    let meta = root.join("tests/logs/ai/basic/good-case/20261121-145418-650/meta.json");
    let timeline = meta.with_file_name("timeline.jsonl");
    let report = root.join("tests/report/ai/report.md");
    write(&report, "# ai 域测试报告\n");
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let stop = Arc::clone(&stop);
        let paths = [case, meta, timeline, report];
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                for p in &paths {
                    if p.is_dir() {
                        let _ = std::fs::remove_dir(p);
                        let _ = std::fs::write(p, "{\"runId\":1}\n");
                    } else {
                        let _ = std::fs::remove_file(p);
                        let _ = std::fs::create_dir(p);
                    }
                }
                swaps += 1;
            }
            swaps
        })
    };
    for i in 0..12 {
        for args in TEXT_COMMANDS {
            td(&root, args);
        }
        td(&root, &["list", "--json"]);
        if i % 4 == 0 {
            td(
                &root,
                &[
                    "tail",
                    "tests/logs/ai/basic/good-case/20261121-145418-650/timeline.jsonl",
                ],
            );
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().expect("swapper");
    assert!(swaps > 10, "the swapper barely ran: {swaps}");
}

#[test]
fn a_hundred_thousand_files_in_one_folder_load() {
    let tmp = common::fs::scratch_dir();
    let root = tmp.path().join("ws");
    workspace(&root);
    let many = root.join("tests/big/many");
    std::fs::create_dir_all(&many).expect("mkdir");
    let n = 100_000;
    for i in 0..n {
        // a few are cases, the rest are other files of the folder
        let name = if i % 10 == 0 {
            format!("case-{i}.test.ts")
        } else {
            format!("helper-{i}.ts")
        };
        std::fs::File::create(many.join(name)).expect("create");
    }
    let t = Instant::now();
    let out = td(&root, &["list", "--json"]);
    let took = t.elapsed();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let cases = v["cases"].as_array().expect("cases").len();
    assert_eq!(cases, n / 10 + 1);
    eprintln!("list --json of {n} files in one folder: {took:?}");
    let t = Instant::now();
    td(&root, &["validate"]);
    eprintln!("validate of {n} files in one folder: {:?}", t.elapsed());
}

/// True when `s` holds a byte or character a terminal would act on.
fn has_control(bytes: &[u8]) -> bool {
    // a raw C1 byte (0x9b alone) is not UTF-8: the output must be UTF-8 throughout
    bytes.iter().any(|&b| b == 0x1b || b == 0x07)
        || std::str::from_utf8(bytes).is_err()
        || String::from_utf8_lossy(bytes).chars().any(|c| {
            let u = c as u32;
            (u < 0x20 && c != '\n') || (0x7f..0xa0).contains(&u)
        })
}

#[test]
fn hostile_and_non_utf8_names_are_shown_escaped() {
    let tmp = crate::common::fs::scratch_dir();
    let root = tmp.path().join("ws");
    workspace(&root);
    let tests = root.join("tests/ai");
    let names: [&[u8]; 5] = [
        b"evil\x1b]52;c;SGVsbG8=\x07dir",
        b"clear\x1b[2Jscreen",
        b"new\nline",
        b"c1\xc2\x9bcsi\xe2\x80\xaebidi",
        b"latin1-caf\xe9",
    ];
    for n in names {
        let dir = tests.join(std::ffi::OsStr::from_bytes(n));
        std::fs::create_dir_all(&dir).expect("mkdir");
        let mut case = n.to_vec();
        case.extend_from_slice(b".test.ts");
        std::fs::write(dir.join(std::ffi::OsStr::from_bytes(&case)), "//\n").expect("case");
        // a run of a case whose names are hostile too
        let logs = root
            .join("tests/logs/ai")
            .join(std::ffi::OsStr::from_bytes(n));
        let run = logs
            .join(std::ffi::OsStr::from_bytes(n))
            .join("20261121-145418-653");
        std::fs::create_dir_all(&run).expect("mkdir");
        std::fs::write(run.join("timeline.jsonl"), "{\"ts\":\"2026-11-21T14:54:18.650Z\",\"type\":\"run\",\"name\":\"x\",\"status\":\"info\",\"message\":\"m\"}\n").expect("timeline");
    }
    for args in TEXT_COMMANDS {
        let out = td(&root, args);
        assert!(
            !has_control(&out.stdout),
            "{args:?} printed a control byte:\n{:?}",
            stdout(&out)
        );
        assert!(
            !has_control(&out.stderr),
            "{args:?} stderr: {:?}",
            out.stderr
        );
    }
    let list = stdout(&td(&root, &["list"]));
    assert!(list.contains("\\e]52"), "{list}");
    assert!(list.contains("new\\nline"), "{list}");
}

#[test]
fn a_one_gigabyte_timeline_is_never_read_whole() {
    let tmp = crate::common::fs::scratch_dir();
    let root = tmp.path().join("ws");
    workspace(&root);
    let run = root.join("tests/logs/ai/basic/good-case/20261121-145418-650");
    let file = run.join("timeline.jsonl");
    // one event, then a sparse gigabyte (one endless line of NULs), then ten events
    let event = "{\"ts\":\"2026-11-21T14:54:18.650Z\",\"type\":\"step\",\"name\":\"s\",\"status\":\"ok\",\"message\":\"tail-end\"}\n";
    {
        let mut f = std::fs::File::create(&file).expect("create");
        f.write_all(event.as_bytes()).expect("write");
        f.set_len(1 << 30).expect("sparse gigabyte");
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&file)
            .expect("append");
        f.write_all(b"\n").expect("newline");
        for _ in 0..10 {
            f.write_all(event.as_bytes()).expect("write");
        }
    }
    let limit_kib = 300 * 1024;
    let mut tail = command();
    tail.arg("tail").arg(&file).env("NO_COLOR", "1");
    let (out, tail_peak) = peak_rss_kib(tail);
    assert_ne!(out.status.code(), Some(101));
    assert_eq!(
        stdout(&out).matches("tail-end").count(),
        10,
        "{}",
        stdout(&out)
    );
    let mut validate = command();
    validate.arg("--root").arg(&root).arg("validate");
    let (out, validate_peak) = peak_rss_kib(validate);
    assert_ne!(out.status.code(), Some(101));
    let v = stdout(&out);
    assert!(v.contains("timeline-line-too-long"), "{v}");
    eprintln!("1 GiB timeline: tail peak {tail_peak} KiB, validate peak {validate_peak} KiB");
    assert!(
        tail_peak > 0 && tail_peak < limit_kib,
        "tail: {tail_peak} KiB"
    );
    assert!(
        validate_peak > 0 && validate_peak < limit_kib,
        "validate: {validate_peak} KiB"
    );
}
