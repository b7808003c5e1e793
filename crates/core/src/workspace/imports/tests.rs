use super::*;
use std::fmt::Write as _;

fn ok(name: &str, src: &str) -> Parsed {
    match parse(name, src.as_bytes()) {
        Ok(p) => p,
        Err(p) => panic!("{name} did not parse: {p:?}"),
    }
}

fn values(p: &Parsed) -> Vec<(Kind, &str)> {
    p.specifiers
        .iter()
        .map(|s| (s.kind, s.value.as_str()))
        .collect()
}

#[test]
fn every_kind_of_specifier_with_the_span_of_its_literal() {
    let src = r#"/// <reference path="../types/env.d.ts" />
import a from "./a";
import type { B } from './b';
import { type C } from "./c";
import "./setup";
export { d } from "../d";
export type { E } from "./e";
export * from "./all";
export * as ns from "./ns";
import x = require("./eq");
type T = typeof import("./typed");
const lazy = await import("./lazy");
const tpl = await import(`./tpl`);
const cjs = require("./cjs");
vi.mock("../src/mocked", () => ({}));
vi.doMock("./dm");
const real = await vi.importActual<typeof import("./real")>("./real");
const fake = await vi.importMock("./fake");
"#;
    let p = ok("test/a.test.ts", src);
    assert_eq!(
        values(&p),
        vec![
            (Kind::ReferencePath, "../types/env.d.ts"),
            (Kind::Import, "./a"),
            (Kind::ImportType, "./b"),
            (Kind::Import, "./c"),
            (Kind::Import, "./setup"),
            (Kind::ExportFrom, "../d"),
            (Kind::ExportTypeFrom, "./e"),
            (Kind::ExportAll, "./all"),
            (Kind::ExportFrom, "./ns"),
            (Kind::ImportEquals, "./eq"),
            (Kind::TypeImport, "./typed"),
            (Kind::DynamicImport, "./lazy"),
            (Kind::DynamicImport, "./tpl"),
            (Kind::Require, "./cjs"),
            (Kind::ViMock, "../src/mocked"),
            (Kind::ViMock, "./dm"),
            (Kind::TypeImport, "./real"),
            (Kind::ViImportActual, "./real"),
            (Kind::ViImportMock, "./fake"),
        ]
    );
    for s in &p.specifiers {
        let lit = &src[s.span.clone()];
        let q = lit.as_bytes()[0];
        assert!(matches!(q, b'"' | b'\'' | b'`'), "{lit}");
        assert_eq!(lit.as_bytes()[lit.len() - 1], q, "{lit}");
        assert_eq!(&lit[1..lit.len() - 1], s.value, "{lit}");
    }
    assert_eq!((p.specifiers[1].line, p.specifiers[1].column), (2, 15));
    assert!(p.non_literal.is_empty());
}

#[test]
fn strings_and_comments_that_look_like_imports_are_not_imports() {
    let src = r#"const s = "import x from './no1'";
const t = 'require("./no2")';
// import y from "./no3";
/* export * from "./no4"; vi.mock("./no5") */
/**
 * import z from "./no6"
 */
const real = "x"; import ok from "./yes";
"#;
    let p = ok("a.test.js", src);
    assert_eq!(values(&p), vec![(Kind::Import, "./yes")]);
}

#[test]
fn template_literals_hide_text_and_keep_their_substitutions() {
    let src = "const t = `import x from './no' ${require('./inner')} and ${`import('./no2')`}`;\n\
               const u = import(`./plain`);\n\
               const v = import(`./dir/${name}`);\n";
    let p = ok("a.test.mjs", src);
    assert_eq!(
        values(&p),
        vec![(Kind::Require, "./inner"), (Kind::DynamicImport, "./plain")]
    );
    assert_eq!(p.non_literal.len(), 1);
    assert_eq!(p.non_literal[0].kind, Kind::DynamicImport);
    assert_eq!(p.non_literal[0].line, 3);
}

#[test]
fn regex_literals_and_division_are_told_apart() {
    let src = r#"const r = /import x from '.\/no'/g;
const q = /"/.test(s) ? a / b / c : require("./yes1");
const d = total / count; const e = "/*"; import("./yes2");
const f = x => /\/\/ require\("\.\/no"\)/.exec(x);
"#;
    let p = ok("a.test.ts", src);
    assert_eq!(
        values(&p),
        vec![(Kind::Require, "./yes1"), (Kind::DynamicImport, "./yes2")]
    );
}

#[test]
fn jsx_text_and_attributes_are_not_imports() {
    let src = r#"import { render } from "@testing-library/react";
import { Card } from "./Card";
test("renders", () => {
  render(<Card title="import x from './no'" href="./no2">import y from "./no3"{require("./yes")}</Card>);
});
"#;
    let p = ok("src/Card.test.tsx", src);
    assert_eq!(
        values(&p),
        vec![
            (Kind::Import, "@testing-library/react"),
            (Kind::Import, "./Card"),
            (Kind::Require, "./yes")
        ]
    );
    // a .js test file may hold JSX too
    let js = ok(
        "src/Card.test.js",
        "import React from 'react';\nconst el = <div a=\"b\" />;\n",
    );
    assert_eq!(values(&js), vec![(Kind::Import, "react")]);
}

#[test]
fn non_literal_import_and_require_are_flagged() {
    let src = "const a = require(name);\nconst b = import('./x' + suffix);\nconst c = require(...args);\n";
    let p = ok("a.test.cjs", src);
    assert!(p.specifiers.is_empty());
    let got: Vec<(Kind, u32, &str)> = p
        .non_literal
        .iter()
        .map(|n| (n.kind, n.line, &src[n.span.clone()]))
        .collect();
    assert_eq!(
        got,
        vec![
            (Kind::Require, 1, "name"),
            (Kind::DynamicImport, 2, "'./x' + suffix"),
            (Kind::Require, 3, "...args"),
        ]
    );
}

#[test]
fn titles_are_paths_with_their_lines() {
    let src = r#"import { describe, it, test, expect } from "vitest";

describe("query", () => {
  it("parses a=b", () => {});
  describe.each([1, 2])("with %i", (n) => {
    test.skip(`twice ${n}`, () => {});
  });
  test.each([[1]])("row %s", () => {});
  it.todo("later");
});
test("top", () => { expect(1).toBe(1); });
"#;
    let p = ok("test/query.test.ts", src);
    let got: Vec<(TitleKind, Vec<&str>, u32)> = p
        .titles
        .iter()
        .map(|t| (t.kind, t.path.iter().map(String::as_str).collect(), t.line))
        .collect();
    assert_eq!(
        got,
        vec![
            (TitleKind::Describe, vec!["query"], 3),
            (TitleKind::Test, vec!["query", "parses a=b"], 4),
            (TitleKind::Describe, vec!["query", "with %i"], 5),
            (TitleKind::Test, vec!["query", "with %i", "`twice ${n}`"], 6),
            (TitleKind::Test, vec!["query", "row %s"], 8),
            (TitleKind::Test, vec!["query", "later"], 9),
            (TitleKind::Test, vec!["top"], 11),
        ]
    );
}

#[test]
fn playwright_describe_and_its_modifiers() {
    let src = r#"import { test, expect } from "@playwright/test";
test.describe.configure({ mode: "serial" });
test.use({ viewport: { width: 800, height: 600 } });
test.describe("search", () => {
  test.beforeEach(async ({ page }) => { await page.goto("/"); });
  test("finds", async ({ page }) => {
    await test.step("types", async () => {});
  });
  test.describe.serial("paging", () => {
    test.fixme("next", async () => {});
  });
});
"#;
    let p = ok("src/e2e/search.spec.ts", src);
    let got: Vec<(TitleKind, String)> = p
        .titles
        .iter()
        .map(|t| (t.kind, t.path.join(" > ")))
        .collect();
    assert_eq!(
        got,
        vec![
            (TitleKind::Describe, "search".to_owned()),
            (TitleKind::Test, "search > finds".to_owned()),
            (TitleKind::Describe, "search > paging".to_owned()),
            (TitleKind::Test, "search > paging > next".to_owned()),
        ]
    );
}

#[test]
fn crlf_lines_count_and_the_rewrite_keeps_them() {
    let src = "import a from \"../src/a\";\r\n\r\ndescribe('x', () => {\r\n  it('y', () => {});\r\n});\r\n";
    let p = ok("test/a.test.ts", src);
    assert_eq!(p.titles[1].line, 4);
    let (out, changed) = rewrite(
        src.as_bytes(),
        &p,
        "test/a.test.ts",
        "tests/d/l/s/a.test.ts",
    );
    assert_eq!(changed.len(), 1);
    assert_eq!(
        String::from_utf8(out).expect("UTF-8"),
        src.replace("../src/a", "../../../../src/a")
    );
}

#[test]
fn a_byte_order_mark_is_fine() {
    let src = "\u{feff}import a from './a';\n";
    let p = ok("a.test.ts", src);
    assert_eq!(&src[p.specifiers[0].span.clone()], "'./a'");
}

#[test]
fn non_utf8_input_is_a_located_problem() {
    let mut bytes = b"import a from './a';\n// caf".to_vec();
    bytes.push(0xe9);
    bytes.extend_from_slice(b"\n");
    let e = parse("test/a.test.ts", &bytes).expect_err("refused");
    assert_eq!(e.file, "test/a.test.ts");
    assert_eq!((e.line, e.column), (Some(2), Some(7)));
    assert!(e.message.contains("UTF-8"), "{}", e.message);
}

#[test]
fn a_syntax_error_is_a_located_problem() {
    let src = "import a from './a';\nconst x = {;\n";
    let e = parse("test/a.test.ts", src.as_bytes()).expect_err("refused");
    assert_eq!(e.line, Some(2));
    assert!(e.column.is_some());
    assert!(e.message.starts_with("syntax error"), "{}", e.message);
    // an unterminated string, an unknown extension
    assert!(parse("a.test.ts", b"import a from './a").is_err());
    let e = parse("notes.txt", b"import a from './a'").expect_err("refused");
    assert!(e.message.contains("not a JavaScript"), "{}", e.message);
}

#[test]
fn pathological_nesting_is_no_crash() {
    // each nests once per byte or two; the parse's own stack holds them all
    for src in [
        format!("const x = {}1{};\n", "(".repeat(1_000), ")".repeat(1_000)),
        format!("const x = {}\n", "[{".repeat(500)),
        format!("const x = {}1;\n", "!".repeat(200_000)),
        format!("const x = {}0;\n", "a ? b : ".repeat(50_000)),
        format!(
            "const x = {}{};\n",
            "<a>".repeat(20_000),
            "</a>".repeat(20_000)
        ),
    ] {
        match parse("a.test.jsx", src.as_bytes()) {
            Ok(p) => assert!(p.specifiers.is_empty()),
            Err(e) => assert!(e.line.is_some_and(|l| l <= 2), "{e:?}"),
        }
    }
    // deeper brackets are refused at the first one too deep
    let src = format!(
        "let a;\nconst x = {}1{};\n",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    let e = parse("a.test.js", src.as_bytes()).expect_err("refused");
    assert_eq!((e.line, e.column), (Some(2), Some(1_011)));
    assert!(e.message.contains("nested"), "{}", e.message);
    let e = parse("a.test.js", &vec![b' '; MAX_SOURCE + 1]).expect_err("refused");
    assert!(e.message.contains("MiB"), "{}", e.message);
}

#[test]
fn a_huge_file_parses() {
    let mut src = String::new();
    for i in 0..20_000 {
        writeln!(src, "import m{i} from \"../src/m{i}\";").expect("a String");
    }
    src.push_str("describe(\"all\", () => {\n");
    for i in 0..20_000 {
        writeln!(
            src,
            "  it(\"case {i}\", () => {{ expect(m{i}).toBeDefined(); }});"
        )
        .expect("a String");
    }
    src.push_str("});\n");
    assert!(src.len() > 1_500_000);
    let started = std::time::Instant::now();
    let p = ok("test/huge.test.ts", &src);
    assert_eq!(p.specifiers.len(), 20_000);
    assert_eq!(p.titles.len(), 20_001);
    assert_eq!(p.titles[20_000].line, 40_001);
    let (out, changed) = rewrite(
        src.as_bytes(),
        &p,
        "test/huge.test.ts",
        "tests/a/b/c/huge.test.ts",
    );
    assert_eq!(changed.len(), 20_000);
    assert_eq!(out.len(), src.len() + 20_000 * "../../../".len());
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
}

#[test]
fn rewrite_keeps_the_style_and_touches_only_relative_literals() {
    let src = r#"/// <reference path="env.d.ts" />
/// <reference types="vite/client" />
import { a } from "../src";
import { q } from '../src/query.ts';
import idx from "../src/index";
import dir from "../src/";
import sib from "./helpers/sib";
import { f } from "_/lib/filter";
import { g } from "@/g";
import { it } from "vitest";
vi.mock(`../src/mocked`);
const j = require('./data.json');
"#;
    let p = ok("test/query.test.ts", src);
    let (out, changed) = rewrite(
        src.as_bytes(),
        &p,
        "test/query.test.ts",
        "tests/url/backend/query/query.test.ts",
    );
    let expected = src
        .replace("path=\"env.d.ts\"", "path=\"../../../../test/env.d.ts\"")
        .replace("\"../src\"", "\"../../../../src\"")
        .replace("'../src/query.ts'", "'../../../../src/query.ts'")
        .replace("\"../src/index\"", "\"../../../../src/index\"")
        .replace("\"../src/\"", "\"../../../../src/\"")
        .replace("\"./helpers/sib\"", "\"../../../../test/helpers/sib\"")
        .replace("`../src/mocked`", "`../../../../src/mocked`")
        .replace("'./data.json'", "'../../../../test/data.json'");
    assert_eq!(String::from_utf8(out).expect("UTF-8"), expected);
    assert_eq!(changed.len(), 8);
    assert_eq!(changed[1].from, "../src");
    assert_eq!(changed[1].to, "../../../../src");
    assert_eq!(changed[1].line, 3);
}

#[test]
fn rewrite_moves_up_sideways_and_into_the_target_s_own_folder() {
    let src = "import a from './a';\nimport b from '../lib/b';\nimport c from '.';\n";
    let p = ok("src/lib/x.test.ts", src);
    // into the folder the imports point at
    let (out, _) = rewrite(src.as_bytes(), &p, "src/lib/x.test.ts", "src/x.test.ts");
    assert_eq!(
        String::from_utf8(out).expect("UTF-8"),
        "import a from './lib/a';\nimport b from './lib/b';\nimport c from './lib';\n"
    );
    // the same folder: nothing changes
    let (out, changed) = rewrite(src.as_bytes(), &p, "src/lib/x.test.ts", "src/lib/y.test.ts");
    assert!(changed.is_empty());
    assert_eq!(out, src.as_bytes());
    // a specifier that climbs above the root stays above it
    let p = ok("x.test.ts", "import o from '../outer/o';\n");
    let (out, _) = rewrite(
        b"import o from '../outer/o';\n",
        &p,
        "x.test.ts",
        "a/b/x.test.ts",
    );
    assert_eq!(out, b"import o from '../../../outer/o';\n");
}

#[test]
fn rewrite_escapes_what_its_quotes_need() {
    assert_eq!(escape("./it's", b'\''), "./it\\'s");
    assert_eq!(escape("./it's", b'"'), "./it's");
    assert_eq!(escape("./a${b}", b'`'), "./a\\${b}");
    assert_eq!(escape("./a\\b", b'"'), "./a\\\\b");
}

#[test]
fn a_config_s_list_is_read_without_running_it() {
    let src = r#"import { defineConfig } from 'vitest/config';
export default defineConfig({
  resolve: { alias: { _: new URL('./src', import.meta.url).pathname } },
  test: {
    include: ['src/**/*.test.ts', "lib/*.spec.{ts,js}"],
    exclude: ['**/node_modules/**', dynamic],
  },
});
"#;
    let got = config_strings("vite.config.ts", src.as_bytes(), "test", "include").expect("reads");
    assert_eq!(
        got,
        Some(vec![
            "src/**/*.test.ts".to_owned(),
            "lib/*.spec.{ts,js}".to_owned()
        ])
    );
    // a value not all literal cannot be known; a missing key is none
    let ex = config_strings("vite.config.ts", src.as_bytes(), "test", "exclude").expect("reads");
    assert_eq!(ex, None);
    let none = config_strings("vite.config.ts", b"export default {}", "test", "include");
    assert_eq!(none.expect("reads"), None);
    assert!(config_strings("vite.config.ts", b"export default {", "test", "include").is_err());
}
