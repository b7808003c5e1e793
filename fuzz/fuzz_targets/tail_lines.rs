//! Fuzz the tail engine's line splitting: the input is appended to a real file in
//! chunks and read between them; every complete non-blank line must come out once,
//! with its number and offset.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::io::Write;
use std::path::PathBuf;
use std::sync::OnceLock;
use testdeck_core::tail::{Follower, Start, TailEvent, Watch};

fn file() -> &'static PathBuf {
    static F: OnceLock<PathBuf> = OnceLock::new();
    F.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("testdeck-fuzz-tail-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("dir");
        d.join("timeline.jsonl")
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&seed, data)) = data.split_first() else {
        return;
    };
    let path = file();
    let _ = std::fs::remove_file(path);
    let mut f = std::fs::File::create(path).expect("create");
    let mut follower = Follower::with_watch(path.clone(), Start::Beginning, Watch::Off);
    let mut got = Vec::new();
    let mut take = |evs: Vec<TailEvent>, got: &mut Vec<(u64, u64)>| {
        for e in evs {
            match e {
                TailEvent::Line(l) => got.push((l.lineno, l.offset)),
                TailEvent::Incomplete(_) | TailEvent::Created => {}
                other => panic!("unexpected {other:?}"),
            }
        }
    };
    // chunk sizes 1..=16 cycling from the seed, so lines are cut everywhere
    let mut at = 0;
    let mut k = usize::from(seed);
    while at < data.len() {
        let n = (k % 16 + 1).min(data.len() - at);
        f.write_all(&data[at..at + n]).expect("append");
        at += n;
        k = k.wrapping_mul(31).wrapping_add(7);
        take(follower.read_available(), &mut got);
    }
    take(follower.finish(), &mut got);
    // what a plain split says
    let mut want = Vec::new();
    let mut offset = 0u64;
    let mut pieces: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    pieces.pop(); // the part after the last newline is not a complete line
    for (i, line) in pieces.iter().enumerate() {
        if !line.iter().all(u8::is_ascii_whitespace) {
            want.push((i as u64 + 1, offset));
        }
        offset += line.len() as u64 + 1;
    }
    assert_eq!(got, want);
});
