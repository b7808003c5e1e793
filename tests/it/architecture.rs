//! The import-circle check: no file of a crate reaches back to itself through the
//! files it imports (issue 24).
//!
//! Each `.rs` file under `crates/*/src` and `src/` is a node, named by its module path.
//! Each `use` and each qualified path (`crate::a::b`, `super::x`, `self::y`, `child::z`)
//! is resolved to the file it names and, through `use` aliases (re-exports), to the
//! file that defines the item: a file that takes an item re-exported by another
//! imports both, and a child that takes one re-exported by its parent imports the
//! file that defines it. Two kinds of reference are not edges:
//! - between a file and its own ancestor or descendant module: a module and the
//!   children it declares (`mod x;`) and re-exports are one unit seen from outside;
//! - from `#[cfg(test)]` modules, which may reach anywhere to check a result.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Circles the check tolerates, each a list of files: none now that the cockpit's
/// components (issue 24) have landed. An entry stays only while it is a circle.
const KNOWN: &[&[&str]] = &[];

type ModPath = Vec<String>;
/// File → the files it imports.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// The source tokens that matter for paths: identifiers, `::` and single punctuation;
/// comments, strings and character literals dropped.
fn tokens(src: &str) -> Vec<String> {
    let b = src.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == b'"' {
            i = skip_string(b, i);
        } else if c == b'\'' {
            // a character literal, or a lifetime (whose name is kept as a token)
            if b.get(i + 1) == Some(&b'\\') {
                i += 2;
                while i < b.len() && b[i] != b'\'' {
                    i += 1;
                }
                i += 1;
            } else if b.get(i + 2) == Some(&b'\'') {
                i += 3;
            } else if b.get(i + 1).is_some_and(|&c| c >= 0x80) {
                // a multi-byte character literal
                i += 1;
                while i < b.len() && b[i] != b'\'' {
                    i += 1;
                }
                i += 1;
            } else {
                i += 1;
            }
        } else if ident(c) {
            let start = i;
            while i < b.len() && ident(b[i]) {
                i += 1;
            }
            let word = &src[start..i];
            let next = b.get(i).copied();
            match (word, next) {
                ("r" | "br" | "cr", Some(b'#' | b'"')) => {
                    // a raw string (`r#"…"#`), unless a raw identifier (`r#type`)
                    let hashes = b[i..].iter().take_while(|&&c| c == b'#').count();
                    if b.get(i + hashes) == Some(&b'"') {
                        i = skip_raw(b, i + hashes + 1, hashes);
                    } else {
                        i += hashes;
                    }
                }
                ("b" | "c", Some(b'"')) => i = skip_string(b, i),
                ("b", Some(b'\'')) => {
                    i += 1;
                    if b.get(i) == Some(&b'\\') {
                        i += 1;
                    }
                    i += 1;
                    while i < b.len() && b[i] != b'\'' {
                        i += 1;
                    }
                    i += 1;
                }
                _ => out.push(word.to_owned()),
            }
        } else if b[i..].starts_with(b"::") {
            out.push("::".to_owned());
            i += 2;
        } else {
            if !c.is_ascii_whitespace() {
                out.push((c as char).to_string());
            }
            i += 1;
        }
    }
    out
}

/// The index after the string literal that opens at `i`.
fn skip_string(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() && b[i] != b'"' {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    i + 1
}

/// The index after a raw string whose body starts at `i` and ends with `"` and `hashes` `#`.
fn skip_raw(b: &[u8], mut i: usize, hashes: usize) -> usize {
    while i < b.len() {
        if b[i] == b'"'
            && b[i + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == b'#')
                .count()
                == hashes
        {
            return i + 1 + hashes;
        }
        i += 1;
    }
    i
}

/// One crate's files by module path, read.
struct Crate {
    files: BTreeMap<ModPath, String>,
    tokens: BTreeMap<ModPath, Vec<String>>,
}

/// Every `.rs` file under `src`, named by its path relative to `base` (`lib.rs` and
/// `main.rs` are the crate root, `a/mod.rs` and `a.rs` are `a`).
fn read_crate(base: &Path, src: &Path) -> Crate {
    let mut stack = vec![src.to_path_buf()];
    let mut krate = Crate {
        files: BTreeMap::new(),
        tokens: BTreeMap::new(),
    };
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read_dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).expect("beneath src");
            let mut module: ModPath = rel
                .with_extension("")
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            if module.last().is_some_and(|l| l == "mod") || module == ["lib"] || module == ["main"]
            {
                module.pop();
            }
            let name = path
                .strip_prefix(base)
                .expect("beneath base")
                .to_string_lossy()
                .into_owned();
            let text = std::fs::read_to_string(&path).expect("read source");
            krate.tokens.insert(module.clone(), tokens(&text));
            krate.files.insert(module, name);
        }
    }
    krate
}

/// One file's references: `use` aliases (name → absolute path) and the absolute paths
/// it names, read in one pass.
#[derive(Default)]
struct Refs {
    aliases: BTreeMap<String, ModPath>,
    /// Paths whose first segment may be an alias (resolved once every alias is known).
    paths: Vec<ModPath>,
}

struct Reader<'a> {
    files: &'a BTreeMap<ModPath, String>,
    toks: &'a [String],
    refs: Refs,
}

fn is_ident(t: &str) -> bool {
    t.as_bytes()
        .first()
        .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_' || c >= 0x80)
}

impl Reader<'_> {
    /// `segs` as an absolute module path seen from module `here`; `None` for a path
    /// that starts outside this crate's modules (another crate, a type, a local).
    fn absolute(&self, here: &[String], segs: &[String]) -> Option<ModPath> {
        let first = segs.first()?;
        let (mut base, mut rest) = if first == "crate" {
            (Vec::new(), &segs[1..])
        } else {
            (here.to_vec(), segs)
        };
        while let Some(s) = rest.first() {
            match s.as_str() {
                "super" => {
                    base.pop();
                }
                "self" => {}
                _ => break,
            }
            rest = &rest[1..];
        }
        if !matches!(first.as_str(), "crate" | "super" | "self") {
            let mut child = here.to_vec();
            child.push(first.clone());
            if !self.files.contains_key(&child) {
                // maybe an alias: kept with a marker, resolved later
                let mut p = vec!["#alias".to_owned()];
                p.extend(segs.iter().cloned());
                return Some(p);
            }
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// Read the use tree at `i` under `prefix`; the index after it.
    fn use_tree(&mut self, mut i: usize, prefix: &[String], here: &[String], top: bool) -> usize {
        let mut segs = prefix.to_vec();
        while let Some(t) = self.toks.get(i) {
            match t.as_str() {
                "{" => {
                    i += 1;
                    while self.toks.get(i).is_some_and(|t| t != "}") {
                        i = self.use_tree(i, &segs, here, top);
                        if self.toks.get(i).is_some_and(|t| t == ",") {
                            i += 1;
                        }
                    }
                    return i + 1;
                }
                "::" => i += 1,
                "*" => {
                    self.import(&segs, here, None, top);
                    return i + 1;
                }
                "," | "}" | ";" => {
                    self.import(&segs, here, segs.last().cloned(), top);
                    return i;
                }
                "as" => {
                    let name = self.toks.get(i + 1).cloned();
                    self.import(&segs, here, name, top);
                    return i + 2;
                }
                _ => {
                    segs.push(t.clone());
                    i += 1;
                }
            }
        }
        i
    }

    fn import(&mut self, segs: &[String], here: &[String], name: Option<String>, top: bool) {
        let mut segs = segs.to_vec();
        let mut name = name;
        if segs.last().is_some_and(|s| s == "self") {
            segs.pop();
            if name.as_deref() == Some("self") {
                name = segs.last().cloned();
            }
        }
        let Some(abs) = self.absolute(here, &segs) else {
            return;
        };
        if abs.first().is_some_and(|s| s == "#alias") {
            return; // another crate (`use std::…`) or an alias of an alias
        }
        if let (Some(name), true) = (name, top) {
            if name != "_" {
                self.refs.aliases.insert(name, abs.clone());
            }
        }
        self.refs.paths.push(abs);
    }

    /// Every reference of a file whose module is `module`.
    fn read(mut self, module: &[String]) -> Refs {
        let toks = self.toks;
        // inline modules open around the current token: (name, depth inside)
        let mut inline: Vec<(String, usize)> = Vec::new();
        let mut depth = 0usize;
        let mut i = 0;
        while i < toks.len() {
            let t = toks[i].as_str();
            let here = || {
                let mut h = module.to_vec();
                h.extend(inline.iter().map(|(n, _)| n.clone()));
                h
            };
            if t == "mod" && toks.get(i + 2).is_some_and(|t| t == "{") {
                let cfg_test = i >= 7 && toks[i - 7..i].join("") == "#[cfg(test)]";
                if cfg_test {
                    let mut open = 1;
                    i += 3;
                    while i < toks.len() && open > 0 {
                        match toks[i].as_str() {
                            "{" => open += 1,
                            "}" => open -= 1,
                            _ => {}
                        }
                        i += 1;
                    }
                } else {
                    depth += 1;
                    inline.push((toks[i + 1].clone(), depth));
                    i += 3;
                }
                continue;
            }
            match t {
                "{" => depth += 1,
                "}" => {
                    if inline.last().is_some_and(|&(_, d)| d == depth) {
                        inline.pop();
                    }
                    depth = depth.saturating_sub(1);
                }
                "use" => {
                    let top = inline.is_empty();
                    i = self.use_tree(i + 1, &[], &here(), top);
                    continue;
                }
                _ if is_ident(t)
                    && toks.get(i + 1).is_some_and(|n| n == "::")
                    && (i == 0 || toks[i - 1] != "::") =>
                {
                    let mut segs = vec![t.to_owned()];
                    let mut j = i + 1;
                    while toks.get(j).is_some_and(|n| n == "::")
                        && toks.get(j + 1).is_some_and(|n| is_ident(n))
                    {
                        segs.push(toks[j + 1].clone());
                        j += 2;
                    }
                    if let Some(abs) = self.absolute(&here(), &segs) {
                        self.refs.paths.push(abs);
                    }
                    i = j;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        self.refs
    }
}

/// The modules whose files `path` reaches: the longest prefix that is a file and,
/// when the next segment is an alias there (a re-export), every file that alias
/// leads through to the one that defines the item. A file depends on both: on the
/// one it names, and on the one the item comes from.
fn reached(
    files: &BTreeMap<ModPath, String>,
    refs: &BTreeMap<ModPath, Refs>,
    path: &[String],
    out: &mut Vec<ModPath>,
) {
    let Some(k) = (0..=path.len())
        .rev()
        .find(|&k| files.contains_key(&path[..k]))
    else {
        return;
    };
    let module = path[..k].to_vec();
    let next = path.get(k);
    out.push(module.clone());
    let target = next.and_then(|n| refs.get(&module).and_then(|r| r.aliases.get(n)));
    if let Some(target) = target {
        let mut through = target.clone();
        through.extend(path[k + 1..].iter().cloned());
        // an alias chain is short; a loop of aliases would not compile
        if out.len() < 8 && through != path {
            reached(files, refs, &through, out);
        }
    }
}

/// The import graph of the crate whose sources are `src`, files named relative to `base`.
fn crate_graph(base: &Path, src: &Path) -> Graph {
    let krate = read_crate(base, src);
    let refs: BTreeMap<ModPath, Refs> = krate
        .tokens
        .iter()
        .map(|(module, toks)| {
            let reader = Reader {
                files: &krate.files,
                toks,
                refs: Refs::default(),
            };
            (module.clone(), reader.read(module))
        })
        .collect();
    let mut graph = Graph::new();
    for (module, file) in &krate.files {
        let edges = graph.entry(file.clone()).or_default();
        for path in &refs[module].paths {
            let path = if path.first().is_some_and(|s| s == "#alias") {
                // `name::rest` where `name` is this file's alias
                let Some(target) = refs[module].aliases.get(&path[1]) else {
                    continue;
                };
                let mut p = target.clone();
                p.extend(path[2..].iter().cloned());
                p
            } else {
                path.clone()
            };
            let mut reach = Vec::new();
            reached(&krate.files, &refs, &path, &mut reach);
            for to in reach {
                let related = to.starts_with(module) || module.starts_with(&to);
                if !related {
                    edges.insert(krate.files[&to].clone());
                }
            }
        }
    }
    graph
}

/// The strongly connected parts of `graph` with more than one file (Tarjan), each sorted.
fn circles(graph: &Graph) -> Vec<Vec<String>> {
    struct Walk<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        found: Vec<Vec<String>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, v: &'g str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            let graph = self.graph;
            for w in graph.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(lw);
                } else if self.on_stack.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut part = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    part.push(w.to_owned());
                    if w == v {
                        break;
                    }
                }
                if part.len() > 1 {
                    part.sort();
                    self.found.push(part);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.found.sort();
    walk.found
}

/// One circle through the files of `part`, from its first file back to it: `a → b → a`.
fn show(graph: &Graph, part: &[String]) -> String {
    let start = &part[0];
    // breadth-first inside the part, back to `start`
    let mut from: BTreeMap<&String, &String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    let mut last = None;
    while let Some(v) = queue.pop_front() {
        for w in graph.get(v).into_iter().flatten() {
            if w == start {
                last = Some(v);
                queue.clear();
                break;
            }
            if part.contains(w) && !from.contains_key(w) {
                from.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    let mut chain = vec![start.clone()];
    let mut at = last.expect("a circle returns to its start");
    while at != start {
        chain.push(at.clone());
        at = from[at];
    }
    chain.push(start.clone());
    chain.reverse();
    chain.join(" → ")
}

/// The source folders of the repository: each crate's `src/` and the binary's.
fn source_roots(repo: &Path) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = std::fs::read_dir(repo.join("crates"))
        .expect("crates/")
        .map(|e| e.expect("entry").path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    roots.sort();
    roots.push(repo.join("src"));
    roots
}

/// Every circle in `graph` not inside one `known` entry, shown; and every known
/// entry that is no longer a circle's whole or part.
fn judge(graph: &Graph, known: &[&[&str]]) -> (Vec<String>, Vec<String>) {
    let found = circles(graph);
    let within = |part: &[String], k: &[&str]| part.iter().all(|f| k.contains(&f.as_str()));
    let unknown = found
        .iter()
        .filter(|part| !known.iter().any(|k| within(part, k)))
        .map(|part| match part.len() {
            2 => show(graph, part),
            n => format!(
                "{}\n  (one of the {n} files: {})",
                show(graph, part),
                part.join(", ")
            ),
        })
        .collect();
    let stale = known
        .iter()
        .filter(|k| !found.iter().any(|part| within(part, k)))
        .map(|k| k.join(", "))
        .collect();
    (unknown, stale)
}

#[test]
fn no_import_circle_between_files() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut graph = Graph::new();
    for src in source_roots(repo) {
        graph.extend(crate_graph(repo, &src));
    }
    assert!(
        graph.contains_key("crates/core/src/workspace/mod.rs") && graph.len() > 100,
        "the check reads every crate: {} files",
        graph.len()
    );
    let (unknown, stale) = judge(&graph, KNOWN);
    assert!(
        unknown.is_empty(),
        "import circles between files:\n{}",
        unknown.join("\n")
    );
    assert!(
        stale.is_empty(),
        "no longer a circle, remove from KNOWN:\n{}",
        stale.join("\n")
    );
}

/// A circle through a parent's re-export is found and printed; a parent and its
/// children, test modules, comments and strings are not edges.
#[test]
fn a_circle_in_a_small_crate_is_found() {
    let dir = crate::common::fs::scratch_dir();
    let src = dir.path().join("src");
    let write = |rel: &str, text: &str| crate::common::fs::write(&src, rel, text);
    write(
        "lib.rs",
        "mod a;\nmod b;\nmod c;\npub mod d;\npub use c::Thing;\nfn f() { a::go(); }\n",
    );
    // `a` takes `Thing` through the root's re-export: an import of `c`
    write("a.rs", "use crate::Thing;\npub fn go() {}\n");
    write(
        "c.rs",
        "pub struct Thing;\nfn g() { super::b::h() }\n// crate::a::go()\nconst S: &str = \"crate::a::go\";\n#[cfg(test)]\nmod tests { use crate::a::go; }\n",
    );
    write(
        "b.rs",
        "pub fn h() { let _ = r#\"{\"#; }\nmod inner { pub fn i() { super::super::a::go(); } }\n",
    );
    // a parent and its child using each other: one unit
    write("d/mod.rs", "mod e;\npub fn x() { e::y() }\n");
    write("d/e.rs", "pub fn y() { super::x() }\n");
    let graph = crate_graph(dir.path(), &src);
    assert_eq!(
        graph["src/lib.rs"],
        BTreeSet::new(),
        "the root reaches only its children"
    );
    let (unknown, stale) = judge(&graph, &[]);
    assert_eq!(
        unknown,
        [
            "src/a.rs → src/c.rs → src/b.rs → src/a.rs\n  (one of the 3 files: src/a.rs, src/b.rs, src/c.rs)"
        ]
    );
    assert!(stale.is_empty());
    // tolerated when known, and a known circle that is gone is reported
    let known: &[&[&str]] = &[
        &["src/a.rs", "src/b.rs", "src/c.rs"],
        &["src/d/e.rs", "src/x.rs"],
    ];
    let (unknown, stale) = judge(&graph, known);
    assert!(unknown.is_empty(), "{unknown:?}");
    assert_eq!(stale, ["src/d/e.rs, src/x.rs"]);
}

/// Views draw from the snapshot the panes hand them: no file of the cockpit's
/// `view/` names the App, or a domain query the snapshot derives (the count of
/// those queries during a frame is `tui_view::a_frame_runs_no_domain_query`).
#[test]
fn no_view_names_the_app_or_a_domain_query() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let view = repo.join("crates/tui/src/view");
    let krate = read_crate(repo, &view);
    assert!(krate.files.len() > 10, "the views: {:?}", krate.files);
    let banned = [
        "App",
        "last_verdicts",
        "series",
        "ended_without_meta",
        "live_external",
    ];
    let mut found = Vec::new();
    for (module, toks) in &krate.tokens {
        for t in toks.iter().filter(|t| banned.contains(&t.as_str())) {
            found.push(format!("{}: {t}", krate.files[module]));
        }
    }
    assert!(
        found.is_empty(),
        "views reaching past their snapshot:\n{}",
        found.join("\n")
    );
}

/// The App only routes: its one `impl App` is the router's file; every other
/// file of the cockpit answers as a component of its own (issue 41).
#[test]
fn the_app_is_implemented_in_one_file() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = rust_files(vec![repo.join("crates/tui/src")]);
    assert!(files.len() > 50, "the cockpit's sources: {}", files.len());
    let with_impl: Vec<String> = files
        .iter()
        .filter(|f| {
            let toks = tokens(&std::fs::read_to_string(f).expect("read"));
            impls_the_app(&toks)
        })
        .map(|f| f.strip_prefix(repo).unwrap_or(f).display().to_string())
        .collect();
    assert_eq!(
        with_impl,
        ["crates/tui/src/app/router.rs"],
        "`impl App` outside the router: make it a component's answer"
    );
    // the check sees an `impl App` block, and only that
    assert!(impls_the_app(&tokens("impl App {\n fn f() {} }")));
    assert!(impls_the_app(&tokens("impl super::App {}")));
    assert!(!impls_the_app(&tokens(
        "// impl App {\nimpl Apps {}\nimpl Component for App {}\nlet s = \"impl App {\";"
    )));
}

/// Whether `toks` hold an inherent `impl App` block (its path as written:
/// `impl App`, `impl super::App`).
fn impls_the_app(toks: &[String]) -> bool {
    toks.iter().enumerate().any(|(i, t)| {
        if t != "impl" {
            return false;
        }
        let mut j = i + 1;
        let mut last = toks.get(j).filter(|t| is_ident(t));
        while last.is_some() && toks.get(j + 1).is_some_and(|t| t == "::") {
            j += 2;
            last = toks.get(j).filter(|t| is_ident(t));
        }
        last.is_some_and(|t| t == "App") && toks.get(j + 1).is_some_and(|t| t == "{")
    })
}

/// The code lines of a Rust source: lines that hold more than blanks or a
/// `//` comment (doc comments included: they are prose).
fn code_lines(src: &str) -> usize {
    src.lines()
        .map(str::trim_start)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .count()
}

/// Every `.rs` file under `dirs`, walked with a stack (no recursion).
fn rust_files(dirs: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut stack = dirs;
    let mut files = Vec::new();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() {
                stack.push(p);
            } else if kind.is_file() && p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn no_source_file_holds_more_than_800_code_lines() {
    const MOST: usize = 800;
    assert_eq!(
        code_lines("fn a() {}\n\n// note\n  /// doc\nlet b = 1;\n"),
        2
    );
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = source_roots(repo);
    dirs.extend(["tests", "benches"].map(|d| repo.join(d)));
    dirs.extend(
        std::fs::read_dir(repo.join("crates"))
            .expect("crates/")
            .map(|e| e.expect("entry").path().join("tests")),
    );
    let files = rust_files(dirs);
    assert!(files.len() > 100, "the sources: {}", files.len());
    let over: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = code_lines(&std::fs::read_to_string(f).expect("read"));
            (n > MOST).then(|| format!("{} ({n})", f.strip_prefix(repo).unwrap_or(f).display()))
        })
        .collect();
    assert!(
        over.is_empty(),
        "files over {MOST} code lines: split them along a seam\n{}",
        over.join("\n")
    );
}
