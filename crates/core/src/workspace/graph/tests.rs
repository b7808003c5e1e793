use super::config::{strip_jsonc, tsconfig, vite};
use super::load::{aliases, build, update};
use super::*;
use std::path::Path;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

fn keys(cases: &[(String, String)]) -> Vec<String> {
    cases.iter().map(|(k, _)| k.clone()).collect()
}

/// The adoption fixture's library, its tests moved into the tests tree (their
/// imports written from there), plus an alias, a setup file and a barrel.
fn library(root: &Path) -> Vec<(String, String)> {
    write(
        root,
        "src/text/chars.ts",
        "export const isWordChar = (c: string) => /\\w/.test(c);\n",
    );
    write(
        root,
        "src/text/encode.ts",
        "import { isWordChar } from './chars';\nexport const encodeValue = (s: string) => s;\n",
    );
    write(
        root,
        "src/text/trim.ts",
        "export const trimChar = (s: string) => s;\n",
    );
    write(
        root,
        "src/format/number.ts",
        "export const formatNumber = (n: number) => `${n}`;\n",
    );
    write(
        root,
        "src/query.ts",
        "import { encodeValue } from './text/encode.js';\nimport { formatNumber } from './format/number';\nexport const parseQuery = () => ({});\n",
    );
    write(
        root,
        "src/slug.ts",
        "import { isWordChar } from './text/chars';\nimport { trimChar } from './text/trim';\nexport const slugify = (s: string) => s;\n",
    );
    write(
        root,
        "src/index.ts",
        "export * from './slug';\nexport * from './query';\n",
    );
    write(
        root,
        "src/path.ts",
        "import { trimChar } from '@lib/text/trim';\nexport const joinPath = () => '';\n",
    );
    write(
        root,
        "src/date.ts",
        "import type { Q } from './query';\nexport const localDayKey = () => '';\n",
    );
    write(root, "src/unused.ts", "export const unused = 1;\n");
    write(
        root,
        "tsconfig.json",
        "{\n  // the library's aliases\n  \"extends\": \"./tsconfig.base.json\",\n  \"compilerOptions\": { \"strict\": true, },\n}\n",
    );
    write(
        root,
        "tsconfig.base.json",
        "{ \"compilerOptions\": { \"baseUrl\": \".\", \"paths\": { \"@lib/*\": [\"src/*\"] } } }\n",
    );
    let t = "tests/text/unit/lib";
    let tests = [
        (
            "encode",
            "import { expect, test } from 'vitest';\nimport { encodeValue } from '../../../../src/text/encode';\n",
        ),
        (
            "query",
            "import { parseQuery } from '../../../../src/query';\n",
        ),
        ("slug", "import { slugify } from '../../../../src';\n"),
        ("path", "import { joinPath } from '../../../../src/path';\n"),
        (
            "date",
            "import { localDayKey } from '../../../../src/date';\n",
        ),
    ];
    tests
        .iter()
        .map(|(id, text)| {
            let file = format!("{t}/{id}.test.ts");
            write(root, &file, text);
            (format!("text/unit/lib/{id}"), file)
        })
        .collect()
}

fn selected(root: &Path, cases: &[(String, String)], changed: &[&str]) -> Selection {
    let (a, problems) = aliases(root);
    assert!(problems.is_empty(), "{problems:?}");
    let (g, problems) = build(root, &a, cases.iter().map(|(_, f)| f.as_str()));
    assert!(problems.is_empty(), "{problems:?}");
    let changed: Vec<String> = changed.iter().map(|s| (*s).to_owned()).collect();
    select(&g, &a, cases, &changed, &["src/**".to_owned()])
}

#[test]
fn a_leaf_selects_exactly_the_cases_that_reach_it() {
    let d = tempfile::tempdir().expect("dir");
    let cases = library(d.path());
    // chars ← encode ← (encode test, query ← query test, index barrel ← slug test); slug ← index
    let s = selected(d.path(), &cases, &["src/text/chars.ts"]);
    assert_eq!(s.every, None);
    assert_eq!(
        s.cases,
        [
            "text/unit/lib/encode",
            "text/unit/lib/query",
            "text/unit/lib/slug"
        ]
    );
    assert_eq!(s.notes, ["src/text/chars.ts changed: 3 cases reach it"]);
    // through the tsconfig alias (extends followed)
    let s = selected(d.path(), &cases, &["src/text/trim.ts"]);
    assert_eq!(s.cases, ["text/unit/lib/slug", "text/unit/lib/path"]);
    // a type-only import loads nothing
    let s = selected(d.path(), &cases, &["src/query.ts"]);
    assert_eq!(s.cases, ["text/unit/lib/query", "text/unit/lib/slug"]);
    // a test file reaches itself
    let s = selected(d.path(), &cases, &["tests/text/unit/lib/date.test.ts"]);
    assert_eq!(s.cases, ["text/unit/lib/date"]);
}

#[test]
fn an_unreached_module_selects_none_and_says_so() {
    let d = tempfile::tempdir().expect("dir");
    let cases = library(d.path());
    let s = selected(d.path(), &cases, &["src/unused.ts", "README.md"]);
    // (a file under the code under test that no import names: see below)
    assert_eq!(s.every, None);
    assert!(s.cases.is_empty());
    assert_eq!(
        s.notes,
        [
            "src/unused.ts changed: reaches no case",
            "README.md changed: reaches no case"
        ]
    );
}

#[test]
fn a_change_the_graph_cannot_place_selects_every_case_and_says_why() {
    let d = tempfile::tempdir().expect("dir");
    let cases = library(d.path());
    for f in [
        "vitest.config.ts",
        "package.json",
        "pnpm-lock.yaml",
        "tsconfig.base.json",
        "playwright.config.ts",
    ] {
        let s = selected(d.path(), &cases, &[f, "src/unused.ts"]);
        assert_eq!(
            s.every.as_deref(),
            Some(format!("{f} changed: every case").as_str())
        );
        assert_eq!(s.cases, keys(&cases));
        assert_eq!(s.notes.len(), 1);
    }
    // a setup file every test loads, and what it loads
    write(
        d.path(),
        "vitest.config.ts",
        "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { setupFiles: ['./test/setup.ts'] } });\n",
    );
    write(d.path(), "test/setup.ts", "import '../src/unused';\n");
    let s = selected(d.path(), &cases, &["test/setup.ts"]);
    assert_eq!(
        s.every.as_deref(),
        Some("test/setup.ts changed, a setup file every test loads: every case")
    );
    let s = selected(d.path(), &cases, &["src/unused.ts"]);
    assert!(
        s.every
            .as_deref()
            .is_some_and(|w| w.contains("loaded by a setup file")),
        "{s:?}"
    );
    // an import the graph cannot follow: the file itself, and an unreached source
    write(d.path(), "test/setup.ts", "");
    write(
        d.path(),
        "src/date.ts",
        "export const load = (n: string) => import(`./locale/${n}`);\n",
    );
    let s = selected(d.path(), &cases, &["src/date.ts"]);
    assert_eq!(
        s.every.as_deref(),
        Some(
            "src/date.ts changed and has an import the graph cannot follow (src/date.ts:1:43): every case"
        )
    );
    let s = selected(d.path(), &cases, &["src/unused.ts"]);
    assert!(
        s.every
            .as_deref()
            .is_some_and(|w| w.contains("src/date.ts:1:43")),
        "{s:?}"
    );
    // a file of the code under test no import names (a fixture read at run time)
    write(d.path(), "src/date.ts", "");
    let s = selected(d.path(), &cases, &["src/data/users.json"]);
    assert_eq!(
        s.every.as_deref(),
        Some("src/data/users.json changed, code under test no import names: every case")
    );
    // a reached module is still placed exactly
    let s = selected(d.path(), &cases, &["src/text/trim.ts"]);
    assert_eq!(s.every, None);
}

#[test]
fn vite_aliases_object_and_array_forms_and_index_files() {
    let d = tempfile::tempdir().expect("dir");
    let root = d.path();
    write(
        root,
        "vite.config.ts",
        "import { fileURLToPath } from 'node:url';\nimport path from 'node:path';\nexport default defineConfig({\n  resolve: { alias: { _: fileURLToPath(new URL('./src', import.meta.url)), '~c': path.resolve(__dirname, 'src/components') } },\n});\n",
    );
    write(
        root,
        "vitest.config.mts",
        "export default { resolve: { alias: [ { find: '#u', replacement: '/src/util' }, { find: /^re$/, replacement: 'x' } ] } };\n",
    );
    write(
        root,
        "src/lib/filter.ts",
        "import { plural } from '_/lib/format';\n",
    );
    write(root, "src/lib/format.ts", "export const plural = 1;\n");
    write(
        root,
        "src/components/button/index.tsx",
        "export const B = 1;\n",
    );
    write(root, "src/util/x.mts", "export const x = 1;\n");
    write(
        root,
        "tests/a/b/c/one.test.ts",
        "import '_/lib/filter';\nimport '~c/button';\nimport { x } from '#u/x.mjs';\nconst m = require('../../../../src/cjs.cjs');\nvi.mock('../../../../src/mocked');\n",
    );
    write(root, "src/cjs.cjs", "module.exports = 1;\n");
    write(root, "src/mocked.js", "export default 1;\n");
    let (a, problems) = aliases(root);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].rule, "graph-alias-unread");
    assert_eq!(problems[0].file, "vitest.config.mts");
    let (g, problems) = build(root, &a, ["tests/a/b/c/one.test.ts"]);
    assert!(problems.is_empty(), "{problems:?}");
    let reach = g.reach("tests/a/b/c/one.test.ts");
    for f in [
        "src/lib/filter.ts",
        "src/lib/format.ts",
        "src/components/button/index.tsx",
        "src/util/x.mts",
        "src/cjs.cjs",
        "src/mocked.js",
    ] {
        assert!(reach.contains(f), "{f} not in {reach:?}");
    }
}

#[test]
fn a_new_file_where_an_import_pointed_is_reached_after_an_update() {
    let d = tempfile::tempdir().expect("dir");
    let root = d.path();
    write(
        root,
        "tests/a/b/c/one.test.ts",
        "import { y } from '../../../../src/y';\n",
    );
    write(root, "src/z.ts", "export const z = 1;\n");
    let (a, _) = aliases(root);
    let cases = vec![("a/b/c/one".to_owned(), "tests/a/b/c/one.test.ts".to_owned())];
    let (mut g, _) = build(root, &a, ["tests/a/b/c/one.test.ts"]);
    // not there yet: a creation is placed by the path that named it
    let s = select(&g, &a, &cases, &["src/y.ts".to_owned()], &[]);
    assert_eq!(s.cases, ["a/b/c/one"]);
    write(
        root,
        "src/y.ts",
        "import { z } from './z';\nexport const y = z;\n",
    );
    update(
        root,
        &a,
        &mut g,
        ["tests/a/b/c/one.test.ts"],
        &["src/y.ts".to_owned()],
    );
    let s = select(&g, &a, &cases, &["src/z.ts".to_owned()], &[]);
    assert_eq!(s.cases, ["a/b/c/one"]);
    // the import goes: z reaches no case after the edit
    write(root, "src/y.ts", "export const y = 2;\n");
    update(
        root,
        &a,
        &mut g,
        ["tests/a/b/c/one.test.ts"],
        &["src/y.ts".to_owned()],
    );
    let s = select(&g, &a, &cases, &["src/z.ts".to_owned()], &[]);
    assert!(s.cases.is_empty());
}

#[test]
fn bad_configs_are_located_warnings_never_a_panic() {
    let d = tempfile::tempdir().expect("dir");
    let root = d.path();
    write(
        root,
        "tsconfig.json",
        "{\n  \"compilerOptions\": {\n    \"paths\": [,\n}\n",
    );
    write(
        root,
        "vite.config.ts",
        "export default {\n  resolve: { alias: { _: \n",
    );
    let (a, problems) = aliases(root);
    assert_eq!(a, Aliases::default());
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems.iter().all(|p| !p.is_error() && p.line.is_some()),
        "{problems:?}"
    );
    assert_eq!(problems[0].file, "tsconfig.json");
    assert_eq!(problems[0].line, Some(4));
    // extends that loops, or climbs out of the workspace: not followed
    std::fs::remove_file(root.join("vite.config.ts")).expect("rm");
    write(
        root,
        "tsconfig.json",
        "{ \"extends\": \"./tsconfig.json\" }",
    );
    assert!(aliases(root).1.is_empty());
    write(
        root,
        "tsconfig.json",
        "{ \"extends\": \"../../etc/x.json\" }",
    );
    assert!(aliases(root).1.is_empty());
    // a test that does not parse: a warning, the case a leaf
    write(root, "tests/a/b/c/one.test.ts", "import {");
    let (g, problems) = build(root, &Aliases::default(), ["tests/a/b/c/one.test.ts"]);
    assert_eq!(problems.len(), 1);
    assert_eq!(g.reach("tests/a/b/c/one.test.ts").len(), 1);
}

#[test]
fn jsonc_and_tsconfig_read_as_data() {
    assert_eq!(
        String::from_utf8(strip_jsonc(b"{\"a\": \"//x\", /* c */ \"b\": [1,],}")).expect("utf8"),
        "{\"a\": \"//x\",         \"b\": [1 ] }"
    );
    let t = tsconfig("t.json", b"{\"extends\": [\"./a\", \"pkg/b\"], \"compilerOptions\": {\"baseUrl\": \"./src\", \"paths\": {\"x/*\": [\"lib/*\", \"gen/*\"]}}}").expect("t");
    assert_eq!(t.extends, ["./a", "pkg/b"]);
    assert_eq!(t.base_url.as_deref(), Some("./src"));
    assert_eq!(
        t.paths,
        Some(vec![(
            "x/*".to_owned(),
            vec!["lib/*".to_owned(), "gen/*".to_owned()]
        )])
    );
    let v = vite("v.ts", b"export default { test: { setupFiles: './s.ts' } }").expect("v");
    assert_eq!(v.setup_files, ["./s.ts"]);
    assert!(is_unplaced("vitest.config.ts") && is_unplaced("pkg/package.json"));
    assert!(is_unplaced("tsconfig.app.json") && !is_unplaced("src/config.ts"));
    assert!(!is_unplaced("node_modules/x/package.json"));
    assert_eq!(join("a/b", "../../c"), Some("c".to_owned()));
    assert_eq!(join("a", "../../c"), None);
}
