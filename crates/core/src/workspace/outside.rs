//! Tests outside the tree (SPEC §1.1a): a project's existing test files that do
//! not stand under `tests/<domain>/<layer>/…`. Each is a temporary case (seed 000
//! §3.6) whose runs are logged under a `temp` scope derived from its folder.

use std::path::{Component, Path};

pub mod discover;

pub use super::config::Outside;
// the static read of a config (no I/O) is the model's
pub use testdeck_model::outside::{SCOPE_PREFIX, is_outside_scope, js};

/// The `[outside]` table as `init` writes it (with its header).
pub fn table_text(o: &Outside) -> String {
    let list = |v: &[String]| {
        let items: Vec<String> = v
            .iter()
            .map(|s| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"")))
            .collect();
        format!("[{}]", items.join(", "))
    };
    let mut t = String::from(
        "\n[outside]\n\
         # the project's own tests outside tests/<domain>/<layer>/, as `testdeck init`\n\
         # read its configs (globs relative to this folder; init again to re-read them)\n",
    );
    for (key, v) in [
        ("vitest", &o.vitest),
        ("vitest-exclude", &o.vitest_exclude),
        ("playwright", &o.playwright),
        ("playwright-exclude", &o.playwright_exclude),
        ("output", &o.output),
    ] {
        if !v.is_empty() {
            t.push_str(key);
            t.push_str(" = ");
            t.push_str(&list(v));
            t.push('\n');
        }
    }
    t
}

/// The caseId of an outside file: its name without the test ending, or (for a
/// name a custom pattern took, `flow.e2e.ts`) without anything from its first `.`.
pub fn file_case_id(file_name: &str) -> &str {
    case_id(file_name).unwrap_or_else(|| {
        file_name
            .split_once('.')
            .map_or(file_name, |(stem, _)| stem)
            .trim()
    })
}

/// The tests tree of the workspace at `root` with the cases outside it (from
/// `table`, its `[outside]`, when there is one): the one scan every loader uses.
pub fn scan_tests(
    root: &Path,
    plan: &super::plan::TestPlan,
    patterns: &super::tree::CasePatterns,
    table: Option<&Outside>,
    problems: &mut Vec<crate::problem::Problem>,
) -> super::tree::TestsTree {
    scan_tests_staged(root, plan, patterns, table, problems, &mut |_, _| {})
}

/// [`scan_tests`], the walk's first results handed on before it ends as
/// [`super::tree::scan_staged`] hands them (the cases outside the tree come
/// with the whole tree only).
pub fn scan_tests_staged(
    root: &Path,
    plan: &super::plan::TestPlan,
    patterns: &super::tree::CasePatterns,
    table: Option<&Outside>,
    problems: &mut Vec<crate::problem::Problem>,
    part: &mut dyn FnMut(usize, &dyn Fn() -> super::tree::TestsTree),
) -> super::tree::TestsTree {
    let output = table.map_or(&[][..], |o| &o.output[..]);
    let mut tests = super::tree::scan_staged(root, plan, patterns, output, problems, part);
    if let Some(t) = table {
        tests.add_outside(cases(root, t, problems));
    }
    tests
}

/// The cases outside the tree of the workspace at `root`, from its `[outside]`
/// table (none without one): temporary (seed 000 §3.6), non-gating, scoped by
/// [`temp_scope`].
pub fn cases(
    root: &Path,
    table: &Outside,
    problems: &mut Vec<crate::problem::Problem>,
) -> Vec<super::tree::TestCase> {
    let patterns = discover::Patterns::new(table, problems);
    discover::files(root, &patterns, problems)
        .into_iter()
        .filter_map(|(rel, _tool)| case_of(&rel))
        .collect()
}

/// The case outside the tree of the test file `rel` (relative to the root,
/// `/`-separated): `None` when it makes none (no scope, an empty caseId).
pub fn case_of(rel: &str) -> Option<super::tree::TestCase> {
    let scope = temp_scope(Path::new(rel))?;
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let id = file_case_id(name);
    if id.is_empty() {
        return None;
    }
    let folders: Vec<&str> = scope.split('/').collect();
    Some(super::tree::TestCase {
        case_id: id.to_owned(),
        path: rel.to_owned(),
        levels: super::tree::ScopeLevels::of(&folders),
        scope,
        temp: true,
        live: false,
        registered: true,
        outside: true,
    })
}

/// The endings a framework's test file has (`.test.ts`, `.spec.tsx`, …).
const TEST_KINDS: [&str; 2] = ["test", "spec"];
const SCRIPT_EXTS: [&str; 8] = ["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs"];

/// The scope an outside case's runs are logged under: `temp/outside/<folder>`
/// for a file in `<folder>` (relative to the workspace root, `/`-separated),
/// `temp/outside` for a file at the root. `None` when the path is not a plain
/// relative path (absolute, `..`, empty names) or a folder name is not valid UTF-8.
pub fn temp_scope(rel_file: &Path) -> Option<String> {
    let mut scope = String::from(SCOPE_PREFIX);
    let mut parts = rel_file.components().peekable();
    let mut any = false;
    while let Some(c) = parts.next() {
        let Component::Normal(name) = c else {
            return None;
        };
        any = true;
        if parts.peek().is_none() {
            break; // the file itself
        }
        scope.push('/');
        scope.push_str(name.to_str()?);
    }
    any.then_some(scope)
}

/// The caseId of an outside test file: its name without the test ending
/// (`url.test.ts` → `url`, `search.spec.tsx` → `search`); `None` for a name
/// without one.
pub fn case_id(file_name: &str) -> Option<&str> {
    let (rest, ext) = file_name.rsplit_once('.')?;
    if !SCRIPT_EXTS.contains(&ext) {
        return None;
    }
    let (stem, kind) = rest.rsplit_once('.')?;
    (TEST_KINDS.contains(&kind) && !stem.is_empty()).then_some(stem)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scope_is_the_file_s_folder_under_temp_outside() {
        assert_eq!(
            temp_scope(Path::new("src/components/search.spec.tsx")).as_deref(),
            Some("temp/outside/src/components")
        );
        assert_eq!(
            temp_scope(Path::new("url.test.ts")).as_deref(),
            Some("temp/outside")
        );
        assert_eq!(temp_scope(Path::new("../x/a.test.ts")), None);
        assert_eq!(temp_scope(Path::new("/abs/a.test.ts")), None);
        assert_eq!(temp_scope(Path::new("")), None);
    }

    #[test]
    fn the_case_id_drops_the_test_ending() {
        assert_eq!(case_id("url.test.ts"), Some("url"));
        assert_eq!(case_id("search.spec.tsx"), Some("search"));
        assert_eq!(case_id("a.b.test.mjs"), Some("a.b"));
        assert_eq!(case_id("utils.ts"), None);
        assert_eq!(case_id(".test.ts"), None);
        assert_eq!(case_id("x.test.rs"), None);
    }

    #[test]
    fn outside_scopes_are_told_from_other_temp_scopes() {
        assert!(is_outside_scope("temp/outside"));
        assert!(is_outside_scope("temp/outside/src"));
        assert!(!is_outside_scope("temp/outsider"));
        assert!(!is_outside_scope("temp"));
    }
}
