//! What a results column and a plan axis are called on a sweep's figure:
//! words and units a paper prints (`mean JCT (h)`, `offered load (share of
//! the GPUs)`), not column names; a time shown in the unit its values
//! read best in, its ticks in that unit.

use crate::plot::Bounds;

/// A results column as a figure shows it.
pub(super) struct Metric {
    /// What it is, in words (`mean JCT`).
    pub words: String,
    pub kind: Kind,
    pub bounds: Bounds,
}

/// What a metric's numbers are.
pub(super) enum Kind {
    /// Seconds: shown in s, min, h or d.
    Seconds,
    /// A share of something (0 to 1): what of.
    Share(&'static str),
    /// A number in a unit (`kWh`, `W`), or a count (`""`).
    Plain(&'static str),
}

/// The summary statistics a column's suffix names.
fn stat(suffix: &str) -> Option<&'static str> {
    Some(match suffix {
        "mean" => "mean",
        "p50" => "median",
        "p95" => "95th-percentile",
        "p99" => "99th-percentile",
        _ => return None,
    })
}

/// The figure's words for a results column.
pub(super) fn metric(column: &str) -> Metric {
    let m = |words: &str, kind: Kind, bounds: Bounds| Metric {
        words: words.to_string(),
        kind,
        bounds,
    };
    let time = column.strip_suffix("_s");
    if let Some((base, s)) = time.and_then(|t| t.rsplit_once('_')) {
        if let (Some(s), Some(what)) = (stat(s), subject(base)) {
            return m(&format!("{s} {what}"), Kind::Seconds, Bounds::NonNegative);
        }
    }
    if let Some((base, s)) = column.rsplit_once('_') {
        let what = match base {
            "slowdown" => Some("slowdown"),
            "bounded_slowdown" => Some("bounded slowdown (τ = 10 s)"),
            _ => None,
        };
        if let (Some(s), Some(what)) = (stat(s), what) {
            return m(
                &format!("{s} {what}"),
                Kind::Plain("×"),
                Bounds::NonNegative,
            );
        }
    }
    match column {
        "makespan_s" => m("makespan", Kind::Seconds, Bounds::NonNegative),
        "deadline_met" => m("deadlines met", Kind::Share("deadlines"), Bounds::Share),
        "deadline_admitted" => m(
            "deadlines admitted",
            Kind::Share("deadlines"),
            Bounds::Share,
        ),
        "gpu_util" => m("GPU utilisation", Kind::Share("GPU time"), Bounds::Share),
        "energy_kwh" => m("energy", Kind::Plain("kWh"), Bounds::NonNegative),
        "avg_power_w" => m("mean power", Kind::Plain("W"), Bounds::NonNegative),
        "offered_load_gpus" => m("offered load", Kind::Plain("GPUs"), Bounds::NonNegative),
        c => m(&c.replace('_', " "), Kind::Plain(""), Bounds::NonNegative),
    }
}

/// The quantity a time column's base names.
fn subject(base: &str) -> Option<&'static str> {
    Some(match base {
        "jct" => "JCT",
        "wait" => "wait",
        _ => return None,
    })
}

/// Time units: name and seconds, largest first.
const UNITS: [(&str, f64); 4] = [("d", 86_400.0), ("h", 3600.0), ("min", 60.0), ("s", 1.0)];

impl Metric {
    /// The unit to show `ys` in: its name and how many of the column's
    /// units make one (a time in the largest unit its largest value holds
    /// twice; anything else as it is).
    pub(super) fn unit(&self, ys: impl Iterator<Item = f64>) -> (&'static str, f64) {
        match self.kind {
            Kind::Seconds => {
                let most = ys.fold(0.0f64, |a, b| a.max(b.abs()));
                UNITS
                    .into_iter()
                    .find(|&(_, s)| most >= 2.0 * s)
                    .unwrap_or(("s", 1.0))
            }
            Kind::Share(_) | Kind::Plain(_) => ("", 1.0),
        }
    }

    /// The y axis's title: its words and unit.
    pub(super) fn title(&self, unit: &str) -> String {
        let unit = match self.kind {
            Kind::Seconds => format!(" ({unit})"),
            Kind::Share(of) => format!(" (share of {of})"),
            Kind::Plain("") => String::new(),
            Kind::Plain(u) => format!(" ({u})"),
        };
        format!("{}{unit}", self.words)
    }

    /// Whether its axis runs 0 to 1 unless the user says otherwise.
    pub(super) fn is_share(&self) -> bool {
        matches!(self.kind, Kind::Share(_))
    }
}

/// A plan axis's title in words, with its unit.
pub(super) fn axis(key: &str) -> String {
    match key {
        "load" => "offered load (share of the GPUs)".into(),
        "gpus" => "cluster size (GPUs)".into(),
        "gpus-per-node" => "GPUs per machine".into(),
        "preempt-cost" => "preemption cost (s)".into(),
        "rescale-cost" => "rescale cost (s)".into(),
        "eta" => "Zeus's η".into(),
        k => k.replace('-', " "),
    }
}

/// A plan axis in a few words, for the figure's title.
pub(super) fn axis_short(key: &str) -> String {
    match key {
        "load" => "offered load".into(),
        "gpus" => "cluster size".into(),
        k => axis(k),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_read_as_words_with_units() {
        let t = metric("jct_mean_s");
        assert_eq!(t.words, "mean JCT");
        assert_eq!(t.unit([3.0 * 86_400.0].into_iter()), ("d", 86_400.0));
        assert_eq!(t.unit([5000.0].into_iter()), ("min", 60.0));
        assert_eq!(t.title("h"), "mean JCT (h)");
        assert_eq!(metric("wait_p99_s").words, "99th-percentile wait");
        let d = metric("deadline_met");
        assert_eq!(d.bounds, Bounds::Share);
        assert_eq!(d.title(""), "deadlines met (share of deadlines)");
        assert!(d.is_share());
        assert_eq!(metric("slowdown_p50").title(""), "median slowdown (×)");
        assert_eq!(
            metric("bounded_slowdown_mean").title(""),
            "mean bounded slowdown (τ = 10 s) (×)"
        );
        assert_eq!(metric("preemptions").title(""), "preemptions");
        assert_eq!(axis("load"), "offered load (share of the GPUs)");
    }
}
