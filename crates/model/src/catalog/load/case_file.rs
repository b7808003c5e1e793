//! Reading `cases/<category>.yaml`: every field of a case, its `how` and its
//! `expected`, located — the same [`Reader`](super::Reader) as the catalog's files.

use super::super::yaml::{self, Node, Yaml};
use super::super::{
    Automation, CASE_KEYS, Case, CaseFile, Catalog, Driver, Expected, ExpectedKind, How, Lifecycle,
    Locs, Pos, Risk, Tag,
};
use super::{Reader, file_stem};
use serde_json::{Map, Value};

impl Reader<'_> {
    pub(super) fn case_file(
        &mut self,
        cat: &Catalog,
        text: Option<&str>,
        out: &mut Vec<Case>,
    ) -> CaseFile {
        let stem = file_stem(&self.file);
        let mut f = CaseFile {
            path: self.file.clone(),
            category: cat
                .categories
                .iter()
                .find(|c| c.id.to_lowercase() == stem)
                .map(|c| c.id.clone()),
            declared: false,
            pos: Pos::new(1, 1),
            cases: 0,
            parsed: false,
        };
        let Some(text) = text else { return f };
        let root = match yaml::parse(text) {
            Ok(root) => {
                f.parsed = true;
                root
            }
            Err(e) => {
                // one broken case must not hide the others: cut the list into items
                let Some(r) = yaml::recover_list(text, "cases") else {
                    self.problem(e.rule, e.pos, e.message);
                    return f;
                };
                if r.errors.is_empty() {
                    self.problem(e.rule, e.pos, e.message);
                }
                for e in r.errors {
                    self.problem(e.rule, e.pos, e.message);
                }
                r.root
            }
        };
        let list = match &root.value {
            Yaml::Null => return f,
            // a bare list of cases is accepted as well
            Yaml::Seq(s) => s.as_slice(),
            Yaml::Map(m) => {
                let mut list: &[Node] = &[];
                for (k, v) in m {
                    match k.key_text().as_deref() {
                        Some("category") => {
                            if let Some(c) = self.text("category", v) {
                                f.pos = v.pos;
                                f.category = Some(c);
                                f.declared = true;
                            }
                        }
                        Some("cases") => list = self.seq("cases", v),
                        _ => {}
                    }
                }
                list
            }
            _ => {
                self.wrong_type("case file", &root, "a mapping with `cases:`");
                return f;
            }
        };
        for n in list {
            if let Some(c) = self.case(n, f.category.as_deref().unwrap_or(&stem)) {
                out.push(c);
                f.cases += 1;
            }
        }
        f
    }

    fn case(&mut self, n: &Node, file_category: &str) -> Option<Case> {
        let entries = self.required_map("case", n, "a mapping")?;
        let mut locs = Locs::new();
        let mut c = Case {
            id: String::new(),
            category: String::new(),
            title: String::new(),
            what: String::new(),
            lifecycle: None,
            tag: None,
            risk: None,
            gate: None,
            driver: None,
            automation: Some(Automation::Automated),
            session: None,
            how: How::default(),
            expected: Vec::new(),
            maps_to: Vec::new(),
            assume: None,
            setup: Vec::new(),
            teardown: Vec::new(),
            notes: Vec::new(),
            file: self.file.clone(),
            pos: n.pos,
            extra: Map::new(),
            locs: Locs::new(),
        };
        let saved = std::mem::take(&mut self.locs);
        let mut seen = Vec::new();
        for (k, v) in entries {
            let Some(key) = k.key_text() else {
                self.wrong_type("key", k, "text");
                continue;
            };
            locs.insert(key.clone(), v.pos);
            seen.push(key.clone());
            match key.as_str() {
                "id" => c.id = self.text("id", v).unwrap_or_default(),
                "category" => c.category = self.text("category", v).unwrap_or_default(),
                "title" => c.title = self.text("title", v).unwrap_or_default(),
                "what" => c.what = self.text("what", v).unwrap_or_default(),
                "lifecycle" => {
                    c.lifecycle = self.choice::<Lifecycle>("lifecycle", v, "lifecycle-value");
                }
                "tag" => c.tag = self.choice::<Tag>("tag", v, "tag-value"),
                "risk" => {
                    c.risk = self.choice::<Risk>("risk", v, "risk-value");
                }
                "gate" => c.gate = self.text("gate", v),
                "driver" => {
                    c.driver = self.choice::<Driver>("driver", v, "driver-value");
                }
                "automation" => {
                    if !v.is_null() {
                        c.automation =
                            self.choice::<Automation>("automation", v, "automation-value");
                    }
                }
                "session" => c.session = self.text("session", v),
                "how" => c.how = self.how(v),
                "expected" => {
                    c.expected = self.expected(v);
                    if !matches!(v.value, Yaml::Seq(_) | Yaml::Map(_) | Yaml::Null) {
                        // already a wrong type: not also an empty list
                        locs.remove("expected");
                    }
                }
                "maps_to" => c.maps_to = self.texts("maps_to", v),
                "assume" => c.assume = self.text("assume", v),
                "setup" => c.setup = self.texts("setup", v),
                "teardown" => c.teardown = self.texts("teardown", v),
                "notes" => c.notes = self.texts("notes", v),
                _ => {
                    c.extra.insert(key, v.to_json());
                }
            }
        }
        // nested places (how.*, expected.*) were collected by the readers
        for (k, p) in std::mem::replace(&mut self.locs, saved) {
            locs.entry(k).or_insert(p);
        }
        c.locs = locs;
        let missing: Vec<&str> = CASE_KEYS
            .into_iter()
            .filter_map(|(k, required)| required.then_some(k))
            .filter(|k| !seen.iter().any(|s| s == k))
            .collect();
        if !missing.is_empty() {
            let who = if c.id.is_empty() {
                "case".to_owned()
            } else {
                format!("case {}", c.id)
            };
            self.problem(
                "field-missing",
                n.pos,
                format!("{who}: required field(s) missing: {}", missing.join(", ")),
            );
        }
        if c.category.is_empty() {
            file_category.clone_into(&mut c.category);
        }
        Some(c)
    }

    fn how(&mut self, n: &Node) -> How {
        let mut h = How::default();
        for (k, v) in self.map("how", n) {
            let Some(key) = k.key_text() else { continue };
            self.locs.insert(format!("how.{key}"), v.pos);
            match key.as_str() {
                "run" => h.run = self.text("how.run", v),
                "url" => h.url = self.text("how.url", v),
                "method" => h.method = self.text("how.method", v),
                "steps" => h.steps = self.texts("how.steps", v),
                "timeout" => match v.value {
                    Yaml::Int(t) if t > 0 => {
                        h.timeout = t as u64;
                        if h.timeout > super::super::MAX_TIMEOUT_SECS {
                            self.problem(
                                "timeout-out-of-range",
                                v.pos,
                                format!(
                                    "how.timeout: {t} seconds is out of range (at most {} = 24 h)",
                                    super::super::MAX_TIMEOUT_SECS
                                ),
                            );
                        }
                    }
                    Yaml::Null => {}
                    _ => self.wrong_type("how.timeout", v, "a positive whole number of seconds"),
                },
                _ => {
                    h.extra.insert(key, v.to_json());
                }
            }
        }
        h
    }

    fn expected(&mut self, n: &Node) -> Vec<Expected> {
        let items: Vec<Node> = match &n.value {
            Yaml::Seq(s) => s.clone(),
            // one expectation written as a mapping is a list of one
            Yaml::Map(_) => vec![n.clone()],
            Yaml::Null => Vec::new(),
            _ => {
                self.wrong_type("expected", n, "a list of {kind, value}");
                Vec::new()
            }
        };
        let mut out = Vec::new();
        for (i, it) in items.iter().enumerate() {
            let key = format!("expected.{i}");
            self.locs.insert(key.clone(), it.pos);
            let Some(entries) =
                self.required_map(&format!("expected[{i}]"), it, "a mapping {kind, value}")
            else {
                continue;
            };
            let mut e = Expected {
                kind: None,
                value: Value::Null,
            };
            let mut has_kind = false;
            for (k, v) in entries {
                match k.key_text().as_deref() {
                    Some("kind") => {
                        has_kind = true;
                        self.locs.insert(format!("{key}.kind"), v.pos);
                        e.kind = self.choice::<ExpectedKind>(
                            &format!("expected[{i}].kind"),
                            v,
                            "expected-kind",
                        );
                    }
                    Some("value") => {
                        self.locs.insert(format!("{key}.value"), v.pos);
                        e.value = v.to_json();
                    }
                    _ => {}
                }
            }
            if !has_kind {
                self.problem("field-missing", it.pos, format!("expected[{i}]: no kind"));
            }
            out.push(e);
        }
        out
    }
}
