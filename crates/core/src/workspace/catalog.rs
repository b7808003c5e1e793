//! The tester catalog's types, parser and rules are the model's
//! ([`testdeck_model::catalog`], re-exported here); the store reads its files:
//! `.pouch/tester/catalog.yaml`, `local.yaml` and `cases/*.yaml`, each through the
//! bounded reader, then hands their texts to [`from_texts`].

pub use testdeck_model::catalog::*;

use crate::problem::Problem;
use std::path::Path;

/// Load the catalog when `.pouch/tester/` exists (`None` otherwise).
pub fn load(root: &Path, problems: &mut Vec<Problem>) -> Option<Catalog> {
    let dir = root.join(DIR);
    if !dir.is_dir() {
        return None;
    }
    let catalog_file = format!("{DIR}/catalog.yaml");
    let catalog_text = read(root, &catalog_file, problems);
    if catalog_text.is_none() && !dir.join("catalog.yaml").exists() {
        problems.push(Problem::error(
            &catalog_file,
            "catalog-missing",
            ".pouch/tester/ has no catalog.yaml: no categories, risks or vars",
        ));
    }
    let local_file = format!("{DIR}/local.yaml");
    let local_text = if dir.join("local.yaml").exists() {
        read(root, &local_file, problems)
    } else {
        None
    };
    let mut case_files = Vec::new();
    let cases_dir = dir.join("cases");
    // a cases/ that is a link is reported and not read
    let linked = crate::workspace::walk::is_link_reported(root, &cases_dir, problems);
    // held open: its listing gives the types, its files are opened relative to it
    let folder = if linked {
        None
    } else {
        crate::workspace::walk::Folder::open(&cases_dir).ok()
    };
    if let Some(folder) = folder {
        let mut names: Vec<String> = folder
            .entries()
            .unwrap_or_default()
            .into_iter()
            .filter(|(_, kind)| *kind == crate::workspace::walk::Kind::File)
            .filter_map(|(name, _)| name.into_string().ok())
            .filter(|n| {
                Path::new(n).extension().is_some_and(|e| {
                    e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml")
                })
            })
            .collect();
        names.sort();
        for n in names {
            let rel = format!("{DIR}/cases/{n}");
            let bytes = crate::workspace::read::read_beneath(
                folder.fd(),
                Path::new(&n),
                crate::workspace::read::Links::Inside,
                crate::workspace::read::Kind::CatalogYaml,
            );
            let text = text_of(&rel, bytes, problems);
            case_files.push((rel, text));
        }
    }
    let files: Vec<(&str, Option<&str>)> = case_files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_deref()))
        .collect();
    let mut cat = from_texts(
        catalog_text.as_deref().unwrap_or(""),
        local_text.as_deref(),
        &files,
        problems,
    );
    // a missing or unreadable catalog.yaml was reported already
    cat.parsed &= catalog_text.is_some();
    Some(cat)
}

/// Read `catalog.yaml` or `local.yaml` (of at most [`yaml::MAX_FILE_BYTES`]) as
/// UTF-8, or report why not: they are the person's choice and may be links (a
/// case file in `cases/` is read relative to its folder and must stay in it).
fn read(root: &Path, rel: &str, problems: &mut Vec<Problem>) -> Option<String> {
    use crate::workspace::read::{self as bounded, Kind};
    let path = root.join(rel);
    text_of(rel, bounded::read(&path, None, Kind::CatalogYaml), problems)
}

/// A catalog file's bytes as UTF-8, or the located reason it was not read.
fn text_of(
    rel: &str,
    bytes: Result<Vec<u8>, crate::workspace::read::Error>,
    problems: &mut Vec<Problem>,
) -> Option<String> {
    use crate::workspace::read::Error;
    let bytes = match bytes {
        Ok(b) => b,
        Err(Error::TooLarge { .. }) => {
            problems.push(Problem::error(
                rel,
                "file-too-large",
                format!(
                    "refused: larger than {} MiB; a catalog file is hand-written YAML",
                    yaml::MAX_FILE_BYTES / 1024 / 1024
                ),
            ));
            return None;
        }
        Err(e) => {
            problems.push(e.problem(rel, "file"));
            return None;
        }
    };
    match String::from_utf8(bytes) {
        Ok(s) => Some(s),
        Err(e) => {
            let off = e.utf8_error().valid_up_to();
            let valid = std::str::from_utf8(&e.as_bytes()[..off]).unwrap_or("");
            let (line, col) = crate::workspace::config::line_col(valid, valid.len());
            problems.push(Problem::error(rel, "file-unreadable", "not UTF-8 text").at(line, col));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAT: &str = "categories:\n  - {id: A, title: A}\nrisks: [readonly]\n";

    #[test]
    fn oversized_file_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let tester = dir.path().join(DIR).join("cases");
        std::fs::create_dir_all(&tester).expect("mkdir");
        std::fs::write(dir.path().join(DIR).join("catalog.yaml"), CAT).expect("write");
        let big = vec![b'#'; (yaml::MAX_FILE_BYTES + 10) as usize];
        std::fs::write(tester.join("a.yaml"), big).expect("write");
        std::fs::write(tester.join("b.yaml"), b"cases: [{id: \xff}]").expect("write");
        std::fs::write(tester.join("c.yaml"), "cases: [{id: C1}]").expect("write");
        let mut p = Vec::new();
        let c = load(dir.path(), &mut p).expect("catalog");
        assert!(
            p.iter()
                .any(|p| p.rule == "file-too-large" && p.file.ends_with("a.yaml"))
        );
        let utf = p
            .iter()
            .find(|p| p.rule == "file-unreadable")
            .expect("not utf-8");
        assert_eq!((utf.line, utf.column), (Some(1), Some(14)));
        assert_eq!(c.cases.len(), 1);
    }

    #[test]
    fn every_problem_of_the_bad_fixtures_takes_its_severity_from_the_table() {
        let mut seen = std::collections::BTreeSet::new();
        for dir in ["bad", "bad-catalog", "broken-catalog", "good"] {
            let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/fixtures/catalog")
                .join(dir);
            let mut loading = Vec::new();
            let Some(cat) = load(&root, &mut loading) else {
                continue;
            };
            for p in validate(&cat, &|_| None) {
                assert_eq!(p.severity, severity(&p.rule), "{p:?}");
                seen.insert(p.rule);
            }
        }
        // the bad fixture breaks most rules on purpose
        assert!(seen.len() >= 25, "{seen:?}");
    }
}
