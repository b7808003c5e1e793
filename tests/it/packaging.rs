//! Packaging facts checked against the real tools: the declared `rust-version` is what the
//! locked dependencies need, the LICENSE matches the manifest, the packaged crate holds no
//! test fixtures.

use std::path::Path;
use std::process::Command;

fn manifest() -> toml::Table {
    let text = std::fs::read_to_string("Cargo.toml").expect("Cargo.toml");
    text.parse::<toml::Table>().expect("Cargo.toml parses")
}

/// A field of the root package, or of `[workspace.package]` where the package
/// inherits it (`key.workspace = true`).
fn package_field(key: &str) -> String {
    let m = manifest();
    let own = &m["package"][key];
    let field = if own.is_table() {
        &m["workspace"]["package"][key]
    } else {
        own
    };
    field
        .as_str()
        .unwrap_or_else(|| panic!("package.{key} is a string"))
        .to_owned()
}

/// The cargo that runs this test (cargo sets `CARGO`), else the one on PATH; `None` when
/// neither runs, so the test can say why it skips.
fn cargo() -> Option<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let ok = Command::new(&cargo)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some(cargo)
}

/// "1.88" and "1.88.0" compare equal; missing parts count as 0.
fn version(s: &str) -> (u64, u64, u64) {
    let mut parts = s
        .trim()
        .split('.')
        .map(|p| p.parse::<u64>().expect("numeric rust-version part"));
    (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

fn host_triple() -> String {
    let out = Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("rustc -vV");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
        .expect("rustc -vV names the host")
}

#[test]
fn rust_version_is_the_highest_a_locked_dependency_declares() {
    let Some(cargo) = cargo() else {
        eprintln!("SKIP rust_version check: cargo is not on PATH (nor in $CARGO)");
        return;
    };
    // the host's platform only: the other platforms' crates need not be downloaded for
    // --offline, and they would not be built here anyway
    let out = Command::new(&cargo)
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .args(["--filter-platform", &host_triple()])
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata --locked --offline failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    let ours = package_field("name");
    let mut needed = ((0, 0, 0), String::new());
    for p in meta["packages"].as_array().expect("packages") {
        let (Some(name), Some(rv)) = (p["name"].as_str(), p["rust_version"].as_str()) else {
            continue;
        };
        if name == ours {
            continue;
        }
        let v = version(rv);
        if v > needed.0 {
            needed = (v, format!("{name} {} ({rv})", p["version"]));
        }
    }
    let declared = package_field("rust-version");
    assert_eq!(
        version(&declared),
        needed.0,
        "Cargo.toml says rust-version = {declared:?}, the highest a locked dependency needs is \
         {}: set rust-version to it",
        needed.1
    );
}

#[test]
fn license_file_matches_the_manifest() {
    assert_eq!(package_field("license"), "MIT");
    let text = std::fs::read_to_string("LICENSE").expect("a LICENSE file");
    assert!(text.starts_with("MIT License\n"), "LICENSE is the MIT text");
    assert!(
        text.contains("Copyright (c) 2026 the testdeck authors"),
        "LICENSE names the holder"
    );
    assert!(text.contains("THE SOFTWARE IS PROVIDED \"AS IS\""));
}

/// `cargo package --list -p NAME`: the files one package of the workspace ships.
fn package_list(cargo: &str, name: &str) -> Vec<String> {
    let out = Command::new(cargo)
        .args([
            "package",
            "--list",
            "--locked",
            "--offline",
            "--allow-dirty",
            "-p",
            name,
        ])
        .output()
        .expect("cargo package --list runs");
    assert!(
        out.status.success(),
        "cargo package --list -p {name} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn packaged_crates_carry_their_sources_and_no_fixtures() {
    let Some(cargo) = cargo() else {
        eprintln!("SKIP package list check: cargo is not on PATH (nor in $CARGO)");
        return;
    };
    let root = package_list(&cargo, "testdeck");
    for needed in [
        "Cargo.toml",
        "Cargo.lock",
        "LICENSE",
        "README.md",
        "src/main.rs",
    ] {
        assert!(root.iter().any(|f| f == needed), "{needed} is packaged");
    }
    let members = manifest()["workspace"]["members"]
        .as_array()
        .expect("workspace members")
        .iter()
        .map(|m| m.as_str().expect("member path").to_owned())
        .collect::<Vec<_>>();
    assert_eq!(members.len(), 5, "model, core, exec, cli, tui: {members:?}");
    for member in &members {
        let name = format!("testdeck-{}", member.trim_start_matches("crates/"));
        let files = package_list(&cargo, &name);
        assert!(
            files.iter().any(|f| f == "src/lib.rs"),
            "{name} ships its src/lib.rs: {files:?}"
        );
        for f in root.iter().chain(&files) {
            assert!(
                !f.starts_with("tests/") && !f.starts_with("fuzz/") && !f.starts_with("benches/"),
                "{f} is a test/bench file and should not be packaged"
            );
        }
    }
    // the core's build script embeds every file of assets/demo from the repository
    let mut demo = Vec::new();
    walk(Path::new("assets/demo"), &mut demo);
    assert!(!demo.is_empty());
    let build = std::fs::read_to_string("crates/core/build.rs").expect("core build.rs");
    assert!(
        build.contains("../../assets/demo"),
        "the core embeds assets/demo"
    );
}

fn walk(dir: &Path, out: &mut Vec<String>) {
    for e in std::fs::read_dir(dir).expect("read_dir") {
        let p = e.expect("dir entry").path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p.to_string_lossy().replace('\\', "/"));
        }
    }
}

#[test]
fn readme_is_short_and_links_every_docs_page() {
    let readme = std::fs::read_to_string("README.md").expect("README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines: move detail to docs/"
    );
    assert!(readme.contains("cargo install --path . --locked"));
    assert_eq!(
        readme.lines().filter(|l| *l == "## Keys").count(),
        1,
        "one `## Keys` section holds the keys table"
    );
    let mut pages = Vec::new();
    walk(Path::new("docs"), &mut pages);
    assert!(pages.len() >= 4, "{pages:?}");
    for p in pages
        .iter()
        .filter(|p| Path::new(p).extension().is_some_and(|e| e == "md"))
    {
        assert!(readme.contains(&format!("]({p})")), "README links {p}");
    }
}

#[test]
fn the_list_filter_sample_is_the_real_output() {
    let out = Command::new(env!("CARGO_BIN_EXE_testdeck"))
        .args([
            "list",
            "--root",
            "assets/demo",
            "--filter",
            "terminal !live",
        ])
        .env("NO_COLOR", "1")
        .output()
        .expect("testdeck list");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(text.lines().count() >= 2, "{text}");
    let doc = std::fs::read_to_string("docs/commands.md").expect("docs/commands.md");
    let sample = format!("$ testdeck list --root assets/demo --filter 'terminal !live'\n{text}```");
    assert!(
        doc.contains(&sample),
        "docs/commands.md's list --filter sample drifted; paste:\n{text}"
    );
}
