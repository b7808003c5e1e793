//! Fuzz the tail engine's fast path: a line kept as written (compact) must be
//! exactly what the full parse would print (a line in another JSON form is
//! rewritten to that compact form), in JSON and in pretty mode; any
//! other line goes the full way.
#![no_main]

use libfuzzer_sys::fuzz_target;
use testdeck_core::tail::{Line, pretty_line};
use testdeck_core::workspace::timeline::parse_line;

fuzz_target!(|data: &[u8]| {
    let Some(line) = Line::from_raw(1, 0, data) else {
        return;
    };
    let (ev, issues) = parse_line(data);
    let mut json = Vec::new();
    line.write_json(&mut json).expect("writing to memory");
    let want = serde_json::to_vec(&ev).expect("an event serializes");
    assert_eq!(json, want);
    assert_eq!(line.pretty(false), pretty_line(&ev, false));
    assert_eq!(line.pretty(true), pretty_line(&ev, true));
    assert_eq!(line.event(), &ev);
    if line.is_compact() {
        assert!(issues.is_empty(), "{issues:?}");
    } else {
        assert_eq!(line.issues, issues);
    }
});
