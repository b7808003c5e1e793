//! Tests outside the tree (SPEC §1.1a): a project's existing test files that do
//! not stand under `tests/<domain>/<layer>/…`. Each is a temporary case (seed 000
//! §3.6) whose runs are logged under a `temp` scope derived from its folder.

use std::path::{Component, Path};

/// The first folder of every outside case's scope below `temp/`.
pub const SCOPE_PREFIX: &str = "temp/outside";

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

/// Whether a scope is an outside case's (`temp/outside` or below it).
pub fn is_outside_scope(scope: &str) -> bool {
    scope == SCOPE_PREFIX
        || scope
            .strip_prefix(SCOPE_PREFIX)
            .is_some_and(|rest| rest.starts_with('/'))
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
