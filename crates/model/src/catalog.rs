//! The tester catalog (seed 001): `.pouch/tester/catalog.yaml`, `local.yaml` and
//! `cases/<category>.yaml`, read into plain public types that keep every field and
//! the place of every value, so each rule can report `file:line:col`.
//!
//! Loading never fails on bad content: a file that cannot be parsed, a value of the
//! wrong type or outside its set is a located problem, and the rest still loads.
//! Loading checks the shape of each value (rules `file-too-large`, `file-unreadable`,
//! `yaml-syntax`, `yaml-limit`, `yaml-type`, `field-missing`, `<field>-value`);
//! [`validate`] checks the rules across fields and files.

pub mod csv;
mod load;
mod rules;
pub mod yaml;

pub use super::risk::Risk;
pub use load::from_texts;
pub use rules::{severity, validate};

use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The catalog folder, relative to the workspace root.
pub const DIR: &str = ".pouch/tester";

/// A 1-based place in a file (0 = unknown).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
pub struct Pos {
    /// 1-based line, 0 when unknown.
    pub line: u32,
    /// 1-based column, 0 when unknown.
    pub(crate) column: u32,
}

impl Pos {
    /// The place at `line`, `column`.
    pub const fn new(line: u32, column: u32) -> Pos {
        Pos { line, column }
    }
}

/// Places of values by key path (`"risk"`, `"how.url"`, `"expected.1.kind"`,
/// `"vars.API_BASE"`, `"categories.2.status_probe.url"`).
pub(crate) type Locs = BTreeMap<String, Pos>;

/// A closed set of values the seed spells out (`lifecycle`, `risk`, …), as the
/// loader reads one: parsed exactly, its spellings listed in the message.
pub(crate) trait ValueSet: Copy {
    fn parse(s: &str) -> Option<Self>;
    fn choices() -> String;
}

impl ValueSet for Risk {
    fn parse(s: &str) -> Option<Self> {
        Risk::parse(s)
    }
    fn choices() -> String {
        Risk::choices()
    }
}

macro_rules! value_set {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident = $s:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name { $(#[doc = concat!("`", $s, "`.")] $(#[$vm])* $v),+ }

        impl $name {
            /// Every value, in the seed's order.
            pub const ALL: &'static [$name] = &[$($name::$v),+];

            /// The seed's spelling.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$v => $s),+ }
            }

            /// The value spelled `s`, exactly as the seed writes it.
            pub fn parse(s: &str) -> Option<$name> {
                match s { $($s => Some($name::$v),)+ _ => None }
            }

            /// The allowed spellings, for messages: `a / b / c`.
            pub fn choices() -> String {
                Self::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(" / ")
            }
        }

        impl ValueSet for $name {
            fn parse(s: &str) -> Option<Self> {
                $name::parse(s)
            }
            fn choices() -> String {
                $name::choices()
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}

value_set!(
    /// Only `active` cases run; `pending` (reason in `notes`) and `retired` stay listed.
    Lifecycle { Active = "active", Pending = "pending", Retired = "retired" }
);
value_set!(
    /// `smoke` only with `risk: readonly`.
    Tag { Smoke = "smoke", Full = "full", Slow = "slow" }
);
value_set!(
    /// How a case is carried out; none when `automation: manual`.
    Driver { Script = "script", Browser = "browser", Mobile = "mobile" }
);
value_set!(
    /// Who carries a case out: a process, a process with a person, or a person.
    Automation { Automated = "automated", Assisted = "assisted", Manual = "manual" }
);
value_set!(
    /// How a case passes.
    ExpectedKind {
        ApiStatus = "api-status",
        ApiField = "api-field",
        ScriptExit = "script-exit",
        VisibleText = "visible-text",
        Url = "url",
        Interaction = "interaction",
    }
);
value_set!(
    /// The kind of a reusable session.
    SessionKind { Browser = "browser", Mobile = "mobile" }
);
value_set!(
    /// `run`: closed when the run ends; `persist`: attached to while its probe lives.
    Reuse { Run = "run", Persist = "persist" }
);

/// The loaded catalog. `cases` are in execution order: category order, then file order.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Catalog {
    /// `catalog.yaml`, relative to the workspace root.
    pub file: String,
    /// Whether `catalog.yaml` was read and parsed (rules about its contents and
    /// the files' categories are skipped when it was not: its problem says why).
    pub parsed: bool,
    /// `catalog.yaml` `categories`, in file order (the execution order).
    pub categories: Vec<Category>,
    /// The ladder as written (values outside the three risks are dropped, with a problem).
    pub(crate) risks: Vec<Risk>,
    pub(crate) default_max_risk: Option<Risk>,
    /// `catalog.yaml` `vars`, in file order, unexpanded.
    pub vars: Vec<Var>,
    /// The mobile artifact identity contract (`artifacts`).
    pub artifacts: Artifacts,
    /// Risk name → environment variable that must be `true` (keys as written).
    pub authorize: Vec<Switch>,
    /// Gate name → environment variable that must be `true`.
    pub gates: Vec<Switch>,
    pub(crate) sessions: Vec<Session>,
    pub(crate) id_pattern: Option<String>,
    /// `run_together` groups: cases run in one go, in their order.
    pub run_together: Vec<Group>,
    /// The top-level default probe.
    pub(crate) status_probe: Option<Probe>,
    /// The effective agent: `catalog.yaml` `agent` (or the legacy `execution`)
    /// shallow-merged with `local.yaml` `agent`.
    pub agent: Agent,
    /// Where each effective agent field came from: `catalog`, `execution` or `local`.
    pub(crate) agent_sources: BTreeMap<String, String>,
    /// Every case of `cases/`, in execution order.
    pub cases: Vec<Case>,
    /// `local.yaml`, when there is one.
    pub local: Option<Local>,
    /// The case files read, in load order.
    pub files: Vec<CaseFile>,
    /// Top-level fields of `catalog.yaml` the seed does not name (kept, shown).
    pub(crate) extra: Map<String, Value>,
    /// Places in `catalog.yaml`.
    #[serde(skip)]
    pub(crate) locs: Locs,
}

impl Catalog {
    /// The place of `key` in `catalog.yaml` (1:1 when unknown).
    pub fn at(&self, key: &str) -> Pos {
        self.locs.get(key).copied().unwrap_or(Pos::new(1, 1))
    }

    /// The category `id`.
    pub fn category(&self, id: &str) -> Option<&Category> {
        self.categories.iter().find(|c| c.id == id)
    }

    /// The case `id`.
    pub fn case(&self, id: &str) -> Option<&Case> {
        self.cases.iter().find(|c| c.id == id)
    }

    /// The reusable session `name` (`sessions`).
    pub(crate) fn session(&self, name: &str) -> Option<&Session> {
        self.sessions.iter().find(|s| s.name == name)
    }

    /// The variable that authorizes `risk`, when `authorize` names one.
    pub fn authorize_var(&self, risk: Risk) -> Option<&str> {
        self.authorize
            .iter()
            .find(|s| s.key == risk.as_str())
            .map(|s| s.var.as_str())
    }

    /// The variable that opens gate `gate`, when `gates` names it.
    pub(crate) fn gate_var(&self, gate: &str) -> Option<&str> {
        self.gates
            .iter()
            .find(|s| s.key == gate)
            .map(|s| s.var.as_str())
    }

    /// The index of the `run_together` group holding `id`.
    pub fn group_of(&self, id: &str) -> Option<usize> {
        self.run_together
            .iter()
            .position(|g| g.ids.iter().any(|i| i == id))
    }

    /// The effective probe of a category: its own, none (`false`), or the default.
    pub fn effective_probe(&self, category: &str) -> Option<&Probe> {
        match self.category(category).map(|c| &c.status_probe) {
            Some(ProbeSetting::Off) => None,
            Some(ProbeSetting::Set(p)) => Some(p),
            Some(ProbeSetting::Inherit) | None => self.status_probe.as_ref(),
        }
    }

    /// The default max risk: `default_max_risk`, else `readonly`.
    pub fn max_risk(&self) -> Risk {
        self.default_max_risk.unwrap_or(Risk::Readonly)
    }

    /// Names of every authorization switch (`authorize` and `gates` variables).
    pub fn switch_vars(&self) -> impl Iterator<Item = &str> {
        self.authorize
            .iter()
            .chain(&self.gates)
            .map(|s| s.var.as_str())
    }
}

/// One category: its cases live in `cases/<id lowercased>.yaml`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Category {
    /// The category id; its cases live in `cases/<id lowercased>.yaml`.
    pub id: String,
    /// Short name.
    pub title: String,
    /// Its own probe, none, or the default.
    pub(crate) status_probe: ProbeSetting,
    /// Place of the entry in `catalog.yaml`.
    pub(crate) pos: Pos,
    /// Fields the seed does not name (kept, shown).
    pub(crate) extra: Map<String, Value>,
}

/// A category's `status_probe` key.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "lowercase", tag = "mode", content = "probe")]
pub enum ProbeSetting {
    /// No key: the top-level default applies.
    Inherit,
    /// `status_probe: false`.
    Off,
    /// A mapping: replaces the default as a whole.
    Set(Probe),
}

/// `{url, stop_if: {field: [values]}}`: fetched before a category runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Probe {
    /// As written (unexpanded); `select` gives it expanded.
    pub url: String,
    /// Fields of the answer whose values stop the category.
    pub stop_if: Vec<StopIf>,
    /// Place of `url` (or of the mapping when `url` is missing).
    pub(crate) pos: Pos,
    /// The file it was written in.
    pub file: String,
}

/// A JSON field of the probe's answer and the values that stop the category.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StopIf {
    /// The JSON field of the probe's answer.
    pub field: String,
    /// The values of `field` that stop the category.
    pub values: Vec<Value>,
}

/// A `NAME: value` variable (numbers and booleans kept as their YAML text).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Var {
    /// The variable name.
    pub(crate) name: String,
    /// The value as written, unexpanded.
    pub value: String,
    /// Place of the entry.
    pub(crate) pos: Pos,
}

/// An `authorize` or `gates` entry: `key` → environment variable `var`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Switch {
    /// A risk (`authorize`) or gate (`gates`) name.
    pub key: String,
    /// The environment variable that must be `true`.
    pub var: String,
    /// Place of the entry.
    pub(crate) pos: Pos,
}

/// A reusable session.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Session {
    /// The session's key in `sessions` (a case's `session` names it).
    pub(crate) name: String,
    /// `browser` or `mobile`; `None` when missing or unknown.
    pub(crate) kind: Option<SessionKind>,
    pub(crate) reuse: Option<Reuse>,
    /// Every other field (url, device, profile …), as written.
    pub(crate) fields: Map<String, Value>,
    /// Place of the entry.
    pub(crate) pos: Pos,
    #[serde(skip)]
    pub(crate) locs: Locs,
}

/// A `run_together` group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Group {
    /// The case ids, in run order.
    pub(crate) ids: Vec<String>,
    /// Whether the group goes on after a case fails.
    pub continue_on_fail: bool,
    /// Place of the group.
    pub(crate) pos: Pos,
    /// Place of each id.
    #[serde(skip)]
    pub(crate) id_pos: Vec<Pos>,
}

/// The agent target (seed 001 `agent`). testdeck shows it and records it; it never runs agents.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Agent {
    /// The value of each of [`AGENT_FIELDS`], in that order (`None`: not set).
    values: [Option<String>; AGENT_FIELDS.len()],
    /// Fields the seed does not name.
    pub(crate) extra: Map<String, Value>,
}

/// The agent field names, as the seed spells them.
pub(crate) const AGENT_FIELDS: [&str; 10] = [
    "environment",
    "host",
    "project",
    "path",
    "role",
    "cli",
    "tier",
    "model",
    "reasoningEffort",
    "permissionMode",
];

impl Agent {
    /// The field named as in the seed.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.values[Self::slot(name)?].as_deref()
    }

    fn field_mut(&mut self, name: &str) -> Option<&mut Option<String>> {
        Self::slot(name).map(|i| &mut self.values[i])
    }

    /// Where field `name` is kept: its index in [`AGENT_FIELDS`].
    fn slot(name: &str) -> Option<usize> {
        AGENT_FIELDS.iter().position(|f| *f == name)
    }
}

/// The seed's fields in its order (`null` when not set), then the others.
impl Serialize for Agent {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        for (k, v) in AGENT_FIELDS.iter().zip(&self.values) {
            m.serialize_entry(k, v)?;
        }
        for (k, v) in &self.extra {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// The mobile artifact identity contract.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Artifacts {
    pub(crate) android: Option<MobileArtifact>,
    pub(crate) ios: Option<MobileArtifact>,
}

/// `required` and the app's identity (`package` for android, `bundle_id` for ios).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct MobileArtifact {
    pub(crate) required: bool,
    pub(crate) package: Option<String>,
    pub(crate) bundle_id: Option<String>,
    pub(crate) extra: Map<String, Value>,
}

/// `local.yaml`: this machine's overrides (not committed).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Local {
    /// `local.yaml`, relative to the workspace root.
    pub file: String,
    /// `HOST`, authorization switches and other top-level scalars, then `vars:` entries.
    pub(crate) values: Vec<Var>,
    /// `agent` overrides, shallow-merged over the catalog's.
    pub(crate) agent: Option<Agent>,
    /// Fields the seed does not name (kept, shown).
    pub(crate) extra: Map<String, Value>,
}

impl Local {
    /// The value `name` sets here, top-level keys first.
    pub fn get(&self, name: &str) -> Option<&Var> {
        // later entries (the `vars:` mapping) do not override top-level keys
        self.values.iter().find(|v| v.name == name)
    }
}

/// A file of `cases/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CaseFile {
    /// Relative to the workspace root.
    pub path: String,
    /// The category it declares (`category:` key), else the category whose id
    /// lowercased is the file name, else `None`.
    pub(crate) category: Option<String>,
    /// Whether `category` came from a `category:` key in the file.
    pub(crate) declared: bool,
    /// Place of the `category:` value (1:1 when not declared).
    pub(crate) pos: Pos,
    /// Cases read from it.
    pub cases: usize,
    /// False when the file could not be parsed (its cases are missing).
    pub parsed: bool,
}

/// A case's keys in the seed's order, each with whether the seed requires it.
pub(crate) const CASE_KEYS: [(&str, bool); 18] = [
    ("id", true),
    ("category", true),
    ("title", true),
    ("what", true),
    ("lifecycle", true),
    ("tag", true),
    ("risk", true),
    ("gate", false),
    ("driver", false),
    ("automation", false),
    ("session", false),
    ("how", true),
    ("expected", true),
    ("maps_to", false),
    ("assume", false),
    ("setup", false),
    ("teardown", false),
    ("notes", false),
];

/// One case. Enumerated fields are `None` when absent or outside their value set
/// (loading reported it); such a case is never selected to run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Case {
    /// The case id (matches `id_pattern`).
    pub id: String,
    /// As written; the file's category when the key is missing.
    pub category: String,
    /// Short name.
    pub title: String,
    /// One observable sentence: what is tested.
    pub what: String,
    /// `active`, `pending` (kept, not run; reason in `notes`) or `retired`.
    pub lifecycle: Option<Lifecycle>,
    /// `smoke`, `full` or `slow`; `smoke` only with `risk: readonly`.
    pub tag: Option<Tag>,
    /// `readonly`, `mutating` or `destructive`.
    pub risk: Option<Risk>,
    /// A project gate, one of the catalog's `gates` (never with `readonly`).
    pub gate: Option<String>,
    /// `script`, `browser` or `mobile`; none when `automation: manual`.
    pub driver: Option<Driver>,
    /// `automated` when the key is missing.
    pub automation: Option<Automation>,
    /// A key of the catalog's `sessions` (required for browser and mobile).
    pub session: Option<String>,
    /// How to test it.
    pub how: How,
    /// How it passes: at least one `{kind, value}`.
    pub expected: Vec<Expected>,
    /// Ids of feature items in the documents for people.
    pub maps_to: Vec<String>,
    /// The raw expression; parse with [`crate::assume::Assume::parse`].
    pub assume: Option<String>,
    /// Preconditions, in words for a person.
    pub setup: Vec<String>,
    /// What to undo after the run.
    pub teardown: Vec<String>,
    /// Remarks.
    pub notes: Vec<String>,
    /// The case file, relative to the workspace root.
    pub file: String,
    /// Place of the case's mapping in `file` (`line` and `column` in JSON).
    #[serde(flatten)]
    pub pos: Pos,
    /// Fields the seed does not name (kept, shown).
    pub extra: Map<String, Value>,
    /// Places of its values.
    #[serde(skip)]
    pub(crate) locs: Locs,
}

impl Case {
    /// The place of `key` (see [`Locs`]), else of the case itself.
    pub fn at(&self, key: &str) -> Pos {
        self.locs.get(key).copied().unwrap_or(self.pos)
    }

    /// `automation`, with a value outside the set treated as `manual` (a person decides).
    pub fn automation(&self) -> Automation {
        self.automation.unwrap_or(Automation::Manual)
    }
}

/// The longest `how.timeout` (24 h): a larger number is a located
/// `timeout-out-of-range` error, and such a case does not run.
pub const MAX_TIMEOUT_SECS: u64 = 24 * 60 * 60;

/// `how`: what to do.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct How {
    /// A command run by `sh` in the workspace root (may be a multi-line script).
    pub run: Option<String>,
    /// Steps, in words for a person.
    pub steps: Vec<String>,
    /// A URL to request (expanded at launch).
    pub url: Option<String>,
    /// HTTP method for `how.url`; see [`How::method`].
    pub(crate) method: Option<String>,
    /// Seconds, default 60, at most [`MAX_TIMEOUT_SECS`].
    pub timeout: u64,
    /// Fields the seed does not name (kept, shown).
    pub(crate) extra: Map<String, Value>,
}

impl Default for How {
    fn default() -> Self {
        How {
            run: None,
            steps: Vec::new(),
            url: None,
            method: None,
            timeout: DEFAULT_TIMEOUT,
            extra: Map::new(),
        }
    }
}

/// `how.timeout` when absent, in seconds.
pub(crate) const DEFAULT_TIMEOUT: u64 = 60;

/// The prefix of a step a person carries out (`automation: assisted`).
pub(crate) const MANUAL_STEP: &str = "[人工]";

impl How {
    /// The HTTP method, `GET` by default.
    pub fn method(&self) -> &str {
        self.method.as_deref().unwrap_or("GET")
    }
}

/// One `{kind, value}` of `expected`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Expected {
    /// `None` when outside the six kinds (loading reported it).
    pub kind: Option<ExpectedKind>,
    /// As written: a number for `script-exit`/`api-status`, `{path, equals}` for
    /// `api-field`, text otherwise.
    pub value: Value,
}

impl Expected {
    /// `(path, equals)` of an `api-field` value.
    pub fn field(&self) -> Option<(&str, &Value)> {
        let o = self.value.as_object()?;
        Some((o.get("path")?.as_str()?, o.get("equals")?))
    }
}

impl Agent {
    /// Set the fields of a mapping over this agent (shallow merge); returns the
    /// names set.
    fn merge(&mut self, fields: &Map<String, Value>) -> Vec<String> {
        let mut set = Vec::new();
        for (k, v) in fields {
            let text = match v {
                Value::Null => None,
                Value::String(s) => Some(s.clone()),
                other => Some(other.to_string()),
            };
            if let Some(slot) = self.field_mut(k) {
                *slot = text;
            } else {
                self.extra.insert(k.clone(), v.clone());
            }
            set.push(k.clone());
        }
        set
    }
}
