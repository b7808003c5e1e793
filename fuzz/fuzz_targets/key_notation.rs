//! Fuzz the key notation (`j`, `<C-d>`, `<S-Tab>`): a parsed key prints back to a
//! notation that parses to the same key.
#![no_main]

use libfuzzer_sys::fuzz_target;
use testdeck_tui::keymap::Key;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(k) = Key::parse(s) {
        let shown = k.to_string();
        assert_eq!(Key::parse(&shown), Ok(k), "{s:?} shown as {shown:?}");
    }
});
