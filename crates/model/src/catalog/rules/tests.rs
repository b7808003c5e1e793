//! The rules, each made to fire on the smallest catalog that breaks it.
#![allow(
    clippy::too_many_lines,
    reason = "a test reads as one story, set up, act, check, top to bottom"
)]

use super::super::from_texts;
use super::*;

const CATALOG: &str = r#"
categories:
  - {id: API, title: Api}
  - {id: WEB, title: Web, status_probe: {url: "${WEB}/status"}}
risks: [readonly, mutating, destructive]
default_max_risk: mutating
vars:
  API: http://${HOST}:8095
  WEB: http://${HOST}:3000
authorize: {mutating: ALLOW_MUT, destructive: ALLOW_DES}
gates: {billing: ALLOW_BILLING}
sessions:
  web: {kind: browser, reuse: run, url: "${WEB}/login"}
  phone: {kind: mobile, reuse: persist}
id_pattern: "TC-[0-9]{3}"
run_together:
  - ids: [TC-001, TC-002]
"#;

/// A valid case as `key: value` lines; `with` replaces or adds keys (an empty
/// value removes the key).
fn case(with: &[(&str, &str)]) -> String {
    let mut fields: Vec<(String, String)> = [
        ("id", "TC-001"),
        ("category", "API"),
        ("title", "T"),
        ("what", "W"),
        ("lifecycle", "active"),
        ("tag", "full"),
        ("risk", "readonly"),
        ("driver", "script"),
        ("how", "{run: \"curl ${API}/x\"}"),
        ("expected", "[{kind: script-exit, value: 0}]"),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
    .collect();
    for (k, v) in with {
        fields.retain(|(fk, _)| fk != k);
        if !v.is_empty() {
            fields.push(((*k).to_owned(), (*v).to_owned()));
        }
    }
    let mut out = String::from("cases:\n");
    for (i, (k, v)) in fields.iter().enumerate() {
        out.push_str(if i == 0 { "  - " } else { "    " });
        out.push_str(k);
        out.push_str(": ");
        out.push_str(v);
        out.push('\n');
    }
    out
}

fn problems(catalog: &str, files: &[(&str, &str)]) -> Vec<Problem> {
    let mut p = Vec::new();
    let files: Vec<(&str, Option<&str>)> = files.iter().map(|(f, t)| (*f, Some(*t))).collect();
    let cat = from_texts(catalog, None, &files, &mut p);
    p.extend(validate(&cat, &|_| None));
    p
}

fn rules(catalog: &str, files: &[(&str, &str)]) -> Vec<String> {
    problems(catalog, files)
        .into_iter()
        .map(|p| p.rule)
        .collect()
}

const API: &str = ".pouch/tester/cases/api.yaml";

/// The case under test (TC-003 unless `with` changes it) after TC-001 and TC-002.
fn one(with: &[(&str, &str)]) -> Vec<String> {
    let mut w = vec![("id", "TC-003")];
    w.extend_from_slice(with);
    let text = format!(
        "{}{}{}",
        case(&[]),
        case(&[("id", "TC-002")]).trim_start_matches("cases:\n"),
        case(&w).trim_start_matches("cases:\n")
    );
    rules(CATALOG, &[(API, &text)])
}

/// A browser-driven case (it still needs a session and a URL).
const BROWSER: (&str, &str) = ("driver", "browser");
/// A browser case's expectation.
const SEES_OK: (&str, &str) = ("expected", "[{kind: visible-text, value: ok}]");
/// An HTTP call's expectation.
const STATUS_200: (&str, &str) = ("expected", "[{kind: api-status, value: 200}]");

#[test]
fn the_base_case_is_clean() {
    assert_eq!(one(&[]), Vec::<String>::new());
}

#[test]
fn case_rules_each_fire() {
    let cases: &[(&[(&str, &str)], &str)] = &[
        (&[("id", "X-1")], "id-pattern"),
        (&[("id", "TC-002")], "id-duplicate"),
        (&[("category", "WEB")], "category-mismatch"),
        (&[("tag", "smoke"), ("risk", "mutating")], "smoke-readonly"),
        (&[("gate", "nope"), ("risk", "mutating")], "gate-unknown"),
        (&[("gate", "billing")], "gate-readonly"),
        (
            &[("automation", "manual"), ("how", "{steps: [a]}")],
            "driver-manual",
        ),
        (
            &[BROWSER, SEES_OK, ("how", "{url: \"${WEB}/\"}")],
            "session-required",
        ),
        (
            &[
                BROWSER,
                SEES_OK,
                ("session", "nope"),
                ("how", "{url: \"${WEB}/\"}"),
            ],
            "session-unknown",
        ),
        (
            &[
                BROWSER,
                SEES_OK,
                ("session", "phone"),
                ("how", "{url: \"${WEB}/\"}"),
            ],
            "session-driver",
        ),
        (
            &[
                ("automation", "assisted"),
                ("how", "{run: x, steps: [do it]}"),
            ],
            "assisted-step",
        ),
        (&[("expected", "[]")], "expected-missing"),
        (&[("how", "{url: \"${API}/x\"}")], "script-how"),
        (&[("how", "{}")], "script-how"),
        (&[("how", "{run: x}"), STATUS_200], "script-how"),
        (
            &[
                BROWSER,
                SEES_OK,
                ("session", "web"),
                ("how", "{steps: [a]}"),
            ],
            "browser-url",
        ),
        (&[("assume", "\"A ||B\"")], "assume-syntax"),
        (&[("assume", "ALLOW_MUT")], "assume-switch"),
        (&[("assume", "X && !ALLOW_BILLING")], "assume-switch"),
        (&[("how", "{run: \"echo ${NOPE}\"}")], "var-unknown"),
        (&[("how", "{steps: [\"open ${NOPE}\"]}")], "var-unknown"),
        (
            &[("expected", "[{kind: visible-text, value: \"${NOPE}\"}]")],
            "var-unknown",
        ),
        (
            &[("how", "{run: \"curl http://localhost:8080/x\"}")],
            "host-literal",
        ),
        (
            &[("how", "{url: \"http://10.0.0.5/\"}"), STATUS_200],
            "host-literal",
        ),
        (&[("how", "{url: /health}"), STATUS_200], "host-literal"),
        (
            &[(
                "expected",
                "[{kind: url, value: \"https://example.com/x\"}]",
            )],
            "host-literal",
        ),
        (&[("lifecycle", "maybe")], "lifecycle-value"),
        (&[("tag", "quick")], "tag-value"),
        (&[("risk", "scary")], "risk-value"),
        (&[("driver", "robot")], "driver-value"),
        (&[("automation", "sometimes")], "automation-value"),
        (
            &[("expected", "[{kind: smell, value: 1}]")],
            "expected-kind",
        ),
        (&[("what", "")], "field-missing"),
        (&[("title", "[a, b]")], "yaml-type"),
        (&[("how", "{run: x, timeout: soon}")], "yaml-type"),
        (
            &[("how", "{run: x, timeout: 9223372036854775807}")],
            "timeout-out-of-range",
        ),
        (
            &[("how", "{run: x, timeout: 86401}")],
            "timeout-out-of-range",
        ),
    ];
    for (with, rule) in cases {
        let got = one(with);
        assert_eq!(got, vec![(*rule).to_owned()], "{with:?}");
    }
}

#[test]
fn warnings_of_the_seed_guidance() {
    assert_eq!(one(&[("lifecycle", "pending")]), ["pending-notes"]);
    assert!(one(&[("lifecycle", "pending"), ("notes", "waits for X")]).is_empty());
    let browser_api = one(&[
        BROWSER,
        ("session", "web"),
        ("how", "{url: \"${WEB}/\"}"),
        STATUS_200,
    ]);
    assert_eq!(browser_api, ["expected-driver"]);
    let cat = CATALOG.replace(
        "id_pattern:",
        "artifacts: {android: {required: true}, ios: {required: true, bundle_id: a.b}}\nid_pattern:",
    );
    let got = problems(&cat, &[]);
    let w: Vec<_> = got
        .iter()
        .filter(|p| p.rule == "artifact-identity")
        .collect();
    assert_eq!(w.len(), 1, "{got:?}");
    assert!(!w[0].is_error() && w[0].message.contains("android"));
}

#[test]
fn script_how_accepts_each_form() {
    assert!(one(&[("how", "{run: x}")]).is_empty());
    assert!(one(&[("how", "{steps: [a person does it]}")]).is_empty());
    assert!(
        one(&[
            ("how", "{url: \"${API}/h\"}"),
            (
                "expected",
                "[{kind: api-field, value: {path: a, equals: 1}}]"
            )
        ])
        .is_empty()
    );
    // manual: steps only, no driver
    assert!(
        one(&[
            ("automation", "manual"),
            ("driver", ""),
            ("how", "{steps: [a]}")
        ])
        .is_empty()
    );
}

#[test]
fn risk_must_be_on_the_ladder() {
    let short = CATALOG
        .replace(
            "risks: [readonly, mutating, destructive]",
            "risks: [readonly, mutating]",
        )
        .replace(", destructive: ALLOW_DES", "");
    let c = case(&[("risk", "destructive")]);
    let two = case(&[("id", "TC-002")]);
    let text = format!("{c}{}", two.trim_start_matches("cases:\n"));
    assert_eq!(rules(&short, &[(API, &text)]), ["risk-unlisted"]);
}

#[test]
fn catalog_rules_each_fire() {
    let base = case(&[]);
    let two = case(&[("id", "TC-002")]);
    let text = format!("{base}{}", two.trim_start_matches("cases:\n"));
    let cases: &[(&str, &str, &str)] = &[
        (
            "risks: [readonly, mutating, destructive]",
            "risks: [mutating, destructive]",
            "risks-ladder",
        ),
        (
            "risks: [readonly, mutating, destructive]",
            "risks: [readonly, destructive]",
            "risks-ladder",
        ),
        (
            "default_max_risk: mutating",
            "default_max_risk: scary",
            "risk-value",
        ),
        (
            "gates: {billing: ALLOW_BILLING}",
            "gates: {billing: ALLOW_BILLING}\nauthorize2: x",
            "",
        ),
        (
            "authorize: {mutating: ALLOW_MUT, destructive: ALLOW_DES}",
            "authorize: {mutating: ALLOW_MUT, destructive: ALLOW_DES, risky: R}",
            "authorize-risk",
        ),
        (
            "id_pattern: \"TC-[0-9]{3}\"",
            "id_pattern: \"TC-[0-9\"",
            "id-pattern-regex",
        ),
        (
            "  - ids: [TC-001, TC-002]",
            "  - ids: [TC-001, TC-009]",
            "run-together-id",
        ),
        (
            "  - ids: [TC-001, TC-002]",
            "  - ids: [TC-001, TC-002]\n  - ids: [TC-002]",
            "run-together-overlap",
        ),
        (
            "  WEB: http://${HOST}:3000",
            "  WEB: http://${HOST}:3000\n  DOCS: https://example.com",
            "host-literal",
        ),
        (
            "  WEB: http://${HOST}:3000",
            "  WEB: http://${HOST}:3000\n  X: \"${Y}\"",
            "var-unknown",
        ),
        (
            "  WEB: http://${HOST}:3000",
            "  WEB: http://${HOST}:3000\n  A: \"${B}\"\n  B: \"${A}\"",
            "var-cycle",
        ),
        (
            "  - {id: WEB, title: Web, status_probe: {url: \"${WEB}/status\"}}",
            "  - {id: WEB, title: Web, status_probe: {url: \"http://127.0.0.1:3000/\"}}",
            "host-literal",
        ),
        (
            "  web: {kind: browser, reuse: run, url: \"${WEB}/login\"}",
            "  web: {kind: browser, reuse: run, url: \"http://localhost/\"}",
            "host-literal",
        ),
        (
            "  web: {kind: browser, reuse: run, url: \"${WEB}/login\"}",
            "  web: {kind: tablet, reuse: run, url: \"${WEB}/login\"}",
            "session-kind",
        ),
        (
            "  web: {kind: browser, reuse: run, url: \"${WEB}/login\"}",
            "  web: {kind: browser, reuse: always, url: \"${WEB}/login\"}",
            "session-reuse",
        ),
        (
            "  - {id: API, title: Api}",
            "  - {id: API, title: Api}\n  - {id: API, title: Again}",
            "category-duplicate",
        ),
        (
            "  - {id: API, title: Api}",
            "  - {id: API, title: Api, status_probe: 3}",
            "yaml-type",
        ),
    ];
    for (from, to, rule) in cases {
        assert!(CATALOG.contains(from), "{from}");
        let got = rules(&CATALOG.replace(from, to), &[(API, &text)]);
        if rule.is_empty() {
            assert!(got.is_empty(), "{to}: {got:?}");
        } else {
            // a broken ladder also breaks what refers to it; the rule must be there
            assert!(got.iter().any(|g| g == rule), "{to}: {got:?}");
        }
    }
}

#[test]
fn file_category_rules() {
    let text = case(&[("category", "OPS")]);
    let got = problems(CATALOG, &[(".pouch/tester/cases/ops.yaml", &text)]);
    let rules: Vec<&str> = got.iter().map(|p| p.rule.as_str()).collect();
    assert!(rules.contains(&"category-unknown"), "{got:?}");
    let declared = format!("category: NOPE\n{}", case(&[("category", "NOPE")]));
    let got = problems(CATALOG, &[(API, &declared)]);
    let p = got
        .iter()
        .find(|p| p.rule == "category-unknown")
        .expect("reported");
    assert_eq!((p.line, p.column), (Some(1), Some(11)));
}

#[test]
fn remote_host_is_a_warning() {
    let mut p = Vec::new();
    let cat = from_texts(CATALOG, Some("HOST: 10.1.2.3\n"), &[], &mut p);
    let got = validate(&cat, &|_| None);
    let w = got
        .iter()
        .find(|p| p.rule == "host-remote")
        .expect("warned");
    assert!(!w.is_error());
    assert_eq!(w.file, ".pouch/tester/local.yaml");
    let got = validate(&cat, &|n| (n == "HOST").then(|| "127.0.0.1".to_owned()));
    assert!(!got.iter().any(|p| p.rule == "host-remote"));
}

/// The rule files as text: every rule name they emit is written there as a literal.
const SOURCES: &[&str] = &[
    include_str!("drivers.rs"),
    include_str!("expected.rs"),
    include_str!("fields.rs"),
    include_str!("host.rs"),
    include_str!("risk.rs"),
    include_str!("run_together.rs"),
    include_str!("vars.rs"),
];

#[test]
fn the_severity_table_names_exactly_the_rules_emitted() {
    let lit = regex::Regex::new(r#""([a-z]+(?:-[a-z]+)+)""#).expect("regex");
    let emitted: std::collections::BTreeSet<&str> = SOURCES
        .iter()
        .flat_map(|s| lit.captures_iter(s).filter_map(|c| c.get(1)))
        .map(|m| m.as_str())
        .collect();
    let table: std::collections::BTreeSet<&str> = RULES.iter().map(|(n, _)| *n).collect();
    assert_eq!(table.len(), RULES.len(), "a rule is in RULES twice");
    assert_eq!(emitted, table);
}
