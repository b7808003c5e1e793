use super::*;
use crate::catalog::Automation;

const CAT: &str = r"
categories:
  - {id: A, title: Inherits}
  - {id: B, title: Off, status_probe: false}
  - id: C
    title: Replaces
    status_probe: {url: 'http://${HOST}:1/c', stop_if: {mode: [x, 2]}}
risks: [readonly]
status_probe:
  url: http://${HOST}:9/health
  stop_if: {status: maintenance}
execution: {cli: grok, tier: standard, host: box1}
agent: {cli: codex, model: null, reasoningEffort: high}
";

fn load(cat: &str, local: Option<&str>, files: &[(&str, &str)]) -> (Catalog, Vec<Problem>) {
    let mut p = Vec::new();
    let files: Vec<(&str, Option<&str>)> = files.iter().map(|(f, t)| (*f, Some(*t))).collect();
    let c = from_texts(cat, local, &files, &mut p);
    (c, p)
}

#[test]
fn status_probe_inherit_off_replace() {
    let (c, p) = load(CAT, None, &[]);
    assert_eq!(p.iter().filter(|p| p.is_error()).count(), 0, "{p:?}");
    let a = c.effective_probe("A").expect("inherits");
    assert_eq!(a.url, "http://${HOST}:9/health");
    assert_eq!(a.stop_if[0].field, "status");
    assert_eq!(a.stop_if[0].values, vec![Value::from("maintenance")]);
    assert!(c.effective_probe("B").is_none());
    let cc = c.effective_probe("C").expect("replaced");
    assert_eq!(cc.url, "http://${HOST}:1/c");
    assert_eq!(cc.stop_if[0].values, vec![Value::from("x"), Value::from(2)]);
    assert_eq!(cc.pos.line, 7);
}

#[test]
fn agent_merges_execution_catalog_and_local() {
    let (c, p) = load(
        CAT,
        Some("HOST: 127.0.0.1\nagent: {tier: strong, path: /x}\n"),
        &[],
    );
    assert!(
        p.iter()
            .any(|p| p.rule == "execution-legacy" && !p.is_error())
    );
    assert_eq!(c.agent.field("cli"), Some("codex"));
    assert_eq!(c.agent.field("tier"), Some("strong"));
    assert_eq!(c.agent.field("host"), Some("box1"));
    assert_eq!(c.agent.field("path"), Some("/x"));
    assert_eq!(c.agent.field("model"), None);
    assert_eq!(c.agent.field("reasoningEffort"), Some("high"));
    assert_eq!(c.agent_sources["tier"], "local");
    assert_eq!(c.agent_sources["host"], "execution");
    assert_eq!(c.agent_sources["cli"], "catalog");
    let l = c.local.expect("local");
    assert_eq!(l.get("HOST").map(|v| v.value.as_str()), Some("127.0.0.1"));
}

#[test]
fn agent_json_is_the_seed_fields_in_order_then_the_others() {
    let (c, _) = load(
        CAT,
        Some("HOST: 127.0.0.1\nagent: {tier: strong, team: qa}\n"),
        &[],
    );
    let json = serde_json::to_string(&c.agent).expect("json");
    assert_eq!(
        json,
        concat!(
            r#"{"environment":null,"host":"box1","project":null,"path":null,"#,
            r#""role":null,"cli":"codex","tier":"strong","model":null,"#,
            r#""reasoningEffort":"high","permissionMode":null,"team":"qa"}"#
        )
    );
}

#[test]
fn one_bad_case_does_not_hide_the_others() {
    let file = "cases:\n  - id: X1\n    title: [not, text]\n  - 7\n  - id: X2\n    title: fine\n    unknown_field: {a: 1}\n";
    let (c, p) = load(CAT, None, &[(".pouch/tester/cases/a.yaml", file)]);
    let ids: Vec<&str> = c.cases.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["X1", "X2"]);
    assert_eq!(
        c.cases[1].extra["unknown_field"],
        serde_json::json!({"a": 1})
    );
    assert_eq!(c.cases[1].category, "A");
    let ty: Vec<_> = p
        .iter()
        .filter(|p| p.rule == "yaml-type")
        .map(|p| (p.line, p.column))
        .collect();
    assert_eq!(ty, [(Some(3), Some(12)), (Some(4), Some(5))]);
}

#[test]
fn a_broken_file_does_not_hide_other_files() {
    let good = "cases:\n  - {id: G1, title: ok}\n";
    let (c, p) = load(
        CAT,
        None,
        &[
            (".pouch/tester/cases/a.yaml", "cases:\n  - {id: [\n"),
            (".pouch/tester/cases/c.yaml", good),
        ],
    );
    assert_eq!(c.cases.len(), 1);
    assert_eq!(c.cases[0].id, "G1");
    let s = p.iter().find(|p| p.rule == "yaml-syntax").expect("syntax");
    assert_eq!(s.file, ".pouch/tester/cases/a.yaml");
    assert!(s.line.is_some());
    assert!(!c.files[0].parsed && c.files[1].parsed);
}

#[test]
fn files_load_in_category_order_and_declare_categories() {
    let (c, _) = load(
        CAT,
        None,
        &[
            (".pouch/tester/cases/a.yaml", "cases: [{id: A1}]"),
            (".pouch/tester/cases/b.yaml", "cases: [{id: B1}]"),
            (
                ".pouch/tester/cases/zz.yaml",
                "category: C\ncases: [{id: C1}]",
            ),
        ],
    );
    // zz.yaml declares C: its cases keep file order after the known files
    let ids: Vec<&str> = c.cases.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["A1", "B1", "C1"]);
    assert_eq!(c.cases[2].category, "C");
    assert!(c.files[2].declared);
}

#[test]
fn defaults_and_case_places() {
    let file =
        "cases:\n  - id: D1\n    how:\n      steps: a\n    expected: {kind: url, value: x}\n";
    let (c, _) = load(CAT, None, &[(".pouch/tester/cases/a.yaml", file)]);
    let k = &c.cases[0];
    assert_eq!(k.how.timeout, 60);
    assert_eq!(k.how.method(), "GET");
    assert_eq!(k.how.steps, ["a"]);
    assert_eq!(k.automation, Some(Automation::Automated));
    assert_eq!(k.expected.len(), 1);
    assert_eq!((k.pos.line, k.pos.column), (2, 5));
    assert_eq!(k.at("how.steps"), Pos::new(4, 14));
    assert_eq!(k.at("expected.0.kind"), Pos::new(5, 22));
}
