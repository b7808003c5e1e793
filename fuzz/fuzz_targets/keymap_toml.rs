//! Fuzz a user keymap file: parse, merge over the default, resolve keys.
#![no_main]

use libfuzzer_sys::fuzz_target;
use testdeck_tui::keymap::{Key, Keymap, Resolver};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(user) = Keymap::parse("keymap.toml", text) else {
        return;
    };
    let mut km = Keymap::builtin("default").expect("the default keymap");
    km.merge(user);
    let _ = km.collisions();
    let mut r = Resolver::default();
    for mode in ["normal", "finder"] {
        for b in km.bindings(mode) {
            // every bound key notation prints back to itself
            for k in &b.on {
                assert_eq!(Key::parse(&k.to_string()).as_ref(), Ok(k), "{b:?}");
            }
            for k in &b.on {
                let _ = r.feed(&km, mode, *k);
            }
            let _ = r.pending();
        }
    }
});
