//! HOST and `${VAR}` resolution: process environment > local.yaml > catalog vars
//! (authorization switches: process environment > local.yaml only), and `${NAME}`
//! expansion. The `assume` grammar is in `assume.rs`; where URLs get their host
//! (the literal-host scan) is in `host.rs`.
//!
//! The process environment is passed in (an [`Env`]), so tests never touch the real one
//! (the store's `vars::process_env` is the real one).

use super::catalog::Catalog;
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;

/// A lookup into an environment: `name → value`.
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The only accepted test-service address, and its default.
pub const HOST: &str = "HOST";
/// The default of `HOST`: this machine.
pub const DEFAULT_HOST: &str = "127.0.0.1";

/// Where a resolved value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VarSource {
    /// The process environment (only `HOST` and authorization switches).
    Environment,
    /// `local.yaml`.
    Local,
    /// `catalog.yaml` `vars`.
    Catalog,
    /// `HOST` = `127.0.0.1`.
    Default,
}

impl VarSource {
    /// The name shown and written in JSON (`environment`, `local`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            VarSource::Environment => "environment",
            VarSource::Local => "local",
            VarSource::Catalog => "catalog",
            VarSource::Default => "default",
        }
    }
}

/// One resolved variable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Resolved {
    /// The variable's name.
    pub name: String,
    /// As defined (before expansion).
    pub raw: String,
    /// Expanded (`${NAME}` replaced); environment values are taken literally.
    pub value: String,
    /// Where the value came from.
    pub source: VarSource,
    /// An authorization switch (a variable of `authorize` or `gates`).
    pub(crate) switch: bool,
}

/// The result of expanding a text: unknown names stay as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expanded {
    /// The text with every known `${NAME}` replaced.
    pub text: String,
    /// Names referenced but not defined, in order of appearance.
    pub(crate) unknown: Vec<String>,
    /// Names left as written because their value would take the text over
    /// [`MAX_EXPANDED`] (vars that double each other: an expansion bomb).
    pub(crate) too_long: Vec<String>,
}

/// The longest text an expansion may build; beyond it references stay as written.
pub const MAX_EXPANDED: usize = 1 << 20;

/// The most bytes all resolved values together may hold: 1500 vars of
/// [`MAX_EXPANDED`] each would otherwise take gigabytes. Past it, references
/// stay as written and the var is reported (`var-budget-exceeded`).
pub(crate) const MAX_TOTAL_EXPANDED: usize = 16 << 20;

/// The resolved variables of a catalog.
#[derive(Debug, Clone, Default)]
pub struct Vars {
    entries: Vec<Resolved>,
    index: HashMap<String, usize>,
    /// Names whose definitions refer to each other in a loop.
    pub(crate) cycles: Vec<String>,
    /// Names whose expanded value would exceed [`MAX_EXPANDED`].
    pub too_long: Vec<String>,
    /// Names left (partly) unexpanded because all values together reached
    /// [`MAX_TOTAL_EXPANDED`].
    pub(crate) over_budget: Vec<String>,
    /// Bytes of the values expanded so far.
    total: usize,
}

impl Vars {
    /// Resolve every variable: `HOST` from `env` > `local.yaml` > `catalog.yaml`
    /// `vars` > `127.0.0.1`; authorization switches from `env` > `local.yaml` only
    /// (a committed file cannot authorize its own cases: a switch in catalog `vars`
    /// is ignored here and reported by `validate` as `authorize-in-catalog`);
    /// others from `local.yaml` > `catalog.yaml` `vars`. Then expand `${NAME}`
    /// inside the values.
    pub fn resolve(cat: &Catalog, env: Env) -> Vars {
        let switches: Vec<&str> = cat.switch_vars().collect();
        let mut names: Vec<String> = vec![HOST.to_owned()];
        let mut add = |n: &str| {
            if !names.iter().any(|x| x == n) {
                names.push(n.to_owned());
            }
        };
        for v in &cat.vars {
            add(&v.name);
        }
        if let Some(l) = &cat.local {
            for v in &l.values {
                add(&v.name);
            }
        }
        for s in &switches {
            add(s);
        }
        let mut entries = Vec::new();
        for name in names {
            let switch = switches.contains(&name.as_str());
            let from_env = (name == HOST || switch)
                .then(|| env(&name))
                .flatten()
                .map(|v| (v, VarSource::Environment));
            let from_local = || {
                cat.local
                    .as_ref()
                    .and_then(|l| l.get(&name))
                    .map(|v| (v.value.clone(), VarSource::Local))
            };
            let from_catalog = || {
                cat.vars
                    .iter()
                    .find(|v| v.name == name && !switch)
                    .map(|v| (v.value.clone(), VarSource::Catalog))
            };
            let found = from_env
                .or_else(from_local)
                .or_else(from_catalog)
                .or_else(|| (name == HOST).then(|| (DEFAULT_HOST.to_owned(), VarSource::Default)));
            if let Some((raw, source)) = found {
                entries.push(Resolved {
                    value: raw.clone(),
                    name,
                    raw,
                    source,
                    switch,
                });
            }
        }
        let mut vars = Vars {
            index: entries
                .iter()
                .enumerate()
                .map(|(i, e)| (e.name.clone(), i))
                .collect(),
            entries,
            cycles: Vec::new(),
            too_long: Vec::new(),
            over_budget: Vec::new(),
            total: 0,
        };
        vars.expand_all();
        vars.find_cycles();
        vars
    }

    /// Build from plain `(name, raw value)` pairs (all from the catalog), for tests
    /// and callers without a catalog.
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Vars {
        let cat = Catalog {
            vars: pairs
                .iter()
                .map(|(n, v)| super::catalog::Var {
                    name: (*n).to_owned(),
                    value: (*v).to_owned(),
                    pos: super::catalog::Pos::default(),
                })
                .collect(),
            ..Catalog::default()
        };
        Vars::resolve(&cat, &|_| None)
    }

    /// Every name whose definition leads back to itself.
    fn find_cycles(&mut self) {
        let mut cycles = Vec::new();
        for e in &self.entries {
            if e.source == VarSource::Environment {
                continue;
            }
            let mut seen: Vec<String> = Vec::new();
            let mut todo: Vec<String> = refs(&e.raw).into_iter().map(|(_, n)| n).collect();
            while let Some(n) = todo.pop() {
                if n == e.name {
                    cycles.push(e.name.clone());
                    break;
                }
                if seen.contains(&n) {
                    continue;
                }
                if let Some(x) = self.entry(&n) {
                    if x.source != VarSource::Environment {
                        todo.extend(refs(&x.raw).into_iter().map(|(_, r)| r));
                    }
                }
                seen.push(n);
            }
        }
        self.cycles = cycles;
    }

    fn expand_all(&mut self) {
        // 0 = not done, 1 = in progress, 2 = done
        let mut state = vec![0u8; self.entries.len()];
        for i in 0..self.entries.len() {
            self.expand_one(i, &mut state);
        }
    }

    fn expand_one(&mut self, i: usize, state: &mut Vec<u8>) {
        match state[i] {
            // 1 is a loop: find_cycles reports it; the reference stays as written
            1 | 2 => return,
            _ => {}
        }
        if self.entries[i].source == VarSource::Environment {
            state[i] = 2;
            return;
        }
        state[i] = 1;
        let raw = self.entries[i].raw.clone();
        for (_, name) in refs(&raw) {
            if let Some(&j) = self.index.get(&name) {
                self.expand_one(j, state);
            }
        }
        // what is left of the total budget (the raw text itself is kept anyway)
        let left = MAX_TOTAL_EXPANDED.saturating_sub(self.total).max(raw.len());
        let limit = MAX_EXPANDED.min(left);
        let e = substitute(&raw, limit, |n| {
            let j = *self.index.get(n)?;
            // a reference still in progress is part of a loop: leave it as written
            (state[j] == 2).then(|| self.entries[j].value.as_str())
        });
        if !e.too_long.is_empty() {
            if limit < MAX_EXPANDED {
                self.over_budget.push(self.entries[i].name.clone());
            } else {
                self.too_long.push(self.entries[i].name.clone());
            }
        }
        self.total = self.total.saturating_add(e.text.len());
        self.entries[i].value = e.text;
        state[i] = 2;
    }

    /// The resolved HOST.
    pub fn host(&self) -> &str {
        self.get(HOST).unwrap_or(DEFAULT_HOST)
    }

    /// Where HOST came from.
    pub(crate) fn host_source(&self) -> VarSource {
        self.entry(HOST).map_or(VarSource::Default, |e| e.source)
    }

    /// The expanded value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.entry(name).map(|e| e.value.as_str())
    }

    /// The resolved variable `name`.
    pub fn entry(&self, name: &str) -> Option<&Resolved> {
        self.index.get(name).map(|&i| &self.entries[i])
    }

    /// Every resolved variable: HOST first, then catalog vars, local values, switches.
    pub fn entries(&self) -> &[Resolved] {
        &self.entries
    }

    /// Whether `name` is defined.
    pub fn is_known(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    /// Whether an authorization switch is `true` (environment > local.yaml; never
    /// catalog vars).
    pub fn switch_on(&self, var: &str) -> bool {
        self.get(var) == Some("true")
    }

    /// Expand every `${NAME}` of `text`.
    pub fn expand(&self, text: &str) -> Expanded {
        substitute(text, MAX_EXPANDED, |n| self.get(n))
    }

    /// Expand every string inside a JSON value (an `expected` value).
    pub fn expand_json(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.expand(s).text),
            Value::Array(a) => Value::Array(a.iter().map(|x| self.expand_json(x)).collect()),
            Value::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, x)| (k.clone(), self.expand_json(x)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// The variables a case's child process gets: HOST and every var, expanded.
    /// Authorization switches are left out: the launcher passes the ones it granted.
    pub fn child_env(&self) -> Vec<(String, String)> {
        self.entries
            .iter()
            .filter(|e| !e.switch)
            .map(|e| (e.name.clone(), e.value.clone()))
            .collect()
    }

    /// Whether `name` is HOST or a variable whose definition is built from it
    /// (directly or through other such variables).
    pub fn host_derived(&self, name: &str) -> bool {
        let mut seen = Vec::new();
        self.derived_inner(name, &mut seen)
    }

    fn derived_inner(&self, name: &str, seen: &mut Vec<String>) -> bool {
        if name == HOST {
            return true;
        }
        if seen.iter().any(|s| s == name) {
            return false;
        }
        seen.push(name.to_owned());
        let Some(e) = self.entry(name) else {
            return false;
        };
        if e.source == VarSource::Environment {
            return false;
        }
        refs(&e.raw)
            .iter()
            .any(|(_, r)| self.derived_inner(r, seen))
    }
}

/// Every `${NAME}` reference of `text`: (byte offset, name).
pub fn refs(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(at) = text[i..].find("${") {
        let start = i + at;
        let rest = &text[start + 2..];
        match rest.find('}') {
            Some(end) if is_name(&rest[..end]) => {
                out.push((start, rest[..end].to_owned()));
                i = start + 2 + end + 1;
            }
            _ => i = start + 2,
        }
    }
    out
}

/// `[A-Za-z_][A-Za-z0-9_]*`.
pub(crate) fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn substitute<'v>(text: &str, limit: usize, lookup: impl Fn(&str) -> Option<&'v str>) -> Expanded {
    let mut out = String::with_capacity(text.len());
    let mut unknown = Vec::new();
    let mut too_long = Vec::new();
    let mut last = 0;
    for (at, name) in refs(text) {
        out.push_str(&text[last..at]);
        let end = at + name.len() + 3;
        if let Some(v) = lookup(&name) {
            if out.len() + v.len() > limit {
                out.push_str(&text[at..end]);
                if !too_long.contains(&name) {
                    too_long.push(name);
                }
            } else {
                out.push_str(v);
            }
        } else {
            out.push_str(&text[at..end]);
            if !unknown.contains(&name) {
                unknown.push(name);
            }
        }
        last = end;
    }
    out.push_str(&text[last..]);
    Expanded {
        text: out,
        unknown,
        too_long,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Local, Pos, Switch, Var};
    use crate::host::{literal_hosts, literal_hosts_in_shell, url_field_problem};

    fn var(n: &str, v: &str) -> Var {
        Var {
            name: n.to_owned(),
            value: v.to_owned(),
            pos: Pos::default(),
        }
    }

    fn catalog() -> Catalog {
        Catalog {
            vars: vec![
                var("HOST", "10.9.9.9"),
                var("API_BASE", "http://${HOST}:8095"),
                var("HEALTH", "${API_BASE}/health"),
                var("ALLOW_MUT", "false"),
                var("PLAIN", "x"),
            ],
            authorize: vec![Switch {
                key: "mutating".into(),
                var: "ALLOW_MUT".into(),
                pos: Pos::default(),
            }],
            ..Catalog::default()
        }
    }

    #[test]
    fn host_lookup_order_env_local_catalog_default() {
        let mut cat = catalog();
        let none = |_: &str| None;
        assert_eq!(Vars::resolve(&cat, &none).host(), "10.9.9.9");
        cat.local = Some(Local {
            values: vec![var("HOST", "127.0.0.2"), var("ALLOW_MUT", "true")],
            ..Local::default()
        });
        let v = Vars::resolve(&cat, &none);
        assert_eq!(v.host(), "127.0.0.2");
        assert_eq!(v.host_source(), VarSource::Local);
        assert!(v.switch_on("ALLOW_MUT"));
        let env = |n: &str| match n {
            "HOST" => Some("192.168.1.7".to_owned()),
            "ALLOW_MUT" => Some("false".to_owned()),
            "PLAIN" => Some("from-env".to_owned()),
            _ => None,
        };
        let v = Vars::resolve(&cat, &env);
        assert_eq!(v.host(), "192.168.1.7");
        assert_eq!(v.host_source(), VarSource::Environment);
        assert!(!v.switch_on("ALLOW_MUT"));
        // the environment overrides only HOST and switches
        assert_eq!(v.get("PLAIN"), Some("x"));
        assert_eq!(v.get("HEALTH"), Some("http://192.168.1.7:8095/health"));
        let bare = Vars::resolve(&Catalog::default(), &none);
        assert_eq!(bare.host(), DEFAULT_HOST);
        assert_eq!(bare.host_source(), VarSource::Default);
    }

    #[test]
    fn expansion_and_unknown_names() {
        let v = Vars::resolve(&catalog(), &|_| None);
        let e = v.expand("curl ${API_BASE}/x ${NOPE} $HOME ${} ${HOST}");
        assert_eq!(
            e.text,
            "curl http://10.9.9.9:8095/x ${NOPE} $HOME ${} 10.9.9.9"
        );
        assert_eq!(e.unknown, vec!["NOPE".to_owned()]);
        let j = v.expand_json(&serde_json::json!({"path": "a", "equals": "${PLAIN}"}));
        assert_eq!(j["equals"], "x");
    }

    #[test]
    fn cycles_are_reported_not_looped() {
        let v = Vars::from_pairs(&[("A", "${B}"), ("B", "x${A}"), ("C", "${C}")]);
        assert_eq!(v.cycles, ["A", "B", "C"]);
    }

    #[test]
    fn child_env_has_vars_but_not_switches() {
        let env = Vars::resolve(&catalog(), &|_| None).child_env();
        assert!(env.contains(&("HOST".to_owned(), "10.9.9.9".to_owned())));
        assert!(env.iter().any(|(k, _)| k == "API_BASE"));
        assert!(!env.iter().any(|(k, _)| k == "ALLOW_MUT"));
    }

    #[test]
    fn host_derived_and_literal_hosts() {
        let v = Vars::resolve(&catalog(), &|_| None);
        assert!(v.host_derived("HOST"));
        assert!(v.host_derived("API_BASE"));
        assert!(v.host_derived("HEALTH"));
        assert!(!v.host_derived("PLAIN"));
        let d = |n: &str| v.host_derived(n);
        assert!(
            literal_hosts("curl http://${HOST}:8080/x && wget https://${API_BASE}", &d).is_empty()
        );
        let bad = literal_hosts(
            "curl -s http://localhost:8080/a; curl http://${PLAIN}/b",
            &d,
        );
        assert_eq!(bad.len(), 2);
        assert_eq!(bad[0].url, "http://localhost:8080");
        assert_eq!(bad[1].url, "http://${PLAIN}");
        assert!(literal_hosts("cat file:///etc/hosts", &d).is_empty());
        // the shell's own $HOST is HOST in a command, not in a URL field
        assert!(
            literal_hosts_in_shell("curl http://$HOST:8080/x http://$API_BASE/y", &d).is_empty()
        );
        assert_eq!(literal_hosts("curl http://$HOST:8080/x", &d).len(), 1);
        assert_eq!(literal_hosts_in_shell("curl http://$PLAIN/x", &d).len(), 1);
        assert_eq!(
            literal_hosts("u=http://u:p@10.0.0.5/", &d)[0].url,
            "http://u:p@10.0.0.5"
        );
        assert_eq!(
            literal_hosts("http://[::1]:80/", &d)[0].url,
            "http://[::1]:80"
        );
        assert!(url_field_problem("${API_BASE}/health", &d).is_none());
        assert!(url_field_problem("http://${HOST}:${PORT}/", &d).is_none());
        assert!(url_field_problem("/health", &d).is_some());
        assert!(url_field_problem("${PLAIN}/x", &d).is_some());
        assert!(url_field_problem("http://10.0.0.5/", &d).is_some());
        assert!(url_field_problem("http://${HOST}.evil.com/", &d).is_some());
    }
}
