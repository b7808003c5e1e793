//! One run file read whole, bounded: JSON with its errors located, a small timeline.

use crate::problem::Problem;
use crate::workspace::timeline::{self, TimelineEvent};
use crate::workspace::walk::Folder;
use crate::workspace::{config, read, rel};
use serde_json::Value;
use std::path::Path;

/// Largest `meta.json` / `artifacts.json` read; bigger is a problem, not a parse.
pub const MAX_JSON_FILE: u64 = read::Kind::RunJson.cap();

/// Read the JSON file `name` of the open run folder `folder` (`rel` names it in
/// problems), through the bounded reader's one guard.
pub fn read_json_beneath(
    rel: &str,
    folder: &Folder,
    name: &str,
    rule_prefix: &str,
    links: read::Links,
) -> Result<(Value, String), Problem> {
    let bytes = read::read_beneath(folder.fd(), Path::new(name), links, read::Kind::RunJson)
        .map_err(|e| e.problem(rel, rule_prefix))?;
    parse_json_bytes(rel, rule_prefix, bytes)
}

/// Read a JSON file with a size limit; a syntax error is located.
pub fn read_json_file(
    root: &Path,
    file: &Path,
    rule_prefix: &str,
) -> Result<(Value, String), Problem> {
    let rel = rel(root, file);
    // a run file stays in its run folder: a link out (to /dev/zero, an outside
    // record) or a FIFO is refused before a byte is read
    let within = file.parent().unwrap_or(root);
    let bytes = read::read(file, Some(within), read::Kind::RunJson)
        .map_err(|e| e.problem(&rel, rule_prefix))?;
    parse_json_bytes(&rel, rule_prefix, bytes)
}

/// The bytes of a JSON file as a value and its text; a syntax error is located.
pub(crate) fn parse_json_bytes(
    rel: &str,
    rule_prefix: &str,
    bytes: Vec<u8>,
) -> Result<(Value, String), Problem> {
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let (l, c) = config::line_col(&text, at);
            return Err(
                Problem::error(rel, &format!("{rule_prefix}-not-utf8"), "invalid UTF-8").at(l, c),
            );
        }
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(v) => Ok((v, text)),
        Err(e) => Err(json_syntax(rel, rule_prefix, &e)),
    }
}

/// The located `<prefix>-syntax` problem of a JSON text that does not parse.
pub(super) fn json_syntax(rel: &str, rule_prefix: &str, e: &serde_json::Error) -> Problem {
    Problem::error(
        rel,
        &format!("{rule_prefix}-syntax"),
        format!("invalid JSON: {}", timeline::json_error_text(e)),
    )
    .at(e.line() as u32, e.column().max(1) as u32)
}

/// The `rule` problem of the value `got` of `"key"`, which should be `want`,
/// located at the key in the JSON text.
pub(super) fn wrong_type(
    rel: &str,
    rule: &str,
    text: &str,
    key: &str,
    want: &str,
    got: &Value,
) -> Problem {
    let (l, c) = locate_key(text, key);
    Problem::error(
        rel,
        rule,
        format!("{key} should be {want}, found {}", timeline::kind_of(got)),
    )
    .at(l, c)
}

/// Line and column of the first `"key"` in a JSON text (to locate a value's problem).
pub fn locate_key(text: &str, key: &str) -> (u32, u32) {
    let needle = format!("\"{key}\"");
    text.find(&needle)
        .map_or((0, 0), |at| config::line_col(text, at))
}

/// Line and column of the first string value equal to `value` in a JSON text.
pub fn locate_key_value(text: &str, value: &str) -> (u32, u32) {
    let needle = serde_json::to_string(value).unwrap_or_default();
    text.find(&needle)
        .map_or((0, 0), |at| config::line_col(text, at))
}

/// A whole timeline read at once (for small files; the tail engine follows big or growing ones).
pub fn read_timeline(root: &Path, file: &Path) -> (Vec<TimelineEvent>, Vec<Problem>) {
    let rel = rel(root, file);
    let within = file.parent().unwrap_or(root);
    let bytes = match read::read(file, Some(within), read::Kind::Timeline) {
        Ok(b) => b,
        Err(e) => return (Vec::new(), vec![e.problem(&rel, "timeline")]),
    };
    let mut events = Vec::new();
    let mut problems = Vec::new();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let (ev, issues) = timeline::parse_line(line);
        for is in issues {
            let sev = if is.rule == "timeline-bad-type" || is.rule == "timeline-bad-status" {
                crate::Severity::Warning
            } else {
                crate::Severity::Error
            };
            let mut p = Problem::error(&rel, is.rule, is.message).at_line(i as u32 + 1);
            p.column = is.column;
            p.severity = sev;
            problems.push(p);
        }
        events.push(ev);
    }
    (events, problems)
}
