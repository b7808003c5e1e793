//! Which files a project's own runners take for tests, by a static read of
//! their configs (`init`), and the walk that finds them again on every load
//! from what `init` wrote into `testdeck.toml`'s `[outside]` (no config is run).

use super::super::glob::Glob;
use super::super::read::{self, Kind};
use super::super::walk::{Entry, walk};
use super::Outside;
use super::js::{self, Value};
use crate::problem::Problem;
use std::path::Path;
use std::sync::Mutex;

/// vitest's default `include` (when its config is silent or absent).
pub const VITEST_INCLUDE: &str = "**/*.{test,spec}.?(c|m)[jt]s?(x)";
/// vitest 4's default `exclude`.
pub const VITEST_EXCLUDE: [&str; 2] = ["**/node_modules/**", "**/.git/**"];
/// vitest 3's default `exclude` (and before).
const VITEST3_EXCLUDE: [&str; 5] = [
    "**/node_modules/**",
    "**/dist/**",
    "**/cypress/**",
    "**/.{idea,git,cache,output,temp}/**",
    "**/{karma,rollup,webpack,vite,vitest,jest,ava,babel,nyc,cypress,tsup,build,eslint,prettier}.config.*",
];
/// Playwright's default `testMatch`.
pub const PLAYWRIGHT_MATCH: &str = "**/*.@(spec|test).?(c|m)[jt]s?(x)";
/// Playwright's default output folders (beside its config).
const PLAYWRIGHT_OUTPUT: [&str; 2] = ["test-results", "playwright-report"];

const CONFIG_EXTS: [&str; 6] = ["ts", "mts", "cts", "js", "mjs", "cjs"];

/// What a static read of the configs found.
#[derive(Debug, Clone, Default)]
pub struct Reading {
    /// The table `init` writes.
    pub outside: Outside,
    /// The config files read, relative to the root.
    pub read: Vec<String>,
    /// Where the static read could not be sure (`file: key` and why).
    pub unsure: Vec<String>,
}

/// The first existing `<stem>.config.<ext>` of `stems` under `root`.
fn config_file(root: &Path, stems: &[&str]) -> Option<String> {
    stems.iter().find_map(|stem| {
        CONFIG_EXTS
            .iter()
            .map(|ext| format!("{stem}.config.{ext}"))
            .find(|n| root.join(n).is_file())
    })
}

fn text(root: &Path, rel: &str) -> Option<String> {
    read::read(&root.join(rel), Some(root), Kind::Config)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
}

/// `dir` joined with a relative glob; `.` and `./` dropped.
fn join(dir: &str, glob: &str) -> String {
    let dir = dir.trim_start_matches("./").trim_end_matches('/');
    let glob = glob.trim_start_matches("./");
    if dir.is_empty() || dir == "." {
        glob.to_owned()
    } else {
        format!("{dir}/{glob}")
    }
}

/// The strings of a value (one string or an array of them); `None` where a
/// static read is not sure (code, a regex, a spread other than `known`'s).
fn strings(v: &Value, known: &dyn Fn(&str) -> Option<Vec<String>>) -> Option<Vec<String>> {
    match v {
        Value::Str(s) => Some(vec![s.clone()]),
        Value::List(items) => {
            let mut out = Vec::new();
            for i in items {
                match i {
                    Value::Str(s) => out.push(s.clone()),
                    Value::Spread(name) => out.extend(known(name)?),
                    _ => return None,
                }
            }
            Some(out)
        }
        _ => None,
    }
}

fn vitest_major(root: &Path) -> Option<u32> {
    let pkg = text(root, "node_modules/vitest/package.json")?;
    let v: serde_json::Value = serde_json::from_str(&pkg).ok()?;
    v["version"].as_str()?.split('.').next()?.parse().ok()
}

/// Read the project's vitest and Playwright configs (as text: none is run) at
/// `root`; `vitest` / `playwright` say whether each tool is there at all.
pub fn read_configs(root: &Path, vitest: bool, playwright: bool) -> Reading {
    let mut r = Reading::default();
    if vitest {
        read_vitest(root, &mut r);
    }
    if playwright {
        read_playwright(root, &mut r);
    }
    r
}

fn read_vitest(root: &Path, r: &mut Reading) {
    let default_exclude: Vec<String> = if vitest_major(root).is_some_and(|m| m < 4) {
        VITEST3_EXCLUDE.iter().map(|s| (*s).to_owned()).collect()
    } else {
        VITEST_EXCLUDE.iter().map(|s| (*s).to_owned()).collect()
    };
    let known = |name: &str| {
        matches!(name, "configDefaults.exclude" | "defaultExclude").then(|| default_exclude.clone())
    };
    let mut include = vec![VITEST_INCLUDE.to_owned()];
    let mut exclude = default_exclude.clone();
    let mut base = String::new();
    if let Some(file) = config_file(root, &["vitest", "vite"]) {
        let src = text(root, &file).unwrap_or_default();
        r.read.push(file.clone());
        if let Some(test) = js::config_object(&src, &["test"]).and_then(|c| c.get("test").cloned())
        {
            let mut unsure =
                |key: &str, why: &str| r.unsure.push(format!("{file}: test.{key} {why}"));
            if !matches!(test, Value::Object(_)) {
                unsure("", "is not an object literal");
            }
            for key in ["projects", "workspace"] {
                if test.get(key).is_some() {
                    unsure(key, "names projects, each with its own files");
                }
            }
            let mut dir_of = |key: &str| match test.get(key) {
                None => None,
                Some(Value::Str(s)) => Some(s.clone()),
                Some(_) => {
                    unsure(key, "is not a string literal");
                    None
                }
            };
            let root_dir = dir_of("root").unwrap_or_default();
            let dir = dir_of("dir").unwrap_or_default();
            base = join(&root_dir, &dir);
            for (key, into) in [("include", &mut include), ("exclude", &mut exclude)] {
                if let Some(v) = test.get(key) {
                    match strings(v, &known) {
                        Some(s) => *into = s,
                        None => r.unsure.push(format!(
                            "{file}: test.{key} is not a list of string literals"
                        )),
                    }
                }
            }
        }
    }
    if root.join("vitest.workspace.ts").is_file() || root.join("vitest.workspace.js").is_file() {
        r.unsure
            .push("vitest.workspace: a workspace of projects, each with its own files".into());
    }
    let anchored = |g: &String| {
        if g.starts_with("**/") {
            g.clone()
        } else {
            join(&base, g)
        }
    };
    r.outside.vitest = include.iter().map(anchored).collect();
    r.outside.vitest_exclude = exclude.iter().map(anchored).collect();
}

fn read_playwright(root: &Path, r: &mut Reading) {
    let mut test_dir = String::new();
    let mut matches = vec![PLAYWRIGHT_MATCH.to_owned()];
    let mut ignore = Vec::new();
    let mut output: Vec<String> = PLAYWRIGHT_OUTPUT.iter().map(|s| (*s).to_owned()).collect();
    if let Some(file) = config_file(root, &["playwright"]) {
        let src = text(root, &file).unwrap_or_default();
        r.read.push(file.clone());
        let keys = [
            "testDir",
            "testMatch",
            "testIgnore",
            "projects",
            "use",
            "webServer",
        ];
        if let Some(cfg) = js::config_object(&src, &keys) {
            let none = |_: &str| None;
            match cfg.get("testDir") {
                None => {}
                Some(Value::Str(s)) => test_dir.clone_from(s),
                Some(_) => r
                    .unsure
                    .push(format!("{file}: testDir is not a string literal")),
            }
            for (key, into) in [("testMatch", &mut matches), ("testIgnore", &mut ignore)] {
                if let Some(v) = cfg.get(key) {
                    match strings(v, &none) {
                        Some(s) => *into = s,
                        None => r.unsure.push(format!(
                            "{file}: {key} is not a glob string or a list of them"
                        )),
                    }
                }
            }
            if let Some(Value::Str(out)) = cfg.get("outputDir") {
                output.push(out.clone());
            }
            if let Some(Value::List(projects)) = cfg.get("projects") {
                for p in projects {
                    if ["testDir", "testMatch", "testIgnore"]
                        .iter()
                        .any(|k| p.get(k).is_some())
                    {
                        r.unsure.push(format!(
                            "{file}: a project names its own testDir / testMatch / testIgnore"
                        ));
                        break;
                    }
                }
            }
        }
    }
    // Playwright matches a pattern without `/` against the file name anywhere
    let anchored = |g: &String| {
        let g = g.trim_start_matches("./");
        if g.starts_with("**/") || g.contains('/') {
            join(&test_dir, g)
        } else {
            join(&test_dir, &format!("**/{g}"))
        }
    };
    r.outside.playwright = matches.iter().map(anchored).collect();
    r.outside.playwright_exclude = ignore.iter().map(anchored).collect();
    r.outside
        .playwright_exclude
        .push("**/node_modules/**".into());
    for o in output {
        let o = o.trim_start_matches("./").trim_end_matches('/').to_owned();
        if !o.is_empty() && !o.starts_with("..") && !r.outside.output.contains(&o) {
            r.outside.output.push(o);
        }
    }
}

/// The compiled globs of an `[outside]` table.
#[derive(Debug, Clone)]
pub struct Patterns {
    vitest: Vec<Glob>,
    vitest_exclude: Vec<Glob>,
    playwright: Vec<Glob>,
    playwright_exclude: Vec<Glob>,
    /// The project's own output folders (relative to the root).
    pub output: Vec<String>,
}

/// Which runner a file outside the tree is a test of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tool {
    /// vitest.
    Vitest,
    /// Playwright.
    Playwright,
}

impl Patterns {
    /// The globs of `table`; one that cannot be read is a located problem.
    pub fn new(table: &Outside, problems: &mut Vec<Problem>) -> Patterns {
        let mut compile = |key: &str, globs: &[String]| {
            globs
                .iter()
                .filter_map(|g| {
                    let c = Glob::new(g);
                    if c.is_none() {
                        problems.push(Problem::error(
                            "testdeck.toml",
                            "config-bad-pattern",
                            format!("[outside] {key}: glob {g:?} cannot be read"),
                        ));
                    }
                    c
                })
                .collect::<Vec<_>>()
        };
        Patterns {
            vitest: compile("vitest", &table.vitest),
            vitest_exclude: compile("vitest-exclude", &table.vitest_exclude),
            playwright: compile("playwright", &table.playwright),
            playwright_exclude: compile("playwright-exclude", &table.playwright_exclude),
            output: table.output.clone(),
        }
    }

    /// Which tool takes the relative path `rel` for a test, if any (Playwright
    /// first: a file both would take is an end-to-end spec).
    pub fn tool_of(&self, rel: &str) -> Option<Tool> {
        let any = |gs: &[Glob]| gs.iter().any(|g| g.matches(rel));
        if any(&self.playwright) && !any(&self.playwright_exclude) {
            Some(Tool::Playwright)
        } else if any(&self.vitest) && !any(&self.vitest_exclude) {
            Some(Tool::Vitest)
        } else {
            None
        }
    }

    /// Whether `rel` is (inside) one of the project's output folders.
    pub fn is_output(&self, rel: &str) -> bool {
        self.output.iter().any(|o| {
            rel == o
                || rel
                    .strip_prefix(o.as_str())
                    .is_some_and(|r| r.starts_with('/'))
        })
    }
}

/// Folders no walk for outside cases enters (besides the output folders).
const NEVER: [&str; 3] = ["node_modules", ".git", ".pouch"];

/// Whether a folder relative to the root (with `/`) is walked for outside
/// cases: not the tests tree's `tests/<domain>/<layer>/…` nor `tests/temp`,
/// `tests/logs` and the like, not `node_modules`, not an output folder.
fn walked(rel: &str, p: &Patterns) -> bool {
    let parts: Vec<&str> = rel.split('/').collect();
    if parts.iter().any(|n| NEVER.contains(n)) || p.is_output(rel) {
        return false;
    }
    if parts.first() == Some(&"tests") {
        let top_ok = parts
            .get(1)
            .is_none_or(|d| *d != "temp" && !super::super::tree::NOT_CASES.contains(d));
        return top_ok && parts.len() < 3;
    }
    true
}

/// Whether the file `rel` (relative to the root, `/`-separated) is one the walk
/// of [`files`] takes for a test: in a folder it walks, and taken by a tool.
pub fn is_test_file(rel: &str, p: &Patterns) -> bool {
    let folder = rel.rsplit_once('/').map_or("", |(d, _)| d);
    (folder.is_empty() || walked(folder, p)) && p.tool_of(rel).is_some()
}

/// Every file under `root` the patterns take for a test (relative paths with
/// `/`, sorted) and the tool of each.
pub fn files(root: &Path, p: &Patterns, problems: &mut Vec<Problem>) -> Vec<(String, Tool)> {
    let found = Mutex::new(Vec::new());
    let probs = Mutex::new(Vec::new());
    let rel = |d: &Path| super::super::rel(root, d);
    let descend = |d: &Path| walked(&rel(d), p);
    let visit = |e: &Entry<'_>| {
        if e.is_dir || e.is_symlink {
            return;
        }
        let r = rel(e.path);
        if let Some(tool) = p.tool_of(&r) {
            if let Ok(mut f) = found.lock() {
                f.push((r, tool));
            }
        }
    };
    walk(root, root, &descend, &visit, &probs);
    problems.extend(probs.into_inner().unwrap_or_default());
    let mut out = found.into_inner().unwrap_or_default();
    out.sort();
    out
}

/// The folders [`count_below`] looks in at most.
const COUNT_FOLDERS: usize = 4096;

/// How many files below `dir` vitest's and Playwright's defaults take for
/// tests, and whether every folder was looked at (at most [`COUNT_FOLDERS`]).
pub fn count_below(dir: &Path) -> (usize, bool) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let mut ignored = Vec::new();
    let defaults = Patterns::new(
        &Outside {
            vitest: vec![VITEST_INCLUDE.into()],
            vitest_exclude: VITEST_EXCLUDE.iter().map(|s| (*s).to_owned()).collect(),
            playwright: vec![PLAYWRIGHT_MATCH.into()],
            playwright_exclude: vec!["**/node_modules/**".into()],
            output: Vec::new(),
        },
        &mut ignored,
    );
    let folders = AtomicUsize::new(0);
    let count = AtomicUsize::new(0);
    let probs = Mutex::new(Vec::new());
    let descend = |d: &Path| {
        let name = d.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        !NEVER.contains(&name) && folders.fetch_add(1, Ordering::Relaxed) < COUNT_FOLDERS
    };
    let visit = |e: &Entry<'_>| {
        if !e.is_dir && !e.is_symlink && defaults.tool_of(&super::super::rel(dir, e.path)).is_some()
        {
            count.fetch_add(1, Ordering::Relaxed);
        }
    };
    walk(dir, dir, &descend, &visit, &probs);
    (count.into_inner(), folders.into_inner() <= COUNT_FOLDERS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outside(v: &[&str], ve: &[&str], pw: &[&str]) -> Patterns {
        let s = |x: &[&str]| x.iter().map(|s| (*s).to_owned()).collect();
        let mut probs = Vec::new();
        Patterns::new(
            &Outside {
                vitest: s(v),
                vitest_exclude: s(ve),
                playwright: s(pw),
                playwright_exclude: vec!["**/node_modules/**".into()],
                output: vec!["test-results".into()],
            },
            &mut probs,
        )
    }

    #[test]
    fn the_walk_leaves_the_tree_node_modules_and_output_alone() {
        let d = tempfile::tempdir().expect("dir");
        for f in [
            "test/url.test.ts",
            "src/a/b.test.ts",
            "src/e2e/s.spec.ts",
            "node_modules/x/y.test.ts",
            "tests/shallow.test.ts",
            "tests/billing/backend/api/basic/x.test.ts",
            "tests/temp/t.test.ts",
            "tests/logs/x.test.ts",
            "test-results/z.test.ts",
            "src/utils.ts",
        ] {
            let p = d.path().join(f);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, "").expect("write");
        }
        let p = outside(
            &[VITEST_INCLUDE],
            &VITEST_EXCLUDE,
            &["src/e2e/**/*.spec.ts"],
        );
        let mut probs = Vec::new();
        let got = files(d.path(), &p, &mut probs);
        let names: Vec<(&str, Tool)> = got.iter().map(|(f, t)| (f.as_str(), *t)).collect();
        assert_eq!(
            names,
            [
                ("src/a/b.test.ts", Tool::Vitest),
                ("src/e2e/s.spec.ts", Tool::Playwright),
                ("test/url.test.ts", Tool::Vitest),
                ("tests/shallow.test.ts", Tool::Vitest),
            ]
        );
    }

    fn fixture(which: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/adopt")
            .join(which)
    }

    #[test]
    fn the_fixtures_configs_read_statically() {
        let lib = read_configs(&fixture("lib"), true, false);
        assert!(lib.read.is_empty() && lib.unsure.is_empty(), "{lib:?}");
        assert_eq!(lib.outside.vitest, [VITEST_INCLUDE]);
        let app = read_configs(&fixture("app"), true, true);
        assert_eq!(app.read, ["vite.config.ts", "playwright.config.ts"]);
        assert!(app.unsure.is_empty(), "{:?}", app.unsure);
        assert_eq!(app.outside.vitest, ["src/**/*.test.ts"]);
        assert_eq!(
            app.outside.vitest_exclude,
            ["**/node_modules/**", "src/e2e/**"]
        );
        assert_eq!(app.outside.playwright, ["src/**/*.spec.ts"]);
        assert_eq!(app.outside.output, ["test-results", "playwright-report"]);
    }
}
