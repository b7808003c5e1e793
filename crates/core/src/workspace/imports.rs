//! The module specifiers and test titles of one JavaScript / TypeScript source
//! (`.ts`, `.tsx`, `.mts`, `.cts`, `.js`, `.jsx`, `.mjs`, `.cjs`), read with a real
//! parser (oxc) from bytes: no I/O here. `adopt` and `promote` rewrite the relative
//! specifiers of a moved test file with [`rewrite`]; the plan entry's What lists
//! [`Parsed::titles`]; the import graph reads [`Parsed::specifiers`].
//!
//! Every specifier carries the byte span of its string literal (quotes included),
//! so a rewrite touches those bytes and nothing else. A source that does not
//! parse (a syntax error, bytes that are not UTF-8, an unknown extension) is one
//! located [`Problem`], never a panic.

use std::ops::Range;

use oxc_allocator::Allocator;
use oxc_ast::ast::{
    Argument, CallExpression, Comment, CommentKind, ExportAllDeclaration, ExportNamedDeclaration,
    Expression, ImportDeclaration, ImportExpression, ImportOrExportKind, StringLiteral,
    TSExternalModuleReference, TSImportType, TemplateLiteral,
};
use oxc_ast_visit::{Visit, walk};
use oxc_parser::Parser;
use oxc_span::{SourceType, Span};

use crate::problem::Problem;

/// The largest source parsed (4 MiB: far above any test file; the parse thread's
/// stack grows with the size).
pub const MAX_SOURCE: usize = 4 << 20;

/// The parse runs on a thread of its own with this much stack per source byte
/// (plus [`BASE_STACK`]): the parser and the walk recurse once per nesting level
/// (`((…`, `!!!…`, `a ? b : a ? …`), at most one level per byte, so no source
/// overflows it. Only the pages used are ever touched.
const STACK_PER_BYTE: usize = 1024;
const BASE_STACK: usize = 8 << 20;

/// Deeper bracket nesting than this is refused before parsing: a level of `[`
/// or `{` costs the parser far more stack than a byte's share. No test file
/// nests anywhere near it.
pub const MAX_NESTING: usize = 1_000;

/// The rule name of every problem this module reports.
pub const RULE: &str = "js-parse";

/// Where a module specifier stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Kind {
    /// `import … from "x"`, `import "x"`.
    Import,
    /// `import type … from "x"`.
    ImportType,
    /// `export { … } from "x"`, `export * as n from "x"`.
    ExportFrom,
    /// `export type { … } from "x"`.
    ExportTypeFrom,
    /// `export * from "x"`.
    ExportAll,
    /// `import("x")` with a literal.
    DynamicImport,
    /// `require("x")`.
    Require,
    /// `vi.mock("x")`, `vi.doMock`, `vi.unmock`, `vi.doUnmock`.
    ViMock,
    /// `vi.importActual("x")`.
    ViImportActual,
    /// `vi.importMock("x")`.
    ViImportMock,
    /// `/// <reference path="x" />` (relative to the file even without `./`).
    ReferencePath,
    /// `import x = require("x")` (TypeScript).
    ImportEquals,
    /// `typeof import("x")` in a type (TypeScript).
    TypeImport,
}

impl Kind {
    /// A short name for a person (`import`, `vi.mock`, …).
    pub fn label(self) -> &'static str {
        match self {
            Kind::Import => "import",
            Kind::ImportType => "import type",
            Kind::ExportFrom => "export from",
            Kind::ExportTypeFrom => "export type from",
            Kind::ExportAll => "export *",
            Kind::DynamicImport => "import()",
            Kind::Require => "require()",
            Kind::ViMock => "vi.mock()",
            Kind::ViImportActual => "vi.importActual()",
            Kind::ViImportMock => "vi.importMock()",
            Kind::ReferencePath => "reference path",
            Kind::ImportEquals => "import = require()",
            Kind::TypeImport => "import() type",
        }
    }
}

/// One module specifier written as a literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Specifier {
    /// Where it stands.
    pub kind: Kind,
    /// The specifier's value (escapes resolved).
    pub value: String,
    /// The byte span of the literal in the source, its quotes included.
    pub span: Range<usize>,
    /// 1-based line of the literal.
    pub line: u32,
    /// 1-based column (in characters) of the literal.
    pub column: u32,
}

impl Specifier {
    /// Whether it is relative to the file (`./`, `../`, `.`, `..`; any
    /// non-absolute path of a `reference path`).
    pub fn is_relative(&self) -> bool {
        is_relative(self.kind, &self.value)
    }
}

/// An `import()` or `require()` whose argument is not a literal: nothing to
/// rewrite, but a person moving the file should look at it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NonLiteral {
    /// [`Kind::DynamicImport`] or [`Kind::Require`].
    pub kind: Kind,
    /// The byte span of the argument.
    pub span: Range<usize>,
    /// 1-based line of the argument.
    pub line: u32,
    /// 1-based column (in characters).
    pub column: u32,
}

/// A `describe` block or a test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TitleKind {
    /// `describe(…)`, `suite(…)`, Playwright's `test.describe(…)`.
    Describe,
    /// `test(…)`, `it(…)`.
    Test,
}

/// The title path of one `describe` or test: the enclosing describes' titles, then
/// its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Title {
    /// Describe or test.
    pub kind: TitleKind,
    /// The titles from the outermost describe to this one.
    pub path: Vec<String>,
    /// 1-based line of the call.
    pub line: u32,
}

/// What [`parse`] found in one source.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    /// Every literal module specifier, in source order.
    pub specifiers: Vec<Specifier>,
    /// Every `import()` / `require()` with a non-literal argument, in source order.
    pub non_literal: Vec<NonLiteral>,
    /// Every describe and test title path, in source order.
    pub titles: Vec<Title>,
}

/// Whether `value` of a specifier of `kind` is relative to its file.
pub fn is_relative(kind: Kind, value: &str) -> bool {
    if kind == Kind::ReferencePath {
        return !value.is_empty() && !value.starts_with('/') && !value.contains(':');
    }
    value == "." || value == ".." || value.starts_with("./") || value.starts_with("../")
}

/// Parse `bytes`, a source whose name (for its language, and for the problem's
/// place) is `rel_file` (relative to the workspace root, `/`-separated).
pub fn parse(rel_file: &str, bytes: &[u8]) -> Result<Parsed, Problem> {
    checked(rel_file, bytes, |text, source_type| {
        parse_text(rel_file, bytes, text, source_type)
    })
}

/// The program of one source, handed to `read` (on the parse thread, with the
/// same checks and limits as [`parse`]), for a reader that wants more than the
/// specifiers: the import graph reads a vite / vitest config's literal
/// `resolve.alias` and `test.setupFiles` with it (data, never run).
pub fn with_program<R: Send>(
    rel_file: &str,
    bytes: &[u8],
    read: impl for<'a> FnOnce(&oxc_ast::ast::Program<'a>) -> R + Send,
) -> Result<R, Problem> {
    checked(rel_file, bytes, |text, source_type| {
        let allocator = Allocator::default();
        let ret = Parser::new(&allocator, text, source_type).parse();
        syntax_error(rel_file, bytes, &ret)?;
        Ok(read(&ret.program))
    })
}

/// The checks every parse passes (language, size, UTF-8, nesting), then `run`
/// on a thread whose stack grows with the source.
fn checked<R: Send>(
    rel_file: &str,
    bytes: &[u8],
    run: impl FnOnce(&str, SourceType) -> Result<R, Problem> + Send,
) -> Result<R, Problem> {
    let source_type = source_type(rel_file).ok_or_else(|| {
        Problem::error(
            rel_file,
            RULE,
            "not a JavaScript or TypeScript file (.ts, .tsx, .mts, .cts, .js, .jsx, .mjs, .cjs)",
        )
    })?;
    if bytes.len() > MAX_SOURCE {
        return Err(Problem::error(
            rel_file,
            RULE,
            format!(
                "{} bytes: larger than the {} MiB a source may have",
                bytes.len(),
                MAX_SOURCE >> 20
            ),
        ));
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let at = e.valid_up_to();
            let (line, column) = line_col(bytes, at);
            return Err(Problem::error(
                rel_file,
                RULE,
                format!("not UTF-8 text (byte {at} is not)"),
            )
            .at(line, column));
        }
    };
    if let Some(at) = too_deep(bytes) {
        let (line, column) = line_col(bytes, at);
        return Err(Problem::error(
            rel_file,
            RULE,
            format!("brackets nested deeper than {MAX_NESTING}: not parsed"),
        )
        .at(line, column));
    }
    let stack = BASE_STACK + bytes.len() * STACK_PER_BYTE;
    let failed = |why: &str| Problem::error(rel_file, RULE, format!("not parsed: {why}"));
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("parse".into())
            .stack_size(stack)
            .spawn_scoped(scope, || run(text, source_type))
            .map_err(|e| failed(&e.to_string()))?;
        worker
            .join()
            .unwrap_or_else(|_| Err(failed("the parser failed on this source")))
    })
}

/// [`parse`] of checked UTF-8 text, on a thread with a deep enough stack.
fn parse_text(
    rel_file: &str,
    bytes: &[u8],
    text: &str,
    source_type: SourceType,
) -> Result<Parsed, Problem> {
    let allocator = Allocator::default();
    let ret = Parser::new(&allocator, text, source_type).parse();
    syntax_error(rel_file, bytes, &ret)?;
    let mut collect = Collect {
        bytes,
        lines: LineIndex::new(bytes),
        parsed: Parsed::default(),
        describes: Vec::new(),
    };
    collect.visit_program(&ret.program);
    for comment in &ret.program.comments {
        collect.reference(comment);
    }
    let mut parsed = collect.parsed;
    parsed.specifiers.sort_by_key(|s| s.span.start);
    Ok(parsed)
}

/// The first of a parse's errors as one located problem.
fn syntax_error(
    rel_file: &str,
    bytes: &[u8],
    ret: &oxc_parser::ParserReturn<'_>,
) -> Result<(), Problem> {
    let errors = &ret.errors;
    if let Some(first) = errors.first() {
        let at = match first.labels.as_deref() {
            Some([label, ..]) => label.offset(),
            _ => 0,
        };
        let (line, column) = line_col(bytes, at.min(bytes.len()));
        let more = match errors.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        return Err(Problem::error(
            rel_file,
            RULE,
            format!("syntax error: {}{more}", first.message),
        )
        .at(line, column));
    }
    Ok(())
}

/// The parser's source type for a file name, `None` for another extension. The
/// JavaScript kinds accept JSX (React projects write it in `.js` test files).
fn source_type(rel_file: &str) -> Option<SourceType> {
    let name = rel_file.rsplit('/').next().unwrap_or(rel_file);
    let (_, ext) = name.rsplit_once('.')?;
    let st = SourceType::from_extension(ext).ok()?;
    Some(match ext {
        "js" | "mjs" | "cjs" => st.with_jsx(true),
        _ => st.with_typescript_definition(name.ends_with(".d.ts")),
    })
}

/// The offset where bracket nesting first passes [`MAX_NESTING`], counting every
/// `(`, `[`, `{` (in strings and comments too: an over-count only refuses a
/// pathological file).
fn too_deep(bytes: &[u8]) -> Option<usize> {
    let mut depth = 0usize;
    for (i, b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(i);
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// 1-based line and character column of byte `at` (a `\r\n` ends one line).
pub fn line_col(bytes: &[u8], at: usize) -> (u32, u32) {
    LineIndex::new(bytes).line_col(bytes, at)
}

/// The start offsets of a source's lines.
struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(bytes: &[u8]) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
        Self { starts }
    }

    fn line_col(&self, bytes: &[u8], at: usize) -> (u32, u32) {
        let at = at.min(bytes.len());
        let line = self.starts.partition_point(|&s| s <= at).max(1);
        let start = self.starts[line - 1];
        let column = String::from_utf8_lossy(&bytes[start..at]).chars().count() + 1;
        (
            u32::try_from(line).unwrap_or(u32::MAX),
            u32::try_from(column).unwrap_or(u32::MAX),
        )
    }
}

struct Collect<'s> {
    bytes: &'s [u8],
    lines: LineIndex,
    parsed: Parsed,
    /// The titles of the describes the walk is inside.
    describes: Vec<String>,
}

fn range(span: Span) -> Range<usize> {
    span.start as usize..span.end as usize
}

impl Collect<'_> {
    fn at(&self, offset: usize) -> (u32, u32) {
        self.lines.line_col(self.bytes, offset)
    }

    fn push(&mut self, kind: Kind, value: &str, span: Span) {
        let span = range(span);
        let (line, column) = self.at(span.start);
        self.parsed.specifiers.push(Specifier {
            kind,
            value: value.to_owned(),
            span,
            line,
            column,
        });
    }

    fn literal(&mut self, kind: Kind, lit: &StringLiteral) {
        self.push(kind, lit.value.as_str(), lit.span);
    }

    /// A specifier argument: a string literal, a template literal without
    /// substitutions, or else (for `import()` / `require()`) a non-literal.
    fn argument(&mut self, kind: Kind, expr: &Expression) {
        match expr.without_parentheses() {
            Expression::StringLiteral(lit) => self.literal(kind, lit),
            Expression::TemplateLiteral(t) if t.expressions.is_empty() => {
                if let Some(value) = template_value(t) {
                    self.push(kind, &value, t.span);
                }
            }
            other => {
                if matches!(kind, Kind::DynamicImport | Kind::Require) {
                    let span = range(oxc_span::GetSpan::span(other));
                    let (line, column) = self.at(span.start);
                    self.parsed.non_literal.push(NonLiteral {
                        kind,
                        span,
                        line,
                        column,
                    });
                }
            }
        }
    }

    /// `/// <reference path="…" />`.
    fn reference(&mut self, comment: &Comment) {
        if comment.kind != CommentKind::Line {
            return;
        }
        let span = range(comment.span);
        let Some(text) = self.bytes.get(span.clone()) else {
            return;
        };
        let Some(body) = text.strip_prefix(b"///") else {
            return;
        };
        let trimmed = body.trim_ascii_start();
        if !trimmed.starts_with(b"<reference") {
            return;
        }
        let base = span.start + 3 + (body.len() - trimmed.len());
        let Some(attr) = find(trimmed, b"path") else {
            return;
        };
        let mut i = attr + 4;
        while trimmed.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        if trimmed.get(i) != Some(&b'=') {
            return;
        }
        i += 1;
        while trimmed.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        let Some(&quote) = trimmed.get(i).filter(|q| **q == b'"' || **q == b'\'') else {
            return;
        };
        let Some(len) = trimmed[i + 1..].iter().position(|b| *b == quote) else {
            return;
        };
        let value = String::from_utf8_lossy(&trimmed[i + 1..i + 1 + len]).into_owned();
        let start = base + i;
        let span = start..start + len + 2;
        let (line, column) = self.at(start);
        self.parsed.specifiers.push(Specifier {
            kind: Kind::ReferencePath,
            value,
            span,
            line,
            column,
        });
    }

    /// The callee names a describe or test call, unwrapping `.each(…)` /
    /// `.for(…)` and modifiers (`.skip`, `.only`, `.concurrent`, …).
    fn title_kind(callee: &Expression) -> Option<TitleKind> {
        let callee = callee.without_parentheses();
        match callee {
            Expression::Identifier(id) => match id.name.as_str() {
                "describe" | "suite" | "context" => Some(TitleKind::Describe),
                "test" | "it" => Some(TitleKind::Test),
                _ => None,
            },
            Expression::StaticMemberExpression(m) => {
                let prop = m.property.name.as_str();
                // Playwright: test.describe(…), test.describe.serial(…)
                if prop == "describe" {
                    return (Self::title_kind(&m.object) == Some(TitleKind::Test))
                        .then_some(TitleKind::Describe);
                }
                // a modifier keeps the kind; anything else (test.step, test.use,
                // test.describe.configure, …) is no title
                if !matches!(
                    prop,
                    "skip"
                        | "only"
                        | "todo"
                        | "fails"
                        | "concurrent"
                        | "sequential"
                        | "shuffle"
                        | "serial"
                        | "parallel"
                        | "fixme"
                        | "fail"
                ) {
                    return None;
                }
                Self::title_kind(&m.object)
            }
            // test.each([...])('title', fn)
            Expression::CallExpression(c) => match c.callee.without_parentheses() {
                Expression::StaticMemberExpression(m)
                    if matches!(
                        m.property.name.as_str(),
                        "each" | "for" | "skipIf" | "runIf"
                    ) =>
                {
                    Self::title_kind(&m.object)
                }
                _ => None,
            },
            // test.each`table`('title', fn)
            Expression::TaggedTemplateExpression(t) => match t.tag.without_parentheses() {
                Expression::StaticMemberExpression(m) if m.property.name == "each" => {
                    Self::title_kind(&m.object)
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The title argument's text: a literal's value, a template's source text.
    fn title_text(&self, arg: &Argument) -> Option<String> {
        let expr = arg.as_expression()?.without_parentheses();
        match expr {
            Expression::StringLiteral(lit) => Some(lit.value.to_string()),
            Expression::TemplateLiteral(t) if t.expressions.is_empty() => template_value(t),
            // a title built at run time: its source text, as written
            other => {
                let span = range(oxc_span::GetSpan::span(other));
                self.bytes
                    .get(span)
                    .map(|b| String::from_utf8_lossy(b).into_owned())
            }
        }
    }
}

fn template_value(t: &TemplateLiteral) -> Option<String> {
    let quasi = t.quasis.first()?;
    Some(
        quasi
            .value
            .cooked
            .as_ref()
            .unwrap_or(&quasi.value.raw)
            .to_string(),
    )
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

impl<'a> Visit<'a> for Collect<'_> {
    fn visit_import_declaration(&mut self, it: &ImportDeclaration<'a>) {
        let kind = if it.import_kind == ImportOrExportKind::Type {
            Kind::ImportType
        } else {
            Kind::Import
        };
        self.literal(kind, &it.source);
    }

    fn visit_export_named_declaration(&mut self, it: &ExportNamedDeclaration<'a>) {
        if let Some(source) = &it.source {
            let kind = if it.export_kind == ImportOrExportKind::Type {
                Kind::ExportTypeFrom
            } else {
                Kind::ExportFrom
            };
            self.literal(kind, source);
        }
        walk::walk_export_named_declaration(self, it);
    }

    fn visit_export_all_declaration(&mut self, it: &ExportAllDeclaration<'a>) {
        let kind = if it.exported.is_some() {
            Kind::ExportFrom
        } else {
            Kind::ExportAll
        };
        self.literal(kind, &it.source);
    }

    fn visit_import_expression(&mut self, it: &ImportExpression<'a>) {
        self.argument(Kind::DynamicImport, &it.source);
        walk::walk_import_expression(self, it);
    }

    fn visit_ts_import_type(&mut self, it: &TSImportType<'a>) {
        self.literal(Kind::TypeImport, &it.source);
        walk::walk_ts_import_type(self, it);
    }

    fn visit_ts_external_module_reference(&mut self, it: &TSExternalModuleReference<'a>) {
        self.literal(Kind::ImportEquals, &it.expression);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        let first = it.arguments.first().and_then(Argument::as_expression);
        let callee = it.callee.without_parentheses();
        let module_kind = if callee.is_specific_id("require") {
            Some(Kind::Require)
        } else if let Expression::StaticMemberExpression(m) = callee
            && m.object.is_specific_id("vi")
        {
            match m.property.name.as_str() {
                "mock" | "doMock" | "unmock" | "doUnmock" => Some(Kind::ViMock),
                "importActual" => Some(Kind::ViImportActual),
                "importMock" => Some(Kind::ViImportMock),
                _ => None,
            }
        } else {
            None
        };
        if let (Some(kind), Some(arg)) = (module_kind, first) {
            self.argument(kind, arg);
        } else if let Some(kind) = module_kind
            && kind == Kind::Require
            && let Some(arg) = it.arguments.first()
        {
            // require(...spread)
            let span = range(oxc_span::GetSpan::span(arg));
            let (line, column) = self.at(span.start);
            self.parsed.non_literal.push(NonLiteral {
                kind,
                span,
                line,
                column,
            });
        }

        let title = Self::title_kind(&it.callee).and_then(|kind| {
            let text = self.title_text(it.arguments.first()?)?;
            Some((kind, text))
        });
        match title {
            Some((kind, text)) => {
                let mut path = self.describes.clone();
                path.push(text.clone());
                let (line, _) = self.at(it.span.start as usize);
                self.parsed.titles.push(Title { kind, path, line });
                if kind == TitleKind::Describe {
                    self.describes.push(text);
                    walk::walk_call_expression(self, it);
                    self.describes.pop();
                } else {
                    walk::walk_call_expression(self, it);
                }
            }
            None => walk::walk_call_expression(self, it),
        }
    }
}

/// A config file's (`vite.config.ts`, `vitest.config.mts`, …) list of strings at
/// `outer.inner` in an object literal anywhere in it (`test.include` is
/// `["test", "include"]`), read without running it: `Ok(None)` when no such
/// property is there, or when its value is not an array of string literals
/// (then it cannot be known without running the config).
pub fn config_strings(
    rel_file: &str,
    bytes: &[u8],
    outer: &str,
    inner: &str,
) -> Result<Option<Vec<String>>, Problem> {
    use oxc_ast::ast::{ArrayExpressionElement, ObjectExpression, ObjectPropertyKind};

    struct Find<'k> {
        outer: &'k str,
        inner: &'k str,
        /// Seen the property (the first one counts)…
        seen: bool,
        /// …and its strings, when all were literals.
        found: Option<Vec<String>>,
    }
    fn property<'e, 'a>(obj: &'e ObjectExpression<'a>, name: &str) -> Option<&'e Expression<'a>> {
        obj.properties.iter().find_map(|p| match p {
            ObjectPropertyKind::ObjectProperty(p) if p.key.is_specific_static_name(name) => {
                Some(&p.value)
            }
            _ => None,
        })
    }
    impl<'a> Visit<'a> for Find<'_> {
        fn visit_object_expression(&mut self, it: &ObjectExpression<'a>) {
            if !self.seen
                && let Some(Expression::ObjectExpression(o)) =
                    property(it, self.outer).map(Expression::without_parentheses)
                && let Some(value) = property(o, self.inner)
            {
                self.seen = true;
                self.found = match value.without_parentheses() {
                    Expression::ArrayExpression(a) => a
                        .elements
                        .iter()
                        .map(|e| match e {
                            ArrayExpressionElement::StringLiteral(l) => Some(l.value.to_string()),
                            _ => None,
                        })
                        .collect(),
                    _ => None,
                };
            }
            walk::walk_object_expression(self, it);
        }
    }

    let source_type = source_type(rel_file)
        .ok_or_else(|| Problem::error(rel_file, RULE, "not a JavaScript or TypeScript file"))?;
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let (line, column) = line_col(bytes, e.valid_up_to());
        Problem::error(rel_file, RULE, "not UTF-8 text").at(line, column)
    })?;
    if bytes.len() > MAX_SOURCE || too_deep(bytes).is_some() {
        return Err(Problem::error(
            rel_file,
            RULE,
            "too large or too deeply nested to read",
        ));
    }
    let allocator = Allocator::default();
    let ret = Parser::new(&allocator, text, source_type).parse();
    if let Some(first) = ret.errors.first() {
        let at = match first.labels.as_deref() {
            Some([label, ..]) => label.offset(),
            _ => 0,
        };
        let (line, column) = line_col(bytes, at.min(bytes.len()));
        return Err(
            Problem::error(rel_file, RULE, format!("syntax error: {}", first.message))
                .at(line, column),
        );
    }
    let mut find = Find {
        outer,
        inner,
        seen: false,
        found: None,
    };
    find.visit_program(&ret.program);
    Ok(find.found)
}

/// One specifier [`rewrite`] changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewritten {
    /// Where it stands.
    pub kind: Kind,
    /// 1-based line in the source.
    pub line: u32,
    /// The value before.
    pub from: String,
    /// The value after.
    pub to: String,
}

/// The source of a file moved from `old_rel` to `new_rel` (both relative to the
/// workspace root, `/`-separated): every relative specifier of `parsed` rewritten
/// so it names the same module from the new folder, in its own style (extension or
/// none, `/index` or none, a trailing `/`, `./` or not for a reference path), its
/// quotes kept; bare and alias specifiers as written; every other byte as it was.
pub fn rewrite(
    bytes: &[u8],
    parsed: &Parsed,
    old_rel: &str,
    new_rel: &str,
) -> (Vec<u8>, Vec<Rewritten>) {
    let old_dir = parent(old_rel);
    let new_dir = parent(new_rel);
    if old_dir == new_dir {
        return (bytes.to_vec(), Vec::new());
    }
    let mut out = Vec::with_capacity(bytes.len() + 64);
    let mut changed = Vec::new();
    let mut at = 0;
    for spec in &parsed.specifiers {
        if !spec.is_relative() || spec.span.start < at || spec.span.end > bytes.len() {
            continue;
        }
        let to = relocate(spec.kind, &spec.value, &old_dir, &new_dir);
        if to == spec.value {
            continue;
        }
        let Some(&quote) = bytes.get(spec.span.start) else {
            continue;
        };
        out.extend_from_slice(&bytes[at..=spec.span.start]);
        out.extend_from_slice(escape(&to, quote).as_bytes());
        out.push(quote);
        at = spec.span.end;
        changed.push(Rewritten {
            kind: spec.kind,
            line: spec.line,
            from: spec.value.clone(),
            to,
        });
    }
    out.extend_from_slice(&bytes[at..]);
    (out, changed)
}

/// The folder of a root-relative file, as its names.
fn parent(rel: &str) -> Vec<String> {
    let mut names: Vec<String> = rel
        .split('/')
        .filter(|n| !n.is_empty() && *n != ".")
        .map(str::to_owned)
        .collect();
    names.pop();
    names
}

/// A relative specifier written in `old_dir`, written again from `new_dir`.
fn relocate(kind: Kind, value: &str, old_dir: &[String], new_dir: &[String]) -> String {
    // the target, from the root: names, with leading ".." when it climbs above it
    let mut target: Vec<String> = old_dir.to_vec();
    let mut above = 0usize;
    for name in value.split('/') {
        match name {
            "" | "." => {}
            ".." => {
                if target.pop().is_none() {
                    above += 1;
                }
            }
            n => target.push(n.to_owned()),
        }
    }
    let common = if above > 0 {
        0
    } else {
        new_dir
            .iter()
            .zip(&target)
            .take_while(|(a, b)| a == b)
            .count()
    };
    let mut parts: Vec<String> = Vec::new();
    parts.extend(std::iter::repeat_n("..".to_owned(), new_dir.len() - common));
    parts.extend(std::iter::repeat_n("..".to_owned(), above));
    parts.extend(target[common..].iter().cloned());
    let mut out = parts.join("/");
    let dotted = value.starts_with("./") || value == ".";
    if out.is_empty() {
        out.push('.');
    } else if !out.starts_with("..") && (kind != Kind::ReferencePath || dotted) {
        out.insert_str(0, "./");
    }
    if value.ends_with('/') && !out.ends_with('/') {
        out.push('/');
    }
    out
}

/// `value` written between `quote`s.
fn escape(value: &str, quote: u8) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c as u32 == u32::from(quote) => {
                out.push('\\');
                out.push(c);
            }
            '$' if quote == b'`' && chars.peek() == Some(&'{') => out.push_str("\\$"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
