//! The second trust round (issue 26): attacks the first round did not cover, each
//! on a real workspace with real folders, links and processes — a chain of
//! 10,000 nested folders, a link to a big folder outside, a runs folder that is a
//! link out, names XML 1.0 forbids, a shared file updated by two processes at
//! once, a full disk, names that look like options.

use crate::common;
use common::cli::{at, bin};

use rustix::fs::{AtFlags, Mode, OFlags};
use std::io::{BufRead as _, BufReader};
use std::os::fd::OwnedFd;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const DEEP: usize = 10_000;

fn open_dir(at: &OwnedFd, name: &str) -> OwnedFd {
    rustix::fs::openat(
        at,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .expect("open folder")
}

/// `base/d/d/…/d`, `depth` levels, made relative to a folder handle: its path is
/// far over PATH_MAX, so no path of it from the root can be opened.
fn deep_chain(base: &Path, depth: usize) {
    std::fs::create_dir_all(base).expect("mkdir base");
    let mut fd = rustix::fs::open(
        base,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .expect("open base");
    for _ in 0..depth {
        rustix::fs::mkdirat(&fd, "d", Mode::from_raw_mode(0o755)).expect("mkdirat");
        fd = open_dir(&fd, "d");
    }
}

/// Remove the chain iteratively (the standard library's removal recurses one
/// frame a level): `base/d/d` is renamed to `base/n`, `base/d` removed, `base/n`
/// renamed to `base/d`, until one folder is left.
fn remove_chain(base: &Path) {
    let top = rustix::fs::open(
        base,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .expect("open base");
    loop {
        let d = open_dir(&top, "d");
        let inner = rustix::fs::renameat(&d, "d", &top, "n");
        drop(d);
        if inner.is_err() {
            rustix::fs::unlinkat(&top, "d", AtFlags::REMOVEDIR).expect("rmdir last");
            return;
        }
        rustix::fs::unlinkat(&top, "d", AtFlags::REMOVEDIR).expect("rmdir");
        rustix::fs::renameat(&top, "n", &top, "d").expect("rename");
    }
}

/// The demo workspace with a 10,000-deep chain under the tests tree, the logs and
/// the test plan.
struct Deep {
    ws: tempfile::TempDir,
}

const CHAINS: [&str; 3] = [
    "tests/ai/backend/deep",
    "tests/logs/ai/deep",
    "doc/test-plan/deep",
];

impl Deep {
    fn new() -> Deep {
        let ws = common::fs::demo_copy();
        for c in CHAINS {
            deep_chain(&ws.path().join(c), DEEP);
        }
        Deep { ws }
    }
}

impl Drop for Deep {
    fn drop(&mut self) {
        for c in CHAINS {
            remove_chain(&self.ws.path().join(c));
        }
    }
}

/// The process ended by itself (no signal, no stack overflow) in under 2 s.
fn assert_no_crash(what: &str, out: &std::process::Output, took: Duration) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code().is_some(),
        "{what}: killed by a signal: {err}"
    );
    assert!(!err.contains("overflow"), "{what}: {err}");
    assert!(took < Duration::from_secs(2), "{what} took {took:?}");
}

/// One chain workspace for the three shells that walk it (building and removing
/// 30,000 nested folders costs more than the checks): the headless commands, watch
/// and the cockpit.
#[test]
fn a_chain_of_ten_thousand_folders_is_a_located_problem_in_every_shell() {
    let deep = Deep::new();
    let root = deep.ws.path();

    // the headless commands: a located problem, not a crash
    for args in [
        &["list"][..],
        &["validate", "--json"],
        &["stats"],
        &["runs"],
    ] {
        let start = Instant::now();
        let out = at(root).args(args).output().expect("run");
        assert_no_crash(args[0], &out, start.elapsed());
    }
    let (_, doc) = common::cli::validate_json(root);
    let found: Vec<&str> = doc["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .filter(|p| p["rule"] == "folder-too-deep")
        .filter_map(|p| p["file"].as_str())
        .collect();
    for c in CHAINS {
        // located at the first folder past the cap, under each chain
        assert!(
            found
                .iter()
                .any(|f| f.starts_with(c) && f.len() < c.len() + 200),
            "no folder-too-deep under {c}: {found:?}"
        );
    }

    // watch starts on it
    let start = Instant::now();
    let mut child = watch_started(root, &["ai"]);
    let took = start.elapsed();
    let alive = child.try_wait().expect("wait").is_none();
    let _ = child.kill();
    let _ = child.wait();
    assert!(alive, "watch ended");
    assert!(
        took < Duration::from_secs(2),
        "watch took {took:?} to start"
    );

    // the cockpit opens and quits on it
    let cfg = crate::common::fs::scratch_dir();
    let s = common::Session::start(root, cfg.path());
    common::keep_child(s.child.as_ref());
    s.wait_text("Tests ·");
    let (_, bytes) = s.quit();
    // the terminal is given back: the alternate screen left
    assert!(
        bytes.windows(8).any(|w| w == b"\x1b[?1049l"),
        "alternate screen not left"
    );
}

/// The inotify watches `pid` holds (`inotify wd:` lines of its fdinfo).
fn inotify_watches(pid: u32) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(format!("/proc/{pid}/fdinfo"))
        .expect("fdinfo")
        .flatten()
    {
        if let Ok(text) = std::fs::read_to_string(e.path()) {
            n += text
                .lines()
                .filter(|l| l.starts_with("inotify wd:"))
                .count();
        }
    }
    n
}

/// `testdeck watch --json ARGS` until its watch-start line: the child, or a panic
/// with its stderr.
fn watch_started(root: &Path, args: &[&str]) -> std::process::Child {
    let mut child = Command::new(bin())
        .arg("--root")
        .arg(root)
        .args(["watch", "--json"])
        .args(args)
        .env("XDG_CACHE_HOME", crate::common::cli::cache_home())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn watch");
    let out = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if line.contains("watch-start") && tx.send(()).is_err() {
                break;
            }
        }
    });
    let started = rx.recv_timeout(Duration::from_secs(10)).is_ok();
    if !started {
        let _ = child.kill();
        let _ = child.wait();
        panic!("watch did not start");
    }
    child
}

#[test]
fn watch_never_follows_a_link_out_of_the_workspace() {
    let ws = common::fs::demo_copy();
    let root = ws.path();
    let mut plain = watch_started(root, &["ai"]);
    let without = inotify_watches(plain.id());
    let _ = plain.kill();
    let _ = plain.wait();
    // a big folder outside, linked from inside the watched tests tree
    std::os::unix::fs::symlink("/usr", root.join("tests/ai/backend/usrlink")).expect("link");
    let mut linked = watch_started(root, &["ai"]);
    let with = inotify_watches(linked.id());
    let _ = linked.kill();
    let _ = linked.wait();
    assert!(without > 0, "no watch at all");
    assert_eq!(with, without, "the link to /usr added watches");
}

#[test]
fn junit_of_names_xml_forbids_is_still_xml() {
    let ws = common::fs::demo_copy();
    let root = ws.path();
    let bad = "run-\u{fffe}-\u{ffff}-\u{1}";
    let case = "tests/logs/ai/backend/odd-case";
    std::fs::create_dir_all(root.join(case).join(bad)).expect("mkdir");
    std::fs::write(
        root.join(case).join(bad).join("timeline.jsonl"),
        "{\"ts\":\"2026-01-01T00:00:00Z\",\"type\":\"step\",\"name\":\"x\",\"status\":\"passed\"}\n",
    )
    .expect("write");
    let file = root.join("junit.xml");
    let out = at(root)
        .args(["runs", "--junit"])
        .arg(&file)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let xml = std::fs::read_to_string(&file).expect("junit file");
    assert!(xml.contains("odd-case"), "the run is not in the report");
    let mut reader = quick_xml::Reader::from_str(&xml);
    let mut cases = 0;
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Eof) => break,
            Ok(quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e))
                if e.name().as_ref() == b"testcase" =>
            {
                cases += 1;
            }
            Ok(quick_xml::events::Event::Text(t)) => {
                // every text must decode and hold only what XML 1.0 allows
                let s = t.decode().expect("text");
                assert!(
                    !s.chars().any(|c| matches!(c as u32, 0xfffe | 0xffff | 0x1)),
                    "{s:?}"
                );
            }
            Ok(_) => {}
            Err(e) => panic!("not XML at {}: {e}", reader.buffer_position()),
        }
    }
    assert!(cases > 0);
    for c in ['\u{fffe}', '\u{ffff}', '\u{1}'] {
        assert!(!xml.contains(c), "{c:?} in the XML");
    }
}

#[test]
fn a_runs_folder_that_is_a_link_out_gets_no_record() {
    let ws = common::fs::demo_copy();
    let root = ws.path();
    let outside = crate::common::fs::scratch_dir();
    let runs = root.join(".pouch/tester/runs");
    let _ = std::fs::remove_dir_all(&runs);
    std::fs::create_dir_all(runs.parent().expect("parent")).expect("mkdir");
    std::os::unix::fs::symlink(outside.path(), &runs).expect("link");
    let out = at(root)
        .args(["run", "TC-CLI-001"])
        .env_remove("HOST")
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    let written: Vec<_> = std::fs::read_dir(outside.path())
        .expect("ls")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(written.is_empty(), "written through the link: {written:?}");
    assert!(!out.status.success(), "the run said nothing");
    assert!(err.contains(".pouch/tester/runs"), "not located: {err}");
    // a record planted outside is not listed as the workspace's, and validate says why
    std::fs::write(
        outside.path().join("20260101T000000Z-x.yaml"),
        "runId: planted\n",
    )
    .expect("plant");
    let runs_out = at(root).args(["runs", "--json"]).output().expect("runs");
    assert!(
        !String::from_utf8_lossy(&runs_out.stdout).contains("planted"),
        "a record read through the link"
    );
    let (_, doc) = common::cli::validate_json(root);
    assert!(
        doc["problems"]
            .as_array()
            .expect("problems")
            .iter()
            .any(|p| { p["rule"] == "symlink-not-followed" && p["file"] == ".pouch/tester/runs" }),
        "validate said nothing: {doc}"
    );
}

const PLAN_CARD_CASE: &str = "ai/e2e/workbench/basic/workbench-plan-artifact-smoke";
const PLAN_CARD_RUN: &str =
    "tests/logs/ai/e2e/workbench/basic/workbench-plan-artifact-smoke/20261127-082157-975";

/// The argument an opener would be handed, from the effects of `o`.
fn spawned_target(fx: &[testdeck_tui::app::Effect]) -> Option<String> {
    fx.iter().find_map(|e| match e {
        testdeck_tui::app::Effect::Spawn(argv) => argv.last().cloned(),
        _ => None,
    })
}

#[test]
fn an_artifact_swapped_for_a_link_out_after_listing_is_refused_at_o_and_at_the_preview() {
    use common::app::{Deck, Runs, options, render};
    use crossterm::event::KeyCode;
    use std::os::unix::fs::PermissionsExt as _;
    use testdeck_tui::app::Pane;
    use testdeck_tui::image::State;
    let d = common::fs::demo_copy();
    let outside = crate::common::fs::scratch_dir();
    let run = d.path().join(PLAN_CARD_RUN);
    let card = run.join("artifacts/plan-card.png");
    // a real picture outside the workspace, the one the link will lead to
    let secret = outside.path().join("secret.png");
    std::fs::copy(&card, &secret).expect("outside png");
    let mut app = Deck::new(options(d.path(), "demo"), Runs::JOBS)
        .sized(140, 60)
        .loaded();
    assert!(app.jump_to(PLAN_CARD_CASE));
    app.cmd(testdeck_tui::action::Command::Open);
    let listed = &app.live().run().expect("a run loaded").artifacts;
    assert!(
        listed
            .iter()
            .any(|a| a.path == "artifacts/plan-card.png" && a.exists),
        "listed inside, before the swap: {listed:?}"
    );
    app.focus_on(Pane::Artifacts);
    // the first artifact (the trace) opens through a private copy, never its path
    let fx = app.key(KeyCode::Char('o'));
    let copy = spawned_target(&fx).expect("the trace is opened");
    let copy = Path::new(&copy);
    assert!(
        !copy.starts_with(d.path()),
        "a copy, not the path: {copy:?}"
    );
    assert_eq!(
        std::fs::read(copy).expect("copy"),
        std::fs::read(run.join("artifacts/trace.zip")).expect("trace")
    );
    let folder = copy.parent().expect("folder");
    let mode = std::fs::metadata(folder)
        .expect("stat")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700, "only this user can enter it");
    std::fs::remove_dir_all(folder).expect("rm copy");
    // after the run was listed, the screenshot becomes a link out of its run folder
    std::fs::remove_file(&card).expect("rm card");
    std::os::unix::fs::symlink(&secret, &card).expect("link out");
    app.key(KeyCode::Char('j'));
    assert_eq!(
        app.live().artifacts().cursor,
        1,
        "the screenshot is selected"
    );
    // the preview opens it beneath the run folder: refused, with a message
    let Some(State::Failed(why)) = app.previews().cache().get(&card) else {
        panic!(
            "read through the link: {:?}",
            app.previews().cache().get(&card)
        );
    };
    assert!(why.contains("symbolic link"), "{why}");
    let theme = testdeck_tui::theme::Theme::builtin("dark", false).expect("dark");
    let screen = render(&app, &theme).backend().to_string();
    assert!(
        screen.contains("artifacts/plan-card.png: a symbolic link"),
        "{screen}"
    );
    // `o` opens it beneath the run folder too: refused, said, nothing spawned
    let fx = app.key(KeyCode::Char('o'));
    assert_eq!(spawned_target(&fx), None, "{fx:?}");
    let notice = app.notice().clone().unwrap_or_default();
    assert!(
        notice.contains("not opened: artifacts/plan-card.png: a symbolic link"),
        "{notice}"
    );
}

/// A cancelled-runs file the disk refuses to rewrite (`RLIMIT_FSIZE` below its
/// size, SIGXFSZ ignored, so the write fails with EFBIG as on a full disk):
/// its earlier entries survive whole, and the failure is said.
#[test]
fn a_cancelled_runs_file_the_disk_refuses_keeps_its_entries_and_is_reported() {
    use common::fs::write;
    let ws = crate::common::fs::scratch_dir();
    let root = ws.path();
    write(
        root,
        "tests/shop/backend/cart/cart-slow.test.ts",
        "// case\n",
    );
    write(
        root,
        "runner.sh",
        "dir=\"tests/logs/shop/backend/cart/cart-slow/$(date -u +%Y%m%d-%H%M%S)-001\"\nmkdir -p \"$dir\"\nprintf '{\"ts\":\"2026-01-01T00:00:00Z\",\"type\":\"run\",\"name\":\"run/start\",\"status\":\"info\",\"message\":\"started\"}\\n' >> \"$dir/timeline.jsonl\"\necho \"runner: started $dir\"\nsleep 60\n",
    );
    write(
        root,
        "testdeck.toml",
        "[runner]\ncommand = [\"sh\", \"runner.sh\"]\n",
    );
    // 80 earlier cancelled runs, still without meta.json: kept by every rewrite
    let earlier: Vec<String> = (0..80)
        .map(|i| format!("tests/logs/shop/backend/cart/cart-slow/20250101-0000{i:02}-000"))
        .collect();
    for r in &earlier {
        std::fs::create_dir_all(root.join(r)).expect("mkdir");
    }
    let state = crate::common::fs::scratch_dir();
    let file = testdeck_core::workspace::cancelled::file_in(&state.path().join("testdeck"), root);
    testdeck_core::workspace::cancelled::record(&file, root, &earlier).expect("earlier");
    let before = std::fs::read(&file).expect("the file");
    assert!(before.len() > 4096, "{} bytes", before.len());
    let mut cmd = Command::new(bin());
    cmd.args(["run", "--json", "shop/backend/cart/cart-slow", "--root"])
        .arg(root)
        .env("XDG_STATE_HOME", state.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    crate::faults_kill::limit_file_size(&mut cmd, 4096);
    let mut child = cmd.spawn().expect("testdeck run");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    loop {
        let line = lines
            .next()
            .expect("ended before the case started")
            .expect("line");
        if line.contains("\"case-start\"") {
            break;
        }
    }
    let term = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(term.success());
    let mut said: Vec<String> = lines.map_while(Result::ok).collect();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut err)
        .expect("stderr");
    said.push(err);
    child.wait().expect("wait");
    let said = said.join("\n");
    assert!(
        said.contains("cannot record the cancelled runs") && said.contains("File too large"),
        "{said}"
    );
    let after = std::fs::read(&file).expect("the file");
    assert!(
        after == before,
        "the earlier entries are kept whole: {} of {} bytes left",
        after.len(),
        before.len()
    );
    let left: Vec<_> = std::fs::read_dir(file.parent().expect("folder"))
        .expect("ls")
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .filter(|n| n.to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "no temp file left: {left:?}");
}

/// Whether `s` holds a character no copy may carry raw: C0, DEL, C1, the bidi
/// controls and marks, the line and paragraph separators.
fn raw_hostile(s: &str) -> Option<char> {
    s.chars().find(|&c| {
        c.is_control()
            || matches!(
                c,
                '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{2028}' | '\u{2029}'
            )
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    })
}

#[test]
fn yy_and_yp_copy_hostile_names_escaped() {
    use common::app::{Deck, Runs, options};
    use testdeck_tui::app::Effect;
    let ws = crate::common::fs::scratch_dir();
    let root = ws.path();
    let name = "pay\u{1b}]52;c;ZXZpbA==\u{7}\u{202e}gpj\u{2028}\u{2066}x\u{85}\u{9b}2J";
    common::fs::write(
        root,
        &format!("tests/shop/backend/cart/{name}.test.ts"),
        "// case\n",
    );
    common::fs::write(
        root,
        "testdeck.toml",
        "[runner]\ncommand = [\"sh\", \"runner.sh\"]\n",
    );
    let mut app = Deck::new(options(root, "hostile"), Runs::FOLDERS)
        .sized(140, 40)
        .loaded();
    app.jump(&format!("shop/backend/cart/{name}"));
    let mut copied = Vec::new();
    for keys in ["yy", "yp"] {
        let fx = app.keys(keys);
        let text = fx
            .iter()
            .find_map(|e| match e {
                Effect::Copy(t) => Some(t.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{keys}: nothing copied: {fx:?}"));
        if let Some(c) = raw_hostile(&text) {
            panic!("{keys} copies {c:?} raw: {text:?}");
        }
        assert!(text.contains("pay") && text.contains("gpj"), "{text:?}");
        copied.push(text);
    }
    assert!(
        copied[1].starts_with("tests/shop/backend/cart/"),
        "{copied:?}"
    );
}

/// The screen of `app` as text, in the dark theme.
fn screen_text(app: &common::app::Deck) -> String {
    let theme = testdeck_tui::theme::Theme::builtin("dark", false).expect("dark");
    common::app::render(app, &theme).backend().to_string()
}

#[test]
fn a_trust_question_too_long_for_the_screen_scrolls_and_y_waits_for_its_end() {
    use common::app::{Deck, Runs, options};
    use crossterm::event::KeyCode;
    use testdeck_tui::app::Pane;
    let d = common::fs::demo_copy();
    // the command hides its end behind 4,000 spaces
    let hidden = format!("xdg-open \"$1\"{}; touch hidden-marker", " ".repeat(4000));
    let toml = d.path().join("testdeck.toml");
    let text = std::fs::read_to_string(&toml).unwrap_or_default();
    let open = format!(
        "\n[open]\ndefault = [\"sh\", \"-c\", {}, \"sh\"]\n",
        serde_json::to_string(&hidden).expect("toml string")
    );
    std::fs::write(&toml, text + &open).expect("toml");
    let mut app = Deck::new(options(d.path(), "demo"), Runs::JOBS)
        .sized(100, 30)
        .loaded();
    assert!(app.jump_to(PLAN_CARD_CASE));
    app.cmd(testdeck_tui::action::Command::Open);
    app.focus_on(Pane::Artifacts);
    // the screenshot: opened by the workspace's default opener
    app.key(KeyCode::Char('j'));
    let fx = app.key(KeyCode::Char('o'));
    assert_eq!(spawned_target(&fx), None, "asked first: {fx:?}");
    let s = screen_text(&app);
    assert!(s.contains("Run the workspace's opener?"), "{s}");
    assert!(s.contains("↓ more: "), "it says there is more: {s}");
    assert!(
        !s.contains("hidden-marker") && !s.contains("Trust it"),
        "{s}"
    );
    // arguments quoted one per line
    assert!(
        s.contains("│  -c") && s.contains("│  'xdg-open \"$1\""),
        "{s}"
    );
    // y before the end runs nothing and leaves the question up
    let fx = app.key(KeyCode::Char('y'));
    assert_eq!(spawned_target(&fx), None, "y before the end ran it: {fx:?}");
    assert!(screen_text(&app).contains("Run the workspace's opener?"));
    // scrolled page by page, every row passes on screen, down to the end
    let mut pages = 0;
    while screen_text(&app).contains("↓ more: ") {
        app.key(KeyCode::PageDown);
        pages += 1;
        assert!(pages < 200, "the end is never reached");
    }
    assert!(pages > 1, "{pages} pages");
    let s = screen_text(&app);
    assert!(
        s.contains("hidden-marker'") && s.contains("Trust it"),
        "the end and the question show: {s}"
    );
    let fx = app.key(KeyCode::Char('y'));
    let Some(testdeck_tui::app::Effect::Spawn(argv)) = fx
        .iter()
        .find(|e| matches!(e, testdeck_tui::app::Effect::Spawn(_)))
    else {
        panic!("y at the end runs it: {fx:?}");
    };
    assert_eq!(argv[2], hidden, "the command shown is the one run");
    if let Some(folder) = argv.last().map(Path::new).and_then(Path::parent) {
        std::fs::remove_dir_all(folder).expect("rm the copy");
    }
}

/// The trust question's answers leave the file work to the runtime: `n` asks
/// for the private copy to be discarded (still there after the key), `y` asks
/// for the trust to be remembered before the opener is spawned.
#[test]
fn the_trust_question_s_answers_are_effects_for_the_runtime_in_order() {
    use common::app::{Deck, Runs, options};
    use crossterm::event::KeyCode;
    use testdeck_tui::app::{Effect, Pane};
    let d = common::fs::demo_copy();
    let toml = d.path().join("testdeck.toml");
    let text = std::fs::read_to_string(&toml).unwrap_or_default();
    std::fs::write(&toml, text + "\n[open]\ndefault = [\"true\"]\n").expect("toml");
    let mut app = Deck::new(options(d.path(), "demo"), Runs::JOBS)
        .sized(100, 30)
        .loaded();
    assert!(app.jump_to(PLAN_CARD_CASE));
    app.cmd(testdeck_tui::action::Command::Open);
    app.focus_on(Pane::Artifacts);
    app.key(KeyCode::Char('j'));
    let fx = app.key(KeyCode::Char('o'));
    assert_eq!(spawned_target(&fx), None, "asked first: {fx:?}");
    let fx = app.key(KeyCode::Char('n'));
    let discarded: Vec<_> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::Discard(copy) => Some(copy.clone()),
            _ => None,
        })
        .collect();
    let [copy] = discarded.as_slice() else {
        panic!("one discard: {fx:?}");
    };
    assert!(copy.is_file(), "the key itself removed nothing: {copy:?}");
    assert!(!copy.starts_with(d.path()), "a copy, not the artifact");
    std::fs::remove_dir_all(copy.parent().expect("folder")).expect("rm the copy");
    assert!(
        app.notice()
            .clone()
            .unwrap_or_default()
            .contains("not opened"),
        "{:?}",
        app.notice()
    );
    app.key(KeyCode::Char('o'));
    let fx = app.key(KeyCode::Char('y'));
    let trust = fx.iter().position(|e| matches!(e, Effect::Trust { .. }));
    let spawn = fx.iter().position(|e| matches!(e, Effect::Spawn(_)));
    assert!(
        matches!((trust, spawn), (Some(t), Some(s)) if t < s),
        "remembered, then spawned: {fx:?}"
    );
    let Some(Effect::Trust { argv, shown, .. }) = trust.map(|t| &fx[t]) else {
        unreachable!("found above");
    };
    assert_eq!(
        (argv.as_slice(), shown.as_str()),
        (&["true".to_owned()][..], "artifacts/plan-card.png")
    );
    if let Some(folder) = spawned_target(&fx)
        .as_deref()
        .map(Path::new)
        .and_then(Path::parent)
    {
        std::fs::remove_dir_all(folder).expect("rm the copy");
    }
}

/// Finding 7: a test file named with a line separator (U+2028) and a paragraph
/// separator (U+2029) reaches the screen escaped — terminals draw nothing for
/// them while a width table counts a column, so a raw one shifts its row's
/// border and marks under another row's.
#[test]
fn line_and_paragraph_separators_in_a_name_never_reach_the_terminal_raw() {
    let ws = common::fs::demo_copy();
    let cfg = crate::common::fs::scratch_dir();
    let dir = ws.path().join("tests/ai/backend/tools/terminal");
    std::fs::create_dir_all(&dir).expect("suite folder");
    std::fs::write(
        dir.join("sepzz\u{2028}line\u{2029}para.test.ts"),
        "test('x', () => {});\n",
    )
    .expect("test file");
    let mut s = common::Session::start(ws.path(), cfg.path());
    s.wait_text("Tests ·");
    s.find("sepzz");
    s.wait_text("sepzz\\u{2028}line\\u{2029}para");
    let (_, bytes) = s.quit();
    for raw in ["\u{2028}", "\u{2029}"] {
        assert!(
            !bytes.windows(3).any(|w| w == raw.as_bytes()),
            "{raw:?} reached the terminal raw"
        );
    }
}
