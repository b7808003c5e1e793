//! The graph's I/O: the project's tsconfig and vite / vitest configs read as
//! data, and each module read once through the bounded reader (a source over
//! its cap, a FIFO, a link out of the workspace: a located problem, the module
//! a leaf).

use super::config::{self, ViteConfig};
use super::index::ModuleIndex;
use super::{Aliases, Graph, Module, Resolver, is_source, join, parent};
use crate::problem::Problem;
use crate::workspace::config::WatchGlobs as _;
use crate::workspace::read::{self, Kind};
use std::collections::BTreeSet;
use std::path::Path;

/// The tsconfig `extends` followed at most this deep.
const MAX_EXTENDS: usize = 16;

/// The vitest and vite configs looked for at the root, in the order vitest
/// takes them (its own config first).
pub const VITE_CONFIGS: [&str; 12] = [
    "vitest.config.ts",
    "vitest.config.mts",
    "vitest.config.cts",
    "vitest.config.js",
    "vitest.config.mjs",
    "vitest.config.cjs",
    "vite.config.ts",
    "vite.config.mts",
    "vite.config.cts",
    "vite.config.js",
    "vite.config.mjs",
    "vite.config.cjs",
];

/// Whether `rel` (root-relative) is a regular file, never through a link.
pub fn exists(root: &Path, rel: &str) -> bool {
    std::fs::symlink_metadata(root.join(rel)).is_ok_and(|m| m.is_file())
}

/// A problem of the graph is a warning: the graph goes on without the file.
fn warn(mut p: Problem) -> Problem {
    p.severity = crate::problem::Severity::Warning;
    p
}

fn read_file(root: &Path, rel: &str, kind: Kind) -> Result<Vec<u8>, Problem> {
    read::read(&root.join(rel), Some(root), kind).map_err(|e| e.problem(rel, "graph"))
}

/// The aliases and setup files of the project at `root`: its `tsconfig.json`
/// (or `jsconfig.json`, `extends` followed within the workspace) and its vitest
/// / vite configs, read as data. Problems are warnings: the graph goes on
/// without what could not be read.
pub fn aliases(root: &Path) -> (Aliases, Vec<Problem>) {
    let mut out = Aliases::default();
    let mut problems = Vec::new();
    let first = ["tsconfig.json", "jsconfig.json"]
        .into_iter()
        .find(|f| exists(root, f));
    let mut next = first.map(str::to_owned);
    let mut seen = BTreeSet::new();
    let (mut base_url, mut paths) = (None, None);
    while let Some(rel) = next.take() {
        if !seen.insert(rel.clone()) || seen.len() > MAX_EXTENDS {
            break;
        }
        let parsed = read_file(root, &rel, Kind::Config).and_then(|b| config::tsconfig(&rel, &b));
        let ts = match parsed {
            Ok(ts) => ts,
            Err(p) => {
                problems.push(warn(p));
                break;
            }
        };
        let dir = parent(&rel);
        // the nearest config that sets it wins; paths are relative to baseUrl,
        // or to the config that sets them
        if base_url.is_none() {
            base_url = ts.base_url.as_deref().and_then(|b| join(dir, b));
        }
        if paths.is_none() {
            paths = ts.paths.map(|p| (dir.to_owned(), p));
        }
        next = ts.extends.iter().find_map(|e| {
            if !e.starts_with('.') {
                return None; // a package's config: not the workspace's
            }
            let p = join(dir, e)?;
            if exists(root, &p) {
                Some(p)
            } else {
                let with = format!("{p}.json");
                exists(root, &with).then_some(with)
            }
        });
    }
    if let Some((dir, p)) = paths {
        let from = base_url.clone().unwrap_or(dir);
        out.paths = p
            .into_iter()
            .map(|(pattern, targets)| {
                let targets = targets
                    .iter()
                    .filter_map(|t| join(&from, t))
                    .collect::<Vec<_>>();
                (pattern, targets)
            })
            .collect();
    }
    out.base_url = base_url;
    for rel in VITE_CONFIGS.iter().filter(|f| exists(root, f)) {
        match read_file(root, rel, Kind::Config).and_then(|b| config::vite(rel, &b)) {
            Ok(ViteConfig {
                alias,
                setup_files,
                unread,
            }) => {
                for (find, to) in alias {
                    if let Some(to) = join("", &to) {
                        out.vite.push((find, to));
                    }
                }
                for s in setup_files {
                    let Some(base) = join("", &s) else { continue };
                    let r = Resolver {
                        aliases: &out,
                        exists: &|p| exists(root, p),
                    };
                    let f = r.file(&base).unwrap_or(base);
                    if !out.setup_files.contains(&f) {
                        out.setup_files.push(f);
                    }
                }
                if !unread.is_empty() {
                    problems.push(Problem::warning(
                        *rel,
                        "graph-alias-unread",
                        format!(
                            "resolve.alias {} is not a literal the import graph can read: imports through it are not followed",
                            unread.join(", ")
                        ),
                    ));
                }
            }
            Err(p) => problems.push(warn(p)),
        }
    }
    (out, problems)
}

/// Read `rel` and resolve its specifiers (its parse from `index` when its bytes
/// are the ones parsed before): `None` when it cannot be read or parsed (the
/// problem is pushed).
fn module(
    root: &Path,
    aliases: &Aliases,
    index: &mut ModuleIndex,
    rel: &str,
    problems: &mut Vec<Problem>,
) -> Option<Module> {
    if !is_source(rel) {
        return Some(Module::default());
    }
    let parsed = read_file(root, rel, Kind::Source).and_then(|b| index.parse(root, rel, &b));
    match parsed {
        Ok(p) => {
            let r = Resolver {
                aliases,
                exists: &|p| exists(root, p),
            };
            Some(Module::of(rel, &p.specifiers, p.unfollowed, &r))
        }
        Err(p) => {
            problems.push(warn(p));
            None
        }
    }
}

/// Read every module `todo` reaches that `graph` does not hold yet.
fn fill(
    root: &Path,
    aliases: &Aliases,
    index: &mut ModuleIndex,
    graph: &mut Graph,
    mut todo: Vec<String>,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    while let Some(rel) = todo.pop() {
        if graph.modules.contains_key(&rel) || !exists(root, &rel) {
            continue;
        }
        let m = module(root, aliases, index, &rel, &mut problems).unwrap_or_default();
        todo.extend(
            m.imports
                .iter()
                .filter(|i| !graph.modules.contains_key(*i))
                .cloned(),
        );
        graph.modules.insert(rel, m);
    }
    problems
}

/// The graph of the modules `entries` (the cases' test files) and the setup
/// files reach, every module parsed.
pub fn build<'e>(
    root: &Path,
    aliases: &Aliases,
    entries: impl IntoIterator<Item = &'e str>,
) -> (Graph, Vec<Problem>) {
    build_with(root, aliases, &mut ModuleIndex::default(), entries)
}

/// [`build`], each module's parse taken from `index` where its bytes are the
/// ones parsed before (the others parsed and kept there).
pub fn build_with<'e>(
    root: &Path,
    aliases: &Aliases,
    index: &mut ModuleIndex,
    entries: impl IntoIterator<Item = &'e str>,
) -> (Graph, Vec<Problem>) {
    let mut graph = Graph::default();
    let todo = entries
        .into_iter()
        .map(str::to_owned)
        .chain(aliases.setup_files.iter().cloned())
        .collect();
    let problems = fill(root, aliases, index, &mut graph, todo);
    (graph, problems)
}

/// The graph of the workspace at `root` for `entries` (the cases' test files),
/// built from the import index of the history cache folder `cache` (`None`: no
/// index, every module parsed), the index written back when a module was
/// parsed again: the aliases, the graph and the problems of both.
pub fn build_cached<'e>(
    root: &Path,
    cache: Option<&Path>,
    entries: impl IntoIterator<Item = &'e str>,
) -> (Aliases, Graph, Vec<Problem>) {
    let (aliases, mut problems) = aliases(root);
    let mut index = ModuleIndex::open(cache, root);
    let (graph, more) = build_with(root, &aliases, &mut index, entries);
    problems.extend(more);
    // the index is a cache: a write that fails costs the next build its parses only
    let _ = index.save(cache, root);
    (aliases, graph, problems)
}

/// The graph after `changed` (root-relative paths): each changed module read
/// again (gone: dropped), the modules that named a missing path a new file
/// fills read again, and what they reach now added; `entries` new test files.
pub fn update<'e>(
    root: &Path,
    aliases: &Aliases,
    graph: &mut Graph,
    entries: impl IntoIterator<Item = &'e str>,
    changed: &[String],
) -> Vec<Problem> {
    update_with(
        root,
        aliases,
        &mut ModuleIndex::default(),
        graph,
        entries,
        changed,
    )
}

/// [`update`], each module's parse taken from `index` where its bytes are the
/// ones parsed before: a module read again because a file it names came or
/// went is resolved again, not parsed.
pub fn update_with<'e>(
    root: &Path,
    aliases: &Aliases,
    index: &mut ModuleIndex,
    graph: &mut Graph,
    entries: impl IntoIterator<Item = &'e str>,
    changed: &[String],
) -> Vec<Problem> {
    let mut again: BTreeSet<String> = BTreeSet::new();
    for f in changed {
        if graph.modules.contains_key(f) {
            again.insert(f.clone());
        }
        again.extend(graph.importers_of(f).map(str::to_owned));
    }
    let mut problems = Vec::new();
    let mut todo: Vec<String> = Vec::new();
    for rel in again {
        if !exists(root, &rel) {
            graph.modules.remove(&rel);
            continue;
        }
        // a module that does not parse mid-edit keeps what it reached before
        if let Some(m) = module(root, aliases, index, &rel, &mut problems) {
            todo.extend(m.imports.iter().cloned());
            graph.modules.insert(rel, m);
        }
    }
    todo.extend(entries.into_iter().map(str::to_owned));
    todo.extend(aliases.setup_files.iter().cloned());
    problems.extend(fill(root, aliases, index, graph, todo));
    problems
}

/// The cases the graph covers (`(scope/caseId, test file)`): the tests-tree
/// cases whose test file is JavaScript / TypeScript.
pub fn case_files(ws: &crate::workspace::Workspace) -> Vec<(String, String)> {
    ws.tests
        .cases
        .iter()
        .filter(|c| is_source(&c.path))
        .map(|c| (c.key(), c.path.clone()))
        .collect()
}

/// The selection of `changed` (root-relative paths) in `ws`, its graph built
/// from the files as they are now (the modules whose bytes are unchanged taken
/// from the import index of the history cache folder `cache`).
pub fn selection(
    ws: &crate::workspace::Workspace,
    cache: Option<&Path>,
    changed: &[String],
) -> super::Selection {
    let cases = case_files(ws);
    let (aliases, graph, _) = build_cached(&ws.root, cache, cases.iter().map(|(_, f)| f.as_str()));
    let code = ws.config.watch.globs(&ws.root);
    super::select(&graph, &aliases, &cases, changed, &code)
}
