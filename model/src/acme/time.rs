//! AcmeTrace's times, `2023-03-01 00:18:22+08:00`: a chrono-free parser
//! for the released shape, chrono for anything else.

use crate::model::Secs;

/// `2023-03-01 00:18:22+08:00` as (Unix seconds, offset seconds).
pub(crate) fn parse_time(s: &str) -> Option<(Secs, i32)> {
    let s = s.trim();
    fast_time(s.as_bytes()).or_else(|| {
        let d = chrono::DateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%:z").ok()?;
        Some((d.timestamp(), d.offset().local_minus_utc()))
    })
}

/// The released layout exactly (25 bytes), without chrono's format parser;
/// anything else (or an impossible date) is left to chrono.
fn fast_time(b: &[u8]) -> Option<(Secs, i32)> {
    if b.len() != 25
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b' '
        || b[13] != b':'
        || b[16] != b':'
        || b[22] != b':'
        || !matches!(b[19], b'+' | b'-')
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        b[r].iter().try_fold(0i64, |a, &c| {
            c.is_ascii_digit().then(|| a * 10 + (c - b'0') as i64)
        })
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let (oh, om) = (num(20..22)?, num(23..25)?);
    let month_days = [
        31,
        28 + (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)) as i64,
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&mo)
        || d < 1
        || d > month_days[mo as usize - 1]
        || h > 23
        || mi > 59
        || sec > 59
        || oh > 23
        || om > 59
    {
        return None;
    }
    // Days from 1970-01-01 to the civil date (proleptic Gregorian).
    let (yy, m) = if mo <= 2 {
        (y - 1, mo + 9)
    } else {
        (y, mo - 3)
    };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let doy = (153 * m + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let sign = if b[19] == b'-' { -1 } else { 1 };
    let offset = sign * (oh * 3600 + om * 60);
    Some((
        days * 86_400 + h * 3600 + mi * 60 + sec - offset,
        offset as i32,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chrono_time(s: &str) -> Option<(Secs, i32)> {
        let d = chrono::DateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%:z").ok()?;
        Some((d.timestamp(), d.offset().local_minus_utc()))
    }

    proptest::proptest! {
        #[test]
        fn the_fast_parser_agrees_with_chrono(
            y in 1900i32..2200, mo in 0u32..14, d in 0u32..33, h in 0u32..25,
            mi in 0u32..61, s in 0u32..61, neg: bool, oh in 0u32..30, om in 0u32..60,
        ) {
            let text = format!(
                "{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}{}{oh:02}:{om:02}",
                if neg { '-' } else { '+' }
            );
            let fast = fast_time(text.as_bytes());
            let slow = chrono_time(&text);
            // Where the fast path answers, chrono agrees; where it declines, parse_time still does.
            if fast.is_some() {
                proptest::prop_assert_eq!(fast, slow);
            }
            proptest::prop_assert_eq!(parse_time(&text), slow);
        }
    }

    #[test]
    fn leap_days_and_offsets() {
        for t in [
            "2024-02-29 23:59:59+08:00",
            "2000-02-29 00:00:00-05:30",
            "1970-01-01 00:00:00+00:00",
            "2023-12-31 23:59:59+14:00",
        ] {
            assert_eq!(fast_time(t.as_bytes()), chrono_time(t), "{t}");
            assert!(fast_time(t.as_bytes()).is_some());
        }
        assert_eq!(fast_time(b"2023-02-29 00:00:00+08:00"), None);
        assert_eq!(parse_time("2023-02-29 00:00:00+08:00"), None);
    }
}
