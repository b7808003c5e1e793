//! Fuzz report.md checking (structure and numbers against statistics).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::collections::HashMap;
use testdeck_core::workspace::report;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let nodes = HashMap::new();
    for p in report::check_report("tests/report/api.md", "api", &text, &nodes) {
        let _ = p.to_string();
    }
});
