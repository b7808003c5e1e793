//! `cases.csv`: the flat list for people, generated from `cases/*.yaml` only (no results).

use super::{Case, Catalog};
use serde_json::Value;

/// The columns of `cases.csv`, in order (stable: scripts read them by name): the
/// seed's case keys, `how` as its fields, then the case's place.
pub(crate) fn columns() -> Vec<&'static str> {
    let mut out = Vec::new();
    for (key, _) in super::CASE_KEYS {
        if key == "how" {
            out.extend([
                "how_run",
                "how_url",
                "how_method",
                "how_steps",
                "how_timeout",
            ]);
        } else {
            out.push(key);
        }
    }
    out.extend(["file", "line"]);
    out
}

/// A cell a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, or a tab / carriage
/// return before one) gets a leading `'`, so opening the file runs nothing; a plain
/// number like `-1` is left as it is (no formula can hide in it).
pub(crate) fn guard(s: &str) -> std::borrow::Cow<'_, str> {
    let risky = s.starts_with(['=', '+', '-', '@', '\t', '\r']);
    if risky && s.parse::<f64>().is_err() {
        std::borrow::Cow::Owned(format!("'{s}"))
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

/// The one CSV writer of testdeck (RFC 4180 through the `csv` crate: fields quoted when
/// they hold a comma, a quote or a line break; every record ends in `\r\n`), with every
/// cell guarded against formula injection.
pub fn table<H, R, S>(header: &[H], rows: R) -> String
where
    H: AsRef<str>,
    R: IntoIterator,
    R::Item: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut w = ::csv::WriterBuilder::new()
        .terminator(::csv::Terminator::CRLF)
        // rows of different lengths are the caller's bug, not a reason to lose the file
        .flexible(true)
        .from_writer(Vec::new());
    // writing into a Vec cannot fail: the only errors are I/O ones
    let _ = w.write_record(header.iter().map(AsRef::as_ref));
    for row in rows {
        let cells: Vec<String> = row
            .into_iter()
            .map(|c| guard(c.as_ref()).into_owned())
            .collect();
        let _ = w.write_record(&cells);
    }
    let bytes = w.into_inner().unwrap_or_default();
    // every cell came in as UTF-8 and the writer adds only ASCII
    String::from_utf8(bytes).unwrap_or_default()
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
        c.pos.line.to_string(),
    ]
}

/// The whole `cases.csv`: a header, then one row per case in execution order.
pub fn to_csv(cat: &Catalog) -> String {
    table(&columns(), cat.cases.iter().map(case_row))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(cell: &str) -> String {
        let t = table(&["h"], [[cell]]);
        t.strip_prefix("h\r\n")
            .and_then(|r| r.strip_suffix("\r\n"))
            .expect("one row")
            .to_owned()
    }

    #[test]
    fn quoting() {
        assert_eq!(one("plain"), "plain");
        assert_eq!(one("a,b"), "\"a,b\"");
        assert_eq!(one("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(one("two\nlines"), "\"two\nlines\"");
        assert_eq!(table(&["x", "y"], [["a", "b,c"]]), "x,y\r\na,\"b,c\"\r\n");
    }

    #[test]
    fn formula_cells_are_defused() {
        assert_eq!(
            one("=HYPERLINK(\"http://x\")"),
            "\"'=HYPERLINK(\"\"http://x\"\")\""
        );
        assert_eq!(one("+1+cmd|' /C calc'!A0"), "'+1+cmd|' /C calc'!A0");
        assert_eq!(one("-2+3"), "'-2+3");
        assert_eq!(one("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(one("\t=1"), "'\t=1");
        assert_eq!(one("\r=1"), "\"'\r=1\"");
        // numbers stay numbers; a sign inside a cell is harmless
        assert_eq!(one("-1"), "-1");
        assert_eq!(one("+3.5"), "+3.5");
        assert_eq!(one("a=b"), "a=b");
        assert_eq!(one(""), "\"\"");
    }
}
