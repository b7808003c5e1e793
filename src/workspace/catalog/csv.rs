//! `cases.csv`: the flat list for people, generated from `cases/*.yaml` only (no results).

use super::{Case, Catalog};
use serde_json::Value;

/// The columns of `cases.csv`, in order (stable: scripts read them by name).
pub const COLUMNS: [&str; 24] = [
    "id",
    "category",
    "title",
    "what",
    "lifecycle",
    "tag",
    "risk",
    "gate",
    "driver",
    "automation",
    "session",
    "how_run",
    "how_url",
    "how_method",
    "how_steps",
    "how_timeout",
    "expected",
    "maps_to",
    "assume",
    "setup",
    "teardown",
    "notes",
    "file",
    "line",
];

/// One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break.
pub fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// One CSV line, ending in `\r\n` as RFC 4180 says.
pub fn row<S: AsRef<str>>(fields: &[S]) -> String {
    let mut out = fields
        .iter()
        .map(|f| field(f.as_ref()))
        .collect::<Vec<_>>()
        .join(",");
    out.push_str("\r\n");
    out
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn case_row(c: &Case) -> Vec<String> {
    let opt = |o: Option<&str>| o.unwrap_or_default().to_owned();
    let expected = c
        .expected
        .iter()
        .map(|e| {
            format!(
                "{}: {}",
                e.kind.map_or("?", super::ExpectedKind::as_str),
                value_text(&e.value)
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    vec![
        c.id.clone(),
        c.category.clone(),
        c.title.clone(),
        c.what.clone(),
        opt(c.lifecycle.map(super::Lifecycle::as_str)),
        opt(c.tag.map(super::Tag::as_str)),
        opt(c.risk.map(super::Risk::as_str)),
        opt(c.gate.as_deref()),
        opt(c.driver.map(super::Driver::as_str)),
        opt(c.automation.map(super::Automation::as_str)),
        opt(c.session.as_deref()),
        opt(c.how.run.as_deref()),
        opt(c.how.url.as_deref()),
        opt(c.how.method.as_deref()),
        c.how.steps.join("\n"),
        c.how.timeout.to_string(),
        expected,
        c.maps_to.join("; "),
        opt(c.assume.as_deref()),
        c.setup.join("\n"),
        c.teardown.join("\n"),
        c.notes.join("\n"),
        c.file.clone(),
        c.line.to_string(),
    ]
}

/// The whole `cases.csv`: a header, then one row per case in execution order.
pub fn to_csv(cat: &Catalog) -> String {
    let mut out = row(&COLUMNS);
    for c in &cat.cases {
        out.push_str(&row(&case_row(c)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(field("plain"), "plain");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("two\nlines"), "\"two\nlines\"");
        assert_eq!(row(&["a", "b,c"]), "a,\"b,c\"\r\n");
    }
}
