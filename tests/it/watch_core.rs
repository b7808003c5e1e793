//! The watch core without notify: which cases a changed path concerns (test
//! file, plan file before and after the change, catalog case file), target
//! resolution, and the policy split the TUI and `testdeck watch` share.

use crate::common;
use common::fs::write;

use std::path::PathBuf;
use testdeck_core::Workspace;
use testdeck_exec::Decision;
use testdeck_exec::policy::Prompt;
use testdeck_exec::watch_mode::{
    WatchOptions, Watched, affected, decisions_for, plan_for, resolve,
};

fn case(id: &str, risk: &str) -> String {
    let tag = if risk == "readonly" { "smoke" } else { "full" };
    format!(
        "  - id: {id}\n    category: {}\n    title: t\n    what: w\n    lifecycle: active\n    tag: {tag}\n    risk: {risk}\n    driver: script\n    how:\n      run: \"true\"\n    expected:\n      - kind: script-exit\n        value: 0\n",
        &id[3..7]
    )
}

fn workspace() -> tempfile::TempDir {
    let dir = crate::common::fs::scratch_dir();
    let root = dir.path();
    for f in ["basic/case-a", "basic/case-b", "live/case-l"] {
        write(
            root,
            &format!("tests/ai/backend/s/{f}.test.ts"),
            "// case\n",
        );
    }
    write(root, "doc/test-plan/p.md", "## case-b\n\n## case-l\n");
    write(root, "doc/test-plan/other.md", "## case-a\n");
    write(
        root,
        ".pouch/tester/catalog.yaml",
        "categories:\n  - id: MAIN\n    title: m\n  - id: SIDE\n    title: s\nrisks: [readonly, mutating]\ndefault_max_risk: mutating\nauthorize:\n  mutating: TD_WC_MUTATING\nid_pattern: \"TC-[A-Z]+-[0-9]{3}\"\n",
    );
    write(
        root,
        ".pouch/tester/cases/main.yaml",
        &format!(
            "category: MAIN\ncases:\n{}{}",
            case("TC-MAIN-001", "readonly"),
            case("TC-MAIN-002", "mutating")
        ),
    );
    write(
        root,
        ".pouch/tester/cases/side.yaml",
        &format!(
            "category: SIDE\ncases:\n{}",
            case("TC-SIDE-001", "readonly")
        ),
    );
    dir
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn targets_resolve_like_run() {
    let dir = workspace();
    let ws = Workspace::load(dir.path()).expect("load");
    let all = resolve(&ws, &[]).expect("all");
    assert_eq!(
        all.tests,
        [
            "ai/backend/s/basic/case-a",
            "ai/backend/s/basic/case-b",
            "ai/backend/s/live/case-l"
        ]
    );
    assert_eq!(all.catalog, ["TC-MAIN-001", "TC-MAIN-002", "TC-SIDE-001"]);
    let some = resolve(&ws, &strs(&["ai/backend/s/basic", "case-l", "MAIN"])).expect("some");
    assert_eq!(some.tests.len(), 3);
    assert_eq!(some.catalog, ["TC-MAIN-001", "TC-MAIN-002"]);
    assert_eq!(
        resolve(&ws, &strs(&["case-a", "nope", "ai/other"])),
        Err(strs(&["nope", "ai/other"]))
    );
}

#[test]
fn changed_paths_map_to_the_cases_they_concern() {
    let dir = workspace();
    let root = dir.path();
    let old = Workspace::load(root).expect("load");
    // p.md now registers case-a instead of case-b: both are concerned
    write(root, "doc/test-plan/p.md", "## case-a\n\n## case-l\n");
    let new = Workspace::load(root).expect("load");
    let all = resolve(&new, &[]).expect("all");
    let at = |rels: &[&str]| -> Watched {
        let paths: Vec<PathBuf> = rels.iter().map(|r| new.root.join(r)).collect();
        affected(&old, &new, &all, &paths)
    };
    assert_eq!(
        at(&["tests/ai/backend/s/basic/case-a.test.ts"]).tests,
        ["ai/backend/s/basic/case-a"]
    );
    assert_eq!(
        at(&["doc/test-plan/p.md"]).tests,
        [
            "ai/backend/s/basic/case-a",
            "ai/backend/s/basic/case-b",
            "ai/backend/s/live/case-l"
        ]
    );
    assert_eq!(
        at(&["doc/test-plan/other.md"]).tests,
        ["ai/backend/s/basic/case-a"]
    );
    assert_eq!(
        at(&[".pouch/tester/cases/main.yaml"]).catalog,
        ["TC-MAIN-001", "TC-MAIN-002"]
    );
    assert!(
        at(&[
            "tests/logs/ai/backend/s/basic/case-a/20260101-000000-000/meta.json",
            ".pouch/tester/runs/x.yaml",
            "tests/ai/backend/s/basic/case-a.test.ts~",
            "README.md"
        ])
        .is_empty()
    );
    // only watched cases rerun
    let only_b = Watched {
        tests: strs(&["ai/backend/s/basic/case-b"]),
        catalog: Vec::new(),
    };
    let paths = [new.root.join("tests/ai/backend/s/basic/case-a.test.ts")];
    assert!(affected(&old, &new, &only_b, &paths).is_empty());
}

#[test]
fn policy_split_matches_run() {
    let dir = workspace();
    let ws = Workspace::load(dir.path()).expect("load");
    let opts = WatchOptions {
        label: "watch".into(),
        ..WatchOptions::default()
    };
    let all = resolve(&ws, &[]).expect("all");
    let (plan, skipped) = plan_for(&ws, &opts, &all);
    assert_eq!(plan.tests.len(), 2, "the live case is left out");
    assert_eq!(plan.catalog.ids, ["TC-MAIN-001", "TC-SIDE-001"]);
    let ids: Vec<&str> = skipped.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["ai/backend/s/live/case-l", "TC-MAIN-002"]);
    // what the TUI asks before it watches
    let ds = decisions_for(&ws, &opts).expect("decisions");
    let prompts: Vec<(&str, &Prompt)> = ds
        .iter()
        .filter_map(|(id, d)| match d {
            Decision::NeedsPrompt(p) => Some((id.as_str(), p)),
            _ => None,
        })
        .collect();
    assert_eq!(prompts.len(), 2, "{ds:?}");
    assert!(matches!(prompts[0].1, Prompt::Live { .. }));
    assert!(matches!(prompts[1].1, Prompt::Mutating { .. }));
}
