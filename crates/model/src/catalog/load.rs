//! Reading the catalog files into the located types: the shape of every value.

use super::yaml::{self, Node, Yaml};
use super::{
    Agent, Artifacts, Catalog, Category, DIR, Group, Local, Locs, MobileArtifact, Pos, Probe,
    ProbeSetting, Reuse, Risk, Session, SessionKind, StopIf, Switch, ValueSet, Var,
};
use crate::problem::Problem;
use serde_json::{Map, Value};

// the fields of one case file (cases/<category>.yaml), read by the same Reader
mod case_file;

/// Build a catalog from file texts: `catalog.yaml`, `local.yaml` when present and
/// each case file as `(path relative to the root, text)` (`None` text: the file
/// could not be read, already reported). Paths decide the file names in problems.
pub fn from_texts(
    catalog_yaml: &str,
    local_yaml: Option<&str>,
    case_files: &[(&str, Option<&str>)],
    problems: &mut Vec<Problem>,
) -> Catalog {
    let mut cat = Catalog {
        file: format!("{DIR}/catalog.yaml"),
        ..Catalog::default()
    };
    let mut rd = Reader {
        file: cat.file.clone(),
        problems,
        locs: Locs::new(),
    };
    if let Some(root) = rd.parse(catalog_yaml) {
        rd.catalog(&root, &mut cat);
        cat.parsed = true;
    }
    cat.locs = std::mem::take(&mut rd.locs);
    let problems = rd.problems;

    if let Some(text) = local_yaml {
        let mut rd = Reader {
            file: format!("{DIR}/local.yaml"),
            problems,
            locs: Locs::new(),
        };
        if let Some(root) = rd.parse(text) {
            cat.local = Some(rd.local(&root));
        }
    }
    merge_agent(&mut cat);

    // case files: in category order, then the rest by name
    let mut ordered: Vec<(usize, &str, Option<&str>)> = case_files
        .iter()
        .map(|(p, t)| {
            let stem = file_stem(p);
            let idx = cat
                .categories
                .iter()
                .position(|c| c.id.to_lowercase() == stem)
                .unwrap_or(usize::MAX);
            (idx, *p, *t)
        })
        .collect();
    ordered.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    let mut cases = Vec::new();
    for (_, path, text) in ordered {
        let mut rd = Reader {
            file: path.to_owned(),
            problems,
            locs: Locs::new(),
        };
        let file = rd.case_file(&cat, text, &mut cases);
        cat.files.push(file);
    }
    // a case whose category (as written) is another category still runs in its
    // file's place; the order is the category of the file, then file order
    cat.cases = cases;
    cat
}

/// The file name without `.yaml`/`.yml`, as the category id lowercased.
pub(super) fn file_stem(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.strip_suffix(".yaml")
        .or_else(|| name.strip_suffix(".yml"))
        .unwrap_or(name)
        .to_owned()
}

fn merge_agent(cat: &mut Catalog) {
    let mut agent = Agent::default();
    let mut sources = std::collections::BTreeMap::new();
    // both are read into `agent` (with `agent_sources`), not kept as unknown fields
    let catalog_agent = cat.extra.remove("agent");
    let execution = cat.extra.remove("execution");
    // the legacy `execution` field is read as agent input, under `agent`
    if let Some(Value::Object(m)) = &execution {
        for k in agent.merge(m) {
            sources.insert(k, "execution".to_owned());
        }
    }
    if let Some(Value::Object(m)) = &catalog_agent {
        for k in agent.merge(m) {
            sources.insert(k, "catalog".to_owned());
        }
    }
    if let Some(Some(local)) = cat.local.as_ref().map(|l| l.agent.as_ref()) {
        let m = match serde_json::to_value(local) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        };
        // only the fields local.yaml sets override (a shallow merge)
        let set: Map<String, Value> = m.into_iter().filter(|(_, v)| !v.is_null()).collect();
        for k in agent.merge(&set) {
            sources.insert(k, "local".to_owned());
        }
    }
    cat.agent = agent;
    cat.agent_sources = sources;
}

/// One file being read: where problems go and the places found.
struct Reader<'p> {
    file: String,
    problems: &'p mut Vec<Problem>,
    locs: Locs,
}

impl Reader<'_> {
    fn problem(&mut self, rule: &str, pos: Pos, message: impl Into<String>) {
        self.problems
            .push(Problem::error(self.file.clone(), rule, message.into()).at(pos.line, pos.column));
    }

    fn warn(&mut self, rule: &str, pos: Pos, message: impl Into<String>) {
        self.problems.push(
            Problem::warning(self.file.clone(), rule, message.into()).at(pos.line, pos.column),
        );
    }

    fn parse(&mut self, text: &str) -> Option<Node> {
        match yaml::parse(text) {
            Ok(n) => Some(n),
            Err(e) => {
                self.problem(e.rule, e.pos, e.message);
                None
            }
        }
    }

    fn wrong_type(&mut self, key: &str, n: &Node, expected: &str) {
        self.problem(
            "yaml-type",
            n.pos,
            format!("{key}: expected {expected}, found {}", n.type_name()),
        );
    }

    /// The entries of a mapping, or a located `yaml-type` problem and `None`.
    fn required_map<'n>(
        &mut self,
        key: &str,
        n: &'n Node,
        expected: &str,
    ) -> Option<&'n [(Node, Node)]> {
        let entries = n.as_map();
        if entries.is_none() {
            self.wrong_type(key, n, expected);
        }
        entries
    }

    /// A mapping, or a problem (null counts as an empty mapping).
    fn map<'n>(&mut self, key: &str, n: &'n Node) -> &'n [(Node, Node)] {
        self.items(key, n, Node::as_map, "a mapping")
    }

    /// A list, or a problem (null counts as an empty list).
    fn seq<'n>(&mut self, key: &str, n: &'n Node) -> &'n [Node] {
        self.items(key, n, Node::as_seq, "a list")
    }

    /// The items `of` finds in `n`, or a problem naming `expected` (null has none).
    fn items<'n, T>(
        &mut self,
        key: &str,
        n: &'n Node,
        of: fn(&'n Node) -> Option<&'n [T]>,
        expected: &str,
    ) -> &'n [T] {
        if n.is_null() {
            return &[];
        }
        of(n).unwrap_or_else(|| {
            self.wrong_type(key, n, expected);
            &[]
        })
    }

    /// A scalar as text; null is absent.
    fn text(&mut self, key: &str, n: &Node) -> Option<String> {
        if n.is_null() {
            return None;
        }
        let t = n.as_text();
        if t.is_none() {
            self.wrong_type(key, n, "text");
        }
        t
    }

    /// Text, or a list of texts (one text is a list of one).
    fn texts(&mut self, key: &str, n: &Node) -> Vec<String> {
        match &n.value {
            Yaml::Null => Vec::new(),
            Yaml::Seq(items) => {
                let mut out = Vec::new();
                for (i, it) in items.iter().enumerate() {
                    self.locs.insert(format!("{key}.{i}"), it.pos);
                    if let Some(t) = self.text(&format!("{key}[{i}]"), it) {
                        out.push(t);
                    }
                }
                out
            }
            _ => self.text(key, n).into_iter().collect(),
        }
    }

    fn boolean(&mut self, key: &str, n: &Node) -> Option<bool> {
        match n.value {
            Yaml::Bool(b) => Some(b),
            Yaml::Null => None,
            _ => {
                self.wrong_type(key, n, "true or false");
                None
            }
        }
    }

    /// A value of a fixed set, or a `<rule>` problem naming the set.
    fn choice<T: ValueSet>(&mut self, key: &str, n: &Node, rule: &str) -> Option<T> {
        let t = self.text(key, n)?;
        let v = T::parse(&t);
        if v.is_none() {
            let choices = T::choices();
            self.problem(rule, n.pos, format!("{key}: {t:?} is not one of {choices}"));
        }
        v
    }

    // ---- catalog.yaml ----

    fn catalog(&mut self, root: &Node, cat: &mut Catalog) {
        if root.is_null() {
            return;
        }
        let entries = self.map("catalog.yaml", root);
        for (k, v) in entries {
            let Some(key) = k.key_text() else {
                self.wrong_type("key", k, "text");
                continue;
            };
            self.locs.insert(key.clone(), v.pos);
            match key.as_str() {
                "categories" => {
                    for (i, c) in self.seq("categories", v).iter().enumerate() {
                        if let Some(c) = self.category(i, c) {
                            cat.categories.push(c);
                        }
                    }
                }
                "risks" => {
                    for (i, r) in self.seq("risks", v).iter().enumerate() {
                        self.locs.insert(format!("risks.{i}"), r.pos);
                        if let Some(r) = self.choice::<Risk>("risks", r, "risk-value") {
                            cat.risks.push(r);
                        }
                    }
                }
                "default_max_risk" => {
                    cat.default_max_risk = self.choice::<Risk>("default_max_risk", v, "risk-value");
                }
                "vars" => cat.vars = self.vars("vars", v),
                "artifacts" => cat.artifacts = self.artifacts(v),
                "authorize" => cat.authorize = self.switches("authorize", v),
                "gates" => cat.gates = self.switches("gates", v),
                "sessions" => cat.sessions = self.sessions(v),
                "id_pattern" => cat.id_pattern = self.text("id_pattern", v),
                "run_together" => {
                    for (i, g) in self.seq("run_together", v).iter().enumerate() {
                        if let Some(g) = self.group(i, g) {
                            cat.run_together.push(g);
                        }
                    }
                }
                "status_probe" => {
                    cat.status_probe = match self.probe_setting("status_probe", v) {
                        ProbeSetting::Set(p) => Some(p),
                        _ => None,
                    };
                }
                "agent" | "execution" => {
                    if !v.is_null() && v.as_map().is_none() {
                        self.wrong_type(&key, v, "a mapping");
                    } else {
                        if key == "execution" {
                            self.warn(
                                "execution-legacy",
                                k.pos,
                                "the legacy `execution` field is read as agent input; write `agent` instead",
                            );
                        }
                        cat.extra.insert(key.clone(), v.to_json());
                    }
                }
                _ => {
                    cat.extra.insert(key.clone(), v.to_json());
                }
            }
        }
    }

    fn category(&mut self, i: usize, n: &Node) -> Option<Category> {
        let key = format!("categories[{i}]");
        let entries = self.required_map(&key, n, "a mapping {id, title}")?;
        let mut c = Category {
            id: String::new(),
            title: String::new(),
            status_probe: ProbeSetting::Inherit,
            pos: n.pos,
            extra: Map::new(),
        };
        for (k, v) in entries {
            let Some(name) = k.key_text() else { continue };
            self.locs.insert(format!("categories.{i}.{name}"), v.pos);
            match name.as_str() {
                "id" => c.id = self.text("id", v).unwrap_or_default(),
                "title" => c.title = self.text("title", v).unwrap_or_default(),
                "status_probe" => {
                    c.status_probe = self.probe_setting(&format!("{key}.status_probe"), v);
                }
                _ => {
                    c.extra.insert(name, v.to_json());
                }
            }
        }
        if c.id.is_empty() {
            self.problem("field-missing", n.pos, format!("{key}: no id"));
            return None;
        }
        Some(c)
    }

    /// `false` (off), a mapping (replaces), null (inherit).
    fn probe_setting(&mut self, key: &str, n: &Node) -> ProbeSetting {
        match &n.value {
            Yaml::Null => ProbeSetting::Inherit,
            Yaml::Bool(false) => ProbeSetting::Off,
            Yaml::Map(m) => {
                let mut p = Probe {
                    url: String::new(),
                    stop_if: Vec::new(),
                    pos: n.pos,
                    file: self.file.clone(),
                };
                for (k, v) in m {
                    match k.key_text().as_deref() {
                        Some("url") => {
                            p.pos = v.pos;
                            p.url = self.text(&format!("{key}.url"), v).unwrap_or_default();
                        }
                        Some("stop_if") => {
                            for (f, vals) in self.map(&format!("{key}.stop_if"), v) {
                                let Some(field) = f.key_text() else { continue };
                                let values = match &vals.value {
                                    Yaml::Seq(s) => s.iter().map(Node::to_json).collect(),
                                    Yaml::Null => Vec::new(),
                                    Yaml::Map(_) => {
                                        self.wrong_type(
                                            &format!("{key}.stop_if.{field}"),
                                            vals,
                                            "a list of values",
                                        );
                                        Vec::new()
                                    }
                                    // one value is a list of one
                                    _ => vec![vals.to_json()],
                                };
                                p.stop_if.push(StopIf { field, values });
                            }
                        }
                        _ => {}
                    }
                }
                if p.url.is_empty() {
                    self.problem("field-missing", n.pos, format!("{key}: no url"));
                }
                ProbeSetting::Set(p)
            }
            _ => {
                self.wrong_type(key, n, "false or a mapping {url, stop_if}");
                ProbeSetting::Inherit
            }
        }
    }

    fn vars(&mut self, key: &str, n: &Node) -> Vec<Var> {
        let mut out = Vec::new();
        for (k, v) in self.map(key, n) {
            let Some(name) = k.key_text() else { continue };
            self.locs.insert(format!("{key}.{name}"), v.pos);
            let value = if v.is_null() {
                Some(String::new())
            } else {
                self.text(&format!("{key}.{name}"), v)
            };
            if let Some(value) = value {
                out.push(Var {
                    name,
                    value,
                    pos: v.pos,
                });
            }
        }
        out
    }

    fn switches(&mut self, key: &str, n: &Node) -> Vec<Switch> {
        let mut out = Vec::new();
        for (k, v) in self.map(key, n) {
            let Some(name) = k.key_text() else { continue };
            self.locs.insert(format!("{key}.{name}"), k.pos);
            if let Some(var) = self.text(&format!("{key}.{name}"), v) {
                out.push(Switch {
                    key: name,
                    var,
                    pos: k.pos,
                });
            }
        }
        out
    }

    fn sessions(&mut self, n: &Node) -> Vec<Session> {
        let mut out = Vec::new();
        for (k, v) in self.map("sessions", n) {
            let Some(name) = k.key_text() else { continue };
            let key = format!("sessions.{name}");
            let mut s = Session {
                name,
                kind: None,
                reuse: None,
                fields: Map::new(),
                pos: k.pos,
                locs: Locs::new(),
            };
            for (fk, fv) in self.map(&key, v) {
                let Some(field) = fk.key_text() else { continue };
                s.locs.insert(field.clone(), fv.pos);
                self.locs.insert(format!("{key}.{field}"), fv.pos);
                match field.as_str() {
                    "kind" => {
                        s.kind =
                            self.choice::<SessionKind>(&format!("{key}.kind"), fv, "session-kind");
                    }
                    "reuse" => {
                        s.reuse =
                            self.choice::<Reuse>(&format!("{key}.reuse"), fv, "session-reuse");
                    }
                    _ => {
                        s.fields.insert(field, fv.to_json());
                    }
                }
            }
            out.push(s);
        }
        out
    }

    fn group(&mut self, i: usize, n: &Node) -> Option<Group> {
        let key = format!("run_together[{i}]");
        let entries = self.required_map(&key, n, "a mapping {ids, continue_on_fail}")?;
        let mut g = Group {
            ids: Vec::new(),
            continue_on_fail: false,
            pos: n.pos,
            id_pos: Vec::new(),
        };
        for (k, v) in entries {
            match k.key_text().as_deref() {
                Some("ids") => {
                    for it in self.seq(&format!("{key}.ids"), v) {
                        if let Some(id) = self.text(&format!("{key}.ids"), it) {
                            g.ids.push(id);
                            g.id_pos.push(it.pos);
                        }
                    }
                }
                Some("continue_on_fail") => {
                    g.continue_on_fail = self
                        .boolean(&format!("{key}.continue_on_fail"), v)
                        .unwrap_or(false);
                }
                _ => {}
            }
        }
        Some(g)
    }

    fn artifacts(&mut self, n: &Node) -> Artifacts {
        let mut a = Artifacts::default();
        for (k, v) in self.map("artifacts", n) {
            let Some(platform) = k.key_text() else {
                continue;
            };
            let key = format!("artifacts.{platform}");
            let mut m = MobileArtifact::default();
            for (fk, fv) in self.map(&key, v) {
                let Some(field) = fk.key_text() else { continue };
                match field.as_str() {
                    "required" => {
                        m.required = self
                            .boolean(&format!("{key}.required"), fv)
                            .unwrap_or(false);
                    }
                    "package" => m.package = self.text(&format!("{key}.package"), fv),
                    "bundle_id" => m.bundle_id = self.text(&format!("{key}.bundle_id"), fv),
                    _ => {
                        m.extra.insert(field, fv.to_json());
                    }
                }
            }
            match platform.as_str() {
                "android" => a.android = Some(m),
                "ios" => a.ios = Some(m),
                _ => {}
            }
        }
        a
    }

    // ---- local.yaml ----

    fn local(&mut self, root: &Node) -> Local {
        let mut l = Local {
            file: self.file.clone(),
            ..Local::default()
        };
        let mut vars = Vec::new();
        for (k, v) in self.map("local.yaml", root) {
            let Some(key) = k.key_text() else { continue };
            match key.as_str() {
                "agent" => {
                    if v.as_map().is_some() {
                        let mut a = Agent::default();
                        if let Value::Object(m) = v.to_json() {
                            a.merge(&m);
                        }
                        l.agent = Some(a);
                    } else if !v.is_null() {
                        self.wrong_type("agent", v, "a mapping");
                    }
                }
                "vars" => vars = self.vars("vars", v),
                _ if v.as_map().is_some() || v.as_seq().is_some() => {
                    l.extra.insert(key, v.to_json());
                }
                _ => {
                    // HOST, authorization switches, any other variable
                    let value = if v.is_null() {
                        String::new()
                    } else {
                        v.as_text().unwrap_or_default()
                    };
                    l.values.push(Var {
                        name: key,
                        value,
                        pos: v.pos,
                    });
                }
            }
        }
        l.values.extend(vars);
        l
    }
}

#[cfg(test)]
mod tests;
