//! Fuzz the `assume` expression: parse, then evaluate against variables from the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use testdeck_core::workspace::vars::Assume;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // first line: the expression; the rest: NAME=value pairs for the environment
    let mut lines = text.lines();
    let expr = lines.next().unwrap_or_default();
    let env: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once('='))
        .map(|(n, v)| (n.to_owned(), v.to_owned()))
        .collect();
    let lookup = |n: &str| {
        env.iter()
            .find(|(k, _)| k == n)
            .map(|(_, v)| v.clone())
    };
    if let Ok(a) = Assume::parse(expr) {
        assert!(!a.terms.is_empty());
        let names: Vec<&str> = a.names().collect();
        assert_eq!(names.len(), a.terms.len());
        let _ = a.eval(&lookup);
        // with nothing set, a conjunction of `!NAME` terms only is true
        let none = |_: &str| None;
        if a.terms
            .iter()
            .all(|t| matches!(t, testdeck_core::workspace::vars::Term::Unset(_)))
        {
            assert!(a.eval(&none));
        }
    }
});
