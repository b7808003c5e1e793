//! `testdeck adopt` and `testdeck promote` (SPEC §1.1a, seed 000 §3.5): a test
//! file outside the tree, or a temp case, made formal in the seed's order — the
//! plan entry first (its What listing the file's describe / test titles), then the
//! file moved with every relative module specifier rewritten
//! ([`super::imports::rewrite`]), then its earlier runs moved to the new scope as
//! its history, each `meta.json`'s `scope` (and `caseId`) following its folder.
//!
//! [`Adoption::adopt`] / [`Adoption::promote`] check everything and write nothing
//! (a refusal leaves the workspace as it was); [`Adoption::create`] writes, each
//! file through the guarded writer ([`super::read::write_beneath`]) and each run
//! folder moved by [`super::read::rename_beneath`], every path checked with
//! [`super::read::link_on_the_way`] before the first write.

use super::Workspace;
use super::imports::{self, NonLiteral, Parsed, Rewritten};
use super::new_case::{self, Moved, NewCase, Refusal};
use super::outside;
use super::read::{self, Kind, link_on_the_way};
use super::run_folder;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

/// The folder of the raw logs, relative to the root.
const LOGS: &str = "tests/logs";

/// One run folder moved with its case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunMove {
    /// Its folder now, relative to the root.
    pub from: String,
    /// Its folder afterwards.
    pub to: String,
}

/// One file made formal: what will be written, moved and rewritten.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Adoption {
    /// The plan entry and the test file (its `content` the rewritten bytes).
    pub case: NewCase,
    /// The file now, relative to the root.
    pub from: String,
    /// The scope its runs are under now (`temp/outside/…` or `temp/…`).
    pub old_scope: String,
    /// Each relative specifier rewritten, in source order.
    pub imports: Vec<Import>,
    /// Each `import()` / `require()` whose argument is no literal: not rewritten,
    /// for the person to check.
    pub unresolved: Vec<Unresolved>,
    /// Its run folders, moved to the new scope.
    pub runs: Vec<RunMove>,
}

/// A rewritten specifier, for the person and `--json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Import {
    /// `import`, `vi.mock()`, …
    pub kind: &'static str,
    /// Its 1-based line.
    pub line: u32,
    /// As written.
    pub from: String,
    /// As rewritten.
    pub to: String,
}

/// A non-literal `import()` / `require()`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unresolved {
    /// `import()` or `require()`.
    pub kind: &'static str,
    /// Its 1-based line.
    pub line: u32,
    /// Its 1-based column.
    pub column: u32,
}

impl Adoption {
    /// Check `testdeck adopt FILE --to DIR`: `file` a test file outside the tree
    /// (or a temp case), `to` the formal folder it moves to, keeping its caseId.
    pub fn adopt(ws: &Workspace, file: &str, to: &str) -> Result<Adoption, Refusal> {
        let folder = if to.ends_with('/') {
            to.to_owned()
        } else {
            format!("{to}/")
        };
        Self::prepare(ws, file, &folder)
    }

    /// Check `testdeck promote TEMP TARGET`: a temp case to a formal folder (its
    /// caseId kept) or a path ending in a caseId (renamed).
    pub fn promote(ws: &Workspace, temp: &str, target: &str) -> Result<Adoption, Refusal> {
        let rel = new_case::relative(&ws.root, temp);
        if !ws.tests.cases.iter().any(|c| c.temp && c.path == rel) {
            return Err(Refusal::NotTemp(temp.to_owned()));
        }
        Self::prepare(ws, temp, target)
    }

    fn prepare(ws: &Workspace, file: &str, target: &str) -> Result<Adoption, Refusal> {
        let root = &ws.root;
        let rel = new_case::relative(root, file);
        let (case_id, old_scope) = source_case(ws, &rel, file)?;
        let patterns = new_case::patterns(ws);
        let t = new_case::formal_target(root, target, &patterns, Some(&case_id))?;
        let moved = Moved {
            path: &rel,
            case_id: &case_id,
        };
        let mut case = NewCase::planned(ws, &t, Some(moved), &patterns)?;
        let io = |e: &dyn std::fmt::Display| Refusal::Io(rel.clone(), e.to_string());
        let bytes = read::read(&root.join(&rel), Some(root), Kind::Source).map_err(|e| io(&e))?;
        let parsed = imports::parse(&rel, &bytes).map_err(|p| Refusal::Parse(p.to_string()))?;
        let mut needs: Vec<String> = alias_include(root, &parsed, &case.test_file)?
            .into_iter()
            .collect();
        if case.framework == "vitest" {
            needs.extend(vitest_include(root, &case.test_file)?);
        }
        if !needs.is_empty() {
            return Err(Refusal::NotIncluded {
                file: case.test_file.clone(),
                needs: needs.join("; "),
            });
        }
        let (content, rewritten) = imports::rewrite(&bytes, &parsed, &rel, &case.test_file);
        case.facts = facts(&parsed);
        case.content = Some(content);
        let runs = run_moves(root, &old_scope, &case_id, &case.scope, &case.case_id)?;
        // every folder written into or moved out of: no link on the way
        let mut checked: Vec<String> =
            vec![case.plan_file.clone(), case.test_file.clone(), rel.clone()];
        for r in &runs {
            checked.push(r.from.clone());
            checked.push(r.to.clone());
        }
        for p in &checked {
            if let Some(link) = link_on_the_way(root, Path::new(p)) {
                return Err(Refusal::Io(
                    p.clone(),
                    format!("{link} is a symbolic link: testdeck moves nothing through one"),
                ));
            }
        }
        Ok(Adoption {
            case,
            from: rel,
            old_scope,
            imports: rewritten.into_iter().map(Import::from).collect(),
            unresolved: parsed.non_literal.iter().map(Unresolved::from).collect(),
            runs,
        })
    }

    /// Everything in seed 000 §3.5's order: the plan entry, then `between` (the CLI
    /// opens the entry in the person's editor there), then the file moved with its
    /// imports rewritten, then its runs.
    pub fn create(&mut self, root: &Path, between: impl FnOnce(&NewCase)) -> Result<(), Refusal> {
        self.case.create(root, between)?;
        self.move_runs(root)
    }

    /// Move the run folders, each `meta.json`'s `scope` and `caseId` set to its
    /// new folder's.
    pub fn move_runs(&self, root: &Path) -> Result<(), Refusal> {
        for r in &self.runs {
            let io = |e: &dyn std::fmt::Display| Refusal::Io(r.to.clone(), e.to_string());
            let to = root.join(&r.to);
            // the guarded move: no link on either way, never over a folder there
            read::rename_beneath(root, Path::new(&r.from), Path::new(&r.to)).map_err(|e| {
                if e.kind() == std::io::ErrorKind::AlreadyExists {
                    Refusal::FileExists(r.to.clone())
                } else {
                    io(&e)
                }
            })?;
            retarget_meta(root, &r.to, &to, &self.case.scope, &self.case.case_id)
                .map_err(|e| io(&e))?;
        }
        // the old case folder, when the moves emptied it
        if let Some(first) = self.runs.first()
            && let Some(dir) = Path::new(&first.from).parent()
        {
            let _ = std::fs::remove_dir(root.join(dir));
        }
        Ok(())
    }
}

impl From<Rewritten> for Import {
    fn from(r: Rewritten) -> Self {
        Import {
            kind: r.kind.label(),
            line: r.line,
            from: r.from,
            to: r.to,
        }
    }
}

impl From<&NonLiteral> for Unresolved {
    fn from(n: &NonLiteral) -> Self {
        Unresolved {
            kind: n.kind.label(),
            line: n.line,
            column: n.column,
        }
    }
}

/// The caseId and the scope of its runs now, of a file to adopt: a temp case's,
/// or an outside file's (`outside::temp_scope`).
fn source_case(ws: &Workspace, rel: &str, shown: &str) -> Result<(String, String), Refusal> {
    if let Some(c) = ws.tests.cases.iter().find(|c| c.temp && c.path == rel) {
        return Ok((c.case_id.clone(), c.scope.clone()));
    }
    if rel.starts_with("tests/") && !rel.starts_with("tests/temp/") {
        return Err(Refusal::NotAdoptable(
            shown.to_owned(),
            "it is in the tree already (testdeck promote moves a temp case)".to_owned(),
        ));
    }
    let path = Path::new(rel);
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let id = outside::case_id(name).ok_or_else(|| {
        Refusal::NotAdoptable(
            shown.to_owned(),
            "not a test file (NAME.test.ts, NAME.spec.tsx, … in a JavaScript or TypeScript ending)"
                .to_owned(),
        )
    })?;
    let scope = outside::temp_scope(path).ok_or_else(|| {
        Refusal::NotAdoptable(shown.to_owned(), "not a file of the workspace".to_owned())
    })?;
    match std::fs::symlink_metadata(ws.root.join(rel)) {
        Ok(m) if m.is_file() => {}
        Ok(_) => {
            return Err(Refusal::NotAdoptable(
                shown.to_owned(),
                "not a regular file".to_owned(),
            ));
        }
        Err(e) => return Err(Refusal::Io(shown.to_owned(), e.to_string())),
    }
    Ok((id.to_owned(), scope))
}

/// The What's facts: each test's title path (`describe › test`, with its line).
fn facts(parsed: &Parsed) -> Vec<String> {
    parsed
        .titles
        .iter()
        .filter(|t| t.kind == imports::TitleKind::Test)
        .map(|t| format!("{} (line {})", t.path.join(" › "), t.line))
        .collect()
}

/// The run folders of the case `case_id` under `old_scope`, each with its folder
/// under the new scope and caseId. A run still being written, or a folder taken
/// there, refuses the whole move.
fn run_moves(
    root: &Path,
    old_scope: &str,
    case_id: &str,
    new_scope: &str,
    new_id: &str,
) -> Result<Vec<RunMove>, Refusal> {
    let dir = format!("{LOGS}/{old_scope}/{case_id}");
    let entries = match std::fs::read_dir(root.join(&dir)) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Refusal::Io(dir, e.to_string())),
    };
    let mut names: Vec<String> = Vec::new();
    for e in entries.flatten() {
        let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
        let Some(name) = e.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        if is_dir && run_folder::is_run_folder(&e.path()) {
            names.push(name);
        }
    }
    names.sort();
    let mut moves = Vec::new();
    for name in names {
        let from = format!("{dir}/{name}");
        if !run_folder::state(&root.join(&from)).ended() {
            return Err(Refusal::RunInProgress(from));
        }
        let to = format!("{LOGS}/{new_scope}/{new_id}/{name}");
        if root.join(&to).symlink_metadata().is_ok() {
            return Err(Refusal::FileExists(to));
        }
        moves.push(RunMove { from, to });
    }
    Ok(moves)
}

/// Set `meta.json`'s `scope` and `caseId` in run folder `dir` (keys it lacks stay
/// absent; a `meta.json` that does not read as JSON is left as it is).
fn retarget_meta(
    root: &Path,
    rel_dir: &str,
    dir: &Path,
    scope: &str,
    case_id: &str,
) -> std::io::Result<()> {
    let path = dir.join(run_folder::META);
    let bytes = match read::read(&path, Some(dir), Kind::RunJson) {
        Ok(b) => b,
        Err(e) if e.is_missing() => return Ok(()),
        Err(e) => return Err(std::io::Error::other(e.to_string())),
    };
    let Ok(serde_json::Value::Object(mut meta)) = serde_json::from_slice(&bytes) else {
        return Ok(());
    };
    let mut changed = false;
    for (key, value) in [("scope", scope), ("caseId", case_id)] {
        if let Some(v) = meta.get_mut(key)
            && v.as_str() != Some(value)
        {
            *v = value.into();
            changed = true;
        }
    }
    if !changed {
        return Ok(());
    }
    let mut text = serde_json::to_string_pretty(&meta).map_err(std::io::Error::other)?;
    text.push('\n');
    read::write_beneath(
        root,
        &Path::new(rel_dir).join(run_folder::META),
        text.as_bytes(),
    )
}

/// When the file imports through a tsconfig `paths` alias, the destination must
/// be one of the files tsconfig's `include` names (else the alias does not
/// resolve there for the type checker and the editor): say what to add, before
/// anything moves.
fn alias_include(root: &Path, parsed: &Parsed, new_file: &str) -> Result<Option<String>, Refusal> {
    let path = root.join("tsconfig.json");
    let bytes = match read::read(&path, Some(root), Kind::Config) {
        Ok(b) => b,
        Err(e) if e.is_missing() => return Ok(None),
        Err(e) => return Err(Refusal::Io("tsconfig.json".to_owned(), e.to_string())),
    };
    let Some(config) = tsconfig(&bytes) else {
        return Err(Refusal::Io(
            "tsconfig.json".to_owned(),
            "does not read as JSON (comments and trailing commas allowed)".to_owned(),
        ));
    };
    let aliases: Vec<&str> = config
        .pointer("/compilerOptions/paths")
        .and_then(serde_json::Value::as_object)
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let Some((alias, spec)) = parsed.specifiers.iter().find_map(|s| {
        (!s.is_relative())
            .then(|| aliases.iter().find(|a| alias_matches(a, &s.value)))
            .flatten()
            .map(|a| (*a, s))
    }) else {
        return Ok(None);
    };
    let strings = |key: &str| -> Option<Vec<String>> {
        config
            .get(key)
            .and_then(serde_json::Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(serde_json::Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
    };
    let include = strings("include");
    let files = strings("files").unwrap_or_default();
    let included = match &include {
        // tsconfig's default: every file, unless `files` names them
        None => files.is_empty() || files.iter().any(|f| same_file(f, new_file)),
        Some(globs) => {
            globs.iter().any(|g| include_matches(g, new_file))
                || files.iter().any(|f| same_file(f, new_file))
        }
    };
    let excluded = strings("exclude")
        .unwrap_or_default()
        .iter()
        .any(|g| include_matches(g, new_file));
    if included && !excluded {
        return Ok(None);
    }
    let folder = new_file.split('/').next().unwrap_or("tests");
    let shown = include.map_or_else(
        || "(none)".to_owned(),
        |g| serde_json::to_string(&g).unwrap_or_default(),
    );
    let change = if excluded {
        "take it out of \"exclude\" in tsconfig.json".to_owned()
    } else {
        format!("add \"{folder}\" to \"include\" in tsconfig.json")
    };
    Ok(Some(format!(
        "it imports through the path alias \"{alias}\" ({}, line {}) and tsconfig.json's \"include\" {shown} does not cover it: {change}",
        spec.value, spec.line
    )))
}

/// When the project's vitest config names its test files (`test.include`, read
/// without running the config), the destination must be one of them: what to
/// add, else `None` (no config, no literal list, or a list that names it).
fn vitest_include(root: &Path, new_file: &str) -> Result<Option<String>, Refusal> {
    let Some((name, bytes)) = super::graph::load::VITE_CONFIGS.iter().find_map(|n| {
        read::read(&root.join(n), Some(root), Kind::Config)
            .ok()
            .map(|b| (*n, b))
    }) else {
        return Ok(None);
    };
    let include = imports::config_strings(name, &bytes, "test", "include")
        .map_err(|p| Refusal::Parse(p.to_string()))?;
    let Some(include) = include else {
        return Ok(None);
    };
    // a glob this reader does not know (`*(…)`, `+(…)`, `!(…)`) might name it
    let unknown = |g: &String| g.contains('(') || g.starts_with('!');
    if include.iter().any(|g| {
        expand_braces(g)
            .iter()
            .any(|g| unknown(g) || glob_matches(g, new_file))
    }) {
        return Ok(None);
    }
    let ending = new_file
        .rsplit('/')
        .next()
        .and_then(|n| n.split_once('.'))
        .map_or("test.ts", |(_, e)| e);
    let shown = include
        .iter()
        .map(|g| format!("'{g}'"))
        .collect::<Vec<_>>()
        .join(", ");
    Ok(Some(format!(
        "{name}'s test.include [{shown}] does not name it: add 'tests/**/*.{ending}' to test.include in {name}"
    )))
}

/// A glob's `{a,b}`, `?(a|b)` and `@(a|b)` alternatives, every combination.
fn expand_braces(glob: &str) -> Vec<String> {
    for (opener, empty_too) in [("?(", true), ("@(", false)] {
        if let Some(open) = glob.find(opener)
            && let Some(len) = glob[open..].find(')')
        {
            let (head, inner, tail) = (
                &glob[..open],
                &glob[open + 2..open + len],
                &glob[open + len + 1..],
            );
            let mut alts: Vec<&str> = inner.split('|').collect();
            if empty_too {
                alts.push("");
            }
            return alts
                .into_iter()
                .flat_map(|alt| expand_braces(&format!("{head}{alt}{tail}")))
                .collect();
        }
    }
    let Some(open) = glob.find('{') else {
        return vec![glob.to_owned()];
    };
    let Some(len) = glob[open..].find('}') else {
        return vec![glob.to_owned()];
    };
    let (head, inner, tail) = (
        &glob[..open],
        &glob[open + 1..open + len],
        &glob[open + len + 1..],
    );
    inner
        .split(',')
        .flat_map(|alt| expand_braces(&format!("{head}{alt}{tail}")))
        .collect()
}

/// A root-relative glob (`*`, `?`, `**`) naming `file`.
fn glob_matches(glob: &str, file: &str) -> bool {
    let g: Vec<&str> = glob.trim_start_matches("./").split('/').collect();
    let f: Vec<&str> = file.split('/').collect();
    segments_match(&g, &f)
}

/// tsconfig.json read as JSON, its comments and trailing commas dropped
/// (tsconfig is JSON with both).
pub(crate) fn tsconfig(bytes: &[u8]) -> Option<serde_json::Value> {
    let text = std::str::from_utf8(bytes).ok()?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                out.push(c);
                while let Some(d) = chars.next() {
                    out.push(d);
                    match d {
                        '\\' => out.extend(chars.next()),
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '/' if chars.peek() == Some(&'/') => {
                while chars.peek().is_some_and(|d| *d != '\n') {
                    chars.next();
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for d in chars.by_ref() {
                    if last == '*' && d == '/' {
                        break;
                    }
                    last = d;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    // trailing commas: a `,` whose next non-blank is `}` or `]` (strings kept)
    let mut clean = String::with_capacity(out.len());
    let bytes = out.as_bytes();
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            if b == b'\\' {
                clean.push_str(&out[i..(i + 2).min(out.len())]);
                i += 2;
                continue;
            }
            in_string = b != b'"';
        } else if b == b'"' {
            in_string = true;
        } else if b == b',' {
            let next = bytes[i + 1..].iter().find(|c| !c.is_ascii_whitespace());
            if matches!(next, Some(b'}' | b']')) {
                i += 1;
                continue;
            }
        }
        let ch_len = out[i..].chars().next().map_or(1, char::len_utf8);
        clean.push_str(&out[i..i + ch_len]);
        i += ch_len;
    }
    serde_json::from_str(&clean).ok()
}

/// A tsconfig `paths` key (`_/*`, `@lib`) matching a specifier.
fn alias_matches(key: &str, spec: &str) -> bool {
    match key.split_once('*') {
        Some((pre, post)) => {
            spec.len() >= pre.len() + post.len() && spec.starts_with(pre) && spec.ends_with(post)
        }
        None => key == spec,
    }
}

fn same_file(entry: &str, file: &str) -> bool {
    entry.trim_start_matches("./") == file
}

/// A tsconfig `include` / `exclude` entry (relative to the root) naming `file`: a
/// folder names everything below it; `*`, `?` and `**` are globs.
fn include_matches(glob: &str, file: &str) -> bool {
    let glob = glob.trim_start_matches("./").trim_end_matches('/');
    if glob.is_empty() || glob == "." {
        return true;
    }
    if !glob.contains(['*', '?']) {
        return file == glob || file.starts_with(&format!("{glob}/"));
    }
    let g: Vec<&str> = glob.split('/').collect();
    let f: Vec<&str> = file.split('/').collect();
    // a last segment with no dot and no wildcard is a folder: everything below
    segments_match(&g, &f)
        || (g.last().is_some_and(|l| !l.contains(['*', '?', '.']))
            && (1..f.len()).any(|n| segments_match(&g, &f[..n])))
}

fn segments_match(g: &[&str], f: &[&str]) -> bool {
    match g.split_first() {
        None => f.is_empty(),
        Some((&"**", rest)) => (0..=f.len()).any(|n| segments_match(rest, &f[n..])),
        Some((seg, rest)) => {
            !f.is_empty()
                && name_matches(seg.as_bytes(), f[0].as_bytes())
                && segments_match(rest, &f[1..])
        }
    }
}

fn name_matches(p: &[u8], n: &[u8]) -> bool {
    match p.split_first() {
        None => n.is_empty(),
        Some((b'*', rest)) => (0..=n.len()).any(|k| name_matches(rest, &n[k..])),
        Some((b'?', rest)) => !n.is_empty() && name_matches(rest, &n[1..]),
        // `[jt]`, `[a-z]`
        Some((b'[', rest)) => match rest.iter().position(|&b| b == b']') {
            Some(end) => {
                let class = &rest[..end];
                let hit = |c: u8| {
                    class
                        .windows(3)
                        .any(|w| w[1] == b'-' && (w[0]..=w[2]).contains(&c))
                        || class.contains(&c)
                };
                n.first().is_some_and(|&c| hit(c)) && name_matches(&rest[end + 1..], &n[1..])
            }
            None => n.first() == Some(&b'[') && name_matches(rest, &n[1..]),
        },
        Some((c, rest)) => n.first() == Some(c) && name_matches(rest, &n[1..]),
    }
}

/// Where `adopt --all` writes its proposed mapping for the person to edit,
/// relative to the root (deleted once carried out).
pub const MAPPING_FILE: &str = ".testdeck-adopt.txt";

/// Folders a plain search for test files never enters.
const SKIPPED: [&str; 4] = ["node_modules", "tests", "dist", "coverage"];

/// The test files outside the tree below `root` (file names with a test ending,
/// outside `tests/`, `node_modules` and dot folders; never through a link), each
/// relative to the root, sorted. What `adopt --all` proposes when it is given no
/// files.
pub fn outside_files(root: &Path) -> Vec<String> {
    fn walk(root: &Path, rel: &str, depth: usize, out: &mut Vec<String>) {
        if depth > 16 || out.len() >= 10_000 {
            return;
        }
        let Ok(entries) = std::fs::read_dir(root.join(rel)) else {
            return;
        };
        for e in entries.flatten() {
            let Some(name) = e.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            let Ok(t) = e.file_type() else { continue };
            let path = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            if t.is_dir() {
                let skipped =
                    name.starts_with('.') || (rel.is_empty() && SKIPPED.contains(&name.as_str()));
                if !skipped && name != "node_modules" {
                    walk(root, &path, depth + 1, out);
                }
            } else if t.is_file() && outside::case_id(&name).is_some() {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(root, "", 0, &mut out);
    out.sort();
    out
}

/// `adopt --all --domain D`'s proposal: one line per folder of test files,
/// `FOLDER/ -> tests/D/<layer>/<suite>/` (the layer `e2e` when its files import
/// `@playwright/test`, else `backend`; the suite the folder's name in kebab-case),
/// under comments that say how to edit it. `files` empty: [`outside_files`].
pub fn mapping_proposal(ws: &Workspace, domain: &str, files: &[String]) -> Result<String, Refusal> {
    if !super::tree::is_kebab(domain) {
        return Err(Refusal::Folder(
            format!("--domain {domain}"),
            domain.to_owned(),
        ));
    }
    let files: Vec<String> = if files.is_empty() {
        outside_files(&ws.root)
    } else {
        files
            .iter()
            .map(|f| new_case::relative(&ws.root, f))
            .collect()
    };
    let mut folders: std::collections::BTreeMap<String, Vec<String>> =
        std::collections::BTreeMap::new();
    for f in files {
        let folder = f.rsplit_once('/').map_or("", |(d, _)| d).to_owned();
        folders.entry(folder).or_default().push(f);
    }
    let mut text = format!(
        "# testdeck adopt --all --domain {domain}\n\
         # One line a folder: FOLDER/ -> tests/<domain>/<layer>/<suite>/<groups…>/\n\
         # Each test file of FOLDER moves there: its plan entry first, then the file with\n\
         # its relative imports rewritten, then its earlier runs.\n\
         # Change a target, or delete a line to leave its folder where it is; then save.\n"
    );
    let mut suites: Vec<String> = Vec::new();
    for (folder, files) in &folders {
        let e2e = files.iter().any(|f| {
            read::read(&ws.root.join(f), Some(&ws.root), Kind::Source)
                .ok()
                .and_then(|b| imports::parse(f, &b).ok())
                .is_some_and(|p| p.specifiers.iter().any(|s| s.value == "@playwright/test"))
        });
        let layer = if e2e { "e2e" } else { "backend" };
        let last = folder.rsplit('/').next().unwrap_or_default();
        let suite = kebab(last);
        let mut suite = if suite.is_empty() {
            "main".to_owned()
        } else {
            suite
        };
        if suites.contains(&suite) {
            suite = kebab(folder);
        }
        suites.push(suite.clone());
        let shown = if folder.is_empty() {
            "."
        } else {
            folder.as_str()
        };
        let _ = write!(text, "\n{shown}/ -> tests/{domain}/{layer}/{suite}/\n");
        for f in files {
            let _ = writeln!(text, "#   {f}");
        }
    }
    Ok(text)
}

/// A name in kebab-case: lowercase letters and digits joined by single `-`.
fn kebab(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_owned()
}

/// A mapping file read back: each test file of each `FOLDER/ -> TARGET` line (the
/// folder's own files, not its subfolders'), with its target. A line of another
/// shape is a located error (`file:line: …`).
pub fn parse_mapping(
    ws: &Workspace,
    text: &str,
    shown: &str,
) -> Result<Vec<(String, String)>, String> {
    let all = outside_files(&ws.root);
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((folder, target)) = line.split_once("->") else {
            return Err(format!(
                "{shown}:{}: not FOLDER/ -> tests/<domain>/<layer>/<suite>/: {line}",
                n + 1
            ));
        };
        let folder = folder.trim().trim_end_matches('/').trim_start_matches("./");
        let folder = if folder == "." { "" } else { folder };
        let target = target.trim();
        let files: Vec<&String> = all
            .iter()
            .filter(|f| f.rsplit_once('/').map_or("", |(d, _)| d) == folder)
            .collect();
        if files.is_empty() {
            return Err(format!(
                "{shown}:{}: no test file in {folder}/ to adopt",
                n + 1
            ));
        }
        out.extend(files.into_iter().map(|f| (f.clone(), target.to_owned())));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsconfig_reads_with_comments_and_trailing_commas() {
        let text = br#"{
  // the app
  "compilerOptions": { "paths": { "_/*": ["src/*"], }, /* here */ "x": "a//b", },
  "include": ["src", "tests/**/*.ts",],
}"#;
        let v = tsconfig(text).expect("reads");
        assert_eq!(v["include"][1], "tests/**/*.ts");
        assert_eq!(v["compilerOptions"]["x"], "a//b");
        assert!(v["compilerOptions"]["paths"]["_/*"].is_array());
        assert!(tsconfig(b"{ nope").is_none());
    }

    #[test]
    fn include_entries_name_folders_and_globs() {
        let f = "tests/app/backend/filter/filter.test.ts";
        assert!(include_matches("tests", f));
        assert!(include_matches("./tests/", f));
        assert!(include_matches("tests/**/*", f));
        assert!(include_matches("tests/**/*.ts", f));
        assert!(include_matches("**/*", f));
        assert!(include_matches("tests/app", f));
        // a last segment with a wildcard names files, not a folder
        assert!(!include_matches("tests/*", f));
        assert!(!include_matches("src", f));
        assert!(!include_matches("src/**/*", f));
        assert!(!include_matches("tests/**/*.tsx", f));
        assert!(!include_matches("test", f));
        assert!(alias_matches("_/*", "_/lib/filter"));
        assert!(alias_matches("@lib", "@lib"));
        assert!(!alias_matches("_/*", "vitest"));
        assert!(!alias_matches("@/*", "@testing-library/react"));
        assert_eq!(expand_braces("a/*.{ts,js}"), ["a/*.ts", "a/*.js"]);
        assert!(glob_matches("tests/**/*.test.ts", f));
        assert!(glob_matches("**/*.test.ts", f));
        assert!(!glob_matches("src/**/*.test.ts", f));
        // vitest's default, as a config may write it
        let vitest = "tests/**/*.{test,spec}.?(c|m)[jt]s?(x)";
        assert!(expand_braces(vitest).iter().any(|g| glob_matches(g, f)));
        assert!(
            !expand_braces(vitest)
                .iter()
                .any(|g| glob_matches(g, "tests/a/b.test.py"))
        );
        assert!(
            expand_braces(vitest)
                .iter()
                .any(|g| glob_matches(g, "tests/a/b.spec.mjsx"))
        );
    }
}
