//! Fuzz meta.json type checking (`logs::parse_meta`, the text half of `read_meta`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use testdeck_core::workspace::logs;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match logs::parse_meta("tests/logs/x/meta.json", text) {
        Ok((meta, problems)) => {
            let _ = serde_json::to_string(&meta);
            for p in &problems {
                let _ = p.to_string();
            }
        }
        Err(p) => {
            let _ = p.to_string();
        }
    }
});
