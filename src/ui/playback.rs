//! The replay's clock as the user plays it: paused or playing, how fast,
//! how far a step goes, the time owed to playing, the wait for an external
//! policy's answer, where steps came from (to step back in next-event
//! mode), and a move forward still sampling the timeline on its way.

use crate::trace::Secs;

/// Trace seconds per wall second when playing.
pub const SPEEDS: [f64; 14] = [
    1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0, 7200.0, 21600.0, 86400.0,
];

/// How far one step goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tick {
    Secs(Secs),
    NextEvent,
}

pub const TICKS: [Tick; 9] = [
    Tick::Secs(1),
    Tick::Secs(10),
    Tick::Secs(60),
    Tick::Secs(300),
    Tick::Secs(900),
    Tick::Secs(3600),
    Tick::Secs(21_600),
    Tick::Secs(86_400),
    Tick::NextEvent,
];

impl Tick {
    pub fn label(self) -> String {
        match self {
            Tick::NextEvent => "next event".into(),
            Tick::Secs(s) if s % 86_400 == 0 => format!("{}d", s / 86_400),
            Tick::Secs(s) if s % 3600 == 0 => format!("{}h", s / 3600),
            Tick::Secs(s) if s % 60 == 0 => format!("{}m", s / 60),
            Tick::Secs(s) => format!("{s}s"),
        }
    }
}

/// Samples a move forward takes on its way, at most (the timeline keeps
/// `timeline::MAX_SAMPLES`, halving the oldest).
const JUMP_SAMPLES: Secs = 20_000;

/// Steps remembered to step back through in next-event mode.
const MAX_BACK: usize = 10_000;

/// How the replay is played, and the moves under way.
pub(super) struct Playback {
    paused: bool,
    /// Index into `SPEEDS`.
    speed: usize,
    /// Index into `TICKS`.
    tick: usize,
    /// Trace seconds (or events) owed to playing.
    debt: f64,
    /// Wall seconds the replay has waited for an external policy's answer.
    waited: f64,
    /// The replay moved while waiting (answers came, the next question
    /// stands): shown on the next frame.
    moved_waiting: bool,
    /// Where steps came from, for stepping back in next-event mode.
    back: Vec<Secs>,
    /// A move forward still sampling on its way (it waits for an external
    /// policy's answer).
    sampling: Option<Sampling>,
}

/// A move forward on its way, sampling the timeline: the next time to
/// sample, the step, the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Sampling {
    next: Secs,
    step: Secs,
    to: Secs,
}

/// Where a move under way goes next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    /// A point to sample the timeline at.
    Sample(Secs),
    /// The move's end (it samples no more).
    End(Secs),
}

/// What another stretch of waiting for an answer comes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Wait {
    /// The replay moved meanwhile: show where it is (the wait starts again).
    Moved,
    /// The wait just passed a second: say who is waited for.
    PastASecond,
    /// Still waiting.
    Still,
}

impl Playback {
    /// Paused, at x60 a minute a step.
    pub(super) fn new() -> Playback {
        Playback {
            paused: true,
            speed: 5,
            tick: 2,
            debt: 0.0,
            waited: 0.0,
            moved_waiting: false,
            back: Vec::new(),
            sampling: None,
        }
    }

    pub(super) fn paused(&self) -> bool {
        self.paused
    }

    /// Trace seconds per wall second.
    pub(super) fn speed(&self) -> f64 {
        SPEEDS[self.speed]
    }

    /// How far a step goes.
    pub(super) fn tick(&self) -> Tick {
        TICKS[self.tick]
    }

    /// Indexes into `SPEEDS` and `TICKS`.
    pub(super) fn indexes(&self) -> (usize, usize) {
        (self.speed, self.tick)
    }

    /// Wall seconds waited so far for an external policy's answer.
    pub(super) fn waited(&self) -> f64 {
        self.waited
    }

    /// Plays if paused, pauses if playing; nothing owed either way.
    pub(super) fn toggle(&mut self) {
        self.paused = !self.paused;
        self.debt = 0.0;
    }

    pub(super) fn pause(&mut self) {
        self.paused = true;
    }

    pub(super) fn faster(&mut self) {
        self.speed = (self.speed + 1).min(SPEEDS.len() - 1);
    }

    pub(super) fn slower(&mut self) {
        self.speed = self.speed.saturating_sub(1);
    }

    /// A bigger tick; what was owed is dropped (it was counted in the old
    /// tick's unit: seconds owed towards a day became events owed in
    /// next-event mode, and the clock leapt hours).
    pub(super) fn longer_tick(&mut self) {
        self.tick = (self.tick + 1).min(TICKS.len() - 1);
        self.debt = 0.0;
    }

    pub(super) fn shorter_tick(&mut self) {
        self.tick = self.tick.saturating_sub(1);
        self.debt = 0.0;
    }

    /// `dt` wall seconds played at ticks of `t` seconds: the whole ticks
    /// now owed, paid (None: less than one).
    pub(super) fn owed_ticks(&mut self, dt: f64, t: Secs) -> Option<Secs> {
        self.debt += self.speed() * dt;
        let steps = (self.debt / t as f64).floor();
        if steps < 1.0 {
            return None;
        }
        self.debt -= steps * t as f64;
        Some(steps as Secs)
    }

    /// `dt` wall seconds played in next-event mode: events a second are
    /// the speed in minutes of trace time (at least one).
    pub(super) fn owe_events(&mut self, dt: f64) {
        self.debt += (self.speed() / 60.0).max(1.0) * dt;
    }

    /// One event owed, paid (false: none is owed).
    pub(super) fn pay_event(&mut self) -> bool {
        let owed = self.debt >= 1.0;
        if owed {
            self.debt -= 1.0;
        }
        owed
    }

    /// `dt` more wall seconds waited for an answer: what it comes to.
    pub(super) fn wait(&mut self, dt: f64) -> Wait {
        let before = self.waited;
        self.waited += dt;
        if std::mem::take(&mut self.moved_waiting) {
            self.waited = 0.0;
            return Wait::Moved;
        }
        if before < 1.0 && self.waited >= 1.0 {
            Wait::PastASecond
        } else {
            Wait::Still
        }
    }

    /// The replay moved while it still waits (shown on the next frame).
    pub(super) fn moved_while_waiting(&mut self) {
        self.moved_waiting = true;
    }

    /// The answers are in and the replay waits no more: nothing waited,
    /// nothing owed.
    pub(super) fn done_waiting(&mut self) {
        self.waited = 0.0;
        self.debt = 0.0;
        self.moved_waiting = false;
    }

    /// A step forward from `t`: a step back goes back there.
    pub(super) fn stepped_from(&mut self, t: Secs) {
        self.back.push(t);
        if self.back.len() > MAX_BACK {
            self.back.remove(0);
        }
    }

    /// Where the last step forward came from (forgotten now).
    pub(super) fn back_to(&mut self) -> Option<Secs> {
        self.back.pop()
    }

    /// A move forward from `from` to `to` samples the timeline on its way:
    /// at the tick (a minute in next-event mode), or wider where that would
    /// take more than `JUMP_SAMPLES` samples.
    pub(super) fn sample_on_the_way(&mut self, from: Secs, to: Secs) {
        let tick = match self.tick() {
            Tick::Secs(t) => t,
            Tick::NextEvent => 60,
        };
        let step = ((to - from) / JUMP_SAMPLES).max(tick).max(1);
        self.sampling = Some(Sampling {
            next: from + step,
            step,
            to,
        });
    }

    /// Whether a move forward is still sampling on its way.
    pub(super) fn sampling(&self) -> bool {
        self.sampling.is_some()
    }

    /// No move under way samples any more.
    pub(super) fn stop_sampling(&mut self) {
        self.sampling = None;
    }

    /// Where the move under way goes next (taken as gone to), if one is.
    pub(super) fn next_stop(&mut self) -> Option<Stop> {
        let s = self.sampling?;
        if s.next >= s.to {
            self.sampling = None;
            return Some(Stop::End(s.to));
        }
        self.sampling = Some(Sampling {
            next: s.next + s.step,
            ..s
        });
        Some(Stop::Sample(s.next))
    }
}
