//! The project's resolution settings read as data, never run: a tsconfig's
//! `baseUrl`, `paths` and `extends` (JSON with comments and trailing commas),
//! and a vite / vitest config's literal `resolve.alias` (object and array forms
//! with a string `find`) and `test.setupFiles`. No I/O here.

use crate::problem::Problem;
use crate::workspace::imports;
use oxc_ast::ast::{ArrayExpressionElement, Expression, ObjectExpression, ObjectPropertyKind};
use oxc_ast_visit::{Visit, walk};

/// What one tsconfig says (paths as written, relative to its own folder).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TsConfig {
    /// `extends`: one or more configs (relative ones are followed).
    pub extends: Vec<String>,
    /// `compilerOptions.baseUrl`.
    pub base_url: Option<String>,
    /// `compilerOptions.paths`, in order.
    pub paths: Option<Vec<(String, Vec<String>)>>,
}

/// The bytes of JSON with comments with its comments and trailing commas
/// blanked (lines and columns kept, for the error's place).
pub fn strip_jsonc(text: &[u8]) -> Vec<u8> {
    let mut out = text.to_vec();
    let mut i = 0;
    let mut in_str = false;
    // the last significant byte outside strings and comments: a `,` before `}` / `]` goes
    let mut last_comma: Option<usize> = None;
    while i < out.len() {
        let b = out[i];
        if in_str {
            match b {
                b'\\' => i += 1,
                b'"' => in_str = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match (b, out.get(i + 1)) {
            (b'"', _) => {
                in_str = true;
                last_comma = None;
            }
            (b'/', Some(b'/')) => {
                while i < out.len() && out[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
                continue;
            }
            (b'/', Some(b'*')) => {
                let mut j = i;
                while j < out.len()
                    && !(out[j] == b'*' && out.get(j + 1) == Some(&b'/') && j > i + 1)
                {
                    if out[j] != b'\n' {
                        out[j] = b' ';
                    }
                    j += 1;
                }
                for k in j..(j + 2).min(out.len()) {
                    out[k] = b' ';
                }
                i = j + 2;
                continue;
            }
            (b',', _) => last_comma = Some(i),
            (b'}' | b']', _) => {
                if let Some(c) = last_comma.take() {
                    out[c] = b' ';
                }
            }
            (b' ' | b'\t' | b'\r' | b'\n', _) => {}
            _ => last_comma = None,
        }
        i += 1;
    }
    out
}

/// One tsconfig's text, read; `rel` names it in the problem.
pub fn tsconfig(rel: &str, text: &[u8]) -> Result<TsConfig, Problem> {
    let stripped = strip_jsonc(text);
    let v: serde_json::Value = serde_json::from_slice(&stripped).map_err(|e| {
        Problem::error(rel, "tsconfig-parse", e.to_string()).at(
            u32::try_from(e.line()).unwrap_or(u32::MAX),
            u32::try_from(e.column()).unwrap_or(u32::MAX),
        )
    })?;
    let strings = |v: &serde_json::Value| -> Vec<String> {
        match v {
            serde_json::Value::String(s) => vec![s.clone()],
            serde_json::Value::Array(a) => a
                .iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        }
    };
    let mut out = TsConfig {
        extends: v.get("extends").map(strings).unwrap_or_default(),
        ..TsConfig::default()
    };
    if let Some(o) = v.get("compilerOptions") {
        out.base_url = o.get("baseUrl").and_then(|b| b.as_str()).map(str::to_owned);
        out.paths = o.get("paths").and_then(|p| p.as_object()).map(|m| {
            m.iter()
                .map(|(k, t)| (k.clone(), strings(t)))
                .collect::<Vec<_>>()
        });
    }
    Ok(out)
}

/// What a vite / vitest config says, its paths relative to its own folder
/// (`/x` is the project root's `x`: written here as `x`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ViteConfig {
    /// `resolve.alias` (and `test.alias`): `find` and the path it stands for.
    pub alias: Vec<(String, String)>,
    /// `test.setupFiles`.
    pub setup_files: Vec<String>,
    /// Aliases whose `find` or replacement is not a literal the graph can read.
    pub unread: Vec<String>,
}

/// One vite / vitest config's source, read as data (`rel` names its language
/// and the problem).
pub fn vite(rel: &str, text: &[u8]) -> Result<ViteConfig, Problem> {
    imports::with_program(rel, text, |program| {
        let mut v = ViteVisit::default();
        v.visit_program(program);
        v.out
    })
}

#[derive(Default)]
struct ViteVisit {
    out: ViteConfig,
}

/// The property `name` of an object literal.
fn prop<'b, 'a>(o: &'b ObjectExpression<'a>, name: &str) -> Option<&'b Expression<'a>> {
    o.properties.iter().find_map(|p| match p {
        ObjectPropertyKind::ObjectProperty(p) if p.key.static_name().as_deref() == Some(name) => {
            Some(p.value.without_parentheses())
        }
        _ => None,
    })
}

/// A string literal, or a template literal without expressions.
fn literal(e: &Expression<'_>) -> Option<String> {
    match e.without_parentheses() {
        Expression::StringLiteral(s) => Some(s.value.to_string()),
        Expression::TemplateLiteral(t) if t.expressions.is_empty() => t
            .quasis
            .first()
            .and_then(|q| q.value.cooked.as_ref())
            .map(ToString::to_string),
        _ => None,
    }
}

/// The folder a path expression starts from is the config's own: `__dirname`,
/// `import.meta.dirname`, `process.cwd()`.
fn is_here(e: &Expression<'_>) -> bool {
    match e.without_parentheses() {
        Expression::Identifier(_) => e.is_specific_id("__dirname"),
        Expression::StaticMemberExpression(m) => {
            m.property.name == "dirname" && matches!(m.object, Expression::MetaProperty(_))
        }
        Expression::CallExpression(c) => c.callee.is_specific_member_access("process", "cwd"),
        _ => false,
    }
}

/// A path written as a literal or built from literals in the common ways
/// (`fileURLToPath(new URL('./src', import.meta.url))`, `path.resolve(__dirname,
/// 'src')`, `new URL('./src', import.meta.url).pathname`), relative to the
/// config's folder.
fn path_of(e: &Expression<'_>) -> Option<String> {
    if let Some(s) = literal(e) {
        return Some(s.strip_prefix('/').map_or(s.clone(), |r| format!("./{r}")));
    }
    match e.without_parentheses() {
        Expression::NewExpression(n) if n.callee.is_specific_id("URL") => {
            let first = n.arguments.first()?.as_expression()?;
            literal(first)
        }
        Expression::StaticMemberExpression(m) if m.property.name == "pathname" => {
            path_of(&m.object)
        }
        Expression::CallExpression(c) => {
            let callee = &c.callee;
            let url = callee.is_specific_id("fileURLToPath")
                || callee.is_specific_member_access("url", "fileURLToPath");
            if url {
                return path_of(c.arguments.first()?.as_expression()?);
            }
            let joins = ["resolve", "join"].iter().any(|f| {
                callee.is_specific_id(f)
                    || callee.is_specific_member_access("path", f)
                    || callee.is_specific_member_access("posix", f)
            });
            if !joins {
                return None;
            }
            let mut parts = Vec::new();
            for (i, a) in c.arguments.iter().enumerate() {
                let a = a.as_expression()?;
                if i == 0 && is_here(a) {
                    continue;
                }
                parts.push(literal(a)?);
            }
            Some(parts.join("/"))
        }
        _ => None,
    }
}

impl ViteVisit {
    fn alias(&mut self, expr: &Expression<'_>) {
        match expr.without_parentheses() {
            Expression::ObjectExpression(obj) => {
                for property in &obj.properties {
                    let ObjectPropertyKind::ObjectProperty(p) = property else {
                        continue;
                    };
                    match (p.key.static_name(), path_of(&p.value)) {
                        (Some(find), Some(to)) => self.out.alias.push((find.to_string(), to)),
                        (find, _) => self
                            .out
                            .unread
                            .push(find.map_or_else(|| "?".to_owned(), |f| f.to_string())),
                    }
                }
            }
            Expression::ArrayExpression(arr) => {
                for el in &arr.elements {
                    let Some(Expression::ObjectExpression(item)) =
                        el.as_expression().map(Expression::without_parentheses)
                    else {
                        if !matches!(el, ArrayExpressionElement::Elision(_)) {
                            self.out.unread.push("?".to_owned());
                        }
                        continue;
                    };
                    let find = prop(item, "find").and_then(literal);
                    let to = prop(item, "replacement").and_then(path_of);
                    match (find, to) {
                        (Some(find), Some(to)) => self.out.alias.push((find, to)),
                        (find, _) => self.out.unread.push(find.unwrap_or_else(|| "?".to_owned())),
                    }
                }
            }
            _ => self.out.unread.push("resolve.alias".to_owned()),
        }
    }
}

impl<'a> Visit<'a> for ViteVisit {
    fn visit_object_expression(&mut self, o: &ObjectExpression<'a>) {
        if let Some(Expression::ObjectExpression(r)) = prop(o, "resolve") {
            if let Some(a) = prop(r, "alias") {
                self.alias(a);
            }
        }
        if let Some(Expression::ObjectExpression(t)) = prop(o, "test") {
            if let Some(a) = prop(t, "alias") {
                self.alias(a);
            }
            match prop(t, "setupFiles") {
                Some(Expression::ArrayExpression(a)) => self.out.setup_files.extend(
                    a.elements
                        .iter()
                        .filter_map(|e| e.as_expression().and_then(path_of)),
                ),
                Some(e) => self.out.setup_files.extend(path_of(e)),
                None => {}
            }
        }
        walk::walk_object_expression(self, o);
    }
}
