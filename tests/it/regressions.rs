//! Regression tests for what hardening found: each bug keeps the input that showed it.

use crate::common;
use common::cli::command;

use std::io::Read;
use std::process::Stdio;
use testdeck_core::workspace::catalog;
use testdeck_core::workspace::vars::{MAX_EXPANDED, Vars};

/// Vars that double each other (`V1: ${V0}${V0}` ...) would expand to a terabyte:
/// the expansion stops at `MAX_EXPANDED` and validation names the var.
#[test]
fn var_expansion_bomb_is_cut_and_reported() {
    let text = std::fs::read_to_string("tests/fixtures/fuzz/var_expand/doubling-vars.yaml")
        .expect("fixture");
    let mut problems = Vec::new();
    let cat = catalog::from_texts(&text, None, &[], &mut problems);
    let vars = Vars::resolve(&cat, &|_| None);
    for e in vars.entries() {
        assert!(
            e.value.len() <= MAX_EXPANDED + 64,
            "{} is {} bytes",
            e.name,
            e.value.len()
        );
    }
    assert!(
        vars.too_long.iter().any(|n| n == "V40"),
        "{:?}",
        vars.too_long
    );
    let found = catalog::validate(&cat, &|_| None);
    let p = found
        .iter()
        .find(|p| p.rule == "var-too-long")
        .expect("var-too-long reported");
    assert!(p.line.is_some(), "{p:?}");
    // a text using the bomb stays bounded too
    let e = vars.expand("${V40}${V40}${V40}");
    assert!(e.text.len() <= 3 * (MAX_EXPANDED + 64));
}

/// `testdeck stats | head` closed stdout early and `println!` panicked (exit 101,
/// a backtrace on stderr). Now the command ends quietly like `cat` does.
#[test]
fn closed_stdout_does_not_panic() {
    for cmd in [
        &["stats"][..],
        &["list"],
        &["runs"],
        &["validate"],
        &["select"],
    ] {
        let mut child = common::cli::at("assets/demo")
            .args(cmd)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        // close the reading end before the command prints anything
        drop(child.stdout.take());
        let mut err = String::new();
        child
            .stderr
            .take()
            .expect("stderr")
            .read_to_string(&mut err)
            .expect("read stderr");
        let status = child.wait().expect("wait");
        assert_ne!(status.code(), Some(101), "{cmd:?}: {err}");
        assert!(!err.contains("panicked"), "{cmd:?}: {err}");
    }
}

/// `tail` without `-f` stopped at the first read that ended inside a line longer
/// than one batch (8 MiB): `read_available` returned nothing before the end of
/// the file, which callers take for "caught up", so the events after it were lost.
#[test]
fn a_line_longer_than_a_batch_does_not_end_the_read() {
    use testdeck_core::tail::{Follower, Start, TailEvent, Watch};
    let tmp = crate::common::fs::scratch_dir();
    let file = tmp.path().join("timeline.jsonl");
    let mut text = vec![b'x'; 20 << 20];
    text.extend_from_slice(
        b"\n{\"type\":\"step\",\"status\":\"ok\",\"message\":\"after-the-long-line\"}\n",
    );
    std::fs::write(&file, &text).expect("write");
    let mut f = Follower::with_watch(&file, Start::Beginning, Watch::Off);
    let mut messages = Vec::new();
    loop {
        let batch = f.read_available();
        if batch.is_empty() {
            break;
        }
        for e in batch {
            if let TailEvent::Line(l) = e {
                messages.push(l.event().message.clone());
            }
        }
    }
    assert_eq!(messages.len(), 2, "{:?}", messages.len());
    assert_eq!(messages[1], "after-the-long-line");
    // and the command prints it
    let out = command()
        .args(["tail", "--from-start"])
        .arg(&file)
        .env("NO_COLOR", "1")
        .output()
        .expect("tail");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("after-the-long-line"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Fuzz target `key_notation`: `<c-S-T>` parsed to Ctrl + `T`, a key no press
/// can make (a Ctrl press is folded to lowercase), shown as `<C-T>`, which
/// parsed back to Ctrl + `t`; `<s-lt>` and `<s-backtab>` kept a SHIFT that no
/// press carries either. Notation now folds like key presses do.
#[test]
fn ctrl_shift_letter_notation_matches_the_key_press() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use testdeck_tui::keymap::Key;
    for f in ["ctrl-shift-letter", "shift-named-char", "shift-backtab"] {
        let input = std::fs::read_to_string(format!("tests/fixtures/fuzz/key_notation/{f}"))
            .expect("fixture");
        let k = Key::parse(&input).expect("a key");
        assert_eq!(Key::parse(&k.to_string()), Ok(k), "{input:?} shown as {k}");
        assert!(!k.mods.contains(KeyModifiers::SHIFT), "{input:?}: {k:?}");
    }
    let k = Key::parse("<c-S-T>").expect("a key");
    let press = Key::from_event(&KeyEvent::new(
        KeyCode::Char('T'),
        KeyModifiers::CONTROL | KeyModifiers::SHIFT,
    ));
    assert_eq!(k, press);
    assert_eq!(Key::parse("<C-S-t>"), Ok(press));
    // SHIFT alone still makes the uppercase letter
    assert_eq!(Key::parse("<S-g>").map(|k| k.code), Ok(KeyCode::Char('G')));
}
