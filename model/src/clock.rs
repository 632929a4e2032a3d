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
pub(crate) fn day_number(zone: Zone, first: Secs, t: Secs) -> i64 {
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

/// Whether the trace's calendar dates are real (Philly, Acme): PAI's and
/// Zeus's are shifted, and ITP's seconds have no calendar.
pub fn dated(zone: Zone) -> bool {
    !matches!(zone, Zone::Relative) && zone != PAI_ZONE
}

/// `t` as the replay shows it: `Tue 2017-10-03 14:00:00` where the dates
/// are real, else `clock`'s `Tue 14:00:00 day 2` (`day 2 14:00:00`).
/// The replay's start, a second before the first submission, reads as the
/// first submission's instant, so a trace that starts at midnight starts
/// at `day 1 00:00:00`, not the evening before.
pub fn clock_shown(zone: Zone, first: Secs, t: Secs) -> String {
    let t = t.max(first);
    match local(zone, t).filter(|_| dated(zone)) {
        Some(d) => format!("{} {}", d.weekday(), d.format("%Y-%m-%d %H:%M:%S")),
        None => clock(zone, first, t),
    }
}

/// The zone's offset from UTC at `t` (`UTC+8`, `UTC-7`, `UTC+5:30`), for
/// headers: unambiguous where abbreviations are not (PAI's Shanghai time
/// is `CST`, as is US Central).
pub fn zone_abbrev(zone: Zone, t: Secs) -> String {
    use chrono::Offset;
    match zone {
        Zone::Relative => String::new(),
        Zone::Tz(tz) => DateTime::from_timestamp(t, 0)
            .map(|d| {
                let off = d.with_timezone(&tz).offset().fix().local_minus_utc();
                let sign = if off < 0 { '-' } else { '+' };
                let (h, m) = (off.abs() / 3600, (off.abs() % 3600) / 60);
                match m {
                    0 => format!("UTC{sign}{h}"),
                    m => format!("UTC{sign}{h}:{m:02}"),
                }
            })
            .unwrap_or_default(),
        Zone::Fixed(off) => {
            let h = off / 3600;
            let m = (off.abs() % 3600) / 60;
            format!("UTC{h:+03}:{m:02}")
        }
    }
}

/// Seconds `zone` is ahead of UTC at `t` (0 without a calendar).
pub fn utc_offset(zone: Zone, t: Secs) -> Secs {
    use chrono::Offset;
    match zone {
        Zone::Relative => 0,
        Zone::Tz(tz) => DateTime::from_timestamp(t, 0).map_or(0, |d| {
            d.with_timezone(&tz).offset().fix().local_minus_utc() as Secs
        }),
        Zone::Fixed(off) => off as Secs,
    }
}

/// The `k`-th boundary of `tick` seconds after `t` on the local clock
/// (`k` = 1: the next minute, hour or day as the clock shows it), so ticks
/// land on :00 whatever second the replay began at; `k` ≤ 0 goes back.
pub fn tick_boundary(zone: Zone, t: Secs, tick: Secs, k: i64) -> Secs {
    let tick = tick.max(1);
    let off = utc_offset(zone, t);
    let local = t.saturating_add(off);
    let base = if k > 0 {
        local.div_euclid(tick)
    } else {
        // Back: from the boundary at or before `t`'s second before.
        (local - 1).div_euclid(tick) + 1
    };
    base.saturating_add(k)
        .saturating_mul(tick)
        .saturating_sub(off)
}

/// PAI's clock: its seconds shown in Asia/Shanghai (Zeus's too, which come from
/// PAI).
pub const PAI_ZONE: Zone = Zone::Tz(chrono_tz::Asia::Shanghai);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_land_on_the_local_clock_s_boundaries() {
        let r = Zone::Relative;
        assert_eq!(tick_boundary(r, -1, 60, 1), 0);
        assert_eq!(tick_boundary(r, 0, 60, 1), 60);
        assert_eq!(tick_boundary(r, 59, 60, 2), 120);
        assert_eq!(tick_boundary(r, 120, 60, -1), 60);
        assert_eq!(tick_boundary(r, 100, 60, -1), 60);
        assert_eq!(tick_boundary(r, 60, 60, -1), 0);
        // PAI: 4550879 is Mon 00:07:59 in UTC+8; the next day starts at
        // local midnight, not UTC's.
        let next_day = tick_boundary(PAI_ZONE, 4_550_879, 86_400, 1);
        assert_eq!(clock(PAI_ZONE, 4_550_879, next_day), "Tue 00:00:00 day 2");
        let next_min = tick_boundary(PAI_ZONE, 4_550_879, 60, 1);
        assert_eq!(weekday_time(PAI_ZONE, next_min), "Mon 00:08:00");
    }

    #[test]
    fn pai_times_read_in_shanghai() {
        // The release's own example: 4550879 is a Monday, 00:07:59 in UTC+8.
        assert_eq!(weekday_time(PAI_ZONE, 4_550_879), "Mon 00:07:59");
        assert_eq!(zone_abbrev(PAI_ZONE, 4_550_879), "UTC+8");
        let kolkata = Zone::Tz(chrono_tz::Asia::Kolkata);
        assert_eq!(zone_abbrev(kolkata, 0), "UTC+5:30");
        let pacific = Zone::Tz(chrono_tz::America::Los_Angeles);
        assert_eq!(zone_abbrev(pacific, 1_500_000_000), "UTC-7");
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

    #[test]
    fn real_dates_are_shown_where_the_trace_has_them() {
        let la = Zone::Tz(chrono_tz::America::Los_Angeles);
        assert_eq!(clock_shown(la, 0, 1_507_064_400), "Tue 2017-10-03 14:00:00");
        assert_eq!(
            clock_shown(Zone::Fixed(8 * 3600), 0, 0),
            "Thu 1970-01-01 08:00:00"
        );
        assert_eq!(
            clock_shown(PAI_ZONE, 4_550_879, 4_550_879),
            "Mon 00:07:59 day 1"
        );
        assert_eq!(clock_shown(Zone::Relative, 0, 90_061), "day 2 01:01:01");
    }
}

/// The trace second at which local day `n` (counted as `day_number` does) begins.
fn day_start(zone: Zone, first: Secs, n: i64) -> Secs {
    match (zone, local(zone, first)) {
        (Zone::Relative, _) | (_, None) => (n - 1) * 86_400,
        (Zone::Tz(tz), Some(d)) => {
            let date = d.date() + chrono::Duration::days(n - 1);
            let midnight = date.and_hms_opt(0, 0, 0).unwrap_or_default();
            tz.from_local_datetime(&midnight)
                .earliest()
                .map_or(first, |x| x.timestamp())
        }
        (Zone::Fixed(off), Some(d)) => {
            let date = d.date() + chrono::Duration::days(n - 1);
            date.and_hms_opt(0, 0, 0)
                .unwrap_or_default()
                .and_utc()
                .timestamp()
                - off as i64
        }
    }
}

fn parse_hms(s: &str) -> Option<Secs> {
    let parts: Vec<&str> = s.split(':').collect();
    if parts.is_empty() || parts.len() > 3 {
        return None;
    }
    let mut v = [0i64; 3];
    for (i, p) in parts.iter().enumerate() {
        v[i] = p.parse().ok().filter(|x: &i64| *x >= 0)?;
    }
    (v[0] < 48 && v[1] < 60 && v[2] < 60).then_some(v[0] * 3600 + v[1] * 60 + v[2])
}

/// A duration like `2h`, `90m`, `1d12h`, `45s`, `3600`: the one duration
/// parser (go-to offsets, schedules, `--tick`); None past `i64`.
pub fn parse_duration(s: &str) -> Option<Secs> {
    if let Ok(v) = s.parse::<i64>() {
        return Some(v);
    }
    let (mut total, mut num) = (0i64, String::new());
    for c in s.chars() {
        if c.is_ascii_digit() {
            num.push(c);
            continue;
        }
        let unit = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            'w' => 7 * 86_400,
            _ => return None,
        };
        let n = num.parse::<i64>().ok()?.checked_mul(unit)?;
        total = total.checked_add(n)?;
        num.clear();
    }
    num.is_empty().then_some(total)
}

/// A time a user typed that is not one (the text, as typed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{}': try +2h, -30m, day 3 14:00, Fri 03:00, 14:00 or trace seconds",
    crate::text::sanitize(.input.trim())
)]
pub struct WhenError {
    /// The text as typed.
    pub input: String,
}

/// A time typed by a user: `+2h` / `-30m` (from now), or the words of a
/// time as the screen shows it, in any order — `day 3`, a weekday (`Fri`),
/// a date (`2017-10-03`, for traces with real dates), a time of day
/// (`14:00`, `14:00:30`) — or raw trace seconds. A weekday alone means the
/// next one from now (today if its time is still to come); with a day or a
/// date it must be that day's. A time alone is today's.
pub fn parse_when(zone: Zone, first: Secs, now: Secs, input: &str) -> Result<Secs, WhenError> {
    let s = input.trim().to_ascii_lowercase();
    let bad = || WhenError {
        input: input.to_string(),
    };
    if let Some(rest) = s.strip_prefix('+') {
        return parse_duration(rest.trim())
            .and_then(|d| now.checked_add(d))
            .ok_or_else(bad);
    }
    if let Some(rest) = s.strip_prefix('-') {
        return parse_duration(rest.trim())
            .and_then(|d| now.checked_sub(d))
            .ok_or_else(bad);
    }
    if let Ok(t) = s.parse::<i64>() {
        return Ok(t);
    }
    let words = Words::read(&s).ok_or_else(bad)?;
    // Only what the screen shows: no weekday without a calendar, no date
    // where the dates are not real.
    if (zone == Zone::Relative && words.weekday.is_some()) || (!dated(zone) && words.date.is_some())
    {
        return Err(bad());
    }
    let at = words.at.unwrap_or(0);
    let day = match (words.day, words.date) {
        (Some(_), Some(_)) => return Err(bad()),
        (Some(n), None) => Some(n),
        (None, Some(d)) => {
            let d1 = local(zone, first).ok_or_else(bad)?.date();
            Some((d - d1).num_days() + 1)
        }
        (None, None) => None,
    };
    let weekday_of = |n: i64| local(zone, day_start(zone, first, n) + 43_200).map(|d| d.weekday());
    match (day, words.weekday) {
        (Some(n), Some(w)) if weekday_of(n) != Some(w) => Err(bad()),
        (Some(n), _) => Ok(day_start(zone, first, n) + at),
        (None, Some(w)) => {
            // The next such weekday from today, today if still to come.
            let today = day_number(zone, first, now);
            (today..today + 8)
                .find(|&n| weekday_of(n) == Some(w) && day_start(zone, first, n) + at >= now)
                .map(|n| day_start(zone, first, n) + at)
                .ok_or_else(bad)
        }
        (None, None) if words.at.is_some() => {
            Ok(day_start(zone, first, day_number(zone, first, now)) + at)
        }
        (None, None) => Err(bad()),
    }
}

/// The words of a typed time, each at most once.
#[derive(Default)]
struct Words {
    day: Option<i64>,
    weekday: Option<chrono::Weekday>,
    date: Option<chrono::NaiveDate>,
    at: Option<Secs>,
}

impl Words {
    fn read(s: &str) -> Option<Words> {
        let mut w = Words::default();
        let mut it = s.split_whitespace();
        fn set<T>(slot: &mut Option<T>, v: T) -> Option<()> {
            slot.replace(v).is_none().then_some(())
        }
        while let Some(word) = it.next() {
            if word == "day" {
                let n: i64 = it.next()?.parse().ok().filter(|n| *n >= 0)?;
                set(&mut w.day, n)?;
            } else if let Some(n) = word.strip_prefix("day").and_then(|n| n.parse().ok()) {
                set(&mut w.day, n).filter(|_| n >= 0)?;
            } else if let Ok(d) = word.parse::<chrono::Weekday>() {
                set(&mut w.weekday, d)?;
            } else if let Ok(d) = chrono::NaiveDate::parse_from_str(word, "%Y-%m-%d") {
                set(&mut w.date, d)?;
            } else if word.contains(':') {
                set(&mut w.at, parse_hms(word)?)?;
            } else {
                return None;
            }
        }
        Some(w)
    }
}

#[cfg(test)]
mod when_tests {
    use super::*;

    #[test]
    fn day_0_is_the_day_before_the_first() {
        // Where a replay's start (a second before the first submission)
        // is when that is at midnight, as the clock shows it.
        assert_eq!(parse_when(Zone::Relative, 0, -1, "day 0"), Ok(-86_400));
        assert_eq!(clock(Zone::Relative, 0, -1), "day 0 23:59:59");
        assert_eq!(parse_when(Zone::Relative, 0, -1, "day 0 23:59:59"), Ok(-1));
    }

    #[test]
    fn user_times() {
        let first = 4_550_879; // Mon 00:07:59 CST
        let now = first + 100;
        assert_eq!(parse_when(PAI_ZONE, first, now, "+2h"), Ok(now + 7200));
        assert_eq!(parse_when(PAI_ZONE, first, now, "-1m30s"), Ok(now - 90));
        assert_eq!(
            weekday_time(
                PAI_ZONE,
                parse_when(PAI_ZONE, first, now, "day 3 14:00").unwrap()
            ),
            "Wed 14:00:00"
        );
        assert_eq!(
            parse_when(PAI_ZONE, first, now, "day 1").unwrap(),
            first - 479
        );
        assert_eq!(
            weekday_time(PAI_ZONE, parse_when(PAI_ZONE, first, now, "13:30").unwrap()),
            "Mon 13:30:00"
        );
        assert_eq!(parse_when(PAI_ZONE, first, now, "4550879"), Ok(first));
        assert_eq!(
            parse_when(Zone::Relative, 0, 50, "day 2 01:00"),
            Ok(86_400 + 3600)
        );
        assert!(parse_when(PAI_ZONE, first, now, "tomorrow")
            .unwrap_err()
            .to_string()
            .contains("try +2h"));
        assert!(parse_when(PAI_ZONE, first, now, "day -1").is_err());
        assert!(parse_when(PAI_ZONE, first, now, "25:99").is_err());
        // As the screen shows it: weekday, time and day in any order.
        let shown = parse_when(PAI_ZONE, first, now, "Wed 14:00:00 day 3").unwrap();
        assert_eq!(clock(PAI_ZONE, first, shown), "Wed 14:00:00 day 3");
        assert_eq!(
            parse_when(PAI_ZONE, first, now, "day 3 wed 14:00"),
            Ok(shown)
        );
        assert!(
            parse_when(PAI_ZONE, first, now, "Fri 14:00 day 3").is_err(),
            "day 3 is a Wed"
        );
        // A weekday alone: the next one from now (Monday 00:09:39).
        let fri = parse_when(PAI_ZONE, first, now, "Fri 03:00").unwrap();
        assert_eq!(clock(PAI_ZONE, first, fri), "Fri 03:00:00 day 5");
        let mon = parse_when(PAI_ZONE, first, now, "mon 00:05").unwrap();
        assert_eq!(
            clock(PAI_ZONE, first, mon),
            "Mon 00:05:00 day 8",
            "today's is past"
        );
        // A real date (Philly's).
        let la = Zone::Tz(chrono_tz::America::Los_Angeles);
        let p0 = 1_506_816_000; // 2017-10-01 00:00 UTC, Sep 30 17:00 in LA
        let t = parse_when(la, p0, p0, "2017-10-03 14:00").unwrap();
        assert_eq!(weekday_time(la, t), "Tue 14:00:00");
        assert_eq!(day_number(la, p0, t), 4);
        assert!(
            parse_when(la, p0, p0, "2017-10-03 day 4").is_err(),
            "a date or a day"
        );
        assert!(parse_when(PAI_ZONE, first, now, "day 3 day 4").is_err());
        assert!(
            parse_when(PAI_ZONE, first, now, "2020-07-01").is_err(),
            "PAI's dates are not real"
        );
        assert!(
            parse_when(Zone::Relative, 0, 0, "Fri 03:00").is_err(),
            "ITP has no weekdays"
        );
        // Past i64: refused, not wrapped (or a panic in a debug build).
        assert!(parse_when(PAI_ZONE, first, now, "+999999999999999d").is_err());
        assert!(parse_when(PAI_ZONE, first, now, "+9223372036854775807").is_err());
        assert_eq!(parse_duration("1d12h"), Some(129_600));
        assert_eq!(parse_duration("99999999999999w"), None);
    }
}
