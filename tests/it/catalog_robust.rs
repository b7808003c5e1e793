//! Bad input never panics the catalog: every prefix of a real catalog and case file,
//! and byte-level damage, goes through loading, validation and selection.

use testdeck_core::workspace::catalog::{self, Catalog};
use testdeck_core::workspace::select::{Request, select};
use testdeck_core::workspace::vars::Vars;

const DIR: &str = "tests/fixtures/catalog/good/.pouch/tester";

fn read(name: &str) -> String {
    std::fs::read_to_string(format!("{DIR}/{name}")).expect("fixture")
}

fn exercise(catalog_yaml: &str, local: Option<&str>, cases: &str) -> Catalog {
    let mut problems = Vec::new();
    let cat = catalog::from_texts(
        catalog_yaml,
        local,
        &[(".pouch/tester/cases/api.yaml", Some(cases))],
        &mut problems,
    );
    let _ = catalog::validate(&cat, &|_| None);
    let vars = Vars::resolve(&cat, &|_| None);
    let _ = select(&cat, &vars, &Request::default());
    let _ = catalog::csv::to_csv(&cat);
    for p in &problems {
        // every problem of a parsed text has a place
        assert!(p.line.is_some(), "{p:?}");
    }
    cat
}

#[test]
fn every_prefix_of_the_files_loads_without_panic() {
    let cat = read("catalog.yaml");
    let cases = read("cases/api.yaml");
    let local = read("local.yaml");
    let full = exercise(&cat, Some(&local), &cases);
    assert_eq!(full.cases.len(), 4);
    for (i, _) in cat.char_indices() {
        exercise(&cat[..i], Some(&local), &cases);
    }
    for (i, _) in cases.char_indices() {
        exercise(&cat, None, &cases[..i]);
    }
}

#[test]
fn damaged_bytes_load_without_panic() {
    let cat = read("catalog.yaml");
    let cases = read("cases/api.yaml");
    let mut rng = fastrand::Rng::with_seed(7);
    let junk = [
        '{', '}', '[', ']', ':', '-', '&', '*', '!', '|', '>', '\'', '"', '\n', ' ', '#', '%', '@',
        '`', '\t',
    ];
    for _ in 0..400 {
        let mut chars: Vec<char> = cases.chars().collect();
        for _ in 0..rng.usize(1..6) {
            let at = rng.usize(..chars.len());
            chars[at] = junk[rng.usize(..junk.len())];
        }
        let damaged: String = chars.into_iter().collect();
        exercise(&cat, None, &damaged);
    }
}
