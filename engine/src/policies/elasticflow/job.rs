//! One job as ElasticFlow plans it: its deadline, the iterations it has
//! left, the GPU counts it may hold (its table's columns up to its model's
//! cap) and its rate on each, and the plan it holds now.

use super::maps::Alloc;
use std::sync::Arc;
use tracetui_model::Secs;

#[derive(Debug, Clone)]
pub(super) struct Job {
    /// Its deadline; `BEST_EFFORT` for a job without one.
    pub(super) ddl: Secs,
    /// Iterations left, as the policy counts them (ElasticFlow's
    /// `iter_left`: progress at the GPUs held since the last round, less
    /// the overhead charged then, up to the planned finish).
    pub(super) iter_left: f64,
    /// (GPU count, iterations/s), ascending, counts up to the cap.
    pub(super) levels: Arc<[(u32, f64)]>,
    /// Its levels looked up (`Levels`).
    pub(super) look: Arc<Levels>,
    /// GPUs held this round (0: none).
    pub(super) gpus: u32,
    /// The plan: time → GPUs, from this round's time on.
    pub(super) alloc: Alloc,
    /// When its end falls: the planned finish on the slot grid, plus the
    /// overhead charged this round.
    pub(super) end: Secs,
    /// The planned finish to the second (no grid, no overhead): the
    /// deadline is kept when it is not after the deadline.
    pub(super) real_end: Secs,
    /// Seconds without progress charged at the end of the last round.
    pub(super) overhead: Secs,
    /// Whether it sat, this round, on a GPU set some job held since the
    /// overhead cache was last cleared.
    pub(super) in_cache: bool,
    /// The node set it is placed on (`nodes.rs`), while placed.
    pub(super) node_set: Option<usize>,
    /// Scratch of the hand-out of leftover GPUs (`grow.rs`).
    pub(super) probe: Probe,
    /// The scheduling slot its plans' ends fall on the grid of (`--rounds`).
    pub(super) slot: Secs,
}

/// What growing a job by one level would give (ElasticFlow's
/// `next_level_*`), and what its plan read of the reservations, to tell
/// when it still holds (`grow.rs`).
#[derive(Debug, Clone, Default)]
pub(super) struct Probe {
    pub(super) next: u32,
    pub(super) marginal: f64,
    /// The GPU-seconds of the job's own plan (`gpu_secs`), this round.
    pub(super) own: i128,
    pub(super) alloc: Alloc,
    pub(super) end: Secs,
    pub(super) real_end: Secs,
    /// The plan's `reach`, `first` and `from` (`plan.rs`).
    pub(super) reach: Secs,
    pub(super) first: Option<Secs>,
    pub(super) from: Option<Secs>,
    /// The free count at the round's time when it was weighed, and the
    /// reservations' first step after it then.
    pub(super) free_now: i64,
    pub(super) second: Option<Secs>,
    /// Whether the reservations changed since where it read them.
    pub(super) stale: bool,
}

impl Probe {
    /// Whether its plan read where the reservations' values changed in
    /// `[a, b)`: at or before its first step after now, or from just
    /// before where its share starts to its reach.
    pub(super) fn reads(&self, (a, b): (Secs, Secs)) -> bool {
        let first = self.first.unwrap_or(Secs::MAX);
        let from = self.from.unwrap_or(first);
        a <= first || (a <= self.reach && b >= from)
    }
}

/// The largest level `Levels` lists every count up to.
const MAX_LISTED: usize = 4096;

/// A job's levels, looked up: for each GPU count up to the largest level,
/// the largest level not above it; and the fastest rate up to each level.
#[derive(Debug)]
pub(super) struct Levels {
    /// Count → 1 + the index of the largest level not above it (0: none);
    /// empty where the largest level is too large to list (`MAX_LISTED`).
    below: Vec<u32>,
    /// Level index → the most iterations/s of the levels up to it.
    fastest: Vec<f64>,
}

impl Levels {
    fn of(levels: &[(u32, f64)]) -> Levels {
        let top = levels.last().map_or(0, |l| l.0) as usize;
        let listed = if top <= MAX_LISTED { top + 1 } else { 0 };
        let mut below = vec![0u32; listed];
        let mut i = 0;
        for (c, b) in below.iter_mut().enumerate() {
            while i < levels.len() && levels[i].0 as usize <= c {
                i += 1;
            }
            *b = i as u32;
        }
        let mut fastest = Vec::with_capacity(levels.len());
        let mut most = 0.0f64;
        for l in levels {
            most = most.max(l.1);
            fastest.push(most);
        }
        Levels { below, fastest }
    }
}

/// The deadline of a best-effort job (ElasticFlow's `sys.maxsize`): after
/// every other, far enough that no sum of times reaches it, near enough
/// that none overflows.
pub(super) const BEST_EFFORT: Secs = Secs::MAX / 4;

impl Job {
    /// A job without a deadline: kept when its round's arrivals are
    /// declined, planned after every job with one, in no count.
    pub(super) fn best_effort(&self) -> bool {
        self.ddl == BEST_EFFORT
    }

    pub(super) fn new(ddl: Secs, iters: f64, levels: Arc<[(u32, f64)]>, slot: Secs) -> Job {
        Job {
            ddl,
            iter_left: iters,
            look: Arc::new(Levels::of(&levels)),
            levels,
            gpus: 0,
            alloc: Alloc::new(),
            end: 0,
            real_end: 0,
            overhead: 0,
            in_cache: false,
            node_set: None,
            probe: Probe::default(),
            slot,
        }
    }

    /// The most GPUs it may hold.
    pub(super) fn max_gpu(&self) -> u32 {
        self.levels.last().map_or(0, |l| l.0)
    }

    /// Iterations per second on `g` GPUs (one of its levels; between
    /// them, the table's rule).
    pub(super) fn tp(&self, g: u32) -> f64 {
        match self.levels.iter().find(|l| l.0 == g) {
            Some(l) => l.1,
            None => tracetui_model::rate_on(&self.levels, g).unwrap_or(0.0),
        }
    }

    /// The level after `g` (the first, for 0); `g` itself at the top.
    pub(super) fn next_level(&self, g: u32) -> u32 {
        if g == 0 {
            return self.levels.first().map_or(0, |l| l.0);
        }
        let mut it = self.levels.iter().skip_while(|l| l.0 != g);
        it.next();
        it.next().map_or(g, |l| l.0)
    }

    /// The largest level below `x` (0: none): `last_level(free + 1)` is
    /// the most of its levels `free` GPUs hold.
    pub(super) fn last_level(&self, x: i64) -> u32 {
        self.levels
            .iter()
            .take_while(|l| (l.0 as i64) < x)
            .last()
            .map_or(0, |l| l.0)
    }

    /// The most of its levels it holds with `q` wanted (a level, or 0) and
    /// `free` GPUs free, with its rate there: `q.min(last_level(free + 1))`
    /// and `tp` of that, in one look (0 and 0.0: none).
    pub(super) fn share(&self, q: u32, free: i64) -> (u32, f64) {
        let most = (q as i64).min(free);
        if most <= 0 {
            return (0, 0.0);
        }
        let below = &self.look.below;
        if below.is_empty() {
            let fit = self.levels.iter().take_while(|l| l.0 as i64 <= most);
            return fit.last().copied().unwrap_or((0, 0.0));
        }
        match below[(most as usize).min(below.len() - 1)] {
            0 => (0, 0.0),
            i => self.levels[i as usize - 1],
        }
    }

    /// The most iterations it can do in `secs` seconds on at most `q`
    /// GPUs, at any level up to `q`.
    pub(super) fn most_in(&self, q: u32, secs: Secs) -> f64 {
        let fastest = self
            .levels
            .iter()
            .zip(self.look.fastest.iter())
            .take_while(|(l, _)| l.0 <= q)
            .last()
            .map_or(0.0, |(_, &f)| f);
        secs as f64 * fastest
    }

    /// Where its progress stops: its planned finish (`edf-accessctrl`,
    /// whose plans have none apart: its end).
    pub(super) fn finish(&self, edf: bool) -> Secs {
        match edf {
            true => self.end,
            false => self.real_end,
        }
    }

    /// The GPUs its plan gives it at `t` (0 where the plan says nothing).
    pub(super) fn planned_at(&self, t: Secs) -> u32 {
        self.alloc.get(t).unwrap_or(0)
    }
}
