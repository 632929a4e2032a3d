//! The timeline view (`T`): utilisation, queue length, running jobs and
//! (with an energy model) power over the replay so far, one chart each —
//! never told apart by colour alone — with the time shown marked and the
//! axis in the trace's local time. `z` zooms the window, `←`/`→` scroll it.

//!
//! Its state here (the samples, the window); the chart in `view.rs`.

pub(crate) mod view;

use crate::trace::Secs;

/// Samples kept before every other one is dropped (the oldest keep their
/// shape, memory stays bounded however long the replay).
pub(crate) const MAX_SAMPLES: usize = 50_000;

/// What the replay looked like at each step, in time order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Samples {
    t: Vec<Secs>,
    util: Vec<f64>,
    queue: Vec<f64>,
    running: Vec<f64>,
    watts: Vec<f64>,
    /// Fragmentation, % of the cluster's GPUs (a trace of pods).
    frag: Vec<f64>,
}

/// What a sparkline shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Series {
    Util,
    Queue,
    Watts,
    Frag,
}

/// One step's figures.
pub(crate) struct Sample {
    pub at: Secs,
    /// Allocated GPUs, percent.
    pub util: f64,
    pub queue: u64,
    pub running: u64,
    pub watts: Option<f64>,
    /// Fragmentation, % of the cluster's GPUs, where it is measured.
    pub frag: Option<f64>,
}

impl Samples {
    /// Records a step; a step back first forgets what came after it.
    pub(crate) fn record(&mut self, s: Sample) {
        let keep = self.t.partition_point(|&x| x < s.at);
        if keep < self.t.len() {
            self.t.truncate(keep);
            self.util.truncate(keep);
            self.queue.truncate(keep);
            self.running.truncate(keep);
            self.watts.truncate(keep.min(self.watts.len()));
            self.frag.truncate(keep.min(self.frag.len()));
        }
        self.t.push(s.at);
        self.util.push(s.util);
        self.queue.push(s.queue as f64);
        self.running.push(s.running as f64);
        if let Some(w) = s.watts {
            self.watts.push(w);
        }
        if let Some(f) = s.frag {
            self.frag.push(f);
        }
        if self.t.len() > MAX_SAMPLES {
            self.halve();
        }
    }

    /// A sparkline's bars: the value of `of` at `n` times `step` apart up
    /// to `now` (each the last sample at or before it), oldest first; none
    /// before the first sample.
    pub(crate) fn bars(&self, of: Series, now: Secs, step: Secs, n: usize) -> Vec<u64> {
        let v = match of {
            Series::Util => &self.util,
            Series::Queue => &self.queue,
            Series::Watts => &self.watts,
            Series::Frag => &self.frag,
        };
        if v.len() != self.t.len() {
            return Vec::new();
        }
        (0..n as Secs)
            .rev()
            .filter_map(|k| {
                let at = now.saturating_sub(k.saturating_mul(step));
                let i = self.t.partition_point(|&x| x <= at);
                (i > 0).then(|| v[i - 1].max(0.0) as u64)
            })
            .collect()
    }

    /// The samples up to `t` (a split's B side shares A's past).
    pub(crate) fn until(&self, t: Secs) -> Samples {
        let keep = self.t.partition_point(|&x| x <= t);
        Samples {
            t: self.t[..keep].to_vec(),
            util: self.util[..keep].to_vec(),
            queue: self.queue[..keep].to_vec(),
            running: self.running[..keep].to_vec(),
            watts: self.watts[..keep.min(self.watts.len())].to_vec(),
            frag: self.frag[..keep.min(self.frag.len())].to_vec(),
        }
    }

    /// Sampled times and utilisation (percent), in time order.
    pub(crate) fn util_at(&self) -> impl Iterator<Item = (Secs, f64)> + '_ {
        self.t.iter().copied().zip(self.util.iter().copied())
    }

    fn halve(&mut self) {
        fn every_other<T>(v: &mut Vec<T>) {
            let mut i = 0;
            v.retain(|_| {
                i += 1;
                i % 2 == 1
            });
        }
        every_other(&mut self.t);
        every_other(&mut self.util);
        every_other(&mut self.queue);
        every_other(&mut self.running);
        every_other(&mut self.watts);
        every_other(&mut self.frag);
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.t.len()
    }

    fn series(&self, of: &[f64], from: Secs, to: Secs) -> Vec<(f64, f64)> {
        self.t
            .iter()
            .zip(of)
            .filter(|(t, _)| (from..=to).contains(*t))
            .map(|(&t, &v)| (t as f64, v))
            .collect()
    }
}

/// The windows `z` cycles through (seconds; 0: everything so far).
pub(crate) const SPANS: [Secs; 6] = [3_600, 6 * 3_600, 86_400, 7 * 86_400, 30 * 86_400, 0];

/// How the timeline is looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct TimelineView {
    /// Index into `SPANS`.
    pub span: usize,
    /// How far the window's right edge is before the time shown (0: follows it).
    pub back: Secs,
}

impl TimelineView {
    pub(crate) fn zoom(&mut self) {
        self.span = (self.span + 1) % SPANS.len();
        self.back = 0;
    }

    /// Scrolls by a quarter of the window (earlier when `earlier`).
    pub(crate) fn scroll(&mut self, earlier: bool, shown_span: Secs) {
        let step = (shown_span / 4).max(60);
        self.back = if earlier {
            self.back.saturating_add(step)
        } else {
            (self.back - step).max(0)
        };
    }

    /// The window [from, to] at `now`, with `first` the trace's start.
    pub(crate) fn window(&self, first: Secs, now: Secs) -> (Secs, Secs) {
        let to = (now - self.back).max(first + 1);
        let span = SPANS[self.span];
        let from = if span == 0 {
            first
        } else {
            (to - span).max(first)
        };
        (from, to.max(from + 1))
    }

    pub(crate) fn span_name(&self) -> &'static str {
        ["1 hour", "6 hours", "1 day", "1 week", "30 days", "all"][self.span]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(t: Secs) -> Sample {
        Sample {
            at: t,
            util: t as f64,
            queue: 1,
            running: 2,
            watts: None,
            frag: Some(t as f64 / 2.0),
        }
    }

    #[test]
    fn a_step_back_forgets_what_came_after_and_memory_stays_bounded() {
        let mut s = Samples::default();
        for t in 0..10 {
            s.record(at(t * 60));
        }
        s.record(at(180));
        assert_eq!(s.t, [0, 60, 120, 180]);
        assert_eq!(
            s.frag,
            [0.0, 30.0, 60.0, 90.0],
            "fragmentation steps back too"
        );
        assert_eq!(s.bars(Series::Frag, 180, 60, 2), [60, 90]);
        for t in 0..(MAX_SAMPLES as i64 * 3) {
            s.record(at(1000 + t));
        }
        assert!(s.len() <= MAX_SAMPLES);
        assert_eq!(s.frag.len(), s.t.len());
        assert!(s.t.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn windows_follow_scroll_and_zoom() {
        let mut v = TimelineView::default();
        assert_eq!(v.window(0, 10_000), (10_000 - 3_600, 10_000));
        v.scroll(true, 3_600);
        assert_eq!(v.window(0, 10_000), (10_000 - 900 - 3_600, 10_000 - 900));
        v.scroll(false, 3_600);
        assert_eq!(v.back, 0);
        for _ in 0..5 {
            v.zoom();
        }
        assert_eq!(v.span_name(), "all");
        assert_eq!(v.window(100, 10_000), (100, 10_000));
    }
}
