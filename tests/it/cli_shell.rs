//! The command line as a shell user meets it: completions, the man page, `--help`,
//! `--color` (piped and in a real pseudo-terminal), times in the local zone,
//! `run --no-tests`, `--runs 0` and `--root` at a folder that is no workspace.

use crate::common;
use clap::CommandFactory;
use common::Session;
use common::cli::command;
use portable_pty::CommandBuilder;
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = command();
    cmd.args(args);
    for k in [
        "NO_COLOR",
        "CLICOLOR",
        "CLICOLOR_FORCE",
        "TESTDECK_TIME",
        "HOST",
    ] {
        cmd.env_remove(k);
    }
    cmd.env("TERM", "xterm-256color");
    cmd.envs(env.iter().copied());
    cmd.output().expect("run testdeck")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A timeline of three events on 15 March 2026 (UTC), one of each coloured status.
const TIMELINE: &str = concat!(
    r#"{"ts":"2026-03-15T10:15:30.112Z","type":"step","name":"open","status":"ok"}"#,
    "\n",
    r#"{"ts":"2026-03-15T10:15:31.000Z","type":"assertion","name":"shown","status":"failed"}"#,
    "\n",
    r#"{"ts":"2026-03-15T10:15:32.000Z","type":"run","name":"end","status":"info"}"#,
    "\n",
);

fn timeline() -> (tempfile::TempDir, String) {
    let dir = crate::common::fs::scratch_dir();
    let p = dir.path().join("timeline.jsonl");
    std::fs::write(&p, TIMELINE).expect("timeline");
    (dir, p.display().to_string())
}

#[test]
fn completions_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = run(&["completions", shell], &[]);
        assert!(out.status.success(), "{shell}: {}", text(&out.stderr));
        let script = text(&out.stdout);
        assert!(
            script.contains("testdeck") && script.contains("completions"),
            "{shell}: {script}"
        );
        let dir = crate::common::fs::scratch_dir();
        let file = dir.path().join(format!("testdeck.{shell}"));
        std::fs::write(&file, &script).expect("write");
        // the shells that can check a script without running it
        let check: &[&str] = match shell {
            "bash" | "zsh" => &["-n"],
            "fish" => &["--no-execute"],
            _ => continue,
        };
        let status = std::process::Command::new(shell)
            .args(check)
            .arg(&file)
            .output();
        match status {
            Ok(o) => assert!(
                o.status.success(),
                "{shell} refuses the script: {}",
                text(&o.stderr)
            ),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                assert_ne!(shell, "bash", "bash is needed for this test");
                eprintln!("{shell} is not installed: its syntax check is skipped");
            }
            Err(e) => panic!("{shell}: {e}"),
        }
    }
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let out = run(&["completions", "tcsh"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("possible values"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn man_is_roff_and_lists_the_subcommands() {
    let out = run(&["man"], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let page = text(&out.stdout);
    // clap_mangen defines the quote string first, then the title
    let first = page
        .lines()
        .find(|l| !l.starts_with(".ie ") && !l.starts_with(".el "))
        .expect("a line");
    assert!(first.starts_with(".TH testdeck 1"), "{first}");
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH OPTIONS", ".SH SUBCOMMANDS"] {
        assert!(page.contains(section), "{section} missing");
    }
    groff_accepts(&page);
    let cli = testdeck_cli::Cli::command();
    let names: Vec<&str> = cli.get_subcommands().map(clap::Command::get_name).collect();
    assert!(names.len() >= 14, "{names:?}");
    for name in names {
        // roff escapes the dash
        assert!(
            page.contains(&format!("testdeck\\-{name}(1)")),
            "{name} not listed"
        );
        // and the page it names is there
        let sub = run(&["man", name], &[]);
        assert!(sub.status.success(), "{name}: {}", text(&sub.stderr));
        let sub = text(&sub.stdout);
        assert!(
            sub.contains(&format!(".TH testdeck-{name} 1")) && sub.contains(".SH OPTIONS"),
            "{name}: {sub}"
        );
    }
    let run_page = text(&run(&["man", "run"], &[]).stdout);
    assert!(run_page.contains("\\-\\-no\\-tests"), "{run_page}");
    groff_accepts(&run_page);
    assert_eq!(run(&["man", "nosuch"], &[]).status.code(), Some(2));
}

/// groff, where installed, reads the page without a warning.
fn groff_accepts(page: &str) {
    use std::io::Write as _;
    let child = std::process::Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-z"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        eprintln!("groff is not installed: the roff check is skipped");
        return;
    };
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(page.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("groff");
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn help_has_examples_value_enums_and_no_tui_flags_in_headless_commands() {
    for sub in [
        "list", "validate", "select", "run", "runs", "stats", "insights", "tail", "diff", "watch",
    ] {
        let help = text(&run(&[sub, "--help"], &[]).stdout);
        assert!(help.contains("Examples:"), "{sub}: {help}");
        assert!(help.contains("--color"), "{sub}: {help}");
        assert!(
            !help.contains("--theme") && !help.contains("--keymap"),
            "{sub} shows a TUI-only flag: {help}"
        );
    }
    for cockpit in [&["--help"][..], &["demo", "--help"]] {
        let help = text(&run(cockpit, &[]).stdout);
        assert!(
            help.contains("--theme") && help.contains("--keymap"),
            "{help}"
        );
    }
    let main = text(&run(&["--help"], &[]).stdout);
    assert!(
        main.contains("Examples:") && main.contains("Exit status"),
        "{main}"
    );
    let run_help = text(&run(&["run", "--help"], &[]).stdout);
    assert!(
        run_help.contains("[possible values: readonly, mutating, destructive]"),
        "{run_help}"
    );
    assert!(run_help.contains("exits 4"), "{run_help}");
    let select_help = text(&run(&["select", "--help"], &[]).stdout);
    assert!(
        select_help.contains("[possible values: readonly, mutating, destructive]"),
        "{select_help}"
    );
    // a risk that is not one is clap's usage error, with the choices
    let out = run(&["run", "--authorize", "risky", "x"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("possible values: readonly, mutating, destructive"),
        "{err}"
    );
    // `demo` takes the look after its name too
    let out = run(&["demo", "--theme", "light", "--path-only"], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let copy = text(&out.stdout);
    let copy = copy.trim();
    assert!(Path::new(copy).join("tests").is_dir(), "{copy}");
    std::fs::remove_dir_all(copy).expect("remove the demo copy");
}

const SGR: &str = "\x1b[";
/// What crossterm writes to capture the mouse.
const MOUSE_ON: &str = "\x1b[?1000h";

#[test]
fn piped_output_is_plain_unless_asked() {
    let (_dir, tl) = timeline();
    let tail = |extra: &[&str], env: &[(&str, &str)]| {
        let mut args = vec!["tail", "--from-start"];
        args.extend_from_slice(extra);
        args.push(&tl);
        let out = run(&args, env);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let plain = tail(&[], &[]);
    assert!(
        plain.contains("open") && !plain.contains('\x1b'),
        "{plain:?}"
    );
    let always = tail(&["--color", "always"], &[]);
    assert!(always.contains("\x1b[32mok\x1b[0m"), "{always:?}");
    assert!(always.contains("\x1b[1;31mfailed\x1b[0m"), "{always:?}");
    // the flag wins over the environment
    let forced = tail(&["--color=always"], &[("NO_COLOR", "1")]);
    assert!(forced.contains(SGR), "{forced:?}");
    let never = tail(&["--color", "never"], &[("CLICOLOR_FORCE", "1")]);
    assert!(!never.contains('\x1b'), "{never:?}");
    // CLICOLOR_FORCE colours a pipe; NO_COLOR wins over it
    assert!(tail(&[], &[("CLICOLOR_FORCE", "1")]).contains(SGR));
    assert!(!tail(&[], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]).contains('\x1b'));
    // JSON never carries colour
    let json = tail(&["--json", "--color", "always"], &[]);
    assert!(
        !json.contains('\x1b') && json.contains("\"status\""),
        "{json:?}"
    );
    assert_eq!(json.lines().count(), 3, "{json}");
}

/// `testdeck tail --from-start PATH` in a real pseudo-terminal, its raw bytes once it exits.
fn tail_in_pty(tl: &str, env: &[(&str, &str)]) -> String {
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_testdeck"));
    cmd.args(["tail", "--from-start", tl]);
    for k in ["NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TESTDECK_TIME"] {
        cmd.env_remove(k);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut s = Session::spawn(cmd, 24, 120);
    let start = Instant::now();
    loop {
        if let Some(status) = s.child.try_wait().expect("wait") {
            assert!(status.success(), "{status:?}");
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(40),
            "tail did not end"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // the reader thread drains what the pty still holds
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let got = text(&s.bytes.lock().expect("lock"));
        if got.contains("end") || Instant::now() > deadline {
            return got;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_terminal_gets_colour_unless_the_environment_says_no() {
    let (_dir, tl) = timeline();
    let auto = tail_in_pty(&tl, &[]);
    assert!(auto.contains("\x1b[32mok\x1b[0m"), "{auto:?}");
    for env in [("NO_COLOR", "1"), ("CLICOLOR", "0")] {
        let off = tail_in_pty(&tl, &[env]);
        assert!(
            off.contains("open") && !off.contains(SGR),
            "{env:?}: {off:?}"
        );
    }
    let utc = tail_in_pty(&tl, &[("TESTDECK_TIME", "utc")]);
    assert!(utc.contains("10:15:30.112"), "{utc:?}");
}

/// A fixed zone nine hours east of UTC: the tz database's name when it is installed.
fn tokyo() -> &'static str {
    if Path::new("/usr/share/zoneinfo/Asia/Tokyo").exists() {
        "Asia/Tokyo"
    } else {
        "JST-9"
    }
}

#[test]
fn human_times_are_local_with_the_date_when_not_today() {
    let (dir, tl) = timeline();
    let shown = |env: &[(&str, &str)]| {
        let out = run(&["tail", "--from-start", &tl], env);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let tokyo_tail = shown(&[("TZ", tokyo())]);
    assert!(tokyo_tail.starts_with("19:15:30.112 step"), "{tokyo_tail}");
    let utc_tail = shown(&[("TZ", tokyo()), ("TESTDECK_TIME", "utc")]);
    assert!(utc_tail.starts_with("10:15:30.112 step"), "{utc_tail}");
    // JSON keeps the time as written
    let json = text(&run(&["tail", "--json", "--from-start", &tl], &[("TZ", tokyo())]).stdout);
    assert!(json.contains("2026-03-15T10:15:30.112Z"), "{json}");

    // `runs` shows when each run started: in Tokyo, past 19:00 of that day
    let root = dir.path();
    std::fs::create_dir_all(root.join("tests/web")).expect("mkdir");
    std::fs::write(root.join("tests/web/login.test.ts"), "// case\n").expect("case");
    let run_dir = root.join("tests/logs/web/login/20260315-101530-000");
    std::fs::create_dir_all(&run_dir).expect("mkdir");
    std::fs::write(run_dir.join("timeline.jsonl"), TIMELINE).expect("timeline");
    std::fs::write(
        run_dir.join("meta.json"),
        r#"{"schemaVersion":4,"runId":"20260315-101530-000","caseId":"login","scope":"web","status":"passed","startedAt":"2026-03-15T10:15:30.000Z","finishedAt":"2026-03-15T10:15:32.000Z","stats":{"durationMs":2000}}"#,
    )
    .expect("meta");
    let root_s = root.display().to_string();
    let runs = |env: &[(&str, &str)]| {
        let out = run(&["runs", "--root", &root_s], env);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let listed = runs(&[("TZ", tokyo())]);
    assert!(listed.contains("2026-03-15 19:15:30"), "{listed}");
    let listed = runs(&[("TZ", tokyo()), ("TESTDECK_TIME", "utc")]);
    assert!(listed.contains("2026-03-15 10:15:30"), "{listed}");
}

/// A catalog of two `sh` cases: a readonly one that passes, a mutating one
/// nothing authorizes (so it is skipped and its command never runs).
fn catalog() -> tempfile::TempDir {
    let dir = crate::common::fs::scratch_dir();
    let t = dir.path().join(".pouch/tester");
    std::fs::create_dir_all(t.join("cases")).expect("mkdir");
    std::fs::write(
        t.join("catalog.yaml"),
        "categories:\n  - id: MAIN\n    title: Main\n    status_probe: false\nrisks: [readonly, mutating, destructive]\ndefault_max_risk: destructive\nauthorize:\n  mutating: TD_SHELL_MUTATING\nid_pattern: \"TC-[A-Z]+-[0-9]{3}\"\n",
    )
    .expect("catalog");
    let case = |id: &str, risk: &str, run: &str| {
        format!(
            "  - id: {id}\n    category: MAIN\n    title: title of {id}\n    what: something observable\n    lifecycle: active\n    tag: smoke\n    risk: {risk}\n    driver: script\n    how:\n      run: {run}\n    expected:\n      - kind: script-exit\n        value: 0\n"
        )
    };
    std::fs::write(
        t.join("cases/main.yaml"),
        format!(
            "category: MAIN\ncases:\n{}{}",
            case("TC-MAIN-001", "readonly", "touch ran-001"),
            case("TC-MAIN-002", "mutating", "touch ran-002"),
        ),
    )
    .expect("cases");
    dir
}

#[test]
fn a_run_in_which_nothing_ran_follows_no_tests() {
    let ws = catalog();
    let root = ws.path().display().to_string();
    let launch = |extra: &[&str]| {
        let mut args = vec!["--root", &root, "run"];
        args.extend_from_slice(extra);
        run(&args, &[])
    };
    let out = launch(&["TC-MAIN-002"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("nothing ran"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).contains("skipped"),
        "{}",
        text(&out.stdout)
    );
    assert!(!ws.path().join("ran-002").exists());
    let out = launch(&["TC-MAIN-002", "--no-tests", "warn"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out.stderr).contains("warning"),
        "{}",
        text(&out.stderr)
    );
    let out = launch(&["TC-MAIN-002", "--no-tests=pass", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!text(&out.stderr).contains("nothing ran"));
    // one case that ran is a run that tested something
    let out = launch(&["TC-MAIN-001", "TC-MAIN-002"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(ws.path().join("ran-001").exists());
    assert!(!ws.path().join("ran-002").exists());
    let out = launch(&["TC-MAIN-002", "--no-tests", "maybe"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn runs_zero_is_a_usage_error() {
    let ws = catalog();
    let root = ws.path().display().to_string();
    for sub in ["run", "watch"] {
        let out = run(&["--root", &root, sub, "--runs", "0", "TC-MAIN-001"], &[]);
        assert_eq!(out.status.code(), Some(2), "{sub}");
        let err = text(&out.stderr);
        assert!(err.contains("--runs"), "{sub}: {err}");
    }
    assert!(!ws.path().join("ran-001").exists(), "nothing was launched");
    assert!(!ws.path().join(".pouch/tester/runs").exists());
}

#[test]
fn root_at_a_folder_that_is_no_workspace_is_refused_as_without_it() {
    let dir = crate::common::fs::scratch_dir();
    let plain = dir.path().join("plain");
    std::fs::create_dir_all(plain.join("src")).expect("mkdir");
    let without = command()
        .arg("list")
        .current_dir(&plain)
        .output()
        .expect("list");
    assert_eq!(without.status.code(), Some(2));
    let plain_s = plain.display().to_string();
    for args in [
        &["list", "--root", &plain_s][..],
        &["--root", &plain_s, "runs", "--json"],
        &["stats", "--root", &plain_s],
    ] {
        let with = run(args, &[]);
        assert_eq!(with.status.code(), Some(2), "{args:?}");
        assert!(with.stdout.is_empty(), "{args:?}");
        assert_eq!(text(&with.stderr), text(&without.stderr), "{args:?}");
    }
    assert!(text(&without.stderr).contains("no workspace here"));
    // a workspace there is still taken
    let ws = catalog();
    let ok = run(&["list", "--root", &ws.path().display().to_string()], &[]);
    assert!(ok.status.success(), "{}", text(&ok.stderr));
    assert!(text(&ok.stdout).contains("TC-MAIN-001"));
}

#[test]
fn the_user_config_sets_the_time_zone_and_its_mistakes_are_located() {
    let (_dir, tl) = timeline();
    let cfg = crate::common::fs::scratch_dir();
    std::fs::create_dir_all(cfg.path().join("testdeck")).expect("mkdir");
    std::fs::write(
        cfg.path().join("testdeck/config.toml"),
        "time = \"utc\"\ncolour = \"yes\"\nmouse = \"off\"\n",
    )
    .expect("config");
    let xdg = cfg.path().display().to_string();
    let out = run(
        &["tail", "--from-start", &tl],
        &[("TZ", tokyo()), ("XDG_CONFIG_HOME", &xdg)],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    // the broken lines are named, the good one still applies
    assert!(
        text(&out.stdout).starts_with("10:15:30.112 step"),
        "{}",
        text(&out.stdout)
    );
    let err = text(&out.stderr);
    assert!(
        err.contains("config.toml:2:1: unknown key \"colour\""),
        "{err}"
    );
    assert!(
        err.contains("config.toml:3:9: mouse: expected true or false"),
        "{err}"
    );
    // the environment wins over the file
    let out = run(
        &["tail", "--from-start", &tl],
        &[
            ("TZ", tokyo()),
            ("XDG_CONFIG_HOME", &xdg),
            ("TESTDECK_TIME", "local"),
        ],
    );
    assert!(
        text(&out.stdout).starts_with("19:15:30.112 step"),
        "{}",
        text(&out.stdout)
    );
    // a file that is no TOML is one located message, and never a panic
    std::fs::write(
        cfg.path().join("testdeck/config.toml"),
        "time = = \"utc\"\n",
    )
    .expect("config");
    let out = run(
        &["tail", "--from-start", &tl],
        &[("TZ", tokyo()), ("XDG_CONFIG_HOME", &xdg)],
    );
    assert!(out.status.success());
    assert!(
        text(&out.stderr).contains("config.toml:1:"),
        "{}",
        text(&out.stderr)
    );
    assert!(text(&out.stdout).starts_with("19:15:30.112 step"));
}

/// The cockpit on `root` in a real pseudo-terminal with the config folder `xdg`.
fn cockpit(root: &Path, xdg: &Path, args: &[&str]) -> Session {
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_testdeck"));
    cmd.arg("--root");
    cmd.arg(root);
    cmd.args(args);
    cmd.env("XDG_CONFIG_HOME", xdg);
    // the history cache beside the config, never the person's own
    cmd.env("XDG_CACHE_HOME", std::path::Path::new(&xdg).join("cache"));
    cmd.env_remove("HOST");
    cmd.env_remove("NO_COLOR");
    Session::spawn(cmd, common::ROWS, common::COLS)
}

#[test]
fn the_user_config_sets_the_cockpit_and_flags_win() {
    let ws = crate::common::fs::scratch_dir();
    common::fixtures::write_fixture(ws.path(), false);
    let cfg = crate::common::fs::scratch_dir();
    std::fs::create_dir_all(cfg.path().join("testdeck")).expect("mkdir");
    std::fs::write(
        cfg.path().join("testdeck/config.toml"),
        "keymap = \"from-config\"\nmouse = false\n",
    )
    .expect("config");
    let s = cockpit(ws.path(), cfg.path(), &[]);
    s.wait_text("Tests · 6");
    // the config's keymap was looked for (it does not exist: the notice says so)
    s.wait_text("no keymap named \"from-config\"");
    let (_, bytes) = s.quit();
    assert!(
        !text(&bytes).contains(MOUSE_ON),
        "mouse captured despite mouse = false"
    );
    // the flag wins over the file
    let s = cockpit(ws.path(), cfg.path(), &["--keymap", "default"]);
    s.wait_text("Tests · 6");
    // the notice would be drawn with the first frame, the tree's
    let shown = s.screen().screen().contents();
    assert!(!shown.contains("no keymap named"), "{shown}");
    let _ = s.quit();
    // without the key the mouse is captured as before
    std::fs::write(cfg.path().join("testdeck/config.toml"), "").expect("config");
    let s = cockpit(ws.path(), cfg.path(), &[]);
    s.wait_text("Tests · 6");
    let (_, bytes) = s.quit();
    assert!(text(&bytes).contains(MOUSE_ON));
}

#[test]
fn the_cockpit_shows_a_runs_start_in_the_local_zone() {
    let ws = crate::common::fs::scratch_dir();
    common::fixtures::write_fixture(ws.path(), false);
    let cfg = crate::common::fs::scratch_dir();
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_testdeck"));
    cmd.arg("--root");
    cmd.arg(ws.path());
    cmd.env("XDG_CONFIG_HOME", cfg.path());
    // the history cache beside the config, never the person's own
    cmd.env(
        "XDG_CACHE_HOME",
        std::path::Path::new(&cfg.path()).join("cache"),
    );
    cmd.env("TZ", tokyo());
    cmd.env_remove("TESTDECK_TIME");
    let mut s = Session::spawn(cmd, common::ROWS, common::COLS);
    s.wait_text("Tests · 6");
    s.send("3");
    // the newest run started at 10:00:01 UTC on 6 March 2026 (the snapshot's)
    s.wait_text("startedAt  2026-03-06 19:00:01");
    let _ = s.quit();
}
