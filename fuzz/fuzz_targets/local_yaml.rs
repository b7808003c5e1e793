//! Fuzz local.yaml on top of a small valid catalog.
#![no_main]

use libfuzzer_sys::fuzz_target;
use testdeck_core::workspace::catalog;
use testdeck_core::workspace::vars::Vars;

const CATALOG: &str = "vars:\n  HOST: http://127.0.0.1:8080\n  API: ${HOST}/api\nauthorization:\n  mutating: ALLOW_MUTATING\n";

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut problems = Vec::new();
    let cat = catalog::from_texts(CATALOG, Some(&text), &[], &mut problems);
    let _ = catalog::validate(&cat, &|_| None);
    let vars = Vars::resolve(&cat, &|_| None);
    let _ = vars.child_env();
    for p in &problems {
        let _ = p.to_string();
    }
});
