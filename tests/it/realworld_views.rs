//! What a person sees and gets on `examples/realworld` (issue 14): a real Playwright
//! failure in every view that shows its text — its SGR colours (`\e[2mexpect(…`)
//! drawn as styles (checked cell by cell through vt100) or dropped, never escaped;
//! a failing real opener's own stderr line; a watched case rerun by a source edit.

use crate::common;
use common::Session;
use common::cli::command;
use common::find_text as find;
use common::realworld::{failed_e2e, node_ready, project};

use std::path::{Path, PathBuf};

/// Every way an escaped SGR introducer can read on a screen or in a text.
const ESCAPED: [&str; 5] = ["\\e[", "\\x1b[", "␛[", "\\u001b[", "\\u{1b}["];

fn assert_none_escaped(what: &str, text: &str) {
    for e in ESCAPED {
        assert!(!text.contains(e), "{what} shows {e:?}:\n{text}");
    }
}

/// A project copy of its own holding the shared project's failed Playwright run
/// (a real run on Chromium, made once for the process; this test writes around it),
/// and that run's folder.
fn failed_run() -> Option<(tempfile::TempDir, PathBuf)> {
    let (shared, e2e) = failed_e2e()?;
    let p = project();
    let dir = p.path().join(&e2e.path);
    common::fs::copy_dir(&shared.root.join(&e2e.path), &dir);
    let timeline = std::fs::read_to_string(dir.join("timeline.jsonl")).expect("timeline");
    // the premise: Playwright did put its colours in the failure message
    assert!(
        timeline.contains(r"\u001b[2mexpect(\u001b[22m\u001b[31mlocator"),
        "{timeline}"
    );
    Some((p, dir))
}

fn run_bin(root: &Path, args: &[&str]) -> String {
    let out = command()
        .args(args)
        .arg("--root")
        .arg(root)
        .output()
        .expect("testdeck");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
#[allow(clippy::many_single_char_names)] // a, b: the two runs compared; s: the session
fn a_playwright_failure_reads_with_its_colours_in_every_view() {
    let Some((p, a)) = failed_run() else {
        return;
    };
    let root = p.path();
    // a second run of the case whose failure message differs (a longer timeout),
    // so compare and diff show the message
    let b = a.with_file_name("20991231-235959-000");
    std::fs::create_dir_all(&b).expect("mkdir");
    for f in ["meta.json", "artifacts.json", "runtime-events.jsonl"] {
        if a.join(f).is_file() {
            std::fs::copy(a.join(f), b.join(f)).expect("copy");
        }
    }
    let timeline = std::fs::read_to_string(a.join("timeline.jsonl")).expect("timeline");
    assert!(timeline.contains("2000ms"), "{timeline}");
    std::fs::write(
        b.join("timeline.jsonl"),
        timeline.replace("2000ms", "5000ms"),
    )
    .expect("write");
    let tl = |d: &Path| d.join("timeline.jsonl").to_string_lossy().into_owned();

    // tail: the colours dropped without colour, drawn with it, kept as JSON in --json
    let plain = run_bin(root, &["tail", "--from-start", "--color", "never", &tl(&a)]);
    assert!(
        plain.contains("expect(locator).toHaveText(expected)"),
        "{plain}"
    );
    assert_none_escaped("tail", &plain);
    assert!(!plain.contains('\u{1b}'), "{plain:?}");
    let coloured = run_bin(
        root,
        &["tail", "--from-start", "--color", "always", &tl(&a)],
    );
    assert!(
        coloured.contains("\u{1b}[0;2mexpect(\u{1b}[0;31mlocator\u{1b}[0;2m)."),
        "{coloured:?}"
    );
    assert_none_escaped("tail --color always", &coloured);
    let json = run_bin(root, &["tail", "--from-start", "--json", &tl(&a)]);
    assert!(json.contains(r"\u001b[2mexpect("), "{json}");
    assert!(
        !json.chars().any(|c| c.is_control() && c != '\n'),
        "{json:?}"
    );

    // diff: the runs differ in the timeout only, shown without the colours
    let diff = run_bin(
        root,
        &[
            "diff",
            &tl(&a).replace("/timeline.jsonl", ""),
            &b.to_string_lossy(),
        ],
    );
    assert!(diff.contains("data.error.message"), "{diff}");
    assert!(
        diff.contains("expect(locator).toHaveText(expected)"),
        "{diff}"
    );
    assert!(diff.contains("5000ms"), "{diff}");
    assert_none_escaped("diff", &diff);

    // the cockpit
    let cfg = crate::common::fs::scratch_dir();
    let mut s = Session::start(root, cfg.path());
    s.wait_text("Tests ·");
    s.find("storefront-checkout");
    s.wait_text("◆ a1 order-confirmed · did not hold");
    assert_none_escaped("the timeline", &s.screen().screen().contents());
    // the failed step's data (the timeline follows its end: the previous failure):
    // Playwright's message with its colours as styles
    s.send("N");
    s.send("\r");
    s.wait_text("\"error\": {");
    let screen = s.screen();
    let sc = screen.screen();
    assert_none_escaped("the data view", &sc.contents());
    let theme = testdeck_tui::theme::Theme::builtin("dark", false).expect("theme");
    let fg = |key: &str| match testdeck_tui::theme::rgb(theme.get(key).fg.expect("fg")) {
        Some((r, g, b)) => vt100::Color::Rgb(r, g, b),
        None => panic!("{key} has no colour"),
    };
    let (row, col) = find(sc, "expect(locator)").unwrap_or_else(|| panic!("{}", sc.contents()));
    let cell = |c: u16| sc.cell(row, col + c).expect("cell").fgcolor();
    // `expect(` dim: the theme's muted colour; `locator` red: the theme's failed colour
    assert_eq!(cell(0), fg("muted"), "{}", sc.contents());
    assert_eq!(cell(7), fg("failed"), "{}", sc.contents());
    assert_ne!(cell(0), cell(7));
    // compare: A and B from the Runs tab
    s.send("\x1b");
    s.send("3");
    s.wait_text("20991231-235959-000");
    s.send("c");
    s.send("j");
    s.send("c");
    s.wait_text("data.error.message");
    let screen = s.screen();
    assert!(
        screen
            .screen()
            .contents()
            .contains("expect(locator).toHaveText"),
        "{}",
        screen.screen().contents()
    );
    assert_none_escaped("compare", &screen.screen().contents());
    s.send("\x1b");
    s.quit();
}

/// The trace opener of a real failed e2e run is `npx --no playwright show-trace`;
/// in a copy of the project without its `node_modules` npx refuses, and what it
/// wrote on stderr reaches the status line with a hint about `[open]`.
#[test]
fn a_failing_npx_opener_says_its_own_stderr_line() {
    let Some((p, _)) = failed_run() else {
        return;
    };
    let root = p.path();
    // the packages npx would run are gone: it fails as it did run from elsewhere
    std::fs::remove_file(root.join("node_modules")).expect("unlink node_modules");
    let cfg = crate::common::fs::scratch_dir();
    let state = crate::common::fs::scratch_dir();
    let state_dir = state.path().to_str().expect("utf-8").to_owned();
    // wide enough for the whole notice beside the workspace and HOST (a narrower
    // status line cuts the notice, never them)
    let (rows, cols) = (32, 200);
    let mut cmd = Session::command(root, cfg.path());
    cmd.env("TESTDECK_IMAGES", "halfblocks");
    cmd.env("XDG_STATE_HOME", &state_dir);
    let mut s = Session::spawn(cmd, rows, cols);
    let wait = |s: &Session, what: &str| {
        s.wait_sized(rows, cols, what, |sc| sc.contents().contains(what));
    };
    wait(&s, "Tests ·");
    s.send("/");
    wait(&s, "Find cases");
    s.send("storefront-checkout");
    wait(&s, "❯ storefront-checkout");
    s.send("\r");
    wait(&s, "artifacts/tests/t1/trace.zip");
    // the Artifacts pane, whose cursor stands on the failed test's own trace
    s.send("\t");
    s.send("\t");
    s.send("\t");
    s.send("o");
    // npx's own words (why it stopped, not where its log is) and the way out
    wait(&s, "npm error npx cancel");
    let text = s.screen_sized(rows, cols).screen().contents();
    assert!(
        text.contains("npx: exit status: 1 (another opener: [open] in config.toml)"),
        "{text}"
    );
    s.quit();
}

/// A child process that ends with the test, also when an assertion fails.
struct Reaped(std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `testdeck watch` on the fixture: saving `src/cart.ts` (the code under test, not a
/// test file) reruns the watched vitest case, through the project's own runner.
#[test]
fn editing_the_fixtures_source_reruns_a_watched_case() {
    use std::io::BufRead as _;
    use std::sync::mpsc::RecvTimeoutError;
    use std::time::{Duration, Instant};
    if !node_ready() {
        return;
    }
    let p = project();
    let root = p.path();
    let mut child = common::cli::at(root)
        // a wide quiet period: a loaded machine never splits one save in two
        .args(["watch", "--json", "--debounce-ms", "800"])
        .arg("shop/backend/cart/basic/cart-total")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .map(Reaped)
        .expect("testdeck watch");
    let out = child.0.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel::<serde_json::Value>();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            let v = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
            if tx.send(v).is_err() {
                break;
            }
        }
    });
    let mut seen: Vec<serde_json::Value> = Vec::new();
    let until = |t: &str, seen: &mut Vec<serde_json::Value>| -> serde_json::Value {
        let end = Instant::now() + Duration::from_secs(120);
        loop {
            if let Some(v) = seen.iter().find(|v| v["type"] == t) {
                return v.clone();
            }
            match rx.recv_timeout(end.saturating_duration_since(Instant::now())) {
                Ok(v) => seen.push(v),
                Err(RecvTimeoutError::Timeout) => panic!("no {t} within 120 s: {seen:#?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("watch ended before {t}: {seen:#?}"),
            }
        }
    };
    let start = until("watch-start", &mut seen);
    assert!(
        start["folders"]
            .as_array()
            .is_some_and(|f| f.contains(&serde_json::json!("src"))),
        "{start:#}"
    );
    // a save of the code under test, as an editor makes it
    let cart = root.join("src/cart.ts");
    let text = std::fs::read_to_string(&cart).expect("cart.ts");
    std::fs::write(&cart, format!("{text}\n// edited\n")).expect("save");
    let trigger = until("watch-trigger", &mut seen);
    assert_eq!(
        trigger["paths"],
        serde_json::json!(["src/cart.ts"]),
        "{seen:#?}"
    );
    assert_eq!(
        trigger["cases"],
        serde_json::json!(["shop/backend/cart/basic/cart-total"]),
        "{seen:#?}"
    );
    let summary = until("summary", &mut seen);
    assert_eq!(summary["results"][0]["verdict"], "pass", "{seen:#?}");
    // the rerun is a real vitest run of the case, written by the project's runner
    let case = root.join("tests/logs/shop/backend/cart/basic/cart-total");
    assert_eq!(
        std::fs::read_dir(&case).map_or(0, Iterator::count),
        1,
        "one run folder"
    );
}
