//! Fuzz a user theme file: parse, merge field by field over the dark theme, build.
#![no_main]

use libfuzzer_sys::fuzz_target;
use testdeck_tui::theme::{Theme, merge_tables};

const DARK: &str = include_str!("../../themes/dark.toml");

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(user) = toml::from_str::<toml::Table>(text) else {
        return;
    };
    let _ = Theme::from_table("user", &user, false);
    let mut base: toml::Table = toml::from_str(DARK).expect("dark theme");
    merge_tables(&mut base, user);
    for no_color in [false, true] {
        if let Ok(t) = Theme::from_table("dark", &base, no_color) {
            let _ = t.missing();
            let _ = t.get("border");
        }
    }
});
