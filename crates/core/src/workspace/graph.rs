//! What a change reaches: for every case, the workspace modules its test file
//! reaches through its imports (the specifiers of [`super::imports::parse`],
//! resolved as the project resolves them), and the cases a set of changed files
//! concerns. The model and the resolution are here, without I/O (a file's
//! existence is asked of the caller); [`load`] reads the files through the
//! bounded reader, and [`config`] reads tsconfig `paths` and vite
//! `resolve.alias` as data.
//!
//! A change the graph cannot place selects every case and says why: a config
//! (vitest, vite, playwright, tsconfig), `package.json`, a lockfile, a file with
//! an `import()` / `require()` it cannot follow, a setup file every test loads.

pub mod config;
pub mod index;
pub mod load;

use super::config::glob_matches;
use super::imports::{Kind, is_relative};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The extensions the project resolves, in the order tried.
pub const EXTENSIONS: [&str; 8] = ["ts", "tsx", "mts", "cts", "js", "mjs", "cjs", "jsx"];

/// File names whose change the graph cannot place (any folder): configs,
/// manifests and lockfiles. A name ending in `.` stands for any extension.
const UNPLACED: [&str; 15] = [
    "vitest.config.",
    "vitest.workspace.",
    "vite.config.",
    "playwright.config.",
    "jest.config.",
    "babel.config.",
    "package.json",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "pnpm-workspace.yaml",
    "bun.lock",
    "bun.lockb",
    ".babelrc",
];

/// The root's files whose change the graph cannot place, by name (a watch
/// follows them whether they are there yet or not).
pub fn root_configs() -> Vec<String> {
    let mut v: Vec<String> = load::VITE_CONFIGS.iter().map(|s| (*s).to_owned()).collect();
    v.extend(
        ["ts", "mts", "cts", "js", "mjs", "cjs"]
            .iter()
            .map(|e| format!("playwright.config.{e}")),
    );
    v.extend(
        UNPLACED
            .iter()
            .filter(|u| !u.ends_with('.'))
            .map(|u| (*u).to_owned()),
    );
    v.extend(["tsconfig.json".to_owned(), "jsconfig.json".to_owned()]);
    v
}

/// Whether `rel` is a JavaScript / TypeScript source by its extension.
pub fn is_source(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name.rsplit_once('.')
        .is_some_and(|(_, ext)| EXTENSIONS.contains(&ext))
}

/// Whether `rel` is a file whose change the graph cannot place (a config, a
/// manifest, a lockfile); `tsconfig*.json` / `jsconfig*.json` too.
pub fn is_unplaced(rel: &str) -> bool {
    if rel.split('/').any(|s| s == "node_modules") {
        return false;
    }
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let json_config = |stem: &str| {
        name.starts_with(stem) && name.rsplit_once('.').is_some_and(|(_, e)| e == "json")
    };
    json_config("tsconfig")
        || json_config("jsconfig")
        || UNPLACED.iter().any(|u| {
            if u.ends_with('.') {
                name.strip_prefix(u).is_some_and(|ext| !ext.contains('/'))
            } else {
                name == *u
            }
        })
}

/// How specifiers that are not relative map to workspace files: tsconfig
/// `paths` (with `baseUrl`) and vite `resolve.alias`, every path relative to
/// the workspace root.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Aliases {
    /// tsconfig `paths`: a pattern (at most one `*`) and its targets, in order.
    pub paths: Vec<(String, Vec<String>)>,
    /// tsconfig `baseUrl` (a folder; `""` is the root).
    pub base_url: Option<String>,
    /// vite `resolve.alias`: `find` (the specifier or its first names) and the
    /// folder or file it stands for.
    pub vite: Vec<(String, String)>,
    /// vitest `test.setupFiles`: loaded before every test file.
    pub setup_files: Vec<String>,
}

/// Where one specifier leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// A workspace file.
    File(String),
    /// A package, a built-in, a path out of the workspace: not followed.
    Outside,
    /// It names a workspace path (relative, or through an alias) where no file
    /// is (yet): the path without an extension.
    Missing(String),
}

/// `/`-joined `base` and `rel`, `.` and `..` resolved; `None` when it climbs
/// out of the root.
pub fn join(base: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for s in base.split('/').chain(rel.split('/')) {
        match s {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

/// The folder of a relative file path (`""` at the root).
pub fn parent(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Resolves specifiers against the aliases, asking `exists` whether a
/// workspace file (root-relative) is a regular file.
pub struct Resolver<'a> {
    /// The aliases in force.
    pub aliases: &'a Aliases,
    /// Whether a root-relative path is a regular file.
    pub exists: &'a dyn Fn(&str) -> bool,
}

impl Resolver<'_> {
    /// The file a written path stands for: itself, the TypeScript file a `.js`
    /// names, the path with one of [`EXTENSIONS`], or its folder's index.
    pub fn file(&self, base: &str) -> Option<String> {
        let name = base.rsplit('/').next().unwrap_or(base);
        if name.contains('.') && (self.exists)(base) {
            return Some(base.to_owned());
        }
        if let Some((stem, ext)) = base.rsplit_once('.') {
            let ts: &[&str] = match ext {
                "js" => &["ts", "tsx"],
                "jsx" => &["tsx"],
                "mjs" => &["mts"],
                "cjs" => &["cts"],
                _ => &[],
            };
            for t in ts {
                let p = format!("{stem}.{t}");
                if (self.exists)(&p) {
                    return Some(p);
                }
            }
        }
        let dir = if base.is_empty() {
            String::new()
        } else {
            format!("{base}/")
        };
        EXTENSIONS
            .iter()
            .map(|e| format!("{base}.{e}"))
            .chain(EXTENSIONS.iter().map(|e| format!("{dir}index.{e}")))
            .find(|p| !p.starts_with('.') && (self.exists)(p))
    }

    /// Where the specifier `value` of `kind`, written in `from` (root-relative),
    /// leads.
    pub fn resolve(&self, from: &str, kind: Kind, value: &str) -> Resolved {
        // a query (`./x.svg?raw`) is the bundler's, not the path's
        let value = value.split('?').next().unwrap_or(value);
        let found = |base: Option<String>| match base {
            None => Resolved::Outside,
            Some(b) => self.file(&b).map_or(Resolved::Missing(b), Resolved::File),
        };
        if is_relative(kind, value) {
            let rel = if kind == Kind::ReferencePath && !value.starts_with('.') {
                format!("./{value}")
            } else {
                value.to_owned()
            };
            return found(join(parent(from), &rel));
        }
        // vite: the first alias whose `find` is the specifier or its first names
        for (find, to) in &self.aliases.vite {
            if let Some(rest) = value.strip_prefix(find.as_str()) {
                if rest.is_empty() || rest.starts_with('/') || find.ends_with('/') {
                    return found(join(to, rest));
                }
            }
        }
        // tsconfig paths: the longest matching prefix, its targets in order
        let mut best: Option<(usize, &str, &Vec<String>)> = None;
        for (pattern, targets) in &self.aliases.paths {
            let star = match pattern.split_once('*') {
                Some((pre, post)) => value
                    .strip_prefix(pre)
                    .and_then(|r| r.strip_suffix(post))
                    .filter(|_| value.len() >= pre.len() + post.len())
                    .map(|s| (pre.len(), s)),
                None => (value == pattern).then_some((pattern.len(), "")),
            };
            if let Some((len, s)) = star {
                if best.is_none_or(|(l, _, _)| len > l) {
                    best = Some((len, s, targets));
                }
            }
        }
        if let Some((_, s, targets)) = best {
            let bases: Vec<String> = targets
                .iter()
                .filter_map(|t| join("", &t.replacen('*', s, 1)))
                .collect();
            for b in &bases {
                if let Some(f) = self.file(b) {
                    return Resolved::File(f);
                }
            }
            return bases
                .into_iter()
                .next()
                .map_or(Resolved::Outside, Resolved::Missing);
        }
        // a root-relative path (vite), then tsconfig's baseUrl: only where a file is
        let try_base = |b: Option<String>| b.and_then(|b| self.file(&b));
        if let Some(abs) = value.strip_prefix('/') {
            return try_base(join("", abs)).map_or(Resolved::Outside, Resolved::File);
        }
        if let Some(base) = &self.aliases.base_url {
            if let Some(f) = try_base(join(base, value)) {
                return Resolved::File(f);
            }
        }
        Resolved::Outside
    }
}

/// Whether a specifier of `kind` loads code when the test runs (type-only
/// imports and reference comments do not).
pub fn loads(kind: Kind) -> bool {
    !matches!(
        kind,
        Kind::ImportType | Kind::ExportTypeFrom | Kind::TypeImport | Kind::ReferencePath
    )
}

/// One workspace file of the graph.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Module {
    /// The workspace files it loads, sorted.
    pub imports: Vec<String>,
    /// Workspace paths it names where no file is (without an extension): a file
    /// created there is reached.
    pub missing: Vec<String>,
    /// Where (`file:line:col`) it has an `import()` / `require()` the graph
    /// cannot follow (not a literal), the first one.
    pub unfollowed: Option<String>,
}

impl Module {
    /// The module of one parsed source (its specifiers' kinds and values): its
    /// loading specifiers resolved.
    pub fn of(
        rel: &str,
        specifiers: &[(Kind, String)],
        unfollowed: Option<(u32, u32)>,
        r: &Resolver<'_>,
    ) -> Module {
        let mut imports = BTreeSet::new();
        let mut missing = BTreeSet::new();
        for (kind, value) in specifiers.iter().filter(|(k, _)| loads(*k)) {
            match r.resolve(rel, *kind, value) {
                Resolved::File(f) if f != rel => {
                    imports.insert(f);
                }
                Resolved::Missing(b) => {
                    missing.insert(b);
                }
                _ => {}
            }
        }
        Module {
            imports: imports.into_iter().collect(),
            missing: missing.into_iter().collect(),
            unfollowed: unfollowed.map(|(l, c)| format!("{rel}:{l}:{c}")),
        }
    }
}

/// Whether the file `rel` is what a missing path `base` names.
fn names(base: &str, rel: &str) -> bool {
    if rel == base {
        return true;
    }
    let stem = |p: &str| -> Option<String> {
        let (s, ext) = p.rsplit_once('.')?;
        EXTENSIONS.contains(&ext).then(|| s.to_owned())
    };
    let Some(s) = stem(rel) else {
        return false;
    };
    s == base || s == format!("{base}/index") || stem(base).as_deref() == Some(s.as_str())
}

/// The modules the cases' test files reach, each read once.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Graph {
    /// Every module read, by root-relative path.
    pub modules: BTreeMap<String, Module>,
}

impl Graph {
    /// Every module `from` reaches, itself included (a file not in the graph:
    /// itself alone).
    pub fn reach(&self, from: &str) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_owned()];
        while let Some(m) = todo.pop() {
            if !seen.insert(m.clone()) {
                continue;
            }
            if let Some(module) = self.modules.get(&m) {
                todo.extend(
                    module
                        .imports
                        .iter()
                        .filter(|i| !seen.contains(*i))
                        .cloned(),
                );
            }
        }
        seen
    }

    /// The modules that load `rel` or name it where it was missing.
    fn importers_of<'a>(&'a self, rel: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.modules
            .iter()
            .filter(move |(_, m)| {
                m.imports.iter().any(|i| i == rel) || m.missing.iter().any(|b| names(b, rel))
            })
            .map(|(k, _)| k.as_str())
    }
}

/// The cases a set of changes concerns.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Selection {
    /// A change the graph cannot place: every case, and why
    /// (`vitest.config.ts changed: every case`).
    pub every: Option<String>,
    /// The cases (their keys) whose graph reaches a changed file, in the order given.
    pub cases: Vec<String>,
    /// One line a change: what it reaches (`src/unused.ts changed: reaches no case`).
    pub notes: Vec<String>,
}

/// The cases (`(key, test file)`) whose graph reaches one of `changed`
/// (root-relative paths); `aliases` for the setup files. `code` (the `[watch]
/// paths` globs) names the code under test: a file there that is no source and
/// that no module imports (a fixture read at run time) cannot be placed.
pub fn select(
    graph: &Graph,
    aliases: &Aliases,
    cases: &[(String, String)],
    changed: &[String],
    code: &[String],
) -> Selection {
    let mut out = Selection::default();
    let reaches: Vec<BTreeSet<String>> = cases.iter().map(|(_, f)| graph.reach(f)).collect();
    let mut reached_by: HashMap<&str, BTreeSet<usize>> = HashMap::new();
    for (i, r) in reaches.iter().enumerate() {
        for m in r {
            reached_by.entry(m.as_str()).or_default().insert(i);
        }
    }
    let setup: BTreeSet<String> = aliases
        .setup_files
        .iter()
        .flat_map(|s| graph.reach(s))
        .collect();
    let unfollowed = || {
        reached_by
            .keys()
            .filter_map(|m| graph.modules.get(*m)?.unfollowed.clone())
            .min()
    };
    let mut hit: BTreeSet<usize> = BTreeSet::new();
    for f in changed {
        if is_unplaced(f) {
            out.every
                .get_or_insert_with(|| format!("{f} changed: every case"));
            continue;
        }
        if setup.contains(f) {
            out.every.get_or_insert_with(|| {
                if aliases.setup_files.contains(f) {
                    format!("{f} changed, a setup file every test loads: every case")
                } else {
                    format!("{f} changed, loaded by a setup file every test loads: every case")
                }
            });
            continue;
        }
        if let Some(at) = graph.modules.get(f).and_then(|m| m.unfollowed.as_ref()) {
            out.every.get_or_insert_with(|| {
                format!("{f} changed and has an import the graph cannot follow ({at}): every case")
            });
            continue;
        }
        let mut mine: BTreeSet<usize> = reached_by.get(f.as_str()).cloned().unwrap_or_default();
        for m in graph.importers_of(f) {
            mine.extend(reached_by.get(m).into_iter().flatten());
        }
        if mine.is_empty() && !is_source(f) && code.iter().any(|g| glob_matches(g, f)) {
            out.every.get_or_insert_with(|| {
                format!("{f} changed, code under test no import names: every case")
            });
            continue;
        }
        if mine.is_empty() && is_source(f) {
            if let Some(at) = unfollowed() {
                out.every.get_or_insert_with(|| {
                    format!(
                        "{f} changed and {at} has an import the graph cannot follow: every case"
                    )
                });
                continue;
            }
        }
        out.notes.push(match mine.len() {
            0 => format!("{f} changed: reaches no case"),
            1 => format!("{f} changed: 1 case reaches it"),
            n => format!("{f} changed: {n} cases reach it"),
        });
        hit.extend(mine);
    }
    if let Some(why) = &out.every {
        out.notes = vec![why.clone()];
        out.cases = cases.iter().map(|(k, _)| k.clone()).collect();
    } else {
        out.cases = hit.into_iter().map(|i| cases[i].0.clone()).collect();
    }
    out
}

#[cfg(test)]
mod tests;
