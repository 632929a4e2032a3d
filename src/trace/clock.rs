//! Rendering trace seconds in the trace's own zone: weekday and time of day,
//! plus `day N` counted from the first submission (PAI's calendar dates are
//! fake, so they are never shown).

use super::model::{Secs, Zone};
use chrono::{DateTime, Datelike, FixedOffset, NaiveDateTime, TimeZone, Timelike};

/// The wall-clock reading of `t` in `zone`, as a naive local date-time.
fn local(zone: Zone, t: Secs) -> Option<NaiveDateTime> {
    match zone {
        Zone::Relative => DateTime::from_timestamp(t, 0).map(|d| d.naive_utc()),
        Zone::Tz(tz) => DateTime::from_timestamp(t, 0).map(|d| d.with_timezone(&tz).naive_local()),
        Zone::Fixed(off) => {
            let off = FixedOffset::east_opt(off)?;
            DateTime::from_timestamp(t, 0)
                .map(|d| off.from_utc_datetime(&d.naive_utc()).naive_local())
        }
    }
}

/// `Mon 00:07:59` (or `00:07:59` for traces without a calendar).
pub fn weekday_time(zone: Zone, t: Secs) -> String {
    match local(zone, t) {
        None => format!("{t}s"),
        Some(d) if zone == Zone::Relative => {
            format!("{:02}:{:02}:{:02}", d.hour(), d.minute(), d.second())
        }
        Some(d) => format!(
            "{} {:02}:{:02}:{:02}",
            d.weekday(),
            d.hour(),
            d.minute(),
            d.second()
        ),
    }
}

/// Day number of `t`, counting the local day of `first` as day 1.
pub fn day_number(zone: Zone, first: Secs, t: Secs) -> i64 {
    match (local(zone, first), local(zone, t)) {
        (Some(a), Some(b)) => (b.date() - a.date()).num_days() + 1,
        _ => (t - first).div_euclid(86_400) + 1,
    }
}

/// `Mon 00:07:59 day 3`: what the TUI header and drill-down show.
pub fn clock(zone: Zone, first: Secs, t: Secs) -> String {
    match zone {
        // ITP seconds count from the start of collection: day 1 starts at 0.
        Zone::Relative => format!("day {} {}", t.div_euclid(86_400) + 1, weekday_time(zone, t)),
        _ => format!(
            "{} day {}",
            weekday_time(zone, t),
            day_number(zone, first, t)
        ),
    }
}

/// The zone's short name at `t` (`CST`, `PDT`), for headers.
pub fn zone_abbrev(zone: Zone, t: Secs) -> String {
    match zone {
        Zone::Relative => String::new(),
        Zone::Tz(tz) => DateTime::from_timestamp(t, 0)
            .map(|d| d.with_timezone(&tz).format("%Z").to_string())
            .unwrap_or_default(),
        Zone::Fixed(off) => {
            let h = off / 3600;
            let m = (off.abs() % 3600) / 60;
            format!("UTC{h:+03}:{m:02}")
        }
    }
}

pub const PAI_ZONE: Zone = Zone::Tz(chrono_tz::Asia::Shanghai);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pai_times_read_in_shanghai() {
        // The release's own example: 4550879 is a Monday, 00:07:59 in UTC+8.
        assert_eq!(weekday_time(PAI_ZONE, 4_550_879), "Mon 00:07:59");
        assert_eq!(zone_abbrev(PAI_ZONE, 4_550_879), "CST");
    }

    #[test]
    fn day_numbers_count_local_days_from_the_first_submission() {
        let first = 4_550_879; // Mon 00:07:59
        assert_eq!(day_number(PAI_ZONE, first, first), 1);
        assert_eq!(day_number(PAI_ZONE, first, first + 86_400 - 480), 1); // Mon 23:59:59
        assert_eq!(day_number(PAI_ZONE, first, first + 86_400 - 479), 2); // Tue 00:00:00
        assert_eq!(
            clock(PAI_ZONE, first, first + 2 * 86_400),
            "Wed 00:07:59 day 3"
        );
    }

    #[test]
    fn relative_clock_for_itp() {
        assert_eq!(clock(Zone::Relative, 0, 90_061), "day 2 01:01:01");
        assert_eq!(clock(Zone::Fixed(8 * 3600), 0, 0), "Thu 08:00:00 day 1");
        assert_eq!(zone_abbrev(Zone::Fixed(-7 * 3600 - 1800), 0), "UTC-07:30");
    }
}
