//! `testdeck.toml`: the runner command, the test-file patterns, when a silent run
//! is abandoned, the artifact openers and what else `watch` follows.

use crate::problem::Problem;
use serde::Deserialize;

/// The default runner of seed 000 §4.
pub const DEFAULT_RUNNER: [&str; 2] = ["node", "scripts/test-workflow.mjs"];

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
/// The settings of `testdeck.toml`; every table has a default.
pub struct Config {
    /// `[runner]`: the command that runs tests-tree cases.
    pub runner: Runner,
    /// `[tests]`: which files are cases.
    pub tests: Tests,
    /// `[runs]`: how a run folder without `meta.json` is judged.
    pub runs: Runs,
    /// `[open]`: the artifact openers.
    pub open: Open,
    /// `[watch]`: what else `watch` follows.
    pub watch: Watch,
    /// `[insights]`: the figures drawn from each case's history.
    pub insights: Insights,
    /// `[outside]`: the project's own tests outside the tree, as `init` read
    /// its configs (SPEC §1.1a); none without the table.
    pub outside: Option<Outside>,
}

/// `[outside]` of `testdeck.toml`, written by `init` from the project's own
/// vitest and Playwright configs: globs relative to the root (`**`, `*`, `?`,
/// `[…]`, `{a,b}`, `?(…)` / `@(…)`). A file one tool's globs take (and its
/// excludes leave) is a case outside the tree.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Outside {
    /// vitest's test files (its `include`, under its `root` / `dir`).
    pub vitest: Vec<String>,
    /// …and what vitest leaves out (its `exclude`).
    pub vitest_exclude: Vec<String>,
    /// Playwright's test files (its `testMatch` under its `testDir`).
    pub playwright: Vec<String>,
    /// …and what Playwright leaves out (its `testIgnore`).
    pub playwright_exclude: Vec<String>,
    /// The project's own output folders (Playwright's `outputDir`, its
    /// report): neither cases nor folders to lint.
    pub output: Vec<String>,
}

/// `[insights]`: how many runs the figures look at and where their thresholds lie.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Insights {
    /// The last N finished runs of a case that durations and flips are taken over.
    pub window: usize,
    /// A latest run slower than this many times the median of the runs before it
    /// is a regression (with [`Insights::regression_floor_ms`]).
    pub regression_ratio: f64,
    /// …and slower by at least this many milliseconds.
    pub regression_floor_ms: u64,
    /// A case is flaky when its flaky score (flips / (N − 1)) is above this.
    pub flaky_threshold: f64,
}

/// The defaults of `[insights]`: the old flaky rule (both outcomes in the last 10
/// finished runs) is a score above 0 over a window of 10.
impl Default for Insights {
    fn default() -> Self {
        Self {
            window: 10,
            regression_ratio: 1.5,
            regression_floor_ms: 100,
            flaky_threshold: 0.0,
        }
    }
}

/// `[watch]`: the code under test whose changes rerun every watched case.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Watch {
    /// Globs relative to the root (`**` any folders, `*` and `?` within a name);
    /// `None`: `<dir>/**` for each of [`DEFAULT_SOURCE_DIRS`] that exists.
    pub paths: Option<Vec<String>>,
}

/// The source folders watched when `[watch] paths` is not set.
pub const DEFAULT_SOURCE_DIRS: [&str; 3] = ["src", "lib", "app"];

impl Watch {
    /// The globs in force, `is_dir` telling which default source folders exist
    /// (the store asks the file system: `testdeck_core`'s `WatchGlobs::globs`).
    pub fn globs_where(&self, is_dir: impl Fn(&str) -> bool) -> Vec<String> {
        match &self.paths {
            Some(p) => p.clone(),
            None => DEFAULT_SOURCE_DIRS
                .iter()
                .filter(|d| is_dir(d))
                .map(|d| format!("{d}/**"))
                .collect(),
        }
    }
}

/// Whether the `/`-separated relative path `path` matches `glob`: `**` is any
/// number of folders (none too), `*` any characters within one name, `?` one;
/// a glob with `[…]`, `{a,b}` or an extglob is read as the test configs' globs
/// are ([`crate::glob::Glob`]).
pub fn glob_matches(glob: &str, path: &str) -> bool {
    if glob.contains(['[', '{', '(']) {
        return crate::glob::Glob::new(glob).is_some_and(|g| g.matches(path));
    }
    plain_glob_matches(glob, path)
}

fn plain_glob_matches(glob: &str, path: &str) -> bool {
    fn name(p: &[char], s: &[char]) -> bool {
        match p.split_first() {
            None => s.is_empty(),
            Some(('*', rest)) => (0..=s.len()).any(|i| name(rest, &s[i..])),
            Some(('?', rest)) => !s.is_empty() && name(rest, &s[1..]),
            Some((c, rest)) => s.first() == Some(c) && name(rest, &s[1..]),
        }
    }
    fn parts(g: &[&str], p: &[&str]) -> bool {
        match g.split_first() {
            None => p.is_empty(),
            Some((&"**", rest)) => (0..=p.len()).any(|i| parts(rest, &p[i..])),
            Some((seg, rest)) => p.first().is_some_and(|first| {
                let (sc, fc): (Vec<char>, Vec<char>) =
                    (seg.chars().collect(), first.chars().collect());
                name(&sc, &fc) && parts(rest, &p[1..])
            }),
        }
    }
    let g: Vec<&str> = glob
        .trim_matches('/')
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    let p: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    parts(&g, &p)
}

/// `[tests]`: which file names under `tests/` are cases.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Tests {
    /// File-name patterns: `*` then a fixed ending, which may hold one `{a,b,…}`
    /// set of alternatives; the caseId is the name without the ending.
    pub patterns: Vec<String>,
}

/// The default patterns: vitest's and Playwright's `.test.*` and `.spec.*`
/// with every JavaScript and TypeScript extension.
pub const DEFAULT_PATTERNS: [&str; 2] = [
    "*.test.{ts,tsx,js,jsx,mjs,cjs,mts,cts}",
    "*.spec.{ts,tsx,js,jsx,mjs,cjs,mts,cts}",
];

impl Default for Tests {
    fn default() -> Self {
        Self {
            patterns: DEFAULT_PATTERNS.iter().map(|s| (*s).to_owned()).collect(),
        }
    }
}

/// `[runs]`: how a run folder without `meta.json` is judged.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Runs {
    /// A run folder without `meta.json` where nothing was written for this many
    /// minutes is abandoned (its writer is gone); `0` never judges one so.
    pub abandoned_after_minutes: u64,
}

/// The default of [`Runs::abandoned_after_minutes`].
pub const DEFAULT_ABANDONED_AFTER_MINUTES: u64 = 10;

impl Default for Runs {
    fn default() -> Self {
        Self {
            abandoned_after_minutes: DEFAULT_ABANDONED_AFTER_MINUTES,
        }
    }
}

impl Runs {
    /// The quiet time after which a run is abandoned, `None` for never.
    pub fn abandoned_after(&self) -> Option<std::time::Duration> {
        (self.abandoned_after_minutes > 0).then(|| {
            std::time::Duration::from_secs(self.abandoned_after_minutes.saturating_mul(60))
        })
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
/// `[runner]`: the runner of seed 000 (default `node scripts/test-workflow.mjs`).
pub struct Runner {
    /// The command, as argv; the selection's filters are appended.
    pub command: Vec<String>,
    /// `env`: variables the runner's process is given (the project's own test
    /// script's, which `init` reads from `package.json`), over the inherited ones.
    pub env: std::collections::BTreeMap<String, String>,
    /// `env-files`: dotenv files (relative to the root) the project's test
    /// script loads (`dotenv -e FILE`), read at each launch; `env` wins over them.
    #[serde(rename = "env-files")]
    pub env_files: Vec<String>,
}

impl Default for Runner {
    fn default() -> Self {
        Self {
            command: DEFAULT_RUNNER.iter().map(|s| (*s).to_owned()).collect(),
            env: std::collections::BTreeMap::new(),
            env_files: Vec::new(),
        }
    }
}

impl Runner {
    /// What the runner's process is given: each `env` variable, and
    /// `TESTDECK_RUNNER_ENV` naming them (the runner records the names, never
    /// the values, in `run/start`'s `data.env`). `env_file` gives the text of
    /// each of `env-files` (`None`: it could not be read, and gives nothing: the
    /// runner's own output says what is missing then).
    pub fn process_env_with(
        &self,
        env_file: impl Fn(&str) -> Option<String>,
    ) -> Vec<(String, String)> {
        let mut all = std::collections::BTreeMap::new();
        for f in &self.env_files {
            if let Some(text) = env_file(f) {
                all.extend(dotenv(&text));
            }
        }
        all.extend(self.env.iter().map(|(k, v)| (k.clone(), v.clone())));
        let names: Vec<String> = all.keys().cloned().collect();
        let mut out: Vec<(String, String)> = all.into_iter().collect();
        out.push(("TESTDECK_RUNNER_ENV".to_owned(), names.join(",")));
        out
    }
}

/// Whether `s` is a variable name a shell takes (`[A-Za-z_][A-Za-z0-9_]*`).
pub fn is_var_name(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// The `NAME=value` lines of a dotenv file (`export ` allowed, `#` comments,
/// a value in quotes taken as it is written between them); other lines are skipped.
pub fn dotenv(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let l = line.trim();
        let l = l.strip_prefix("export ").unwrap_or(l).trim_start();
        if l.starts_with('#') {
            continue;
        }
        let Some((k, v)) = l.split_once('=') else {
            continue;
        };
        let (k, v) = (k.trim(), v.trim());
        if !is_var_name(k) {
            continue;
        }
        let v = match v.chars().next() {
            Some(q @ ('"' | '\'')) => v[1..].split(q).next().unwrap_or_default().to_owned(),
            _ => v.split(" #").next().unwrap_or_default().trim().to_owned(),
        };
        out.push((k.to_owned(), v));
    }
    out
}

/// Openers for artifacts, as argv; the artifact's absolute path is appended.
/// A workspace's openers run only once the person trusts them (see
/// the store's openers).
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Open {
    /// The opener of a Playwright `trace.zip`.
    pub trace: Vec<String>,
    /// The opener of an HTML report.
    pub html: Vec<String>,
    /// The opener of every other artifact.
    pub default: Vec<String>,
}

impl Default for Open {
    fn default() -> Self {
        Self {
            // `--no`: npx never installs a package unseen
            trace: vec![
                "npx".into(),
                "--no".into(),
                "playwright".into(),
                "show-trace".into(),
            ],
            html: vec!["xdg-open".into()],
            default: vec!["xdg-open".into()],
        }
    }
}

impl Config {
    /// `testdeck.toml`'s bytes read into settings; text that is not UTF-8 or
    /// not this TOML is a located problem and the defaults are used.
    pub fn parse_bytes(bytes: Vec<u8>, problems: &mut Vec<Problem>) -> Config {
        if let Ok(text) = String::from_utf8(bytes) {
            Config::parse(&text, problems)
        } else {
            problems.push(Problem::error(
                "testdeck.toml",
                "config-unreadable",
                "not UTF-8 text",
            ));
            Config::default()
        }
    }

    /// `testdeck.toml`'s text read into settings; a broken file is a located
    /// problem and the defaults are used.
    pub fn parse(text: &str, problems: &mut Vec<Problem>) -> Config {
        match toml::from_str::<Config>(text) {
            Ok(c) => c,
            Err(e) => {
                let (line, col) = e.span().map_or((0, 0), |s| line_col(text, s.start));
                problems.push(
                    Problem::error("testdeck.toml", "config-syntax", e.message().to_owned())
                        .at(line, col),
                );
                Config::default()
            }
        }
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (u32, u32) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line as u32, col as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runner_env_is_parsed_and_named() {
        let mut problems = Vec::new();
        let c = Config::parse(
            "[runner]\nenv = { TZ = \"America/New_York\", NODE_OPTIONS = \"--no-warnings\" }\n\
             env-files = [\".env\", \"gone.env\"]\n",
            &mut problems,
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(c.runner.env["TZ"], "America/New_York");
        assert_eq!(c.runner.command, DEFAULT_RUNNER);
        let env = c
            .runner
            .process_env_with(|f| (f == ".env").then(|| "A=1\n".to_owned()));
        assert!(env.contains(&("TZ".into(), "America/New_York".into())));
        assert!(env.contains(&("A".into(), "1".into())));
        assert!(env.contains(&("TESTDECK_RUNNER_ENV".into(), "A,NODE_OPTIONS,TZ".into())));
        // a value that is not a string is a located problem
        let c = Config::parse("[runner]\nenv = { TZ = 5 }\n", &mut problems);
        assert!(c.runner.env.is_empty());
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].line, Some(2), "{problems:?}");
        let c = Config::parse_bytes(b"[runner]\n\xff".to_vec(), &mut problems);
        assert_eq!(c.runner.command, DEFAULT_RUNNER);
        assert_eq!(problems[1].rule, "config-unreadable", "{problems:?}");
    }

    #[test]
    fn dotenv_lines() {
        let text = "# c\nexport TZ=\"America/New_York\"\nA = 'x y'\nB=1 # one\n1X=no\nnone\n";
        assert_eq!(
            dotenv(text),
            vec![
                ("TZ".into(), "America/New_York".into()),
                ("A".into(), "x y".into()),
                ("B".into(), "1".into())
            ]
        );
    }

    #[test]
    fn globs_match_folders_and_names() {
        assert!(glob_matches("src/**", "src/x.js"));
        assert!(glob_matches("src/**", "src/a/b/x.js"));
        assert!(!glob_matches("src/**", "srcx/x.js"));
        assert!(glob_matches("**/*.ts", "lib/a/b.ts"));
        assert!(glob_matches("**/*.ts", "b.ts"));
        assert!(!glob_matches("**/*.ts", "b.tsx"));
        assert!(glob_matches("fixtures/?.json", "fixtures/a.json"));
        assert!(!glob_matches("fixtures/?.json", "fixtures/ab.json"));
        let there = |d: &str| d == "src" || d == "app";
        assert_eq!(Watch::default().globs_where(there), ["src/**", "app/**"]);
        let set = Watch {
            paths: Some(vec!["fixtures/**".into()]),
        };
        assert_eq!(set.globs_where(there), ["fixtures/**"]);
    }
}
