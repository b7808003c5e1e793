//! The catalog's rules across fields and files (seed 001), each a located problem
//! with a stable rule name.
//!
//! Catalog: `risks-ladder`, `default-max-risk`, `authorize-risk`, `id-pattern-regex`,
//! `category-duplicate`, `run-together-id`, `run-together-overlap`, `var-unknown`,
//! `var-cycle`, `host-literal`, `host-invalid`, `authorize-in-catalog`; warnings
//! `host-remote`, `artifact-identity`.
//! Cases: `id-pattern`, `id-duplicate`, `category-mismatch`, `category-unknown`,
//! `smoke-readonly`, `gate-unknown`, `gate-readonly`, `driver-manual`,
//! `session-required`, `session-unknown`, `session-driver`, `assisted-step`,
//! `expected-missing`, `script-how`, `browser-url`, `risk-unlisted`,
//! `assume-syntax`, `assume-switch`, `var-unknown`, `host-literal`; warnings
//! `pending-notes`, `expected-driver`.

use super::{Automation, Case, Catalog, Driver, ExpectedKind, MANUAL_STEP, Pos, Risk, Tag};
use crate::problem::Problem;
use crate::workspace::host::{self, HostClass};
use crate::workspace::vars::{self, Assume, Env, VarSource, Vars};
use std::collections::HashMap;

/// Every rule of seed 001 over a loaded catalog (shape problems come from loading).
/// `env` is the process environment (HOST and switches are looked up in it).
pub fn validate(cat: &Catalog, env: Env) -> Vec<Problem> {
    let vars = Vars::resolve(cat, env);
    let mut out = Out(Vec::new());
    file_rules(cat, &mut out.0);
    catalog_rules(cat, &vars, &mut out);
    let re = id_regex(cat, &mut out);
    let mut seen: HashMap<&str, &Case> = HashMap::new();
    for c in &cat.cases {
        case_rules(cat, &vars, re.as_ref(), c, &mut out);
        if !c.id.is_empty() {
            if let Some(first) = seen.get(c.id.as_str()) {
                out.err(
                    &c.file,
                    c.at("id"),
                    "id-duplicate",
                    format!(
                        "case {}: the id is already used at {}:{}",
                        c.id, first.file, first.line
                    ),
                );
            } else {
                seen.insert(&c.id, c);
            }
        }
    }
    out.0
}

struct Out(Vec<Problem>);

impl Out {
    fn err(&mut self, file: &str, pos: Pos, rule: &str, msg: String) {
        self.0
            .push(Problem::error(file, rule, msg).at(pos.line, pos.column));
    }
}

fn id_regex(cat: &Catalog, out: &mut Out) -> Option<regex::Regex> {
    let p = cat.id_pattern.as_deref()?;
    // the whole id must match, whether or not the pattern is anchored
    match regex::Regex::new(&format!("^(?:{p})$")) {
        Ok(r) => Some(r),
        Err(e) => {
            out.err(
                &cat.file,
                cat.at("id_pattern"),
                "id-pattern-regex",
                format!(
                    "id_pattern {p:?} is not a valid regular expression: {}",
                    e.to_string()
                        .lines()
                        .last()
                        .unwrap_or_default()
                        .trim_start_matches("error: ")
                ),
            );
            None
        }
    }
}

fn catalog_rules(cat: &Catalog, vars: &Vars, out: &mut Out) {
    let f = cat.file.as_str();
    let parsed = cat.parsed;
    // risks: a prefix of readonly → mutating → destructive starting at readonly
    if parsed {
        let ladder = &Risk::ALL[..cat.risks.len().min(Risk::ALL.len())];
        if cat.risks.is_empty() || cat.risks != ladder {
            let got: Vec<&str> = cat.risks.iter().map(|r| r.as_str()).collect();
            out.err(
                f,
                cat.at("risks"),
                "risks-ladder",
                format!(
                    "risks [{}] must be a prefix of readonly → mutating → destructive starting at readonly",
                    got.join(", ")
                ),
            );
        }
    }
    if let Some(r) = cat.default_max_risk {
        if !cat.risks.contains(&r) {
            out.err(
                f,
                cat.at("default_max_risk"),
                "default-max-risk",
                format!("default_max_risk {r} is not one of risks"),
            );
        }
    }
    for s in &cat.authorize {
        let ok = Risk::parse(&s.key).is_some_and(|r| cat.risks.contains(&r));
        if !ok {
            out.err(
                f,
                s.pos,
                "authorize-risk",
                format!("authorize key {:?} is not one of risks", s.key),
            );
        }
    }
    let mut ids: HashMap<&str, Pos> = HashMap::new();
    for c in &cat.categories {
        if ids.insert(&c.id, c.pos).is_some() {
            out.err(
                f,
                c.pos,
                "category-duplicate",
                format!("category {} is declared twice", c.id),
            );
        }
    }
    // run_together: ids exist, each in at most one group
    let mut grouped: HashMap<&str, usize> = HashMap::new();
    for (gi, g) in cat.run_together.iter().enumerate() {
        for (id, pos) in g.ids.iter().zip(&g.id_pos) {
            if cat.case(id).is_none() {
                out.err(
                    f,
                    *pos,
                    "run-together-id",
                    format!("run_together[{gi}]: no case has id {id}"),
                );
            }
            if let Some(other) = grouped.insert(id, gi) {
                out.err(
                    f,
                    *pos,
                    "run-together-overlap",
                    format!("run_together[{gi}]: {id} is already in run_together[{other}]"),
                );
            }
        }
    }
    // vars of catalog.yaml and local.yaml: references, cycles, URLs built from HOST
    let derived = |n: &str| vars.host_derived(n);
    let local = cat.local.as_ref();
    let defs = cat.vars.iter().map(|v| (f, v)).chain(
        local
            .into_iter()
            .flat_map(|l| l.values.iter().map(move |v| (l.file.as_str(), v))),
    );
    for (file, v) in defs {
        for name in vars.expand(&v.value).unknown {
            out.err(
                file,
                v.pos,
                "var-unknown",
                format!("{}: ${{{name}}} is not a var", v.name),
            );
        }
        if vars.too_long.contains(&v.name) {
            out.err(
                file,
                v.pos,
                "var-too-long",
                format!(
                    "{}: its expanded value would pass {} bytes; the references that would pass it stay as written",
                    v.name,
                    vars::MAX_EXPANDED
                ),
            );
        }
        if vars.over_budget.contains(&v.name) {
            out.err(
                file,
                v.pos,
                "var-budget-exceeded",
                format!(
                    "{}: all vars together would pass {} bytes when expanded; the references past it stay as written",
                    v.name,
                    vars::MAX_TOTAL_EXPANDED
                ),
            );
        }
        if vars.cycles.contains(&v.name) {
            out.err(
                file,
                v.pos,
                "var-cycle",
                format!("{}: its value refers back to itself", v.name),
            );
        }
        if v.name != vars::HOST {
            for l in vars::literal_hosts(&v.value, &derived) {
                out.err(
                    file,
                    v.pos,
                    "host-literal",
                    format!(
                        "{}: literal host in {:?}; a URL must be built from ${{HOST}} or a var derived from it",
                        v.name, l.url
                    ),
                );
            }
        }
    }
    // probes
    let probes = cat
        .status_probe
        .iter()
        .chain(cat.categories.iter().filter_map(|c| match &c.status_probe {
            super::ProbeSetting::Set(p) => Some(p),
            _ => None,
        }));
    for p in probes {
        if p.url.is_empty() {
            continue;
        }
        url_rules(vars, &p.file, p.pos, "status_probe.url", &p.url, out);
    }
    // sessions: every text field is expanded; url fields must be built from HOST
    for s in &cat.sessions {
        for (k, v) in &s.fields {
            let Some(text) = v.as_str() else { continue };
            let pos = s.locs.get(k).copied().unwrap_or(s.pos);
            let what = format!("sessions.{}.{k}", s.name);
            let is_url_key = k == "url" || k.ends_with("_url") || k.ends_with("Url");
            if is_url_key {
                url_rules(vars, f, pos, &what, text, out);
            } else {
                unknown_vars(vars, f, pos, &what, text, out);
                literal_rules(vars, f, pos, &what, text, out);
            }
        }
    }
    // the mobile identity contract: a required artifact names its app
    for (platform, a, id_key) in [
        ("android", cat.artifacts.android.as_ref(), "package"),
        ("ios", cat.artifacts.ios.as_ref(), "bundle_id"),
    ] {
        let Some(a) = a else { continue };
        let id = if platform == "android" {
            &a.package
        } else {
            &a.bundle_id
        };
        if a.required && id.as_deref().is_none_or(str::is_empty) {
            let pos = cat.at("artifacts");
            out.0.push(
                Problem::warning(
                    f,
                    "artifact-identity",
                    format!("artifacts.{platform} is required but names no {id_key}"),
                )
                .at(pos.line, pos.column),
            );
        }
    }
    host_rules(cat, vars, out);
    authorize_in_catalog(cat, out);
}

/// HOST must be `host[:port]` (`host-invalid`, an error); one that is not this
/// machine is allowed, and worth a warning (`host-remote`).
fn host_rules(cat: &Catalog, vars: &Vars, out: &mut Out) {
    let f = cat.file.as_str();
    let local = cat.local.as_ref();
    let host = vars.host();
    let (file, pos) = match vars.host_source() {
        VarSource::Local => (
            local.map_or(f, |l| l.file.as_str()),
            local
                .and_then(|l| l.get(vars::HOST))
                .map_or(Pos::default(), |v| v.pos),
        ),
        VarSource::Catalog => (
            f,
            cat.vars
                .iter()
                .find(|v| v.name == vars::HOST)
                .map_or_else(|| cat.at("vars.HOST"), |v| v.pos),
        ),
        _ => (f, Pos::default()),
    };
    match host::classify_host(host) {
        HostClass::Loopback => {}
        HostClass::Invalid(why) => out.err(
            file,
            pos,
            "host-invalid",
            format!(
                "{why} (from {}); launching treats it as a remote HOST",
                vars.host_source().as_str()
            ),
        ),
        HostClass::Remote => out.0.push(
            Problem::warning(
                file,
                "host-remote",
                format!(
                    "HOST is {host} (from {}): not this machine; nothing is sent and no case runs until the remote host is allowed (--allow-remote, or the prompt)",
                    vars.host_source().as_str()
                ),
            )
            .at(pos.line, pos.column),
        ),
    }
}

/// An authorization switch (a variable of `authorize` or `gates`) set in
/// `catalog.yaml` `vars`: a committed file cannot authorize its own cases, so
/// the value is ignored (switches come from the environment and local.yaml).
fn authorize_in_catalog(cat: &Catalog, out: &mut Out) {
    let switches: Vec<&str> = cat.switch_vars().collect();
    for v in cat
        .vars
        .iter()
        .filter(|v| switches.contains(&v.name.as_str()))
    {
        out.err(
            &cat.file,
            v.pos,
            "authorize-in-catalog",
            format!(
                "{} is an authorization switch: catalog.yaml vars cannot set it (ignored); set it in the environment or local.yaml",
                v.name
            ),
        );
    }
}

/// A URL field: unknown vars and the HOST rule.
fn url_rules(vars: &Vars, file: &str, pos: Pos, what: &str, text: &str, out: &mut Out) {
    unknown_vars(vars, file, pos, what, text, out);
    if let Some(m) = vars::url_field_problem(text, &|n| vars.host_derived(n)) {
        out.err(file, pos, "host-literal", format!("{what}: {m}"));
    }
}

/// URLs inside a text (a command, a session field) must be built from HOST.
fn literal_rules(vars: &Vars, file: &str, pos: Pos, what: &str, text: &str, out: &mut Out) {
    for l in vars::literal_hosts(text, &|n| vars.host_derived(n)) {
        out.err(
            file,
            pos,
            "host-literal",
            format!(
                "{what}: literal host in {:?}; a URL must be built from ${{HOST}} or a var derived from it",
                l.url
            ),
        );
    }
}

fn unknown_vars(vars: &Vars, file: &str, pos: Pos, what: &str, text: &str, out: &mut Out) {
    for name in vars.expand(text).unknown {
        out.err(
            file,
            pos,
            "var-unknown",
            format!("{what}: ${{{name}}} is not a var (define it in catalog.yaml vars)"),
        );
    }
}

fn case_rules(cat: &Catalog, vars: &Vars, re: Option<&regex::Regex>, c: &Case, out: &mut Out) {
    let f = c.file.as_str();
    let who = if c.id.is_empty() {
        "case".to_owned()
    } else {
        format!("case {}", c.id)
    };
    let mut warns = Vec::new();
    let mut err = |key: &str, rule: &str, msg: String| {
        out.err(f, c.at(key), rule, format!("{who}: {msg}"));
    };
    if let (Some(re), false) = (re, c.id.is_empty()) {
        if !re.is_match(&c.id) {
            err(
                "id",
                "id-pattern",
                format!(
                    "id does not match id_pattern {:?}",
                    cat.id_pattern.as_deref().unwrap_or_default()
                ),
            );
        }
    }
    // category: equals the file's, and is a category of catalog.yaml
    let file = cat.files.iter().find(|x| x.path == c.file);
    let file_cat = file.and_then(|x| x.category.as_deref());
    let stem = super::load::file_stem(&c.file);
    let matches_file =
        file_cat.map_or_else(|| c.category.to_lowercase() == stem, |fc| fc == c.category);
    if !matches_file {
        err(
            "category",
            "category-mismatch",
            format!(
                "category {} is not the file's category {}",
                c.category,
                file_cat.unwrap_or(&stem)
            ),
        );
    }
    if c.tag == Some(Tag::Smoke) && c.risk.is_some_and(|r| r != Risk::Readonly) {
        err(
            "tag",
            "smoke-readonly",
            format!(
                "tag smoke needs risk readonly, not {}",
                c.risk.map_or("", Risk::as_str)
            ),
        );
    }
    if let Some(g) = &c.gate {
        if cat.gate_var(g).is_none() {
            err(
                "gate",
                "gate-unknown",
                format!("gate {g:?} is not in catalog.yaml gates"),
            );
        }
        if c.risk == Some(Risk::Readonly) {
            err(
                "gate",
                "gate-readonly",
                "a readonly case takes no gate".to_owned(),
            );
        }
    }
    let automation = c.automation.unwrap_or(Automation::Automated);
    if automation == Automation::Manual && c.driver.is_some() {
        err(
            "driver",
            "driver-manual",
            "automation manual takes no driver".to_owned(),
        );
    }
    match (&c.driver, &c.session) {
        (Some(d @ (Driver::Browser | Driver::Mobile)), None) => err(
            "driver",
            "session-required",
            format!("driver {d} needs a session (a key of catalog.yaml sessions)"),
        ),
        (d, Some(s)) => match cat.session(s) {
            None => err(
                "session",
                "session-unknown",
                format!("session {s:?} is not in catalog.yaml sessions"),
            ),
            Some(sess) => {
                let clash = matches!(
                    (d, sess.kind),
                    (Some(Driver::Browser), Some(super::SessionKind::Mobile))
                        | (Some(Driver::Mobile), Some(super::SessionKind::Browser))
                );
                if clash {
                    err(
                        "session",
                        "session-driver",
                        format!(
                            "driver {} cannot use session {s:?} of kind {}",
                            d.map_or("", Driver::as_str),
                            sess.kind.map_or("", super::SessionKind::as_str)
                        ),
                    );
                }
            }
        },
        _ => {}
    }
    if automation == Automation::Assisted
        && !c
            .how
            .steps
            .iter()
            .any(|s| s.trim_start().starts_with(MANUAL_STEP))
    {
        err(
            if c.locs.contains_key("how.steps") {
                "how.steps"
            } else {
                "how"
            },
            "assisted-step",
            format!("automation assisted needs a how.steps entry starting with {MANUAL_STEP}"),
        );
    }
    if c.expected.is_empty() && c.locs.contains_key("expected") {
        err(
            "expected",
            "expected-missing",
            "expected needs at least one {kind, value}".to_owned(),
        );
    }
    let has_api = c.expected.iter().any(|e| {
        matches!(
            e.kind,
            Some(ExpectedKind::ApiStatus | ExpectedKind::ApiField)
        )
    });
    let how_present = c.locs.contains_key("how");
    let driver = c
        .driver
        .or((automation != Automation::Manual).then_some(Driver::Script));
    match driver {
        Some(Driver::Script) if how_present => {
            let h = &c.how;
            let ok = h.run.is_some()
                || (h.url.is_some() && has_api)
                || (h.url.is_none() && !h.steps.is_empty());
            if !ok {
                err(
                    "how",
                    "script-how",
                    "a script case needs how.run, or how.url with api-status/api-field expectations, or only how.steps".to_owned(),
                );
            } else if has_api && h.url.is_none() {
                err(
                    "how",
                    "script-how",
                    "api-status/api-field expectations need how.url".to_owned(),
                );
            }
        }
        Some(Driver::Browser) if c.how.url.is_none() => err(
            "how",
            "browser-url",
            "a browser case needs how.url".to_owned(),
        ),
        _ => {}
    }
    if c.lifecycle == Some(super::Lifecycle::Pending) && c.notes.is_empty() {
        let p = c.at("lifecycle");
        warns.push(
            Problem::warning(
                f,
                "pending-notes",
                format!("{who}: a pending case says why in notes"),
            )
            .at(p.line, p.column),
        );
    }
    if matches!(c.driver, Some(Driver::Browser | Driver::Mobile)) {
        for (i, e) in c.expected.iter().enumerate() {
            if let Some(
                k @ (ExpectedKind::ApiStatus | ExpectedKind::ApiField | ExpectedKind::ScriptExit),
            ) = e.kind
            {
                let p = c.at(&format!("expected.{i}.kind"));
                warns.push(
                    Problem::warning(
                        f,
                        "expected-driver",
                        format!(
                            "{who}: a {} case is judged by what is seen (visible-text, url, interaction), not {k}",
                            c.driver.map_or("", Driver::as_str)
                        ),
                    )
                    .at(p.line, p.column),
                );
            }
        }
    }
    if let Some(r) = c.risk {
        if !cat.risks.is_empty() && !cat.risks.contains(&r) {
            err(
                "risk",
                "risk-unlisted",
                format!("risk {r} is not in catalog.yaml risks"),
            );
        }
    }
    if let Some(a) = &c.assume {
        match Assume::parse(a) {
            Err(m) => err("assume", "assume-syntax", format!("assume: {m}")),
            Ok(expr) => {
                let switches: Vec<&str> = cat.switch_vars().collect();
                for n in expr.names() {
                    if switches.contains(&n) {
                        err(
                            "assume",
                            "assume-switch",
                            format!(
                                "assume names {n}, an authorize/gates variable: risk and gate already decide it"
                            ),
                        );
                    }
                }
            }
        }
    }
    // ${VAR} in every expanded field, and the HOST rule
    let derived = |n: &str| vars.host_derived(n);
    let mut texts: Vec<(String, &str)> = Vec::new();
    if let Some(r) = &c.how.run {
        texts.push(("how.run".to_owned(), r));
    }
    if let Some(u) = &c.how.url {
        texts.push(("how.url".to_owned(), u));
    }
    for (i, s) in c.how.steps.iter().enumerate() {
        texts.push((format!("how.steps.{i}"), s));
    }
    let mut expected_texts = Vec::new();
    for (i, e) in c.expected.iter().enumerate() {
        collect_strings(&e.value, &mut |s| {
            expected_texts.push((i, e.kind, s.to_owned()));
        });
    }
    for (key, text) in &texts {
        for name in vars.expand(text).unknown {
            err(
                key,
                "var-unknown",
                format!("{key}: ${{{name}}} is not a var"),
            );
        }
    }
    for (i, _, text) in &expected_texts {
        let key = format!("expected.{i}.value");
        for name in vars.expand(text).unknown {
            err(
                &key,
                "var-unknown",
                format!("expected[{i}].value: ${{{name}}} is not a var"),
            );
        }
    }
    if let Some(u) = &c.how.url {
        if let Some(m) = vars::url_field_problem(u, &derived) {
            err("how.url", "host-literal", format!("how.url: {m}"));
        }
    }
    let mut literal = |key: &str, what: &str, text: &str, shell: bool| {
        let found = if shell {
            vars::literal_hosts_in_shell(text, &derived)
        } else {
            vars::literal_hosts(text, &derived)
        };
        for l in found {
            err(
                key,
                "host-literal",
                format!(
                    "{what}: literal host in {:?}; a URL must be built from ${{HOST}} or a var derived from it",
                    l.url
                ),
            );
        }
    };
    if let Some(r) = &c.how.run {
        literal("how.run", "how.run", r, true);
    }
    for (i, kind, text) in &expected_texts {
        if *kind == Some(ExpectedKind::Url) {
            literal(
                &format!("expected.{i}.value"),
                &format!("expected[{i}].value"),
                text,
                false,
            );
        }
    }
    out.0.extend(warns);
}

fn collect_strings(v: &serde_json::Value, f: &mut dyn FnMut(&str)) {
    match v {
        serde_json::Value::String(s) => f(s),
        serde_json::Value::Array(a) => a.iter().for_each(|x| collect_strings(x, f)),
        serde_json::Value::Object(o) => o.values().for_each(|x| collect_strings(x, f)),
        _ => {}
    }
}

/// Problems of the case files themselves: a file whose category is not in catalog.yaml.
fn file_rules(cat: &Catalog, out: &mut Vec<Problem>) {
    if !cat.parsed {
        return;
    }
    for file in &cat.files {
        if !file.parsed {
            continue;
        }
        let known = file
            .category
            .as_deref()
            .is_some_and(|c| cat.category(c).is_some());
        if !known {
            let msg = match &file.category {
                Some(c) => format!("category {c} is not in catalog.yaml categories"),
                None => format!(
                    "{} matches no category of catalog.yaml (the file name is the category id lowercased)",
                    file.path.rsplit('/').next().unwrap_or(&file.path)
                ),
            };
            out.push(
                Problem::error(&file.path, "category-unknown", msg)
                    .at(file.pos.line, file.pos.column),
            );
        }
    }
}

#[cfg(test)]
mod tests {
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
                &[
                    ("driver", "browser"),
                    ("expected", "[{kind: visible-text, value: ok}]"),
                    ("how", "{url: \"${WEB}/\"}"),
                ],
                "session-required",
            ),
            (
                &[
                    ("driver", "browser"),
                    ("expected", "[{kind: visible-text, value: ok}]"),
                    ("session", "nope"),
                    ("how", "{url: \"${WEB}/\"}"),
                ],
                "session-unknown",
            ),
            (
                &[
                    ("driver", "browser"),
                    ("expected", "[{kind: visible-text, value: ok}]"),
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
            (
                &[
                    ("how", "{run: x}"),
                    ("expected", "[{kind: api-status, value: 200}]"),
                ],
                "script-how",
            ),
            (
                &[
                    ("driver", "browser"),
                    ("expected", "[{kind: visible-text, value: ok}]"),
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
                &[
                    ("how", "{url: \"http://10.0.0.5/\"}"),
                    ("expected", "[{kind: api-status, value: 200}]"),
                ],
                "host-literal",
            ),
            (
                &[
                    ("how", "{url: /health}"),
                    ("expected", "[{kind: api-status, value: 200}]"),
                ],
                "host-literal",
            ),
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
            ("driver", "browser"),
            ("session", "web"),
            ("how", "{url: \"${WEB}/\"}"),
            ("expected", "[{kind: api-status, value: 200}]"),
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
}
