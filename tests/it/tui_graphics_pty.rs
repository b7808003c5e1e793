//! The full-screen screenshot (`i`) of the demo in a real pseudo-terminal, with each
//! protocol forced by `TESTDECK_IMAGES`: the kitty and iTerm2 escape sequences (and sixel's
//! DCS) when forced, half-block cells otherwise, and a whole screen again after Esc; and
//! `auto` against a pty that answers the startup query as kitty, and one that does not.

use crate::common;
use common::Session;
use common::fs::demo_copy as demo;

/// Open the cockpit with `TESTDECK_IMAGES=images`, show the plan card full screen; the
/// output bytes from the `i` on, and the screen then.
fn show_plan_card(images: &str) -> Shown {
    let d = demo();
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start_with(d.path(), cfg.path(), &[("TESTDECK_IMAGES", images)]);
    s.wait_text("Tests · 21");
    s.find("'workbench-plan-artifact-smoke");
    s.wait_text("Artifacts · 2");
    // the artifacts pane (after details and timeline), its second artifact: the screenshot
    s.send("\t\t\t");
    s.send("j");
    let before = s.bytes.lock().expect("lock").len();
    s.send("i");
    s.wait_text(" Screenshot ");
    s.wait_text("plan-card.png · 320×200");
    // the picture follows the caption in the same frame; let a slow machine write it
    let start = std::time::Instant::now();
    loop {
        let n = s.bytes.lock().expect("lock").len();
        std::thread::sleep(std::time::Duration::from_millis(300));
        if s.bytes.lock().expect("lock").len() == n
            || start.elapsed() > std::time::Duration::from_secs(20)
        {
            break;
        }
    }
    let bytes = s.bytes.lock().expect("lock")[before..].to_vec();
    let screen = s.screen();
    Shown {
        bytes,
        screen,
        s,
        _dirs: [d, cfg],
    }
}

/// What `show_plan_card` saw, with the session and its folders (kept until the end).
struct Shown {
    bytes: Vec<u8>,
    screen: vt100::Parser,
    s: Session,
    _dirs: [tempfile::TempDir; 2],
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

fn half_blocks(p: &vt100::Parser) -> usize {
    let sc = p.screen();
    let (rows, cols) = sc.size();
    (0..rows)
        .flat_map(|r| (0..cols).map(move |c| (r, c)))
        .filter(|(r, c)| {
            sc.cell(*r, *c)
                .is_some_and(|x| matches!(x.contents(), "▀" | "▄"))
        })
        .count()
}

/// Esc closes the picture and the panes are drawn again.
fn closes(shown: Shown) {
    let Shown { mut s, _dirs, .. } = shown;
    s.send("\x1b");
    s.wait_text("Artifacts · 2");
    s.wait_for("the screenshot gone", |sc| {
        !sc.contents().contains(" Screenshot ")
    });
    s.quit();
}

#[test]
fn kitty_forced_sends_the_kitty_graphics_escape() {
    let shown = show_plan_card("kitty");
    let (bytes, screen) = (&shown.bytes, &shown.screen);
    assert!(
        contains(bytes, b"\x1b_G"),
        "no kitty APC (ESC _G) in the output"
    );
    assert!(
        contains(bytes, b"a=T"),
        "the image is transmitted and placed"
    );
    assert_eq!(half_blocks(screen), 0, "no half blocks under kitty");
    closes(shown);
}

#[test]
fn iterm2_forced_sends_the_inline_file_escape() {
    let shown = show_plan_card("iterm2");
    let (bytes, screen) = (&shown.bytes, &shown.screen);
    assert!(
        contains(bytes, b"\x1b]1337;File=inline=1;"),
        "no iTerm2 OSC 1337 File= in the output"
    );
    // the payload is a base64 PNG: its signature encodes to iVBORw0KGgo
    assert!(contains(bytes, b":iVBORw0KGgo"), "not a base64 PNG");
    assert_eq!(half_blocks(screen), 0);
    closes(shown);
}

#[test]
fn sixel_forced_sends_a_sixel_dcs() {
    let shown = show_plan_card("sixel");
    let bytes = &shown.bytes;
    assert!(
        bytes.windows(3).any(|w| w[0] == 0x1b && w[1] == b'P') && contains(bytes, b"\x1b\\"),
        "no sixel DCS in the output"
    );
    closes(shown);
}

#[test]
fn halfblocks_forced_draws_cells_and_no_protocol_bytes() {
    let shown = show_plan_card("halfblocks");
    let (bytes, screen) = (&shown.bytes, &shown.screen);
    assert!(
        half_blocks(screen) > 500,
        "the picture as half blocks: {} cells",
        half_blocks(screen)
    );
    assert!(!contains(bytes, b"\x1b_G"));
    assert!(!contains(bytes, b"\x1b]1337;"));
    closes(shown);
}

/// With `auto` and a terminal that answers nothing, the query gives up after its
/// timeout: the cockpit starts, takes keys and draws half blocks.
#[test]
fn auto_without_an_answer_falls_back_to_half_blocks() {
    let shown = show_plan_card("auto");
    assert!(
        half_blocks(&shown.screen) > 500,
        "half blocks after no answer"
    );
    assert!(!contains(&shown.bytes, b"a=T"), "no kitty picture");
    closes(shown);
}

/// A pty whose peer answers the startup query as kitty does, from the thread that reads
/// the cockpit's output (at once, whatever the load): kitty is found, and the keys typed
/// after reach the cockpit (the query left no reader behind).
#[test]
fn auto_detects_kitty_from_the_terminal_s_answer() {
    use portable_pty::{CommandBuilder, PtySize, native_pty_system};
    use std::io::{Read as _, Write as _};
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};
    let d = demo();
    let cfg = crate::common::fs::scratch_dir();
    let pty = native_pty_system()
        .openpty(PtySize {
            rows: common::ROWS,
            cols: common::COLS,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("openpty");
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_testdeck"));
    cmd.arg("--root");
    cmd.arg(d.path());
    cmd.env("XDG_CONFIG_HOME", cfg.path());
    // the history cache beside the config, never the person's own
    cmd.env(
        "XDG_CACHE_HOME",
        std::path::Path::new(&cfg.path()).join("cache"),
    );
    cmd.env("TERM", "xterm-256color");
    cmd.env("TESTDECK_IMAGES", "auto");
    for v in ["TERM_PROGRAM", "LC_TERMINAL", "NO_COLOR", "HOST"] {
        cmd.env_remove(v);
    }
    let mut child = pty.slave.spawn_command(cmd).expect("spawn");
    common::keep_child(child.as_ref());
    drop(pty.slave);
    let mut reader = pty.master.try_clone_reader().expect("reader");
    let writer = Arc::new(Mutex::new(pty.master.take_writer().expect("writer")));
    let bytes = Arc::new(Mutex::new(Vec::<u8>::new()));
    let (sink, peer) = (bytes.clone(), writer.clone());
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        let mut answered = false;
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            let mut all = sink.lock().expect("lock");
            all.extend_from_slice(&buf[..n]);
            if !answered && contains(&all, b"\x1b_Gi=31") && contains(&all, b"\x1b[c") {
                answered = true;
                let mut w = peer.lock().expect("lock");
                let _ = w.write_all(b"\x1b_Gi=31;OK\x1b\\\x1b[6;20;10t\x1b[?62;22c");
                let _ = w.flush();
            }
        }
    });
    let screen = || {
        let mut p = vt100::Parser::new(common::ROWS, common::COLS, 0);
        p.process(&bytes.lock().expect("lock"));
        p.screen().contents()
    };
    let wait = |what: &str| {
        let start = Instant::now();
        while !screen().contains(what) {
            assert!(
                start.elapsed() < Duration::from_secs(40),
                "timed out waiting for {what}:\n{}",
                screen()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let send = |keys: &str| {
        let mut w = writer.lock().expect("lock");
        w.write_all(keys.as_bytes()).expect("write");
        w.flush().expect("flush");
        drop(w);
        std::thread::sleep(Duration::from_millis(60));
    };
    wait("Tests · 21");
    send("/");
    send("'workbench-plan-artifact-smoke");
    wait("❯ 'workbench-plan-artifact-smoke");
    send("\r");
    wait("Artifacts · 2");
    send("\t\t\t");
    send("j");
    send("i");
    wait("plan-card.png · 320×200");
    let start = Instant::now();
    while !contains(&bytes.lock().expect("lock"), b"a=T") {
        assert!(
            start.elapsed() < Duration::from_secs(40),
            "no kitty picture after the kitty answer"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    send("\x1b");
    send("q");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            assert!(status.success(), "exit status {status:?}");
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "did not quit");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The answers a kitty terminal gives to the startup query.
const KITTY_ANSWER: &str = "\x1b_Gi=31;OK\x1b\\\x1b[6;20;10t\x1b[?62;22c";

/// The cockpit with `TESTDECK_IMAGES=auto` in this pty, which answers nothing by itself,
/// the query's wait set to `wait_ms` (the test hook); none of the machine's terminal names.
fn bare_pty(wait_ms: &str) -> (Session, [tempfile::TempDir; 2]) {
    let d = demo();
    let cfg = crate::common::fs::scratch_dir();
    let mut cmd = Session::command(d.path(), cfg.path());
    cmd.env("TESTDECK_IMAGES", "auto");
    cmd.env("TESTDECK_QUERY_TIMEOUT_MS", wait_ms);
    for v in ["TERM_PROGRAM", "LC_TERMINAL"] {
        cmd.env_remove(v);
    }
    (Session::spawn(cmd, common::ROWS, common::COLS), [d, cfg])
}

/// The plan card's screenshot full screen from the finder's result, then wait for a
/// kitty picture (`a=T`) among the bytes written from then on.
fn kitty_picture_follows(s: &mut Session) {
    s.wait_text("Artifacts · 2");
    s.send("\t\t\t");
    s.send("j");
    let before = s.bytes.lock().expect("lock").len();
    s.send("i");
    s.wait_text("plan-card.png · 320×200");
    let start = std::time::Instant::now();
    while !contains(&s.bytes.lock().expect("lock")[before..], b"a=T") {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(40),
            "no kitty picture after the kitty answer"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// What the finder's input line holds (up to its cursor).
fn finder_query(s: &Session) -> String {
    let sc = s.screen().screen().contents();
    let line = sc.lines().find(|l| l.contains('❯')).unwrap_or_default();
    let after = line.split_once("❯ ").map_or("", |(_, q)| q);
    after.split('▏').next().unwrap_or_default().to_owned()
}

/// A terminal that does not answer the graphics query (the wait made endless): the tree
/// is drawn and keys are taken while the query is pending; the answer that comes after
/// the first frame puts no character in the finder, and the picture is kitty's then.
#[test]
fn the_first_frame_does_not_wait_for_the_terminal_s_answers() {
    let (mut s, _dirs) = bare_pty("600000");
    s.wait_text("Tests · 21");
    assert!(
        contains(&s.bytes.lock().expect("lock"), b"\x1b[c"),
        "the query is written (and pending: nothing answers it)"
    );
    s.send("/");
    s.wait_text("Find cases");
    s.send("'workbench-plan-artifact-smoke");
    s.wait_text("❯ 'workbench-plan-artifact-smoke");
    s.send(KITTY_ANSWER);
    s.send("\x7f");
    s.wait_text("❯ 'workbench-plan-artifact-smok▏");
    assert_eq!(finder_query(&s), "'workbench-plan-artifact-smok");
    s.send("e\r");
    kitty_picture_follows(&mut s);
    s.send("\x1b");
    s.quit();
}

/// The wait is over before the terminal answers (crossterm reads stdin then): the late
/// answer is no keys — nothing typed into the finder, the tree not moved — and the
/// pictures are kitty's from then on.
#[test]
fn an_answer_after_the_wait_is_no_keys_and_images_follow() {
    let (mut s, _dirs) = bare_pty("0");
    s.wait_text("Tests · 21");
    s.send("/");
    s.wait_text("Find cases");
    s.send("'workbench-plan");
    s.wait_text("❯ 'workbench-plan");
    s.send(KITTY_ANSWER);
    s.send("-artifact-smoke");
    s.wait_text("❯ 'workbench-plan-artifact-smoke");
    assert_eq!(finder_query(&s), "'workbench-plan-artifact-smoke");
    s.send("\r");
    kitty_picture_follows(&mut s);
    s.send("\x1b");
    s.quit();
}
