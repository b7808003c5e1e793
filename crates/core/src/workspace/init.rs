//! `testdeck init`: what a vitest or Playwright project needs to follow seed 000
//! (the runner, the reporters, `testdeck.toml`, the test plan's README, with
//! `--catalog` seed 001's tester catalog), from templates embedded in the binary
//! (`assets/init/`). Every file goes through [`super::read::write_atomic`]; an
//! existing file is never overwritten unless forced (then a `.bak` keeps it).

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
    /// The project's own tests, as a static read of its configs says (SPEC §1.1a).
    pub outside: super::outside::Outside,
    /// Where that read could not be sure (`file: key` and why).
    pub unsure: Vec<String>,
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
    format!(
        "# testdeck settings, written by `testdeck init` (found: {}).\n\
         [runner]\n\
         # seed 000 §4: the project's own workflow, given the selection's filters\n\
         command = [\"node\", \"scripts/test-workflow.mjs\"]\n\
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
pub fn apply(
    root: &Path,
    files: &[(String, String)],
    ignore_local: bool,
    dry_run: bool,
    force: bool,
) -> std::io::Result<Vec<Step>> {
    let mut steps = Vec::new();
    for (rel, text) in files {
        let path = root.join(rel);
        let existing = path.exists().then(|| {
            super::read::read(&path, Some(root), super::read::Kind::Config).unwrap_or_default()
        });
        let step = match existing {
            Some(old) if old == text.as_bytes() => continue,
            Some(_) if !force => {
                steps.push(Step::Kept(rel.clone()));
                continue;
            }
            Some(old) => {
                if !dry_run {
                    super::read::write_atomic(&root.join(format!("{rel}.bak")), &old)?;
                }
                Step::Replaced(rel.clone())
            }
            None => Step::Write(rel.clone()),
        };
        if !dry_run {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            super::read::write_atomic(&path, text.as_bytes())?;
            if rel.ends_with("test-workflow.mjs") {
                set_executable(&path)?;
            }
        }
        steps.push(step);
    }
    let mut lines = vec![GITIGNORE_LOGS];
    if ignore_local {
        lines.push(GITIGNORE_LINE);
    }
    let path = root.join(".gitignore");
    let old = match super::read::read(&path, Some(root), super::read::Kind::Config) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) if e.is_missing() => String::new(),
        // a .gitignore that is a link, a folder or too large is left alone
        Err(_) => return Ok(steps),
    };
    let ignored = |line: &str| {
        let bare = line.trim_end_matches('/');
        old.lines().any(|l| {
            let l = l.trim().trim_start_matches('/');
            l == line || l.trim_end_matches('/') == bare
        })
    };
    let missing: Vec<&str> = lines.into_iter().filter(|l| !ignored(l)).collect();
    if !missing.is_empty() {
        if !dry_run {
            let mut text = old;
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            for l in &missing {
                text.push_str(l);
                text.push('\n');
            }
            super::read::write_atomic(&path, text.as_bytes())?;
        }
        steps.extend(missing.iter().map(|l| Step::Ignore((*l).to_owned())));
    }
    Ok(steps)
}

#[cfg(unix)]
fn set_executable(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mut perm = std::fs::metadata(path)?.permissions();
    perm.set_mode(perm.mode() | 0o755);
    std::fs::set_permissions(path, perm)
}

#[cfg(not(unix))]
fn set_executable(_path: &Path) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
