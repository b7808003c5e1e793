//! Fuzz one timeline line: parsing and the pretty form, which must hold no control byte.
#![no_main]

use libfuzzer_sys::fuzz_target;
use testdeck_core::tail::pretty_line;
use testdeck_core::workspace::timeline;

fuzz_target!(|data: &[u8]| {
    let (event, issues) = timeline::parse_line(data);
    for i in &issues {
        let _ = i.severity();
    }
    let plain = pretty_line(&event, false);
    // without color, nothing but printable text may come out
    assert!(
        !plain.chars().any(|c| {
            let u = c as u32;
            (u < 0x20 && c != '\n') || u == 0x7f || (0x80..0xa0).contains(&u)
        }),
        "control character in {plain:?}"
    );
    let colored = pretty_line(&event, true);
    // with color, the only ESC bytes are SGR sequences testdeck writes itself
    let mut rest = colored.as_str();
    while let Some(at) = rest.find('\x1b') {
        rest = &rest[at + 1..];
        assert!(rest.starts_with('['), "bare ESC in {colored:?}");
        let end = rest.find('m').expect("SGR ends with m");
        assert!(
            rest[1..end].bytes().all(|b| b.is_ascii_digit() || b == b';'),
            "not an SGR sequence in {colored:?}"
        );
    }
});
