//! The engine's clock: instants one at a time, and the question an
//! instant stands at while an external policy's program is to answer.

use super::{Engine, Hook};
use crate::ask::{Question, Reply};
use tracetui_model::Secs;

impl Engine {
    /// The time of the next thing that will happen, if anything will.
    /// None once a failing policy halted the run (headless), so every loop
    /// driving the engine ends there.
    pub fn next_event_time(&self) -> Option<Secs> {
        if self.failing.halted {
            return None;
        }
        if self.asking.is_some() {
            return Some(self.now);
        }
        let arrival = self.arrivals.next_submit();
        let completion = self.completions.first().map_or(Secs::MAX, |(t, _)| t);
        let mut next = arrival.min(completion);
        // A policy's wake-up matters only while something is left to do.
        let idle = next == Secs::MAX && self.queue.is_empty();
        if let Some(at) = self.holds.next_at() {
            next = next.min(at);
        }
        // (Under --rounds its wake-ups wait for the rounds.)
        if let Some(w) = (!self.seat.passive && !idle && !self.gated())
            .then(|| self.books().next_wakeup())
            .flatten()
        {
            next = next.min(w);
        }
        // The next round, where --rounds holds the policy.
        if let Some(r) = (!idle).then(|| self.gate_wakeup()).flatten() {
            next = next.min(r.max(self.now));
        }
        (next != Secs::MAX).then_some(next)
    }

    /// Processes every instant up to and including `t`, then sets the clock to `t`.
    /// Times before the clock are ignored (the engine only goes forward).
    /// Stops early, at the instant it reached, when it stands at a question
    /// (see `question`; `sim::answered::advance_to` answers as it goes).
    pub fn advance_to(&mut self, t: Secs) {
        if self.asking.is_some() {
            return;
        }
        while let Some(next) = self.next_event_time() {
            if next > t || self.failing.halted {
                break;
            }
            self.process_instant(next);
            if self.asking.is_some() {
                return;
            }
        }
        self.now = self.now.max(t);
    }

    /// Runs until nothing is left to happen, or until it stands at a
    /// question (`sim::answered::run_to_end` answers as it goes). Never
    /// inlined: profiles and benchmarks find the engine's whole run under
    /// this one name.
    #[inline(never)]
    pub fn run_to_end(&mut self) {
        while let Some(next) = self.next_event_time().filter(|_| !self.failing.halted) {
            if self.asking.is_some() {
                return;
            }
            self.process_instant(next);
        }
    }

    /// The question the engine stands at: an external policy's program is
    /// to answer before the current instant goes on. Data only; the
    /// driver asks the program, and `answer` resumes.
    pub fn question(&self) -> Option<&Question> {
        self.asking.as_ref().map(|a| &a.question)
    }

    /// Resumes with the reply to the question it stands at: the hook that
    /// asked is asked again, and finds the answer (or the failure, and the
    /// engine falls back). It may stand at the next question then.
    pub fn answer(&mut self, reply: Reply) {
        self.ask_again(Some(reply));
    }

    /// Drops the question it stands at (its hold on the dialogue goes
    /// first), gives the books `reply` if any (a fork has none: its own
    /// books ask their own), and runs the hook that asked again, with what
    /// follows it in the pass.
    pub(super) fn ask_again(&mut self, reply: Option<Reply>) {
        let Some(asked) = self.asking.take() else {
            return;
        };
        let hook = asked.hook;
        drop(asked);
        if let (Some(r), Some(b)) = (reply, self.seat.books.as_mut()) {
            b.answered(r);
        }
        match hook {
            Hook::Decide => self.pass(),
            Hook::AfterPass => self.after_pass(),
        }
        if self.asking.is_none() {
            self.close_round();
            self.tally.peak_queue = self.tally.peak_queue.max(self.queue.len() as u64);
            self.note_frag();
        }
    }

    pub(super) fn process_instant(&mut self, t: Secs) {
        self.now = t;
        let mut released = self.recorded_ends(t);
        while let Some(job) = self.completions.pop_at(t) {
            // The next job to end is read soon: ask for its state now.
            if let Some((_, next)) = self.completions.first() {
                prefetch(&self.jobs[next as usize]);
            }
            // A held end before the end the job's work gives: done as its
            // policy planned, and counted.
            if self.held_ends.natural(job).is_some_and(|n| n > t) {
                self.tally.cut_short += 1;
            }
            self.finish(job);
            released = true;
        }
        let mut arrived = false;
        while let Some(job) = self.arrivals.pop_at(t, &self.shapes.arrival, &self.trace) {
            self.arrive(job);
            arrived = true;
        }
        self.recorded_starts(t);
        let woke = !self.seat.passive && self.with_books(|b, v, a| b.wake(v, a, t));
        if released || woke {
            self.epoch += 1;
        }
        // Under --rounds (`rounds_gate.rs`) only a round decides, at its
        // time whatever happened then.
        if released || arrived || woke || self.gated() {
            self.pass_or_round();
        }
        if self.asking.is_none() {
            self.tally.peak_queue = self.tally.peak_queue.max(self.queue.len() as u64);
            self.note_frag();
        }
    }
}

impl Engine {
    /// The cluster's fragmentation after this instant, where it is measured.
    #[inline]
    fn note_frag(&mut self) {
        if let Some(f) = self.cluster.fragmentation() {
            self.tally.note_frag(self.now, f.percent(), f.free_gpus());
        }
    }
}

/// Asks the CPU to bring `x` into cache (a hint; nothing on other machines).
#[inline(always)]
fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing and faults on nothing; the pointer
    // comes from a reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
