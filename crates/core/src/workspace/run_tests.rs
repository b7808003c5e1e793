//! What a run's timeline says of its tests is the model's
//! ([`testdeck_model::run_tests`], re-exported here); the store reads the timeline.

pub use testdeck_model::run_tests::*;

use super::timeline::{self, TimelineEvent};
use super::{read, run_folder};
use std::path::Path;

/// `RunTests::read`: a run folder's timeline read and summed.
pub trait RunTestsRead {
    /// Read from the timeline of the run folder `dir` (through the bounded
    /// reader; a timeline that does not read says nothing).
    fn read(dir: &Path) -> RunTests;
}

impl RunTestsRead for RunTests {
    fn read(dir: &Path) -> RunTests {
        read::read(
            &dir.join(run_folder::TIMELINE),
            Some(dir),
            read::Kind::Timeline,
        )
        .map(|b| RunTests::of_bytes(&b))
        .unwrap_or_default()
    }
}

/// [`outcomes`] of the run folder `dir`'s timeline (bounded reader; none when
/// it does not read).
pub fn read_outcomes(dir: &Path) -> Vec<TestOutcome> {
    let Ok(bytes) = read::read(
        &dir.join(run_folder::TIMELINE),
        Some(dir),
        read::Kind::Timeline,
    ) else {
        return Vec::new();
    };
    let events: Vec<TimelineEvent> = bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .map(|l| timeline::parse_line(l).0)
        .collect();
    outcomes(&events)
}
