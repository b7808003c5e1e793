//! Fuzz catalog.yaml and one case file: load, validate, resolve vars, select, export.
#![no_main]

use libfuzzer_sys::fuzz_target;
use testdeck_core::workspace::catalog;
use testdeck_core::workspace::select::{Request, select};
use testdeck_core::workspace::vars::Vars;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // a NUL splits the input into catalog.yaml and a case file (YAML never holds a raw NUL)
    let (catalog_yaml, case_yaml) = text.split_once('\0').unwrap_or((&text, ""));
    let mut problems = Vec::new();
    let cat = catalog::from_texts(
        catalog_yaml,
        None,
        &[(".pouch/tester/cases/api.yaml", Some(case_yaml))],
        &mut problems,
    );
    let _ = catalog::validate(&cat, &|_| None);
    let vars = Vars::resolve(&cat, &|_| None);
    let _ = select(&cat, &vars, &Request::default());
    let _ = catalog::csv::to_csv(&cat);
    for p in &problems {
        let _ = p.to_string();
    }
});
