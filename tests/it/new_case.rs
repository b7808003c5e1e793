//! Issue 28: `testdeck new` and `testdeck promote` (seed 000 §3.5, §3.6) — the plan
//! entry is written before the test file, `validate` finds the case registered, a
//! temp case moves into the tree after its entry, refusals say why and write
//! nothing — and `a` in the cockpit, whose new case the tree shows without a restart.

use crate::common;
use common::Session;
use common::cli::{at, validate_json};
use common::fs::{copy_dir, scratch_dir, write};
use std::path::Path;
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::new_case::NewCase;

/// A scratch copy of the init fixture (tests, configs and a plan; nothing installed).
fn project() -> tempfile::TempDir {
    let d = scratch_dir();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/init-project");
    copy_dir(&from, d.path());
    d
}

/// `testdeck --root ROOT ARGS…`: its exit code, stdout and stderr.
fn testdeck(root: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = at(root).args(args).output().expect("run");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The problems `validate` reports about `file`.
fn problems_of(root: &Path, file: &str) -> Vec<String> {
    let (_, doc) = validate_json(root);
    doc["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .filter(|p| p["file"] == file || p["message"].as_str().is_some_and(|m| m.contains(file)))
        .map(|p| format!("{} {}", p["rule"], p["message"]))
        .collect()
}

#[test]
fn new_writes_the_plan_entry_before_the_test_file_and_validate_finds_it_registered() {
    let d = project();
    let root = d.path();
    // the core's steps with a hook between them (where the CLI opens the editor): the
    // entry is on disk, the test file is not yet
    let ws = Workspace::load_tree(root).expect("load");
    let mut case =
        NewCase::prepare(&ws, "tests/calc/backend/math/basic/sub-numbers").expect("accepted");
    let test_file = root.join(&case.test_file);
    let mut seen = None;
    case.create(root, |c| {
        seen = Some((
            read(root, &c.plan_file).contains("### sub-numbers\n- What:"),
            test_file.exists(),
        ));
    })
    .expect("created");
    assert_eq!(
        seen,
        Some((true, false)),
        "(entry written, test file written)"
    );
    assert_eq!(
        case.plan_file, "doc/test-plan/calc.md",
        "the domain's plan file"
    );
    let plan = read(root, "doc/test-plan/calc.md");
    let line = case.plan_line.expect("its line") as usize;
    assert_eq!(plan.lines().nth(line - 1), Some("### sub-numbers"));
    // in its section, before the next one
    let (backend, e2e) = (
        plan.find("## backend / math").expect("section"),
        plan.find("## e2e / page").expect("next section"),
    );
    let entry_at = plan.find("### sub-numbers").expect("entry");
    assert!(backend < entry_at && entry_at < e2e, "{plan}");
    for field in ["What", "Why", "How", "Oracle", "Not"] {
        assert!(
            plan[entry_at..e2e].contains(&format!("- {field}: ")),
            "{field}: {plan}"
        );
    }
    let text = read(root, "tests/calc/backend/math/basic/sub-numbers.test.ts");
    assert!(text.contains("from 'vitest'") && text.contains("describe('sub-numbers'"));
    assert!(text.contains("doc/test-plan/calc.md"), "{text}");

    // the CLI: an e2e spec through Playwright's template, JSON out
    let e2e = "tests/calc/e2e/page/basic/page-shows-product";
    let (code, out, err) = testdeck(root, &["new", e2e, "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(doc["caseId"], "page-shows-product");
    assert_eq!(
        doc["testFile"],
        "tests/calc/e2e/page/basic/page-shows-product.spec.ts"
    );
    assert_eq!(doc["framework"], "playwright");
    assert_eq!(doc["planFile"], "doc/test-plan/calc.md");
    assert_eq!(doc["planEntry"], "written");
    let spec = read(root, "tests/calc/e2e/page/basic/page-shows-product.spec.ts");
    assert!(spec.contains("@playwright/test") && spec.contains("test('page-shows-product'"));
    let plan = read(root, "doc/test-plan/calc.md");
    assert!(
        plan.trim_end()
            .ends_with("- Not: (what the case leaves to other cases)")
    );
    assert!(
        plan.contains("## e2e / page\n\n### page-shows-sum"),
        "untouched above: {plan}"
    );

    // a new domain gets its own plan file; the entry of a caseId planned already is kept
    write(
        root,
        "doc/test-plan/extra.md",
        "# Notes\n\n### bill-rounds\n- What: planned first.\n",
    );
    let (code, said, _) = testdeck(root, &["new", "tests/bill/backend/sums/bill-rounds"]);
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains("plan entry of bill-rounds is there: doc/test-plan/extra.md:3"),
        "{said}"
    );
    assert!(
        !root.join("doc/test-plan/bill.md").exists(),
        "no second entry"
    );

    // validate and list: every new case registered, with its plan entry
    for f in [
        "tests/calc/backend/math/basic/sub-numbers.test.ts",
        "tests/calc/e2e/page/basic/page-shows-product.spec.ts",
        "tests/bill/backend/sums/bill-rounds.test.ts",
    ] {
        let p = problems_of(root, f);
        assert!(
            p.iter().all(|p| !p.contains("case-unregistered")),
            "{f}: {p:?}"
        );
    }
    let (_, out, _) = testdeck(root, &["list", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let cases = doc["cases"].as_array().expect("cases");
    for id in ["sub-numbers", "page-shows-product", "bill-rounds"] {
        let c = cases
            .iter()
            .find(|c| c["id"] == id || c["caseId"] == id)
            .unwrap_or_else(|| panic!("{id} listed"));
        assert_eq!(c["registered"], true, "{id}");
    }
}

#[test]
fn promote_writes_the_entry_then_moves_the_temp_case_into_the_tree() {
    let d = project();
    let root = d.path();
    let body = "import { it } from 'vitest';\nit('probe', () => {});\n";
    write(root, "tests/temp/probe-sign.test.ts", body);
    write(root, "tests/temp/probe-other.test.ts", body);
    // into a folder: its caseId kept
    let (code, said, err) = testdeck(
        root,
        &[
            "promote",
            "tests/temp/probe-sign.test.ts",
            "tests/calc/backend/math/boundary/",
        ],
    );
    assert_eq!(code, Some(0), "{said}{err}");
    assert!(
        said.contains("wrote the plan entry of probe-sign: doc/test-plan/calc.md:"),
        "{said}"
    );
    assert!(said.contains("moved tests/temp/probe-sign.test.ts to tests/calc/backend/math/boundary/probe-sign.test.ts"), "{said}");
    assert!(!root.join("tests/temp/probe-sign.test.ts").exists());
    assert_eq!(
        read(root, "tests/calc/backend/math/boundary/probe-sign.test.ts"),
        body
    );
    assert!(read(root, "doc/test-plan/calc.md").contains("### probe-sign\n- What:"));
    // to a path ending in a caseId: renamed, JSON out
    let (_, out, _) = testdeck(
        root,
        &[
            "promote",
            "tests/temp/probe-other.test.ts",
            "tests/calc/backend/io/basic/read-input",
            "--json",
        ],
    );
    let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(doc["promotedFrom"], "tests/temp/probe-other.test.ts");
    assert_eq!(
        doc["testFile"],
        "tests/calc/backend/io/basic/read-input.test.ts"
    );
    let plan = read(root, "doc/test-plan/calc.md");
    assert!(
        plan.contains("## backend / io\n\n### read-input\n"),
        "{plan}"
    );
    for f in [
        "tests/calc/backend/math/boundary/probe-sign.test.ts",
        "tests/calc/backend/io/basic/read-input.test.ts",
    ] {
        let p = problems_of(root, f);
        assert!(
            p.iter().all(|p| !p.contains("case-unregistered")),
            "{f}: {p:?}"
        );
    }
    // what is not a temp case any more is refused
    let again = [
        "promote",
        "tests/temp/probe-sign.test.ts",
        "tests/calc/backend/math/basic/",
    ];
    let (code, _, err) = testdeck(root, &again);
    assert_eq!(code, Some(2));
    assert!(err.contains("not a case under tests/temp/"), "{err}");
}

#[test]
fn new_refuses_a_taken_case_id_and_a_bad_path_and_writes_nothing() {
    let d = project();
    let root = d.path();
    write(root, "tests/temp/scratch-probe.test.ts", "");
    let plan_before = read(root, "doc/test-plan/calc.md");
    let cases: [(&str, &str); 8] = [
        // caseIds are unique across the whole tree (seed 000)
        (
            "tests/calc/backend/other/basic/add-numbers",
            "caseId add-numbers exists already: tests/calc/backend/math/basic/add-numbers.test.ts",
        ),
        (
            "tests/calc/backend/math/basic/scratch-probe",
            "testdeck promote tests/temp/scratch-probe.test.ts",
        ),
        ("src/calc/backend/math/x", "a new case goes under tests/"),
        ("tests/temp/x", "tests/temp/ holds temporary cases"),
        ("tests/calc/backend/x", "domain, layer and suite at least"),
        (
            "tests/calc/Backend/math/x",
            "folder \"Backend\" is not kebab-case",
        ),
        ("tests/fixtures/a/b/x", "tests/fixtures/ holds no cases"),
        (
            "tests/calc/backend/math/basic",
            "tests/calc/backend/math/basic is a folder: name the case in it",
        ),
    ];
    for (path, says) in cases {
        let (code, _, err) = testdeck(root, &["new", path]);
        assert_eq!(code, Some(2), "{path}: {err}");
        assert!(err.contains(says), "{path}: {err}");
    }
    let taken = "tests/calc/backend/math/basic/add-numbers";
    let (_, out, _) = testdeck(root, &["new", taken, "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(doc["error"]["rule"], "case-id-exists");
    assert_eq!(
        read(root, "doc/test-plan/calc.md"),
        plan_before,
        "nothing written"
    );
    assert!(!root.join("tests/calc/backend/other").exists());
    assert!(!root.join("tests/calc/Backend").exists());
}

#[test]
fn a_on_a_folder_adds_a_case_the_tree_shows_without_a_restart() {
    let d = project();
    let root = d.path();
    let cfg = scratch_dir();
    let editor = common::editor::Recording::new();
    let mut s = Session::start_with(root, cfg.path(), &editor.env());
    s.wait_text("Tests · 3");
    // the folder of add-numbers: its case found, then `h` to its folder
    s.find("add-numbers");
    s.wait_text("add-numbers");
    s.send("h");
    s.send("a");
    s.wait_text("New case in basic/:");
    s.send("mul-numbers");
    s.wait_text("New case in basic/: mul-numbers");
    s.send("\r");
    // the editor opens the plan entry at its line before the test file is written
    let got = editor.take();
    let plan = read(root, "doc/test-plan/calc.md");
    let line = plan
        .lines()
        .position(|l| l == "### mul-numbers")
        .expect("the entry written")
        + 1;
    assert!(
        got.starts_with(&format!("+{line}\ndoc/test-plan/calc.md\n")),
        "{got}"
    );
    // the watch brings the new case into the tree, selected
    s.wait_text("Tests · 4");
    s.wait_text("wrote doc/test-plan/calc.md");
    assert!(
        root.join("tests/calc/backend/math/basic/mul-numbers.test.ts")
            .is_file()
    );
    s.wait_for("the new case in the tree", |sc| {
        common::find_text(sc, "mul-numbers").is_some_and(|(row, _)| row + 1 < sc.size().0)
    });
    s.quit();
}
