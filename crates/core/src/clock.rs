//! How times are shown to a person: in the local time zone (or UTC when asked), with
//! the date when it is not today. JSON keeps the times as they were written.

use chrono::{DateTime, FixedOffset, Local, NaiveDate, Utc};
use std::sync::OnceLock;
pub use testdeck_model::clock::{Zone, when_on};

static ZONE: OnceLock<Zone> = OnceLock::new();

/// Set the zone of the user config once, before anything is shown.
pub fn set_zone(zone: Zone) {
    let _ = ZONE.set(zone);
}

/// The zone in force: `TESTDECK_TIME` (for one command, and tests), else the
/// config's, else local.
pub fn zone() -> Zone {
    static FROM_ENV: OnceLock<Option<Zone>> = OnceLock::new();
    FROM_ENV
        .get_or_init(|| {
            std::env::var("TESTDECK_TIME")
                .ok()
                .and_then(|v| Zone::parse(&v))
        })
        .or_else(|| ZONE.get().copied())
        .unwrap_or_default()
}

/// `t` in the zone shown, with that zone's today.
fn shifted(t: DateTime<FixedOffset>, zone: Zone) -> (DateTime<FixedOffset>, NaiveDate) {
    match zone {
        Zone::Local => (
            t.with_timezone(&Local).fixed_offset(),
            Local::now().date_naive(),
        ),
        Zone::Utc => (
            t.with_timezone(&Utc).fixed_offset(),
            Utc::now().date_naive(),
        ),
    }
}

/// A moment as a person reads it: the zone shown, the date when not today.
pub(crate) fn when(t: DateTime<FixedOffset>) -> String {
    let (t, today) = shifted(t, zone());
    when_on(t, today)
}

/// [`when`] of an RFC 3339 text; `None` when it is not one.
pub fn when_text(s: &str) -> Option<String> {
    DateTime::parse_from_rfc3339(s).ok().map(when)
}

/// The time of day with milliseconds (`HH:MM:SS.mmm`) in the zone shown: the
/// clock of a timeline line (the run it belongs to shows the date).
pub fn clock_ms(t: DateTime<FixedOffset>, zone: Zone) -> String {
    const CLOCK: &str = "%H:%M:%S%.3f";
    match zone {
        Zone::Local => t.with_timezone(&local_offset(t)).format(CLOCK).to_string(),
        Zone::Utc => t.with_timezone(&Utc).format(CLOCK).to_string(),
    }
}

/// The local zone's offset at `t`, remembered per quarter hour: every line of a
/// timeline burst needs it, and zones change offset only at quarter hours.
fn local_offset(t: DateTime<FixedOffset>) -> FixedOffset {
    use std::cell::Cell;
    thread_local! {
        static LAST: Cell<Option<(i64, FixedOffset)>> = const { Cell::new(None) };
    }
    let quarter = t.timestamp().div_euclid(900);
    LAST.with(|last| match last.get() {
        Some((q, off)) if q == quarter => off,
        _ => {
            let off = *t.with_timezone(&Local).offset();
            last.set(Some((quarter, off)));
            off
        }
    })
}
