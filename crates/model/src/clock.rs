//! Clock maths with no clock: the zone a time is shown in and how a moment reads
//! on a given day. The store asks the system for today and the local zone
//! (`testdeck_core::clock`) and passes them in.

use chrono::{DateTime, FixedOffset, NaiveDate};

/// The zone times are shown in: the user config's `time = "local" | "utc"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Zone {
    /// The system's zone (`TZ`, else `/etc/localtime`).
    #[default]
    Local,
    /// UTC, as the files write it.
    Utc,
}

impl Zone {
    /// `local` or `utc`, as the config and `TESTDECK_TIME` spell it.
    pub fn parse(s: &str) -> Option<Zone> {
        match s.trim() {
            "local" => Some(Zone::Local),
            "utc" | "UTC" => Some(Zone::Utc),
            _ => None,
        }
    }
}

/// `HH:MM:SS` when `t` (already in the zone shown) is on `today`, else
/// `YYYY-MM-DD HH:MM:SS`.
pub fn when_on(t: DateTime<FixedOffset>, today: NaiveDate) -> String {
    if t.date_naive() == today {
        t.format("%H:%M:%S").to_string()
    } else {
        t.format("%Y-%m-%d %H:%M:%S").to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::{Zone, when_on};
    use chrono::{DateTime, NaiveDate};

    #[test]
    fn the_date_shows_only_when_not_today() {
        let t = DateTime::parse_from_rfc3339("2026-03-15T10:15:30.5+09:00").expect("time");
        let today = NaiveDate::from_ymd_opt(2026, 3, 15).expect("date");
        assert_eq!(when_on(t, today), "10:15:30");
        let tomorrow = NaiveDate::from_ymd_opt(2026, 3, 16).expect("date");
        assert_eq!(when_on(t, tomorrow), "2026-03-15 10:15:30");
    }

    #[test]
    fn zones_parse_as_the_config_spells_them() {
        assert_eq!(Zone::parse("utc"), Some(Zone::Utc));
        assert_eq!(Zone::parse("local"), Some(Zone::Local));
        assert_eq!(Zone::parse("Europe/Paris"), None);
    }
}
