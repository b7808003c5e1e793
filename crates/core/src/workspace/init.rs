//! `testdeck init`: what a vitest or Playwright project needs to follow seed 000
//! (the runner, the reporters, `testdeck.toml`, the test plan's README, with
//! `--catalog` seed 001's tester catalog), from templates embedded in the binary
//! (`assets/init/`). Every file goes through the guarded writer
//! ([`super::read::write_beneath`]: no link on the way), all checked before the
//! first is written; an existing file is never overwritten unless forced (then a
//! `.bak` keeps it).

use std::fmt::Write as _;
use std::path::Path;

/// The runner of seed 000 §4 (vitest and Playwright, the reporters on its command line).
pub const RUNNER: &str = include_str!("../../../../assets/init/scripts/test-workflow.mjs");
/// The raw-log writer the runner and the reporters share (seed 000 §5).
pub const RAW_LOG: &str = include_str!("../../../../assets/init/scripts/lib/raw-log.mjs");
/// vitest's reporter: the case's steps and assertions into `timeline.jsonl`.
pub const VITEST_REPORTER: &str =
    include_str!("../../../../assets/init/scripts/vitest-reporter.mjs");
/// Playwright's reporter: steps, console lines and attachments (seed 000 §6).
pub const PLAYWRIGHT_REPORTER: &str =
    include_str!("../../../../assets/init/scripts/playwright-reporter.mjs");
/// How a plan entry is written.
pub const PLAN_README: &str = include_str!("../../../../assets/init/doc/test-plan/README.md");
const CATALOG: &str = include_str!("../../../../assets/init/pouch/catalog.yaml");
const LOCAL_EXAMPLE: &str = include_str!("../../../../assets/init/pouch/local.yaml.example");
const SMOKE: &str = include_str!("../../../../assets/init/pouch/cases/smoke.yaml");
/// A backend case's file (`CASE_ID` and `DOMAIN` filled in by `new`).
pub const BACKEND_CASE: &str = include_str!("../../../../assets/init/backend.test.ts");
/// An e2e case's file.
pub const E2E_CASE: &str = include_str!("../../../../assets/init/e2e.spec.ts");

/// The line `init --catalog` adds to `.gitignore`.
pub const GITIGNORE_LINE: &str = ".pouch/tester/local.yaml";
/// The line `init` adds to `.gitignore`: the runs are no source.
pub const GITIGNORE_LOGS: &str = "tests/logs/";

/// The test tools a project uses, and their config files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    /// vitest in package.json or a `vitest.config.*`.
    pub vitest: bool,
    /// @playwright/test in package.json or a `playwright.config.*`.
    pub playwright: bool,
    /// The config files found, relative to the root.
    pub configs: Vec<String>,
    /// The source folders that exist (what `[watch] paths` follows).
    pub sources: Vec<String>,
    /// The environment the project's own test scripts set (`[runner] env`).
    pub env: TestEnv,
    /// The project's own tests, as a static read of its configs says (SPEC §1.1a).
    pub outside: super::outside::Outside,
    /// Where that read could not be sure (`file: key` and why).
    pub unsure: Vec<String>,
}

/// What `package.json`'s test scripts give their tools: leading `NAME=value`
/// assignments (also after `env` or `cross-env`) and `dotenv -e FILE` files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TestEnv {
    /// The variables, in the order found (the first script to set one wins).
    pub vars: Vec<(String, String)>,
    /// The dotenv files named, relative to the root.
    pub files: Vec<String>,
    /// The scripts they came from (`test`, `test:unit`…).
    pub scripts: Vec<String>,
}

impl TestEnv {
    /// Nothing found.
    pub fn is_empty(&self) -> bool {
        self.vars.is_empty() && self.files.is_empty()
    }
}

/// The environment of `package.json`'s `scripts.test` and the scripts named
/// `test:…` / `test-…` (in that order). Nothing runs: the scripts are read as words.
pub fn test_env(pkg: &serde_json::Value) -> TestEnv {
    let mut out = TestEnv::default();
    let Some(scripts) = pkg.get("scripts").and_then(|s| s.as_object()) else {
        return out;
    };
    let mut names: Vec<&String> = scripts
        .keys()
        .filter(|k| *k == "test" || k.starts_with("test:") || k.starts_with("test-"))
        .collect();
    names.sort_by_key(|k| (*k != "test", (*k).clone()));
    for name in names {
        let Some(cmd) = scripts[name].as_str() else {
            continue;
        };
        let before = (out.vars.len(), out.files.len());
        read_script(cmd, &mut out);
        if (out.vars.len(), out.files.len()) != before {
            out.scripts.push(name.clone());
        }
    }
    out
}

/// The leading assignments and dotenv files of one script's first command.
fn read_script(cmd: &str, out: &mut TestEnv) {
    // the first command only: what runs after `&&` / `;` is another program
    let first = cmd.split(['&', ';', '|']).next().unwrap_or_default();
    let Ok(words) = shell_words::split(first) else {
        return;
    };
    let mut i = 0;
    let assign = |w: &str, out: &mut TestEnv| -> bool {
        let Some((k, v)) = w.split_once('=') else {
            return false;
        };
        if !super::config::is_var_name(k) {
            return false;
        }
        if !out.vars.iter().any(|(n, _)| n == k) {
            out.vars.push((k.to_owned(), v.to_owned()));
        }
        true
    };
    while i < words.len() {
        let w = words[i].as_str();
        if assign(w, out) || matches!(w, "env" | "cross-env" | "cross-env-shell" | "npx" | "--") {
            i += 1;
            continue;
        }
        if matches!(w, "dotenv" | "dotenv-cli") {
            // dotenv [-e FILE]… [-v NAME=value]… -- command
            i += 1;
            let mut named = false;
            while i < words.len() {
                match words[i].as_str() {
                    "-e" if i + 1 < words.len() => {
                        let f = words[i + 1].trim_start_matches("./").to_owned();
                        if !out.files.contains(&f) {
                            out.files.push(f);
                        }
                        named = true;
                        i += 2;
                    }
                    "-v" if i + 1 < words.len() => {
                        assign(&words[i + 1].clone(), out);
                        i += 2;
                    }
                    "--" => {
                        i += 1;
                        break;
                    }
                    x if x.starts_with('-') => i += 1,
                    _ => break,
                }
            }
            if !named && !out.files.iter().any(|f| f == ".env") {
                out.files.push(".env".to_owned());
            }
            continue;
        }
        break;
    }
}

const CONFIG_EXTS: [&str; 6] = ["ts", "mts", "cts", "js", "mjs", "cjs"];
const SOURCE_DIRS: [&str; 5] = ["src", "lib", "app", "web", "public"];

/// Look at `package.json` and the config files of the project at `root`.
pub fn detect(root: &Path) -> Found {
    let pkg = super::read::read(
        &root.join("package.json"),
        Some(root),
        super::read::Kind::Config,
    )
    .ok()
    .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok());
    let has_dep = |name: &str| {
        pkg.as_ref().is_some_and(|p| {
            ["dependencies", "devDependencies", "peerDependencies"]
                .iter()
                .any(|k| p[k].get(name).is_some())
        })
    };
    let mut configs = Vec::new();
    for tool in ["vitest", "playwright"] {
        for ext in CONFIG_EXTS {
            let name = format!("{tool}.config.{ext}");
            if root.join(&name).is_file() {
                configs.push(name);
            }
        }
    }
    let config_of = |tool: &str| configs.iter().any(|c| c.starts_with(tool));
    // a test script that calls the tool, as `"test": "vitest run"` does
    let script_calls = |tool: &str| {
        pkg.as_ref()
            .and_then(|p| p["scripts"].as_object())
            .is_some_and(|s| {
                s.values().filter_map(|v| v.as_str()).any(|cmd| {
                    cmd.split(|c: char| c.is_whitespace() || c == '&' || c == ';')
                        .any(|w| w == tool)
                })
            })
    };
    // a vite config with a `test` block is vitest's config
    let vite_test = CONFIG_EXTS.iter().any(|ext| {
        super::read::read(
            &root.join(format!("vite.config.{ext}")),
            Some(root),
            super::read::Kind::Config,
        )
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .is_some_and(|src| super::outside::js::config_object(&src, &["test"]).is_some())
    });
    let vitest = has_dep("vitest") || config_of("vitest") || script_calls("vitest") || vite_test;
    let playwright =
        has_dep("@playwright/test") || config_of("playwright") || script_calls("playwright");
    let reading = super::outside::discover::read_configs(root, vitest, playwright);
    Found {
        env: pkg.as_ref().map(test_env).unwrap_or_default(),
        vitest,
        playwright,
        outside: reading.outside,
        unsure: reading.unsure,
        sources: SOURCE_DIRS
            .iter()
            .filter(|d| root.join(d).is_dir())
            .map(|d| (*d).to_owned())
            .collect(),
        configs,
    }
}

/// `testdeck.toml` for what was found.
pub fn config_text(found: &Found) -> String {
    let tools: Vec<&str> = [(found.vitest, "vitest"), (found.playwright, "Playwright")]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, n)| *n)
        .collect();
    let mut patterns = Vec::new();
    if found.vitest || !found.playwright {
        patterns.push("\"*.test.{ts,tsx,js,jsx,mjs,cjs,mts,cts}\"");
    }
    // vitest's default include and Playwright's default testMatch both take .spec
    patterns.push("\"*.spec.{ts,tsx,js,jsx,mjs,cjs,mts,cts}\"");
    let sources: Vec<String> = if found.sources.is_empty() {
        vec!["\"src/**\"".to_owned()]
    } else {
        found
            .sources
            .iter()
            .map(|d| format!("\"{d}/**\""))
            .collect()
    };
    let mut env = String::new();
    if !found.env.is_empty() {
        let scripts: Vec<String> = found
            .env
            .scripts
            .iter()
            .map(|s| format!("scripts.{s}"))
            .collect();
        let _ = writeln!(
            env,
            "# the environment of package.json's {} (the runner's process gets it)",
            scripts.join(", ")
        );
    }
    if !found.env.vars.is_empty() {
        let vars: Vec<String> = found
            .env
            .vars
            .iter()
            .map(|(k, v)| format!("{k} = {}", toml::Value::String(v.clone())))
            .collect();
        let _ = writeln!(env, "env = {{ {} }}", vars.join(", "));
    }
    if !found.env.files.is_empty() {
        let files: Vec<String> = found
            .env
            .files
            .iter()
            .map(|f| toml::Value::String(f.clone()).to_string())
            .collect();
        let _ = writeln!(env, "env-files = [{}]", files.join(", "));
    }
    format!(
        "# testdeck settings, written by `testdeck init` (found: {}).\n\
         [runner]\n\
         # seed 000 §4: the project's own workflow, given the selection's filters\n\
         command = [\"node\", \"scripts/test-workflow.mjs\"]\n\
         {env}\
         \n\
         [tests]\n\
         # the case files (vitest's and Playwright's defaults)\n\
         patterns = [\n  {},\n]\n\
         \n\
         [watch]\n\
         # the sources whose change reruns `testdeck watch` (besides the case files)\n\
         paths = [{}]\n{}",
        if tools.is_empty() {
            "no test tool yet".to_owned()
        } else {
            tools.join(", ")
        },
        patterns.join(",\n  "),
        sources.join(", "),
        if found.vitest || found.playwright {
            super::outside::table_text(&found.outside)
        } else {
            String::new()
        }
    )
}

/// Every file `init` writes for `found`, as (path relative to the root, text).
pub fn files(found: &Found, catalog: bool) -> Vec<(String, String)> {
    let mut out = vec![
        ("scripts/test-workflow.mjs".to_owned(), RUNNER.to_owned()),
        ("scripts/lib/raw-log.mjs".to_owned(), RAW_LOG.to_owned()),
    ];
    if found.vitest || !found.playwright {
        out.push((
            "scripts/vitest-reporter.mjs".to_owned(),
            VITEST_REPORTER.to_owned(),
        ));
    }
    if found.playwright {
        out.push((
            "scripts/playwright-reporter.mjs".to_owned(),
            PLAYWRIGHT_REPORTER.to_owned(),
        ));
    }
    out.push(("testdeck.toml".to_owned(), config_text(found)));
    out.push(("doc/test-plan/README.md".to_owned(), PLAN_README.to_owned()));
    if catalog {
        out.push((".pouch/tester/catalog.yaml".to_owned(), CATALOG.to_owned()));
        out.push((
            ".pouch/tester/local.yaml.example".to_owned(),
            LOCAL_EXAMPLE.to_owned(),
        ));
        out.push((
            ".pouch/tester/cases/smoke.yaml".to_owned(),
            SMOKE.to_owned(),
        ));
    }
    out
}

/// What `init` did (or, dry, would do) with one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Written (or would be).
    Write(String),
    /// There already, left as it is.
    Kept(String),
    /// There already, written anew; the old one kept as `<file>.bak`.
    Replaced(String),
    /// A line added to `.gitignore`.
    Ignore(String),
}

/// Write `files` under `root`: an existing file with other content is kept
/// (named), or with `force` replaced after a `.bak`; one with the same content
/// needs nothing. With `dry_run` nothing is written and the steps say what would be.
/// Every file (the `.bak` files and `.gitignore` too) is checked by the guarded
/// writer before the first is written: a link at any part of any of them refuses
/// the whole, with the part named, dry run or not.
pub fn apply(
    root: &Path,
    files: &[(String, String)],
    ignore_local: bool,
    dry_run: bool,
    force: bool,
) -> std::io::Result<Vec<Step>> {
    use super::read::{WriteMode, check_write, check_writes, write_beneath_with};
    let mut steps = Vec::new();
    let mut writes: Vec<(String, Vec<u8>, WriteMode)> = Vec::new();
    for (rel, text) in files {
        check_write(root, Path::new(rel))?;
        let step = match existing(root, rel)? {
            Some(old) if old == text.as_bytes() => continue,
            Some(_) if !force => {
                steps.push(Step::Kept(rel.clone()));
                continue;
            }
            Some(old) => {
                writes.push((format!("{rel}.bak"), old, WriteMode::FILE));
                Step::Replaced(rel.clone())
            }
            None => Step::Write(rel.clone()),
        };
        let mode = if rel.ends_with("test-workflow.mjs") {
            0o755
        } else {
            0o644
        };
        writes.push((
            rel.clone(),
            text.as_bytes().to_vec(),
            WriteMode {
                mode,
                replace: true,
            },
        ));
        steps.push(step);
    }
    let mut lines = vec![GITIGNORE_LOGS];
    if ignore_local {
        lines.push(GITIGNORE_LINE);
    }
    check_write(root, Path::new(".gitignore"))?;
    let old = existing(root, ".gitignore")?
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let ignored = |line: &str| {
        let bare = line.trim_end_matches('/');
        old.lines().any(|l| {
            let l = l.trim().trim_start_matches('/');
            l == line || l.trim_end_matches('/') == bare
        })
    };
    let missing: Vec<&str> = lines.into_iter().filter(|l| !ignored(l)).collect();
    if !missing.is_empty() {
        let mut text = old.clone();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        for l in &missing {
            text.push_str(l);
            text.push('\n');
        }
        writes.push((".gitignore".to_owned(), text.into_bytes(), WriteMode::FILE));
        steps.extend(missing.iter().map(|l| Step::Ignore((*l).to_owned())));
    }
    check_writes(root, writes.iter().map(|(rel, ..)| Path::new(rel.as_str())))?;
    if !dry_run {
        for (rel, bytes, how) in &writes {
            write_beneath_with(root, Path::new(rel), bytes, *how)?;
        }
    }
    Ok(steps)
}

/// The content of `rel` under `root` when it is there (read through the bounded
/// reader); an unreadable one is an error naming it.
fn existing(root: &Path, rel: &str) -> std::io::Result<Option<Vec<u8>>> {
    match super::read::read(&root.join(rel), Some(root), super::read::Kind::Config) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.is_missing() => Ok(None),
        Err(e) => Err(std::io::Error::other(format!("{rel}: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(scripts: &serde_json::Value) -> TestEnv {
        test_env(&serde_json::json!({ "scripts": scripts }))
    }

    #[test]
    fn the_test_scripts_environment() {
        let e = env_of(&serde_json::json!({"test": "TZ=\"America/New_York\" vitest run"}));
        assert_eq!(e.vars, vec![("TZ".into(), "America/New_York".into())]);
        assert_eq!(e.scripts, vec!["test".to_owned()]);
        let e = env_of(&serde_json::json!({
            "test:unit": "cross-env NODE_ENV=test LANG=C vitest && TZ=UTC other",
            "test": "vitest",
            "build": "X=1 tsc"
        }));
        assert_eq!(
            e.vars,
            vec![
                ("NODE_ENV".into(), "test".into()),
                ("LANG".into(), "C".into())
            ]
        );
        assert_eq!(e.scripts, vec!["test:unit".to_owned()]);
        let e = env_of(&serde_json::json!({"test": "dotenv -e .env.test -- vitest run"}));
        assert_eq!(e.files, vec![".env.test".to_owned()]);
        assert!(e.vars.is_empty());
        // a quote left open reads as nothing, never a panic
        assert!(env_of(&serde_json::json!({"test": "TZ=\"x vitest"})).is_empty());
        let found = Found {
            vitest: true,
            env: env_of(&serde_json::json!({"test": "TZ='America/New_York' A=\"q\\\"\" vitest"})),
            ..Found::default()
        };
        let text = config_text(&found);
        let c: super::super::config::Config = toml::from_str(&text).expect("valid toml");
        assert_eq!(c.runner.env["TZ"], "America/New_York");
        assert_eq!(c.runner.env["A"], "q\"");
        assert!(
            text.contains("# the environment of package.json's scripts.test"),
            "{text}"
        );
    }

    #[test]
    fn twice_is_nothing_to_do_and_an_existing_file_is_kept() {
        let dir = tempfile::tempdir().expect("dir");
        let root = dir.path();
        std::fs::write(
            root.join("package.json"),
            r#"{"devDependencies":{"vitest":"4"}}"#,
        )
        .expect("pkg");
        let found = detect(root);
        assert!(found.vitest && !found.playwright);
        let fs = files(&found, true);
        let dry = apply(root, &fs, true, true, false).expect("dry");
        assert!(dry.contains(&Step::Write("scripts/test-workflow.mjs".into())));
        assert!(!root.join("scripts").exists(), "dry run writes nothing");
        apply(root, &fs, true, false, false).expect("first");
        assert_eq!(apply(root, &fs, true, false, false).expect("again"), vec![]);
        std::fs::write(root.join("testdeck.toml"), "# mine\n").expect("mine");
        let kept = apply(root, &fs, true, false, false).expect("kept");
        assert_eq!(kept, vec![Step::Kept("testdeck.toml".into())]);
        let forced = apply(root, &fs, true, false, true).expect("forced");
        assert_eq!(forced, vec![Step::Replaced("testdeck.toml".into())]);
        assert_eq!(
            std::fs::read_to_string(root.join("testdeck.toml.bak")).expect("bak"),
            "# mine\n"
        );
    }
}
