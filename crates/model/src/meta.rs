//! `meta.json` of a run: its lenient model, the summary the index keeps, and its
//! parser (the store reads the file).

use crate::problem::Problem;
use crate::run_file::{json_syntax, wrong_type};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The fixed top-level fields of `meta.json`.
pub const META_FIELDS: [&str; 9] = [
    "schemaVersion",
    "runId",
    "caseId",
    "scope",
    "status",
    "startedAt",
    "finishedAt",
    "stats",
    "runtime",
];

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
/// `meta.json` `stats`: the run's structured counts.
pub struct MetaStats {
    /// `durationMs`.
    pub duration_ms: Option<u64>,
    /// `steps`.
    pub steps: Option<u64>,
    /// `assertions`.
    pub assertions: Option<u64>,
    /// `errors`.
    pub errors: Option<u64>,
    /// `artifacts`.
    pub artifacts: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
/// `meta.json` `runtime`: the run's runtime summary.
pub struct MetaRuntime {
    /// `driver`.
    pub driver: Option<String>,
    /// `target`.
    pub target: Option<String>,
    /// `modelName`.
    pub model_name: Option<String>,
}

/// `meta.json`, read leniently: every field optional, unknown fields kept.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    /// `schemaVersion`: the log schema version (4).
    pub schema_version: Option<i64>,
    /// `runId`: the run, its folder's name.
    pub run_id: Option<String>,
    /// `caseId`: the case the run belongs to.
    pub case_id: Option<String>,
    /// `scope`: `<domain>/<layer>/<suite>/<groups...>`, without the caseId.
    pub scope: Option<String>,
    /// `status`: the run's final result, `passed` or `failed`.
    pub status: Option<String>,
    /// `startedAt`: when the run started.
    pub started_at: Option<String>,
    /// `finishedAt`: when the run ended.
    pub finished_at: Option<String>,
    /// `stats`.
    pub stats: MetaStats,
    /// `runtime`.
    pub runtime: MetaRuntime,
    /// Top-level fields beyond the fixed ones (a contract drift, still shown).
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// What the views keep of a `meta.json` for every run: its times and counts. The
/// rest (runtime, schema, unknown fields) is read on demand ([`super::RawRun::details`]):
/// the index grows with runs, so a run costs only what the lists and statistics show.
/// The history cache keeps it as it is (serde).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MetaSummary {
    /// `startedAt`.
    pub started_at: Option<Box<str>>,
    /// `finishedAt`.
    pub finished_at: Option<Box<str>>,
    stats: [u32; 5],
}

/// A count kept in 32 bits; `u32::MAX` is "none" (and a count that large saturates below it).
const NO_COUNT: u32 = u32::MAX;

fn pack(n: Option<u64>) -> u32 {
    n.map_or(NO_COUNT, |n| {
        u32::try_from(n).unwrap_or(NO_COUNT - 1).min(NO_COUNT - 1)
    })
}

fn unpack(n: u32) -> Option<u64> {
    (n != NO_COUNT).then_some(u64::from(n))
}

impl MetaSummary {
    /// What the views keep of `meta`.
    pub fn of(meta: &Meta) -> MetaSummary {
        let s = &meta.stats;
        MetaSummary {
            started_at: meta.started_at.as_deref().map(Box::from),
            finished_at: meta.finished_at.as_deref().map(Box::from),
            stats: [
                pack(s.duration_ms),
                pack(s.steps),
                pack(s.assertions),
                pack(s.errors),
                pack(s.artifacts),
            ],
        }
    }

    /// The `stats` kept.
    pub fn stats(&self) -> MetaStats {
        let [duration_ms, steps, assertions, errors, artifacts] = self.stats.map(unpack);
        MetaStats {
            duration_ms,
            steps,
            assertions,
            errors,
            artifacts,
        }
    }

    /// `stats.durationMs`.
    pub fn duration_ms(&self) -> Option<u64> {
        unpack(self.stats[0])
    }
}

/// `meta.json`'s text read into the lenient model (`rel` names the file in
/// problems; the store's `read_meta` reads the file and calls this). A syntax
/// error is `Err`; wrong types are problems beside a meta that keeps what could
/// be read.
pub fn parse_meta(rel: &str, text: &str) -> Result<(Meta, Vec<Problem>), Problem> {
    let value = serde_json::from_str::<Value>(text).map_err(|e| json_syntax(rel, "meta", &e))?;
    meta_from_value(rel, value, text)
}

/// [`parse_meta`] of a JSON value already parsed from `text`.
pub fn meta_from_value(
    rel: &str,
    value: Value,
    text: &str,
) -> Result<(Meta, Vec<Problem>), Problem> {
    let Value::Object(mut map) = value else {
        return Err(
            Problem::error(rel, "meta-wrong-type", "meta.json must be a JSON object").at(1, 1),
        );
    };
    let mut problems = Vec::new();
    let mut wrong = |key: &str, want: &str, got: &Value| {
        problems.push(wrong_type(rel, "meta-wrong-type", text, key, want, got));
    };
    let mut meta = Meta::default();
    let take_str =
        |map: &mut Map<String, Value>, key: &str, wrong: &mut dyn FnMut(&str, &str, &Value)| {
            match map.remove(key) {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s),
                Some(v) => {
                    wrong(key, "a string", &v);
                    None
                }
            }
        };
    meta.run_id = take_str(&mut map, "runId", &mut wrong);
    meta.case_id = take_str(&mut map, "caseId", &mut wrong);
    meta.scope = take_str(&mut map, "scope", &mut wrong);
    meta.status = take_str(&mut map, "status", &mut wrong);
    meta.started_at = take_str(&mut map, "startedAt", &mut wrong);
    meta.finished_at = take_str(&mut map, "finishedAt", &mut wrong);
    match map.remove("schemaVersion") {
        None | Some(Value::Null) => {}
        Some(Value::Number(n)) if n.as_i64().is_some() => meta.schema_version = n.as_i64(),
        Some(v) => wrong("schemaVersion", "an integer", &v),
    }
    match map.remove("stats") {
        None | Some(Value::Null) => {}
        Some(Value::Object(mut s)) => {
            let mut num = |k: &str| match s.remove(k) {
                None | Some(Value::Null) => None,
                Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64(),
                // a float duration is still a duration
                Some(Value::Number(n)) if n.as_f64().is_some_and(|f| f >= 0.0) => {
                    n.as_f64().map(|f| f as u64)
                }
                Some(v) => {
                    wrong(k, "a non-negative number", &v);
                    None
                }
            };
            meta.stats = MetaStats {
                duration_ms: num("durationMs"),
                steps: num("steps"),
                assertions: num("assertions"),
                errors: num("errors"),
                artifacts: num("artifacts"),
            };
        }
        Some(v) => wrong("stats", "an object", &v),
    }
    match map.remove("runtime") {
        None | Some(Value::Null) => {}
        Some(Value::Object(mut r)) => {
            meta.runtime = MetaRuntime {
                driver: take_str(&mut r, "driver", &mut wrong),
                target: take_str(&mut r, "target", &mut wrong),
                model_name: take_str(&mut r, "modelName", &mut wrong),
            };
        }
        Some(v) => wrong("runtime", "an object", &v),
    }
    // the fields taken out leave the map's capacity behind: with 50k runs an empty
    // map per run is tens of MB, so keep only a real remainder
    if !map.is_empty() {
        meta.extra = map.into_iter().collect();
    }
    Ok((meta, problems))
}
