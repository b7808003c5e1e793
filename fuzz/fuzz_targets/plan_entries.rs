//! Fuzz test-plan files: indexing, then the entries of every word in them.
#![no_main]

use libfuzzer_sys::fuzz_target;
use testdeck_core::workspace::plan::TestPlan;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let words: Vec<String> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .filter(|w| !w.is_empty())
        .take(32)
        .map(str::to_owned)
        .collect();
    let plan = TestPlan::from_files(vec![("doc/test-plan/api.md".to_owned(), text)]);
    for w in &words {
        let _ = plan.is_registered(w);
        let _ = plan.entries(w);
        let _ = plan.entry(w);
    }
});
