//! YAML resource attacks on the real binary: an alias bomb, deep nesting and a
//! 50 MB case file are refused with a located problem, quickly and in bounded memory.

#![cfg(unix)]

use crate::common;
use common::fs::write_file as write;

use std::fmt::Write as _;
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

const CATALOG: &str = "categories:\n  - id: API\n    name: api\n";

/// `validate` on `root`: its output, peak memory (KiB) and time.
fn validate(root: &Path) -> (Output, u64, Duration) {
    let t = Instant::now();
    let mut cmd = common::cli::command();
    cmd.arg("--root").arg(root).arg("validate");
    let (out, peak) = common::procs::peak_rss_kib(cmd);
    let took = t.elapsed();
    assert_ne!(out.status.code(), Some(101), "{out:?}");
    (out, peak, took)
}

/// The first problem line of `rule` for `file`, which must carry a line number.
fn located(out: &Output, file: &str, rule: &str) -> String {
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .find(|l| l.starts_with(file) && l.contains(rule))
        .unwrap_or_else(|| panic!("no {rule} for {file}:\n{text}"))
        .to_owned()
}

#[test]
fn an_alias_bomb_is_refused_with_a_located_problem() {
    let tmp = crate::common::fs::scratch_dir();
    let root = tmp.path();
    // ten levels of ten aliases each: 10^10 nodes if expanded
    let mut bomb = String::from(
        "categories:\n  - id: API\n    name: api\nbomb:\n  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n",
    );
    for i in 1..10 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        let _ = writeln!(bomb, "  a{i}: &a{i} [{refs}]");
    }
    write(&root.join(".pouch/tester/catalog.yaml"), &bomb);
    let (out, peak, took) = validate(root);
    let line = located(&out, ".pouch/tester/catalog.yaml:", "yaml-limit");
    assert!(line.contains("catalog.yaml:"), "{line}");
    eprintln!("alias bomb: {took:?}, peak {peak} KiB: {line}");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn deep_nesting_is_refused_with_a_located_problem() {
    let tmp = crate::common::fs::scratch_dir();
    let root = tmp.path();
    write(&root.join(".pouch/tester/catalog.yaml"), CATALOG);
    let depth = 100_000;
    let deep = format!(
        "category: API\ncases:\n  - id: TC-API-001\n    title: {}{}\n",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    write(&root.join(".pouch/tester/cases/api.yaml"), &deep);
    let (out, peak, took) = validate(root);
    let line = located(&out, ".pouch/tester/cases/api.yaml:", "yaml-limit");
    eprintln!("nesting {depth}: {took:?}, peak {peak} KiB: {line}");
}

#[test]
fn a_fifty_megabyte_case_file_is_refused_unread() {
    let tmp = crate::common::fs::scratch_dir();
    let root = tmp.path();
    write(&root.join(".pouch/tester/catalog.yaml"), CATALOG);
    let mut big = String::from("category: API\ncases:\n");
    let item = "  - id: TC-API-001\n    title: a case that repeats until the file is huge\n";
    while big.len() < 50 << 20 {
        big.push_str(item);
    }
    write(&root.join(".pouch/tester/cases/api.yaml"), &big);
    drop(big);
    let (out, peak, took) = validate(root);
    let line = located(&out, ".pouch/tester/cases/api.yaml", "file-too-large");
    eprintln!("50 MB case file: {took:?}, peak {peak} KiB: {line}");
    // it is refused, not parsed: far less memory than the file
    assert!(peak < 48 * 1024, "peak {peak} KiB for a 50 MB file");
}
