//! Issue 38, the third round of attacks, each kept as a test: git runs no
//! program a repository configures (in every command that asks it, and in the
//! cockpit), a repository of another user is refused as git refuses it; `init`,
//! `new` and `promote` never write through a link; `E` hands the editor only a
//! regular file inside the workspace, checked at the hand-off.

use crate::changed_cli::{PLAN, RUNNER, listed};
use crate::common::{self, Session, cli};
use std::os::unix::fs::symlink;
use std::path::Path;
use std::time::Duration;
use testdeck_core::testkit::hostile_git::{arm, git, have_git, ran};

fn write(root: &Path, rel: &str, text: &str) {
    common::fs::write(root, rel, text);
}

/// Every file, folder and link under `dir` (relative, sorted), with each
/// regular file's bytes: what a refused command must leave as it was.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(dir).expect("under").display().to_string();
            let t = e.file_type().expect("type");
            let bytes = if t.is_file() {
                std::fs::read(&p).expect("read")
            } else if t.is_symlink() {
                format!("-> {}", std::fs::read_link(&p).expect("link").display()).into_bytes()
            } else {
                Vec::new()
            };
            if t.is_dir() {
                stack.push(p);
            }
            out.push((rel, bytes));
        }
    }
    out.sort();
    out
}

/// A committed checkout of three cases, then armed ([`arm`]): every program
/// its config, an included file, `.gitattributes` and hooks name logs to `log`.
fn armed(base: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let root = base.join("repo");
    for c in ["one", "two", "three"] {
        write(
            &root,
            &format!("tests/shop/api/cart/{c}.test.ts"),
            "// case\n",
        );
    }
    write(&root, "doc/test-plan/shop.md", PLAN);
    write(&root, "src/cart.js", "export const x = 1;\n");
    write(&root, "runner.sh", RUNNER);
    write(
        &root,
        "testdeck.toml",
        "[runner]\ncommand = [\"sh\", \"runner.sh\"]\n",
    );
    git(&root, &["init", "-q"]);
    git(&root, &["add", "."]);
    git(&root, &["commit", "-q", "-m", "cases"]);
    let log = base.join("ran.log");
    arm(&root, &base.join("programs"), &log);
    (root, log)
}

fn listed_changed(root: &Path) -> Vec<String> {
    listed(root, &["--changed"])
}

#[test]
fn git_runs_no_program_a_repository_configures_in_any_command_or_the_cockpit() {
    if !have_git() {
        eprintln!("no git: skipped");
        return;
    }
    let base = common::fs::scratch_dir();
    let (root, log) = armed(base.path());
    let root = root.as_path();
    // changed only in the work tree, through the files the filters would clean
    write(root, "tests/shop/api/cart/one.test.ts", "// case, edited\n");
    write(
        root,
        "doc/test-plan/shop.md",
        &PLAN.replace("What: two", "What: two, said better"),
    );
    let none_ran = |what: &str| {
        assert_eq!(
            ran(&log),
            Vec::<String>::new(),
            "{what}: a program of the repository ran"
        );
    };
    // the cockpit first: its stale times ask git on open, and the insights screen
    let cfg = common::fs::scratch_dir();
    let mut s = Session::start(root, cfg.path());
    s.wait_text("Tests ·");
    s.send("i");
    std::thread::sleep(Duration::from_secs(2));
    s.quit();
    none_ran("the cockpit");
    assert_eq!(listed_changed(root), ["one", "two"]);
    none_ran("list --changed --json");
    for args in [
        &["insights"][..],
        &["stats", "--json"][..],
        &["list", "--changed"][..],
    ] {
        let out = cli::at(root).args(args).output().expect("run");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        none_ran(&format!("{args:?}"));
    }
    let out = cli::at(root)
        .args(["run", "--json", "--changed"])
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = cli::json_lines(&out.stdout);
    let mut got: Vec<&str> = lines.last().expect("summary")["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["id"].as_str().expect("id"))
        .collect();
    got.sort_unstable();
    assert_eq!(got, ["shop/api/cart/one", "shop/api/cart/two"]);
    none_ran("run --changed");
    // watch --changed: its first round, then stopped (this test's own child)
    let mut watch = cli::at(root)
        .args(["watch", "--json", "--changed"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("watch");
    let mut first = String::new();
    {
        use std::io::BufRead as _;
        let mut r = std::io::BufReader::new(watch.stdout.take().expect("stdout"));
        let _ = r.read_line(&mut first);
    }
    let _ = watch.kill();
    let _ = watch.wait();
    assert!(!first.trim().is_empty(), "watch --changed said nothing");
    none_ran("watch --changed");
    // the same checkout runs them for a git not told otherwise: the arming is live
    std::process::Command::new("git")
        .current_dir(root)
        .args(["status"])
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git");
    let got = ran(&log);
    assert!(got.iter().any(|p| p == "fsmonitor"), "{got:?}");
    assert!(got.iter().any(|p| p == "filter-clean"), "{got:?}");
}

#[test]
fn a_checkout_of_another_user_is_refused_as_git_refuses_it() {
    if !have_git() || !rustix::process::geteuid().is_root() {
        eprintln!("needs git and root (to give a checkout to another user): skipped");
        return;
    }
    let base = common::fs::scratch_dir();
    let (root, log) = armed(base.path());
    write(
        &root,
        "tests/shop/api/cart/one.test.ts",
        "// case, edited\n",
    );
    let out = std::process::Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(&root)
        .output()
        .expect("chown");
    assert!(out.status.success());
    let global = base.path().join("global.gitconfig");
    std::fs::write(&global, "").expect("global");
    let list = |global: &Path| {
        cli::at(&root)
            .args(["list", "--changed"])
            .env("GIT_CONFIG_GLOBAL", global)
            .output()
            .expect("list")
    };
    let out = list(&global);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not a git checkout") && err.contains("dubious ownership"),
        "{err}"
    );
    // the person's own safe.directory lets it be read, as it lets git
    std::fs::write(
        &global,
        format!("[safe]\n\tdirectory = {}\n", root.display()),
    )
    .expect("global");
    let out = list(&global);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("one"));
    assert_eq!(ran(&log), Vec::<String>::new());
}

/// The init fixture (a vitest and Playwright project), copied under `base/ws`.
fn project(base: &Path) -> std::path::PathBuf {
    let root = base.join("ws");
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/init-project");
    std::fs::create_dir_all(&root).expect("mkdir");
    common::fs::copy_dir(&from, &root);
    root
}

fn testdeck(root: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = cli::at(root).args(args).output().expect("run");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn init_refuses_a_link_at_each_part_it_writes_through_and_writes_nothing() {
    // (the part made a link, the file it leads to or into outside, init's flags)
    let cases: [(&str, bool, &[&str]); 7] = [
        ("doc/test-plan", true, &[]),
        ("scripts", true, &[]),
        ("scripts/lib", true, &[]),
        ("scripts/test-workflow.mjs", false, &["--force"]),
        ("testdeck.toml", false, &["--force"]),
        (".pouch/tester/cases", true, &["--catalog"]),
        (".gitignore", false, &["--catalog"]),
    ];
    for (link, folder, flags) in cases {
        let base = common::fs::scratch_dir();
        let root = project(base.path());
        let out = base.path().join("out");
        std::fs::create_dir_all(&out).expect("out");
        if folder {
            std::fs::create_dir_all(out.join("inner")).expect("inner");
            std::fs::write(out.join("inner/README.md"), "outside\n").expect("w");
        } else {
            std::fs::write(out.join("file"), "outside\n").expect("w");
        }
        if let Some(parent) = Path::new(link).parent() {
            std::fs::create_dir_all(root.join(parent)).expect("mkdir");
        }
        if link == "doc/test-plan" {
            std::fs::remove_dir_all(root.join(link)).expect("rm");
        }
        let target = if folder {
            out.join("inner")
        } else {
            out.join("file")
        };
        symlink(&target, root.join(link)).expect("ln");
        let (before_in, before_out) = (snapshot(&root), snapshot(&out));
        for dry in [true, false] {
            let mut args = vec!["init"];
            args.extend_from_slice(flags);
            if dry {
                args.push("--dry-run");
            }
            let (code, said, err) = testdeck(&root, &args);
            assert_eq!(code, Some(2), "{link} {args:?}: {said}{err}");
            assert!(
                err.contains(&format!("{link}: a symbolic link"))
                    && err.contains("nothing written"),
                "{link} {args:?}: {err}"
            );
            assert_eq!(
                snapshot(&root),
                before_in,
                "{link} {args:?}: written inside"
            );
            assert_eq!(
                snapshot(&out),
                before_out,
                "{link} {args:?}: written outside"
            );
        }
    }
}

#[test]
fn new_and_promote_refuse_a_link_at_each_part_and_write_nothing() {
    let base = common::fs::scratch_dir();
    let root = project(base.path());
    let out = base.path().join("out");
    std::fs::create_dir_all(out.join("basic")).expect("out");
    std::fs::create_dir_all(root.join("tests/ai/backend")).expect("mkdir");
    symlink(&out, root.join("tests/ai/backend/linked")).expect("ln");
    write(&root, "tests/temp/probe-sign.test.ts", "// probe\n");
    let (before_in, before_out) = (snapshot(&root), snapshot(&out));
    let check = |args: &[&str], at: &str| {
        let (code, said, err) = testdeck(&root, args);
        assert_eq!(code, Some(2), "{args:?}: {said}{err}");
        assert!(
            err.contains(&format!("{at}: a symbolic link")) && err.contains("nothing written"),
            "{args:?}: {err}"
        );
        assert_eq!(snapshot(&root), before_in, "{args:?}: written inside");
        assert_eq!(snapshot(&out), before_out, "{args:?}: written outside");
    };
    check(
        &["new", "tests/ai/backend/linked/basic/written-outside"],
        "tests/ai/backend/linked",
    );
    check(
        &[
            "promote",
            "tests/temp/probe-sign.test.ts",
            "tests/ai/backend/linked/basic/",
        ],
        "tests/ai/backend/linked",
    );
    // the plan's folder a link: the test file is not written either
    let plan = root.join("doc/test-plan");
    std::fs::rename(&plan, base.path().join("plan-aside")).expect("aside");
    symlink(base.path().join("plan-aside"), &plan).expect("ln");
    let before_in = snapshot(&root);
    let (code, _, err) = testdeck(&root, &["new", "tests/calc/backend/math/basic/new-one"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("doc/test-plan: a symbolic link"), "{err}");
    assert_eq!(snapshot(&root), before_in);
    // a temp case that is itself a link is never moved
    std::fs::remove_file(&plan).expect("rm");
    std::fs::rename(base.path().join("plan-aside"), &plan).expect("back");
    std::fs::write(out.join("secret.test.ts"), "// outside\n").expect("w");
    symlink(
        out.join("secret.test.ts"),
        root.join("tests/temp/lnk-probe.test.ts"),
    )
    .expect("ln");
    let before_in = snapshot(&root);
    let (code, said, err) = testdeck(
        &root,
        &[
            "promote",
            "tests/temp/lnk-probe.test.ts",
            "tests/calc/backend/math/basic/",
        ],
    );
    assert_ne!(code, Some(0), "{said}{err}");
    assert_eq!(snapshot(&root), before_in);
}

/// A workspace with one failed case whose stack has a frame at each of
/// `frames` (relative to the root) before the test's own, at line 4.
fn failed_with_frames(root: &Path, frames: &[&str]) {
    let test = "tests/shop/backend/cart/cart-merge.test.ts";
    let run = "tests/logs/shop/backend/cart/cart-merge/20260101-000000-001";
    write(
        root,
        test,
        "import { test } from 'vitest';\ntest('merges', () => {\n\n  throw new Error('no');\n});\n",
    );
    let mut lines = vec!["Error: no".to_owned()];
    for f in frames {
        lines.push(format!("    at {}:2:1", root.join(f).display()));
    }
    lines.push(format!("    at {}:4:9", root.join(test).display()));
    let stack = lines.join("\n");
    let failed = serde_json::json!({
        "ts": "2026-01-01T00:00:00.300Z", "type": "assertion", "name": "merged",
        "status": "failed", "id": "a1", "message": "merged did not hold",
        "data": {"error": {"message": "no", "stack": stack}},
    });
    write(
        root,
        &format!("{run}/timeline.jsonl"),
        &format!(
            "{}\n{failed}\n{}\n",
            r#"{"ts":"2026-01-01T00:00:00.100Z","type":"run","name":"run/start","status":"info","message":"run started","data":null}"#,
            r#"{"ts":"2026-01-01T00:00:00.500Z","type":"run","name":"run/finish","status":"failed","message":"run failed","data":null}"#
        ),
    );
    write(
        root,
        &format!("{run}/meta.json"),
        r#"{"schemaVersion":4,"runId":"20260101-000000-001","caseId":"cart-merge","scope":"shop/backend/cart","status":"failed","startedAt":"2026-01-01T00:00:00Z","finishedAt":"2026-01-01T00:00:01Z","stats":{"durationMs":500,"steps":0,"assertions":1,"errors":0,"artifacts":0},"runtime":{"driver":"sh","target":"none","modelName":"none"}}"#,
    );
}

#[test]
fn e_hands_the_editor_only_a_regular_file_inside_checked_at_the_hand_off() {
    let d = common::fs::scratch_dir();
    let root = d.path();
    let outside = common::fs::scratch_dir();
    let cfg = common::fs::scratch_dir();
    let editor = common::editor::Recording::new();
    // the frames of the third round: a file link out, a folder link out, a link
    // to a device and a FIFO, each spelled inside the workspace
    let frames = [
        "tests/lnk.ts",
        "tests/outdir/secret.ts",
        "tests/zero.ts",
        "tests/fifo.ts",
    ];
    failed_with_frames(root, &frames);
    std::fs::write(outside.path().join("secret.ts"), "// outside\n// secret\n").expect("w");
    symlink(outside.path().join("secret.ts"), root.join("tests/lnk.ts")).expect("ln");
    symlink(outside.path(), root.join("tests/outdir")).expect("ln");
    symlink("/dev/zero", root.join("tests/zero.ts")).expect("ln");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        root.join("tests/fifo.ts"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .expect("fifo");
    let mut s = Session::start_with(root, cfg.path(), &editor.env());
    s.wait_text("Tests ·");
    s.find("cart-merge");
    s.send("W");
    s.wait_text("merged");
    std::thread::sleep(Duration::from_millis(300));
    // E on each frame in turn: the reason on the status line, no editor
    let mut said = String::new();
    for _ in 0..frames.len() {
        s.send("E");
        std::thread::sleep(Duration::from_millis(400));
        said.push_str(&s.screen().screen().contents());
        assert!(
            !editor.out().exists(),
            "the editor was started: {}",
            std::fs::read_to_string(editor.out()).unwrap_or_default()
        );
        s.send("j");
        std::thread::sleep(Duration::from_millis(150));
    }
    for why in [
        "tests/lnk.ts leads out of the workspace: not opened",
        "tests/outdir/secret.ts leads out of the workspace: not opened",
        "tests/zero.ts leads out of the workspace: not opened",
        "tests/fifo.ts is a FIFO, not a regular file: not opened",
    ] {
        assert!(said.contains(why), "{why:?} never shown:\n{said}");
    }
    // the test's own frame, a regular file inside: opened at its line
    s.send("E");
    let got = editor.take();
    assert!(
        got.starts_with("+4\ntests/shop/backend/cart/cart-merge.test.ts\n"),
        "{got}"
    );
    s.quit();
}
