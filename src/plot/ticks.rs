//! Axis ticks people read: times at 1 min, 1 h, 1 d, 1 w (not powers of
//! ten seconds), and plain numbers at 1, 2, 5, 10 ….

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};

const MIN: f64 = 60.0;
const HOUR: f64 = 3600.0;
const DAY: f64 = 86_400.0;
const WEEK: f64 = 7.0 * DAY;

/// Every time a log axis may tick at, ascending.
const TIMES: [f64; 22] = [
    1.0,
    2.0,
    5.0,
    10.0,
    30.0,
    MIN,
    2.0 * MIN,
    5.0 * MIN,
    10.0 * MIN,
    30.0 * MIN,
    HOUR,
    2.0 * HOUR,
    6.0 * HOUR,
    12.0 * HOUR,
    DAY,
    2.0 * DAY,
    WEEK,
    2.0 * WEEK,
    4.0 * WEEK,
    13.0 * WEEK,
    26.0 * WEEK,
    52.0 * WEEK,
];

/// The ticks most figures want: a step of a unit.
const MAJOR: [f64; 9] = [
    1.0,
    10.0,
    MIN,
    10.0 * MIN,
    HOUR,
    6.0 * HOUR,
    DAY,
    WEEK,
    4.0 * WEEK,
];

/// Ticks for a log time axis over [lo, hi]: the major ones inside it, or
/// every candidate inside it where fewer than three majors are.
pub(crate) fn log_times(lo: f64, hi: f64) -> Vec<f64> {
    let inside = |v: &&f64| **v >= lo * 0.999 && **v <= hi * 1.001;
    let major: Vec<f64> = MAJOR.iter().filter(inside).copied().collect();
    if major.len() >= 3 {
        return major;
    }
    let all: Vec<f64> = TIMES.iter().filter(inside).copied().collect();
    if all.len() > 8 {
        all.into_iter().step_by(2).collect()
    } else {
        all
    }
}

/// `30 s`, `10 min`, `6 h`, `2 d`, `4 w` — a tick's label.
pub(crate) fn time_label(secs: f64) -> String {
    let (v, unit) = if secs < MIN {
        (secs, "s")
    } else if secs < HOUR {
        (secs / MIN, "min")
    } else if secs < DAY {
        (secs / HOUR, "h")
    } else if secs < WEEK || secs % WEEK != 0.0 {
        (secs / DAY, "d")
    } else {
        (secs / WEEK, "w")
    };
    if v.fract().abs() < 1e-9 {
        format!("{v:.0} {unit}")
    } else {
        format!("{v:.1} {unit}")
    }
}

/// The largest candidate time at or under `v` (an axis starting there
/// starts on a tick), and the smallest at or over `v`.
pub(crate) fn time_floor(v: f64) -> f64 {
    TIMES
        .iter()
        .rev()
        .find(|&&t| t <= v)
        .copied()
        .unwrap_or(1.0)
}

pub(crate) fn time_ceil(v: f64) -> f64 {
    TIMES.iter().find(|&&t| t >= v).copied().unwrap_or(v)
}

/// Ticks for a log axis of plain numbers over [lo, hi]: 1, 2, 5, 10, 20 ….
pub(crate) fn log_numbers(lo: f64, hi: f64) -> Vec<f64> {
    let mut out = Vec::new();
    let mut decade = 10f64.powi(lo.max(1e-9).log10().floor() as i32);
    while decade <= hi {
        for m in [1.0, 2.0, 5.0] {
            let v = decade * m;
            if v >= lo * 0.999 && v <= hi * 1.001 {
                out.push(v);
            }
        }
        decade *= 10.0;
    }
    if out.len() > 8 {
        out.retain(|v| (v.log10().fract()).abs() < 1e-9);
    }
    out
}

/// A linear time axis over [0, span] seconds: its unit (hours or days,
/// whichever gives a readable count) and the ticks in that unit.
pub(crate) fn linear_time(span: f64) -> (&'static str, f64, Vec<f64>) {
    let (unit, per) = if span <= 3.0 * DAY {
        ("hours", HOUR)
    } else if span <= 120.0 * DAY {
        ("days", DAY)
    } else {
        ("weeks", WEEK)
    };
    let end = span / per;
    let step = [1.0, 2.0, 3.0, 6.0, 7.0, 12.0, 14.0, 24.0, 28.0, 48.0]
        .into_iter()
        .find(|s| end / s <= 10.0)
        .unwrap_or((end / 10.0).ceil());
    let ticks = (0..)
        .map(|i| f64::from(i) * step)
        .take_while(|t| *t <= end + 1e-9)
        .collect();
    (unit, per, ticks)
}

/// About six round ticks over [lo, hi] on a linear axis: steps of 1, 2 or
/// 5 times a power of ten of `unit` (seconds in a minute, an hour, a day
/// for a time axis; 1 for plain numbers).
pub(crate) fn linear_nice(lo: f64, hi: f64, unit: f64) -> Vec<f64> {
    let span = ((hi - lo) / unit).max(1e-9);
    let raw = span / 6.0;
    let p = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p)
        * unit;
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last.max(first))
        .map(|i| i as f64 * step)
        .filter(|v| *v <= hi)
        .collect()
}

/// A linear axis that ticks at the values given (plotters' own key
/// points lose the linear axis's number formatting).
#[derive(Debug, Clone)]
pub(crate) struct Ticked {
    lo: f64,
    hi: f64,
    keys: Vec<f64>,
}

impl Ticked {
    pub(crate) fn new(range: std::ops::Range<f64>, keys: Vec<f64>) -> Ticked {
        Ticked {
            lo: range.start,
            hi: range.end,
            keys,
        }
    }
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let span = if self.hi > self.lo {
            self.hi - self.lo
        } else {
            1.0
        };
        let f = (v - self.lo) / span;
        limit.0 + (f * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.keys.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_ticks_fall_on_units_people_read() {
        assert_eq!(
            log_times(1.0, 30.0 * DAY),
            vec![
                1.0,
                10.0,
                MIN,
                10.0 * MIN,
                HOUR,
                6.0 * HOUR,
                DAY,
                WEEK,
                4.0 * WEEK
            ]
        );
        let labels: Vec<String> = log_times(1.0, 30.0 * DAY)
            .into_iter()
            .map(time_label)
            .collect();
        assert_eq!(
            labels,
            ["1 s", "10 s", "1 min", "10 min", "1 h", "6 h", "1 d", "1 w", "4 w"]
        );
        // A narrow range still gets ticks.
        assert!(log_times(2.0 * HOUR, 20.0 * HOUR).len() >= 2);
        assert_eq!(time_floor(100.0), MIN);
        assert_eq!(time_ceil(100.0), 2.0 * MIN);
        assert_eq!(time_label(2.0 * DAY), "2 d");
        assert_eq!(time_label(90.0), "1.5 min");
    }

    #[test]
    fn number_and_linear_ticks() {
        assert_eq!(
            log_numbers(1.0, 60.0),
            vec![1.0, 2.0, 5.0, 10.0, 20.0, 50.0]
        );
        assert_eq!(
            log_numbers(1.0, 1e5),
            vec![1.0, 10.0, 100.0, 1000.0, 10000.0, 100000.0]
        );
        let (unit, per, ticks) = linear_time(11.5 * DAY);
        assert_eq!((unit, per), ("days", DAY));
        assert_eq!(ticks, vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(linear_time(5.0 * HOUR).0, "hours");
    }
}
