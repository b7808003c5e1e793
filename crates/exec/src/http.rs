//! Real HTTP for the catalog: `status_probe` before a category, and the
//! `api-status` / `api-field` expectations, with a dotted-path lookup. No
//! redirect is followed, no proxy used, and an answer is read whole or not at all.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::Duration;

/// A probe or API answer must start within this (a dead HOST fails fast).
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// The whole exchange, when the case gives no timeout.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The largest body read.
pub const MAX_BODY: u64 = 16 * 1024 * 1024;

/// An HTTP answer: status and body text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The HTTP status code.
    pub status: u16,
    /// The body, as text.
    pub body: String,
}

impl Answer {
    /// The body as JSON, when it is.
    pub fn json(&self) -> Option<Value> {
        serde_json::from_str(&self.body).ok()
    }
}

/// Why a fetch has no answer to judge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchError {
    /// No answer: a bad URL, refused, unreachable, a timeout before the status.
    Unreachable(String),
    /// An answer that could not be read whole: over [`MAX_BODY`], cut short, or
    /// its body still unfinished when the timeout ran out.
    Body(String),
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchError::Unreachable(e) => write!(f, "unreachable: {e}"),
            FetchError::Body(e) => write!(f, "the answer could not be read: {e}"),
        }
    }
}

/// Fetch `url` with `method`. Any HTTP status is an `Ok` answer — a 3xx too:
/// redirects are never followed (a loopback service must not be able to send
/// the request on to another host), and no proxy is ever used (the proxy
/// variables of the environment would carry a loopback request elsewhere).
/// The URL sent is the one the host classifier parsed.
pub fn fetch(method: &str, url: &str, timeout: Duration) -> Result<Answer, FetchError> {
    let parsed = testdeck_core::workspace::host::parse_url(url).map_err(FetchError::Unreachable)?;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(CONNECT_TIMEOUT.min(timeout)))
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .max_redirects(0)
        .proxy(None)
        .build()
        .into();
    let method = if method.is_empty() { "GET" } else { method };
    let req = ureq::http::Request::builder()
        .method(method.to_ascii_uppercase().as_str())
        .uri(parsed.as_str())
        .body(())
        .map_err(|e| FetchError::Unreachable(format!("bad request {method} {url}: {e}")))?;
    let mut resp = agent
        .run(req)
        .map_err(|e| FetchError::Unreachable(format!("{method} {url}: {e}")))?;
    let status = resp.status().as_u16();
    let body = resp
        .body_mut()
        .with_config()
        .limit(MAX_BODY)
        .read_to_string()
        .map_err(|e| FetchError::Body(format!("{method} {url}: {e}")))?;
    Ok(Answer { status, body })
}

/// Follow a dotted path (`a.b.0.c`; a number indexes an array) into JSON.
pub fn lookup<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    if path.is_empty() {
        return Some(value);
    }
    // a key that itself holds dots wins over the dotted walk
    if let Some(v) = value.as_object().and_then(|m| m.get(path)) {
        return Some(v);
    }
    let mut cur = value;
    for part in path.split('.') {
        cur = match cur {
            Value::Object(m) => m.get(part)?,
            Value::Array(a) => a.get(part.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// Whether an answer's value equals an expected one. Scalars compare by their
/// text too, so `503` in YAML matches `"503"` in JSON and `true` matches `"true"`.
pub fn same(found: &Value, want: &Value) -> bool {
    if found == want {
        return true;
    }
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    };
    match (text(found), text(want)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// The result of one category's `status_probe`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeResult {
    /// The probe's URL, expanded.
    pub url: String,
    /// The category may run.
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The HTTP status of the answer, when one came.
    pub status: Option<u16>,
    /// Why the category is stopped (unreachable, or the `stop_if` hit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Fetch a probe and apply its `stop_if` (`field` → values that stop).
pub fn probe(url: &str, stop_if: &[(String, Vec<Value>)]) -> ProbeResult {
    probe_within(url, stop_if, DEFAULT_TIMEOUT)
}

/// [`probe`] with its own timeout. No answer, or one that cannot be read whole,
/// is a failed probe, never an ok one.
pub fn probe_within(url: &str, stop_if: &[(String, Vec<Value>)], timeout: Duration) -> ProbeResult {
    match fetch("GET", url, timeout) {
        Err(e) => ProbeResult {
            url: url.to_owned(),
            ok: false,
            status: None,
            reason: Some(format!("status_probe {e}")),
        },
        Ok(answer) => {
            let json = answer.json();
            let hit = json.as_ref().and_then(|j| {
                stop_if.iter().find_map(|(field, values)| {
                    let found = lookup(j, field)?;
                    values
                        .iter()
                        .any(|v| same(found, v))
                        .then(|| format!("status_probe stop_if hit: {field} = {found}"))
                })
            });
            ProbeResult {
                url: url.to_owned(),
                ok: hit.is_none(),
                status: Some(answer.status),
                reason: hit,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dotted_paths() {
        let v = json!({"a": {"b": [1, {"c": "x"}]}, "d.e": 5});
        assert_eq!(lookup(&v, "a.b.1.c"), Some(&json!("x")));
        assert_eq!(lookup(&v, "a.b.0"), Some(&json!(1)));
        assert_eq!(lookup(&v, "d.e"), Some(&json!(5)));
        assert_eq!(lookup(&v, "a.z"), None);
        assert_eq!(lookup(&v, "a.b.9"), None);
        assert_eq!(lookup(&v, "a.b.x"), None);
    }

    #[test]
    fn scalar_sameness() {
        assert!(same(&json!(503), &json!("503")));
        assert!(same(&json!("down"), &json!("down")));
        assert!(same(&json!(true), &json!("true")));
        assert!(!same(&json!({"a": 1}), &json!("{\"a\":1}")));
        assert!(!same(&json!("up"), &json!("down")));
    }

    #[test]
    fn unreachable_is_a_reason() {
        // a port nobody listens on: bind, learn the port, close
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("port");
        let r = probe(&format!("http://127.0.0.1:{port}/health"), &[]);
        assert!(!r.ok);
        assert!(r.reason.expect("reason").contains("unreachable"));
    }
}
