//! A located YAML tree: every node keeps its line and column, so each rule of the
//! catalog can point at the exact place, and one wrong value never hides the rest.

use super::Pos;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;

/// Files larger than this are refused before parsing (a catalog is hand-written text).
pub const MAX_FILE_BYTES: u64 = 8 << 20;

/// Deeper nesting than this is refused: a catalog needs a handful of levels, and the
/// tree is built recursively, so a bound keeps the stack safe.
const MAX_DEPTH: usize = 64;

/// One YAML node with its place.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The value.
    pub value: Yaml,
    /// Where the node starts.
    pub(crate) pos: Pos,
}

/// The YAML value of a node.
#[derive(Debug, Clone, PartialEq)]
pub enum Yaml {
    /// `null`, `~` or nothing.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A floating-point number.
    Float(f64),
    /// Any other scalar.
    Str(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// Keys in file order (duplicates are refused by the parser).
    Map(Vec<(Node, Node)>),
}

impl Node {
    /// The YAML type name, for "expected a string, found a mapping" messages.
    pub(crate) fn type_name(&self) -> &'static str {
        match self.value {
            Yaml::Null => "null",
            Yaml::Bool(_) => "a boolean",
            Yaml::Int(_) | Yaml::Float(_) => "a number",
            Yaml::Str(_) => "a string",
            Yaml::Seq(_) => "a list",
            Yaml::Map(_) => "a mapping",
        }
    }

    /// A scalar as text (numbers and booleans as written by YAML); `None` for
    /// null, lists and mappings.
    pub(crate) fn as_text(&self) -> Option<String> {
        match &self.value {
            Yaml::Str(s) => Some(s.clone()),
            Yaml::Bool(b) => Some(b.to_string()),
            Yaml::Int(i) => Some(i.to_string()),
            Yaml::Float(f) => Some(f.to_string()),
            _ => None,
        }
    }

    /// The text of a string scalar.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Yaml::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn is_null(&self) -> bool {
        matches!(self.value, Yaml::Null)
    }

    /// The entries of a mapping, `None` for anything else.
    pub(crate) fn as_map(&self) -> Option<&[(Node, Node)]> {
        match &self.value {
            Yaml::Map(m) => Some(m),
            _ => None,
        }
    }

    pub(crate) fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Yaml::Seq(s) => Some(s),
            _ => None,
        }
    }

    /// The value under `key` of a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.key_text().as_deref() == Some(key))
            .map(|(_, v)| v)
    }

    /// A mapping key as text (scalar keys only).
    pub(crate) fn key_text(&self) -> Option<String> {
        self.as_text()
    }

    /// The plain JSON value of the subtree (places dropped), for fields that are
    /// shown or compared but have no rule of their own.
    pub(crate) fn to_json(&self) -> Value {
        match &self.value {
            Yaml::Null => Value::Null,
            Yaml::Bool(b) => Value::Bool(*b),
            Yaml::Int(i) => Value::from(*i),
            Yaml::Float(f) => serde_json::Number::from_f64(*f)
                .map_or_else(|| Value::String(f.to_string()), Value::Number),
            Yaml::Str(s) => Value::String(s.clone()),
            Yaml::Seq(s) => Value::Array(s.iter().map(Node::to_json).collect()),
            Yaml::Map(m) => Value::Object(
                m.iter()
                    .map(|(k, v)| {
                        (
                            k.key_text().unwrap_or_else(|| k.to_json().to_string()),
                            v.to_json(),
                        )
                    })
                    .collect(),
            ),
        }
    }
}

/// Why a file could not be parsed at all, with its place when known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// `yaml-syntax` for broken YAML, `yaml-limit` for a refused alias bomb or nesting.
    pub(crate) rule: &'static str,
    /// What is wrong, for a person.
    pub(crate) message: String,
    /// Where, 0:0 when unknown.
    pub(crate) pos: Pos,
}

/// Parse one YAML document into a located tree. An empty document is `Null`.
pub fn parse(text: &str) -> Result<Node, ParseError> {
    let options = serde_saphyr::Options {
        budget: Some(serde_saphyr::Budget {
            max_depth: MAX_DEPTH,
            max_documents: 1,
            max_aliases: 1_000,
            max_anchors: 1_000,
            max_nodes: 200_000,
            max_total_scalar_bytes: MAX_FILE_BYTES as usize,
            max_merge_keys: 1_000,
            ..serde_saphyr::Budget::default()
        }),
        alias_limits: serde_saphyr::options::AliasLimits {
            max_total_replayed_events: 20_000,
            max_replay_stack_depth: 16,
            max_alias_expansions_per_anchor: 200,
        },
        with_snippet: false,
        ..serde_saphyr::Options::default()
    };
    if text.trim().is_empty() {
        return Ok(Node {
            value: Yaml::Null,
            pos: Pos::new(1, 1),
        });
    }
    serde_saphyr::from_str_with_options::<Node>(text, options).map_err(|e| to_parse_error(&e))
}

/// What is left of a broken file whose block list `key:` could be cut into items:
/// the items that parse (places true to the file) and the errors of the others.
#[derive(Debug, Clone)]
pub(crate) struct Recovered {
    /// A mapping with the header's keys (before `key:`) and `key` → the good items.
    pub root: Node,
    /// The errors of the items that do not parse (empty: the error is elsewhere).
    pub(crate) errors: Vec<ParseError>,
}

/// Cut the block list under a top-level `key:` into its items and parse each
/// alone, so one broken item does not hide the others. `None` when the file has
/// no such block list.
#[expect(
    clippy::too_many_lines,
    reason = "a line-by-line recovery scanner whose states share the cursor"
)]
pub(crate) fn recover_list(text: &str, key: &str) -> Option<Recovered> {
    let lines: Vec<&str> = text.split('\n').collect();
    let head = format!("{key}:");
    let start = lines.iter().position(|l| {
        l.strip_prefix(&head)
            .is_some_and(|r| r.trim().is_empty() || r.trim_start().starts_with('#'))
    })?;
    let is_item = |t: &str| t == "-" || t.starts_with("- ") || t.starts_with("-\t");
    let mut indent = None;
    let mut items: Vec<(usize, usize)> = Vec::new();
    let mut cur = None;
    let mut end = lines.len();
    for (i, l) in lines.iter().enumerate().skip(start + 1) {
        let t = l.trim_start_matches(' ');
        if t.trim().is_empty() || t.starts_with('#') {
            continue;
        }
        let ind = l.len() - t.len();
        match indent {
            None if is_item(t) => {
                indent = Some(ind);
                cur = Some(i);
            }
            None => return None,
            Some(n) if ind < n || (ind == n && !is_item(t)) => {
                end = i;
                break;
            }
            Some(n) if ind == n => {
                if let Some(c) = cur.replace(i) {
                    items.push((c, i));
                }
            }
            Some(_) => {}
        }
    }
    let n = indent?;
    if let Some(c) = cur {
        items.push((c, end));
    }
    let mut good = Vec::new();
    let mut errors = Vec::new();
    for (a, b) in items {
        let chunk: Vec<&str> = lines[a..b]
            .iter()
            .map(|l| {
                if l.len() >= n && l.is_char_boundary(n) {
                    &l[n..]
                } else {
                    l.trim_start()
                }
            })
            .collect();
        let shift = |p: Pos| Pos::new(p.line + a as u32, p.column + n as u32);
        match parse(&chunk.join("\n")) {
            Ok(mut node) => {
                node.shift(&shift);
                if let Yaml::Seq(mut s) = node.value {
                    good.append(&mut s);
                }
            }
            Err(mut e) => {
                let last = lines[a..b]
                    .iter()
                    .rposition(|l| !l.trim().is_empty())
                    .unwrap_or(0);
                if e.pos.line as usize > last + 1 {
                    // the parser only noticed at the end: the item is what is broken
                    e.message = format!(
                        "{} (in the item starting here; the parser stopped at line {})",
                        e.message,
                        e.pos.line + a as u32
                    );
                    e.pos = Pos::new(a as u32 + 1, n as u32 + 1);
                } else {
                    e.pos = shift(e.pos);
                }
                errors.push(e);
            }
        }
    }
    let mut entries = match parse(&lines[..start].join("\n")) {
        Ok(Node {
            value: Yaml::Map(m),
            ..
        }) => m,
        _ => Vec::new(),
    };
    let key_pos = Pos::new(start as u32 + 1, 1);
    entries.push((
        Node {
            value: Yaml::Str(key.to_owned()),
            pos: key_pos,
        },
        Node {
            value: Yaml::Seq(good),
            pos: key_pos,
        },
    ));
    Some(Recovered {
        root: Node {
            value: Yaml::Map(entries),
            pos: Pos::new(1, 1),
        },
        errors,
    })
}

impl Node {
    /// Move every place of the subtree.
    fn shift(&mut self, f: &dyn Fn(Pos) -> Pos) {
        self.pos = f(self.pos);
        match &mut self.value {
            Yaml::Seq(s) => s.iter_mut().for_each(|n| n.shift(f)),
            Yaml::Map(m) => m.iter_mut().for_each(|(k, v)| {
                k.shift(f);
                v.shift(f);
            }),
            _ => {}
        }
    }
}

fn to_parse_error(e: &serde_saphyr::Error) -> ParseError {
    use serde_saphyr::Error as E;
    let e = e.without_snippet();
    let pos = e.location().map_or(Pos::new(1, 1), |l| {
        Pos::new(l.line() as u32, l.column() as u32)
    });
    let (rule, message) = match e {
        E::Budget { breach, .. } => (
            "yaml-limit",
            format!("refused: the document exceeds a parser limit ({breach:?})"),
        ),
        E::Message { msg, .. } | E::HookError { msg, .. } => {
            if ["alias", "replay", "depth", "recursion", "limit"]
                .iter()
                .any(|w| msg.contains(w))
            {
                ("yaml-limit", format!("refused: {msg}"))
            } else {
                ("yaml-syntax", msg.clone())
            }
        }
        E::Eof { .. } => ("yaml-syntax", "unexpected end of input".to_owned()),
        E::Unexpected { expected, .. } => ("yaml-syntax", format!("expected {expected}")),
        E::ContainerEndMismatch { .. } => (
            "yaml-syntax",
            "list or mapping ends without a start".to_owned(),
        ),
        E::UnknownAnchor { .. } => ("yaml-syntax", "alias of an unknown anchor".to_owned()),
        other => ("yaml-syntax", strip_location(&other.to_string())),
    };
    ParseError { rule, message, pos }
}

/// Drop a trailing " at line X column Y" that the parser's Display adds: the place
/// is reported in its own fields.
fn strip_location(s: &str) -> String {
    s.find(" at line ")
        .map_or_else(|| s.to_owned(), |i| s[..i].to_owned())
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = serde_saphyr::Spanned::<Yaml>::deserialize(d)?;
        Ok(Node {
            value: s.value,
            pos: Pos::new(s.referenced.line() as u32, s.referenced.column() as u32),
        })
    }
}

struct YamlVisitor;

impl<'de> Visitor<'de> for YamlVisitor {
    type Value = Yaml;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Yaml, E> {
        Ok(Yaml::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Yaml, E> {
        Ok(Yaml::Int(v))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Yaml, E> {
        Ok(i64::try_from(v).map_or_else(|_| Yaml::Str(v.to_string()), Yaml::Int))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Yaml, E> {
        Ok(i64::try_from(v).map_or_else(|_| Yaml::Str(v.to_string()), Yaml::Int))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Yaml, E> {
        Ok(i64::try_from(v).map_or_else(|_| Yaml::Str(v.to_string()), Yaml::Int))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Yaml, E> {
        Ok(Yaml::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Yaml, E> {
        Ok(Yaml::Str(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Yaml, E> {
        Ok(Yaml::Str(v))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Yaml, E> {
        Ok(Yaml::Str(String::from_utf8_lossy(v).into_owned()))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Yaml, E> {
        Ok(Yaml::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Yaml, E> {
        Ok(Yaml::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Yaml, D::Error> {
        Yaml::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Yaml, A::Error> {
        let mut out = Vec::new();
        while let Some(n) = seq.next_element::<Node>()? {
            out.push(n);
        }
        Ok(Yaml::Seq(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Yaml, A::Error> {
        let mut out = Vec::new();
        while let Some(k) = map.next_key::<Node>()? {
            let v = map.next_value::<Node>()?;
            out.push((k, v));
        }
        Ok(Yaml::Map(out))
    }
}

impl<'de> Deserialize<'de> for Yaml {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(YamlVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_of_nested_nodes() {
        let n = parse("a: 1\nlist:\n  - x\n  - {k: true}\n").expect("parses");
        assert_eq!(n.get("a").map(|v| v.pos), Some(Pos::new(1, 4)));
        let list = n.get("list").and_then(Node::as_seq).expect("a list");
        assert_eq!(list[0].pos, Pos::new(3, 5));
        assert_eq!(list[0].as_str(), Some("x"));
        let k = list[1].get("k").expect("k");
        assert_eq!(k.value, Yaml::Bool(true));
        assert_eq!(k.pos.line, 4);
    }

    #[test]
    fn syntax_error_is_located() {
        let e = parse("a: 1\nb: [1, 2\nc: 3\n").expect_err("broken");
        assert_eq!(e.rule, "yaml-syntax");
        assert!(e.pos.line >= 2, "{e:?}");
    }

    #[test]
    fn alias_bomb_is_refused() {
        let mut lines = vec!["a0: &a0 [x, x, x, x, x, x, x, x, x, x]".to_owned()];
        for i in 1..12 {
            let p = i - 1;
            let refs = vec![format!("*a{p}"); 10].join(", ");
            lines.push(format!("a{i}: &a{i} [{refs}]"));
        }
        let s = lines.join("\n");
        let e = parse(&s).expect_err("refused");
        assert_eq!(e.rule, "yaml-limit", "{e:?}");
    }

    #[test]
    fn deep_nesting_is_refused() {
        for depth in [100, 10_000] {
            let s = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            let e = parse(&s).expect_err("refused");
            assert_eq!(e.rule, "yaml-limit", "{depth}: {e:?}");
        }
        let ok = format!("{}{}", "[".repeat(40), "]".repeat(40));
        assert!(parse(&ok).is_ok());
    }

    #[test]
    fn a_broken_item_does_not_hide_the_others() {
        let text = "category: API\ncases:\n  - id: A\n    title: ok\n  - id: B\n    title: [broken\n  - id: C\n    how:\n      run: |\n        echo hi\nextra: 1\n";
        assert!(parse(text).is_err());
        let r = recover_list(text, "cases").expect("recovered");
        assert_eq!(r.errors.len(), 1);
        assert!(r.errors[0].pos.line >= 6, "{:?}", r.errors);
        let cases = r.root.get("cases").and_then(Node::as_seq).expect("cases");
        let ids: Vec<_> = cases
            .iter()
            .filter_map(|c| c.get("id")?.as_text())
            .collect();
        assert_eq!(ids, ["A", "C"]);
        assert_eq!(cases[1].get("id").map(|n| n.pos), Some(Pos::new(7, 9)));
        assert_eq!(
            cases[1]
                .get("how")
                .and_then(|h| h.get("run"))
                .and_then(Node::as_str),
            Some("echo hi\n")
        );
        assert_eq!(r.root.get("category").and_then(Node::as_str), Some("API"));
        assert!(recover_list("cases: [a, {b\n", "cases").is_none());
    }

    #[test]
    fn empty_is_null_and_json_keeps_order() {
        assert!(parse("  \n").expect("empty").is_null());
        let n = parse("z: 1\na: [2, x]\n").expect("parses");
        assert_eq!(n.to_json().to_string(), r#"{"z":1,"a":[2,"x"]}"#);
    }
}
