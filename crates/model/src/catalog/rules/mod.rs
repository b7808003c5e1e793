//! The catalog's rules across fields and files (seed 001): one function per rule,
//! run in a fixed order, each problem taking its severity from [`RULES`].
//!
//! The rules live by subject: [`fields`] (ids, categories, lifecycle), [`risk`]
//! (risks, authorization, gates, assume), [`drivers`] (drivers, sessions, how,
//! artifacts), [`run_together`], [`expected`], [`vars`] (references and expansion
//! limits) and [`host`] (HOST and the URLs built from it).

mod drivers;
mod expected;
mod fields;
mod host;
mod risk;
mod run_together;
mod vars;

#[cfg(test)]
mod tests;

use super::{Case, Catalog, Pos};
use crate::problem::{Problem, Severity};
use crate::vars::{Env, Vars};

/// Every rule name `validate` emits and how bad it is. A problem takes its
/// severity from here; a test checks the rule files emit exactly these names.
pub(crate) const RULES: &[(&str, Severity)] = &[
    // fields
    ("category-unknown", Severity::Error),
    ("category-duplicate", Severity::Error),
    ("category-mismatch", Severity::Error),
    ("id-pattern-regex", Severity::Error),
    ("id-pattern", Severity::Error),
    ("id-duplicate", Severity::Error),
    ("pending-notes", Severity::Warning),
    // risk & gates
    ("risks-ladder", Severity::Error),
    ("default-max-risk", Severity::Error),
    ("authorize-risk", Severity::Error),
    ("authorize-in-catalog", Severity::Error),
    ("smoke-readonly", Severity::Error),
    ("gate-unknown", Severity::Error),
    ("gate-readonly", Severity::Error),
    ("risk-unlisted", Severity::Error),
    ("assume-syntax", Severity::Error),
    ("assume-switch", Severity::Error),
    // drivers & sessions
    ("driver-manual", Severity::Error),
    ("session-required", Severity::Error),
    ("session-unknown", Severity::Error),
    ("session-driver", Severity::Error),
    ("assisted-step", Severity::Error),
    ("script-how", Severity::Error),
    ("browser-url", Severity::Error),
    ("artifact-identity", Severity::Warning),
    // run_together
    ("run-together-id", Severity::Error),
    ("run-together-overlap", Severity::Error),
    // expectations
    ("expected-missing", Severity::Error),
    ("expected-driver", Severity::Warning),
    // vars & HOST
    ("var-unknown", Severity::Error),
    ("var-too-long", Severity::Error),
    ("var-budget-exceeded", Severity::Error),
    ("var-cycle", Severity::Error),
    ("host-literal", Severity::Error),
    ("host-invalid", Severity::Error),
    ("host-remote", Severity::Warning),
];

/// The severity of a rule of [`RULES`].
pub fn severity(rule: &str) -> Severity {
    let found = RULES.iter().find(|(name, _)| *name == rule);
    debug_assert!(found.is_some(), "rule {rule} is not in RULES");
    found.map_or(Severity::Error, |(_, s)| *s)
}

/// The rules over the catalog as a whole, in the order they run.
const CATALOG_RULES: &[fn(&Cx, &mut Out)] = &[
    fields::category_unknown,
    risk::risks_ladder,
    risk::default_max_risk,
    risk::authorize_risk,
    fields::category_duplicate,
    run_together::run_together_id,
    run_together::run_together_overlap,
    vars::var_unknown,
    vars::var_too_long,
    vars::var_budget_exceeded,
    vars::var_cycle,
    host::host_literal,
    drivers::artifact_identity,
    host::host_invalid,
    host::host_remote,
    risk::authorize_in_catalog,
    fields::id_pattern_regex,
];

/// The rules over one case, in the order they run.
const CASE_RULES: &[fn(&Cx, &Case, &mut CaseOut)] = &[
    fields::id_pattern,
    fields::category_mismatch,
    risk::smoke_readonly,
    risk::gate_unknown,
    risk::gate_readonly,
    drivers::driver_manual,
    drivers::session_required,
    drivers::session_unknown,
    drivers::session_driver,
    drivers::assisted_step,
    expected::expected_missing,
    drivers::script_how,
    drivers::browser_url,
    fields::pending_notes,
    expected::expected_driver,
    risk::risk_unlisted,
    risk::assume_syntax,
    risk::assume_switch,
    vars::case_var_unknown,
    host::case_host_literal,
];

/// The rules across cases, after every case has run.
const CROSS_CASE_RULES: &[fn(&Cx, &mut Out)] = &[fields::id_duplicate];

/// Every rule of seed 001 over a loaded catalog (shape problems come from loading).
/// `env` is the process environment (HOST and switches are looked up in it).
pub fn validate(cat: &Catalog, env: Env) -> Vec<Problem> {
    let vars = Vars::resolve(cat, env);
    let cx = Cx {
        cat,
        vars: &vars,
        id_re: fields::id_regex(cat),
    };
    let mut out = Out(Vec::new());
    for rule in CATALOG_RULES {
        rule(&cx, &mut out);
    }
    for c in &cat.cases {
        let mut case_out = CaseOut::new(c);
        for rule in CASE_RULES {
            rule(&cx, c, &mut case_out);
        }
        case_out.flush(&mut out);
    }
    for rule in CROSS_CASE_RULES {
        rule(&cx, &mut out);
    }
    out.0
}

/// What every rule reads: the catalog, its resolved vars, the compiled id pattern.
struct Cx<'a> {
    cat: &'a Catalog,
    vars: &'a Vars,
    /// `id_pattern` anchored and compiled; `Some(Err)` when it does not compile.
    id_re: Option<Result<regex::Regex, String>>,
}

impl Cx<'_> {
    /// Whether a var is built from HOST (the literal-host rules accept it).
    fn derived(&self, name: &str) -> bool {
        self.vars.host_derived(name)
    }
}

/// The problems found so far.
struct Out(Vec<Problem>);

impl Out {
    fn emit(&mut self, file: &str, pos: Pos, rule: &str, msg: String) {
        let p = match severity(rule) {
            Severity::Error => Problem::error(file, rule, msg),
            Severity::Warning => Problem::warning(file, rule, msg),
        };
        self.0.push(p.at(pos.line, pos.column));
    }
}

/// The problems of one case: placed at one of its keys, named `case ID: …`;
/// its warnings follow its errors.
struct CaseOut<'c> {
    case: &'c Case,
    who: String,
    errors: Out,
    warnings: Out,
}

impl<'c> CaseOut<'c> {
    fn new(case: &'c Case) -> Self {
        let who = if case.id.is_empty() {
            "case".to_owned()
        } else {
            format!("case {}", case.id)
        };
        CaseOut {
            case,
            who,
            errors: Out(Vec::new()),
            warnings: Out(Vec::new()),
        }
    }

    /// A problem at the case's `key`.
    fn emit(&mut self, key: &str, rule: &str, msg: impl std::fmt::Display) {
        let to = match severity(rule) {
            Severity::Error => &mut self.errors,
            Severity::Warning => &mut self.warnings,
        };
        to.emit(
            &self.case.file,
            self.case.at(key),
            rule,
            format!("{}: {msg}", self.who),
        );
    }

    /// `rule` at the case's `key` when it names something catalog.yaml `list`
    /// does not hold (`known` says whether it does).
    fn unknown(
        &mut self,
        key: &str,
        rule: &str,
        name: Option<&str>,
        known: impl FnOnce(&str) -> bool,
        list: &str,
    ) {
        if let Some(name) = name.filter(|n| !known(n)) {
            self.emit(
                key,
                rule,
                format!("{key} {name:?} is not in catalog.yaml {list}"),
            );
        }
    }

    fn flush(self, out: &mut Out) {
        out.0.extend(self.errors.0);
        out.0.extend(self.warnings.0);
    }
}

/// How the HOST rule reads a text that vars expand in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scan {
    /// Not at all (HOST itself, how.steps, an expected value that is not a URL).
    Skip,
    /// Every `scheme://host` in it must be built from HOST.
    Text,
    /// As `Text`, the shell's own `$HOST` counting too (how.run).
    Shell,
    /// A URL field: built from HOST as a whole.
    Url,
}

/// A text of catalog.yaml or local.yaml that vars expand in: a var's value, a
/// status probe URL, a session field.
struct Site<'a> {
    file: &'a str,
    pos: Pos,
    /// How problems name it: the var's name, `status_probe.url`, `sessions.web.url`.
    what: String,
    text: &'a str,
    /// A var's own value (its problems are worded shorter).
    var: bool,
    scan: Scan,
}

/// Every var definition, of catalog.yaml then local.yaml, with its file.
fn var_defs(cat: &Catalog) -> impl Iterator<Item = (&str, &super::Var)> {
    let local = cat.local.as_ref();
    cat.vars.iter().map(|v| (cat.file.as_str(), v)).chain(
        local
            .into_iter()
            .flat_map(|l| l.values.iter().map(move |v| (l.file.as_str(), v))),
    )
}

/// Every text of the catalog that vars expand in: vars, probes, session fields.
fn catalog_sites(cat: &Catalog) -> Vec<Site<'_>> {
    let mut out: Vec<Site> = var_defs(cat)
        .map(|(file, v)| Site {
            file,
            pos: v.pos,
            what: v.name.clone(),
            text: &v.value,
            var: true,
            scan: if v.name == crate::vars::HOST {
                Scan::Skip
            } else {
                Scan::Text
            },
        })
        .collect();
    let probes = cat
        .status_probe
        .iter()
        .chain(cat.categories.iter().filter_map(|c| match &c.status_probe {
            super::ProbeSetting::Set(p) => Some(p),
            _ => None,
        }));
    for p in probes.filter(|p| !p.url.is_empty()) {
        out.push(Site {
            file: &p.file,
            pos: p.pos,
            what: "status_probe.url".to_owned(),
            text: &p.url,
            var: false,
            scan: Scan::Url,
        });
    }
    // every text field of a session is expanded; url fields must be built from HOST
    for s in &cat.sessions {
        for (k, v) in &s.fields {
            let Some(text) = v.as_str() else { continue };
            let is_url_key = k == "url" || k.ends_with("_url") || k.ends_with("Url");
            out.push(Site {
                file: &cat.file,
                pos: s.locs.get(k).copied().unwrap_or(s.pos),
                what: format!("sessions.{}.{k}", s.name),
                text,
                var: false,
                scan: if is_url_key { Scan::Url } else { Scan::Text },
            });
        }
    }
    out
}

/// A text of a case that vars expand in.
struct CaseSite {
    /// The key its problems are placed at (`how.run`, `expected.0.value`).
    key: String,
    /// How its problems name it (`how.run`, `expected[0].value`).
    what: String,
    text: String,
    scan: Scan,
}

/// Every text of a case that vars expand in: how.run, how.url, how.steps, and
/// every string inside an expected value.
fn case_sites(c: &Case) -> Vec<CaseSite> {
    let mut out = Vec::new();
    let mut how = |key: String, text: &str, scan| {
        out.push(CaseSite {
            what: key.clone(),
            key,
            text: text.to_owned(),
            scan,
        });
    };
    if let Some(r) = &c.how.run {
        how("how.run".to_owned(), r, Scan::Shell);
    }
    if let Some(u) = &c.how.url {
        how("how.url".to_owned(), u, Scan::Url);
    }
    for (i, s) in c.how.steps.iter().enumerate() {
        how(format!("how.steps.{i}"), s, Scan::Skip);
    }
    for (i, e) in c.expected.iter().enumerate() {
        let scan = if e.kind == Some(super::ExpectedKind::Url) {
            Scan::Text
        } else {
            Scan::Skip
        };
        collect_strings(&e.value, &mut |s| {
            out.push(CaseSite {
                key: format!("expected.{i}.value"),
                what: format!("expected[{i}].value"),
                text: s.to_owned(),
                scan,
            });
        });
    }
    out
}

fn collect_strings(v: &serde_json::Value, f: &mut dyn FnMut(&str)) {
    match v {
        serde_json::Value::String(s) => f(s),
        serde_json::Value::Array(a) => a.iter().for_each(|x| collect_strings(x, f)),
        serde_json::Value::Object(o) => o.values().for_each(|x| collect_strings(x, f)),
        _ => {}
    }
}
