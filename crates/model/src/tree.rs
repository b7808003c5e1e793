//! The tests tree (seed 000 §2): `tests/<domain>/<layer>/<suite>/<groups...>/<case>.test.ts`:
//! its cases, patterns and scope levels (the store's `tree::scan` walks `tests/`).

use super::plan::TestPlan;
use crate::problem::Problem;
use serde::Serialize;

/// The file endings that make a case (from `[tests] patterns`); `caseId` is the
/// file name without its ending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CasePatterns {
    /// Longest first, so the most specific ending is the one cut off.
    endings: Vec<String>,
}

impl Default for CasePatterns {
    fn default() -> Self {
        let mut p = Vec::new();
        Self::new(&crate::config::Tests::default().patterns, &mut p)
    }
}

impl CasePatterns {
    /// The endings of `patterns`; a pattern that is not `*` and a fixed ending
    /// (with at most one `{a,b}` set) is a located problem and left out.
    pub fn new(patterns: &[String], problems: &mut Vec<Problem>) -> CasePatterns {
        let mut endings = Vec::new();
        for pat in patterns {
            match expand(pat) {
                Some(mut e) => endings.append(&mut e),
                None => problems.push(Problem::error(
                    "testdeck.toml",
                    "config-bad-pattern",
                    format!(
                        "test-file pattern {pat:?} is not `*` followed by a fixed ending such as `.test.{{ts,js}}`"
                    ),
                )),
            }
        }
        endings.sort_by(|a: &String, b: &String| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        endings.dedup();
        CasePatterns { endings }
    }

    /// `caseId` of a file name, when it ends in a case ending.
    pub fn case_id_of<'a>(&self, file_name: &'a str) -> Option<&'a str> {
        self.endings
            .iter()
            .find_map(|e| file_name.strip_suffix(e.as_str()))
            .filter(|s| !s.is_empty())
    }
}

/// `*.test.{ts,js}` → `.test.ts`, `.test.js`; `None` when it is not of that form.
fn expand(pattern: &str) -> Option<Vec<String>> {
    let rest = pattern.strip_prefix('*')?;
    let plain = |s: &str| !s.is_empty() && !s.contains(['*', '?', '[', ']', '{', '}', '/']);
    let Some(open) = rest.find('{') else {
        return plain(rest).then(|| vec![rest.to_owned()]);
    };
    let (head, tail) = rest.split_at(open);
    let close = tail.find('}')?;
    let (set, after) = (&tail[1..close], &tail[close + 1..]);
    let mut out = Vec::new();
    for alt in set.split(',') {
        let e = format!("{head}{alt}{after}");
        if !plain(&e) || alt.is_empty() {
            return None;
        }
        out.push(e);
    }
    Some(out)
}
/// Top-level folders of `tests/` that never hold cases.
pub const NOT_CASES: [&str; 4] = ["harness", "fixtures", "logs", "report"];
/// The stable groups of seed 000.
pub const STABLE_GROUPS: [&str; 4] = ["basic", "boundary", "scenario", "live"];

/// One case file of the tests tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TestCase {
    /// The caseId: the file name without its test suffix.
    pub case_id: String,
    /// The file, relative to the workspace root.
    pub path: String,
    /// `<domain>/<layer>/<suite>/<groups...>` (the folders between `tests/` and the file).
    pub scope: String,
    /// The levels `scope` names (in the JSON beside it, as before).
    #[serde(flatten)]
    pub levels: ScopeLevels,
    /// Under `tests/temp/`: shown in its own node, non-gating, in no statistic.
    pub temp: bool,
    /// Under a `live/` folder: calls a real model, needs explicit confirmation.
    pub live: bool,
    /// Its caseId appears in `doc/test-plan/**` (always true for temp cases).
    pub registered: bool,
    /// A project's own test file outside `tests/<domain>/<layer>/…` (SPEC
    /// §1.1a): temporary, its scope `temp/outside/<folder>`.
    pub outside: bool,
}

/// The levels of a scope (seed 000 §2): its first folder is the domain, then the
/// layer, the suite and the groups; under `temp/` every folder after it is a group.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ScopeLevels {
    /// The first folder.
    pub domain: String,
    /// The second folder.
    pub layer: Option<String>,
    /// The third folder.
    pub suite: Option<String>,
    /// The folders after it.
    pub groups: Vec<String>,
}

impl ScopeLevels {
    /// The levels of a scope's folders, outermost first (the domain is empty
    /// when there is none).
    pub fn of<S: AsRef<str>>(folders: &[S]) -> ScopeLevels {
        let owned = |f: &S| f.as_ref().to_owned();
        let temp = folders.first().is_some_and(|f| f.as_ref() == "temp");
        let level = |i: usize| {
            if temp {
                None
            } else {
                folders.get(i).map(owned)
            }
        };
        ScopeLevels {
            domain: folders.first().map(owned).unwrap_or_default(),
            layer: level(1),
            suite: level(2),
            groups: folders
                .iter()
                .skip(if temp { 1 } else { 3 })
                .map(owned)
                .collect(),
        }
    }
}

impl TestCase {
    /// `scope/caseId`: the identity of a case across the tree, logs and stats.
    pub fn key(&self) -> String {
        key(&self.scope, &self.case_id)
    }
}

/// `scope/caseId`, or `caseId` for an empty scope.
pub fn key(scope: &str, case_id: &str) -> String {
    if scope.is_empty() {
        case_id.to_owned()
    } else {
        format!("{scope}/{case_id}")
    }
}

#[derive(Debug, Clone, Default)]
/// The tests tree: every case file under `tests/` (outside `tests/logs/`).
pub struct TestsTree {
    /// Sorted by scope, then caseId.
    pub cases: Vec<TestCase>,
}

/// `caseId` of a file name under the default patterns.
pub fn case_id_of(file_name: &str) -> Option<&str> {
    static DEFAULT: std::sync::LazyLock<CasePatterns> =
        std::sync::LazyLock::new(CasePatterns::default);
    DEFAULT.case_id_of(file_name)
}

/// Whether a folder name is kebab-case: lowercase ASCII letters and digits in
/// words joined by single `-`.
pub fn is_kebab(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// Whether the folder `rel` (relative to the root) is one of `output` or in one.
pub fn is_output(rel: &str, output: &[String]) -> bool {
    output.iter().any(|o| {
        let o = o.trim_end_matches('/');
        rel == o || rel.strip_prefix(o).is_some_and(|r| r.starts_with('/'))
    })
}

/// Build a case from its path relative to `tests/` (folders then the file name).
pub fn case_from_parts(
    folders: &[String],
    case_id: &str,
    path: String,
    plan: &TestPlan,
) -> TestCase {
    let temp = folders.first().is_some_and(|f| f == "temp");
    let live = folders.iter().skip(1).any(|f| f == "live");
    TestCase {
        case_id: case_id.to_owned(),
        path,
        scope: folders.join("/"),
        levels: ScopeLevels::of(folders),
        temp,
        live,
        registered: temp || plan.is_registered(case_id),
        outside: false,
    }
}

impl TestsTree {
    /// Add the cases outside the tree (SPEC §1.1a); a file the
    /// tree also took (one directly in `tests/` or `tests/<folder>/`, short of
    /// a layer) is the outside case.
    pub fn add_outside(&mut self, outside: Vec<TestCase>) {
        if outside.is_empty() {
            return;
        }
        let paths: std::collections::HashSet<&str> =
            outside.iter().map(|c| c.path.as_str()).collect();
        self.cases.retain(|c| !paths.contains(c.path.as_str()));
        self.cases.extend(outside);
        self.cases
            .sort_by(|a, b| (&a.scope, &a.case_id, &a.path).cmp(&(&b.scope, &b.case_id, &b.path)));
    }

    /// How many cases are outside the tree.
    pub fn outside_count(&self) -> usize {
        self.cases.iter().filter(|c| c.outside).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_ids_and_kebab() {
        assert_eq!(case_id_of("a-b.test.ts"), Some("a-b"));
        assert_eq!(case_id_of("a.test.mjs"), Some("a"));
        assert_eq!(case_id_of(".test.ts"), None);
        assert_eq!(case_id_of("a.test.json"), None);
        assert!(is_kebab("director-intent"));
        assert!(is_kebab("e2e"));
        assert!(!is_kebab("Director"));
        assert!(!is_kebab("a_b"));
        assert!(!is_kebab("a--b"));
    }

    #[test]
    fn default_patterns_cover_test_and_spec_of_every_extension() {
        for ext in ["ts", "tsx", "js", "jsx", "mjs", "cjs", "mts", "cts"] {
            assert_eq!(
                case_id_of(&format!("login.test.{ext}")),
                Some("login"),
                "{ext}"
            );
            assert_eq!(
                case_id_of(&format!("login.spec.{ext}")),
                Some("login"),
                "{ext}"
            );
        }
        assert_eq!(case_id_of("login.ts"), None);
        assert_eq!(case_id_of("login.spec.md"), None);
    }

    #[test]
    fn configured_patterns_replace_the_default_and_bad_ones_are_located() {
        let mut p = Vec::new();
        let pats: Vec<String> = ["*_test.{py,sh}", "*.e2e.ts", "spec.*", "*.{a,}", "*.{ts"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        let c = CasePatterns::new(&pats, &mut p);
        assert_eq!(c.case_id_of("probe_test.py"), Some("probe"));
        assert_eq!(c.case_id_of("probe_test.sh"), Some("probe"));
        assert_eq!(c.case_id_of("flow.e2e.ts"), Some("flow"));
        assert_eq!(c.case_id_of("flow.test.ts"), None);
        let rules: Vec<&str> = p.iter().map(|x| x.rule.as_str()).collect();
        assert_eq!(rules, ["config-bad-pattern"; 3], "{p:?}");
        // the longest ending is cut: `a.test.ts` under `*.ts` and `*.test.ts` is `a`
        let both: Vec<String> = vec!["*.ts".into(), "*.test.ts".into()];
        let c = CasePatterns::new(&both, &mut p);
        assert_eq!(c.case_id_of("a.test.ts"), Some("a"));
    }

    #[test]
    fn parts_make_scope_and_levels() {
        let plan = TestPlan::default();
        let f = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let c = case_from_parts(
            &f(&["ai", "backend", "tools", "terminal", "live"]),
            "x",
            "p".into(),
            &plan,
        );
        assert_eq!(c.scope, "ai/backend/tools/terminal/live");
        assert_eq!(c.levels.suite.as_deref(), Some("tools"));
        assert_eq!(c.levels.groups, ["terminal", "live"]);
        assert!(c.live && !c.temp && !c.registered);
        let t = case_from_parts(&f(&["temp", "probe"]), "y", "p".into(), &plan);
        assert!(t.temp && t.registered && t.levels.layer.is_none());
        let short = case_from_parts(&f(&["ai", "e2e"]), "z", "p".into(), &plan);
        assert_eq!(short.levels.suite, None);
    }
}
