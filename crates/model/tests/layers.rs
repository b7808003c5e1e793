//! The model does no I/O: its dependencies stay on an allowlist of parsers and plain
//! data crates, and its sources name no file system, process, thread or network
//! module. (clippy.toml refuses the calls themselves; this catches a new dependency
//! or a path spelled around the lint.) Tests may read files: this one reads the
//! crate's own manifest and sources.
#![allow(
    clippy::disallowed_methods,
    clippy::disallowed_types,
    reason = "a test reads the crate's own files; the crate itself reads none"
)]

use std::path::{Path, PathBuf};

/// What the model may depend on: parsers and plain data, no runtime, watcher,
/// terminal, HTTP client, archive, progress bar or system-call crate.
const ALLOWED: &[&str] = &[
    "serde",
    "serde_json",
    "serde-saphyr",
    "chrono",
    "url",
    "nucleo-matcher",
    "regex",
    "csv",
    "toml",
    "clap",
];

/// What the model's tests may use besides: seeded shuffles.
const DEV_ALLOWED: &[&str] = &["fastrand"];

/// Every dependency named in `manifest`, with the table it is in, in any
/// `[*dependencies]` table (`[dependencies]`, `[dev-dependencies]`,
/// `[target.'…'.dependencies]`, `[dependencies.NAME]`).
fn dependencies(manifest: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut table = String::new();
    for line in manifest.lines().map(str::trim) {
        if let Some(h) = line.strip_prefix('[') {
            h.trim_end_matches(']').trim().clone_into(&mut table);
            // `[dependencies.NAME]`: the name is in the header
            if let Some((t, name)) = table.rsplit_once('.')
                && t.ends_with("dependencies")
            {
                out.push((t.to_owned(), name.trim_matches('"').to_owned()));
            }
            continue;
        }
        if !table.ends_with("dependencies") || line.is_empty() || line.starts_with('#') {
            continue;
        }
        let key = line.split(['=', '.']).next().unwrap_or("").trim();
        if !key.is_empty() {
            out.push((table.clone(), key.trim_matches('"').to_owned()));
        }
    }
    out
}

/// The dependencies of `manifest` outside [`ALLOWED`].
fn refused(manifest: &str) -> Vec<String> {
    dependencies(manifest)
        .into_iter()
        .filter(|(table, name)| {
            let dev = table == "dev-dependencies" && DEV_ALLOWED.contains(&name.as_str());
            !dev && !ALLOWED.contains(&name.as_str())
        })
        .map(|(table, name)| format!("[{table}] {name}"))
        .collect()
}

/// Every `.rs` file below `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("the model's src/")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// `(line number, module)` of every forbidden module `text` names, spelled out
/// (`std::fs::read`) or in a group (`use std::{io, process::Command}`).
fn named(text: &str) -> Vec<(usize, String)> {
    let re =
        regex::Regex::new(r"\bstd\s*::\s*(?:\{[^;]*?\b)?(fs|process|thread|net)\b").expect("regex");
    re.captures_iter(text)
        .filter_map(|c| c.get(1))
        .map(|m| {
            let line = text[..m.start()].matches('\n').count() + 1;
            (line, format!("std::{}", m.as_str()))
        })
        .collect()
}

#[test]
fn the_model_depends_only_on_the_allowlist() {
    let manifest = include_str!("../Cargo.toml");
    let deps = dependencies(manifest);
    assert!(
        deps.iter().any(|(_, n)| n == "serde_json"),
        "the manifest was not read: {deps:?}"
    );
    assert_eq!(refused(manifest), Vec::<String>::new());
}

#[test]
fn a_runtime_or_io_dependency_is_refused() {
    let bad = "[package]\nname = \"x\"\n\n[dependencies]\nserde.workspace = true\n\
               tokio = { workspace = true }\n\"notify\" = \"8\"\n\n\
               [target.'cfg(unix)'.dependencies]\nrustix.workspace = true\n\n\
               [dependencies.zip]\nversion = \"9\"\n\n[dev-dependencies]\nureq = \"3\"\n\
               fastrand.workspace = true\n\n[build-dependencies]\nfastrand = \"2\"\n";
    assert_eq!(
        refused(bad),
        [
            "[dependencies] tokio",
            "[dependencies] notify",
            "[target.'cfg(unix)'.dependencies] rustix",
            "[dependencies] zip",
            "[dev-dependencies] ureq",
            "[build-dependencies] fastrand",
        ]
    );
}

#[test]
fn the_model_sources_name_no_io_module() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    assert!(files.len() >= 10, "the sources were not found: {files:?}");
    let found: Vec<String> = files
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).expect("a model source");
            named(&text)
                .into_iter()
                .map(|(line, what)| format!("{}:{line}: {what}", f.display()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(found, Vec::<String>::new());
}

#[test]
fn a_named_io_module_is_found() {
    let text = "use std::collections::BTreeMap;\nfn f() { let _ = std::fs::read(\"x\"); }\n\
                use std::{\n    io,\n    process::Command,\n};\nuse std :: net::TcpStream;\n\
                use std::{fmt, sync::Arc};\n";
    let found = named(text);
    let found: Vec<(usize, &str)> = found.iter().map(|(l, m)| (*l, m.as_str())).collect();
    assert_eq!(
        found,
        [(2, "std::fs"), (5, "std::process"), (7, "std::net")]
    );
}
