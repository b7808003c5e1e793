//! Fuzz `${VAR}` expansion: definitions that refer to each other, loops, and the
//! literal-host checks on the expanded text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use testdeck_core::workspace::vars::{self, Vars};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // NAME=value lines up to the first blank line, then the text to expand
    let (defs, body) = text.split_once("\n\n").unwrap_or((&text, ""));
    let pairs: Vec<(&str, &str)> = defs.lines().filter_map(|l| l.split_once('=')).collect();
    let vars = Vars::from_pairs(&pairs);
    let e = vars.expand(body);
    let _ = vars.expand_json(&serde_json::Value::String(body.to_owned()));
    let _ = vars.child_env();
    for r in vars::refs(body) {
        assert!(body[r.0..].starts_with("${"));
        let _ = vars.host_derived(&r.1);
    }
    let derived = |n: &str| vars.host_derived(n);
    let _ = vars::literal_hosts(&e.text, &derived);
    let _ = vars::literal_hosts_in_shell(body, &derived);
    let _ = vars::url_field_problem(body, &derived);
});
