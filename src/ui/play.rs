//! Moving through time: playing, stepping, stepping back, going to a time.

use super::app::{App, Asker, Effect, Tick};
use super::playback::{Stop, Wait};
use crate::sim::{Event, Question, Reply};
use crate::trace::{MachineValues, Secs};

impl App {
    /// Wall time passed: while playing, advance by whole ticks owed.
    pub(super) fn play(&mut self, dt: f64) -> bool {
        if self.waiting() {
            return self.keep_waiting(dt);
        }
        if self.sim.playback.paused() || self.view.popup.is_some() {
            return false;
        }
        if self.engine().next_event_time().is_none() {
            self.sim.playback.pause();
            self.view.flash = Some("end of the trace".into());
            return true;
        }
        let now = self.sim.replay.now();
        match self.tick_size() {
            Tick::Secs(t) => {
                let Some(steps) = self.sim.playback.owed_ticks(dt, t) else {
                    return false;
                };
                let target = self.ticks_ahead(now, t, steps);
                if let Some(at) = self.caption_stop(now, target) {
                    return self.stop_at_caption(at);
                }
                self.move_to(target);
            }
            Tick::NextEvent => {
                self.sim.playback.owe_events(dt);
                let mut moved = false;
                while self.sim.playback.pay_event() {
                    let Some(t) = self.engine().next_event_time() else {
                        break;
                    };
                    let now = self.sim.replay.now();
                    if let Some(at) = self.caption_stop(now, t) {
                        return self.stop_at_caption(at);
                    }
                    self.sim.replay.seek(t);
                    moved = true;
                    if self.sim.replay.waiting() {
                        break;
                    }
                }
                if !moved {
                    return false;
                }
                self.after_move();
            }
        }
        true
    }

    /// `k` ticks of `t` seconds after `now`. From the replay's start (a
    /// second before the first submission, which the clock shows as the
    /// first submission's instant) the first lands on the clock's next
    /// boundary after that instant, so ticks fall on :00 and the first
    /// moves the clock; from anywhere else a tick is `t` seconds.
    fn ticks_ahead(&self, now: Secs, t: Secs, k: i64) -> Secs {
        let first = self.sim.facts.first();
        if now == first - 1 {
            crate::trace::tick_boundary(self.trace().zone, first, t, k)
        } else {
            now + k * t
        }
    }

    /// Playing reached a caption's moment: it stops there, paused, as a
    /// slide does.
    fn stop_at_caption(&mut self, at: Secs) -> bool {
        self.sim.playback.pause();
        self.move_to(at);
        self.view.flash = Some(self.caption_flash(at));
        true
    }

    /// The replay waits for an external policy's answer (the runner asks
    /// the program, `answered` goes on): what moved meanwhile is shown once
    /// a frame, and the header counts the wait of the point it stands at.
    /// Playing owes no ticks for the wait.
    fn keep_waiting(&mut self, dt: f64) -> bool {
        match self.sim.playback.wait(dt) {
            Wait::Moved => {
                self.after_move();
                return true;
            }
            Wait::PastASecond => self.say_who_is_waited_for(),
            Wait::Still => {}
        }
        self.sync_split();
        true
    }

    /// The flash line names the policy the replay waits for.
    fn say_who_is_waited_for(&mut self) {
        let who = match &self.sim.split {
            Some(s) if !self.sim.replay.waiting() => s.replay.engine().policy(),
            _ => self.engine().policy(),
        };
        self.view.flash = Some(format!(
            "waiting for {} (timeout {:.0} s)",
            who.label(),
            self.engine().tuning().policy_timeout.as_secs_f64()
        ));
    }

    /// The reply to the question a replay stood at: it goes on toward
    /// where it was going. Ignored if that replay no longer stands there.
    pub(super) fn answered(&mut self, asker: Asker, question: Question, reply: Reply) -> bool {
        let before = self.sim.replay.now();
        let replay = match asker {
            Asker::Replay => &mut self.sim.replay,
            Asker::Split => match self.sim.split.as_mut() {
                Some(s) => &mut s.replay,
                None => return false,
            },
        };
        if replay.question() != Some(&question) {
            return false;
        }
        // Its hold on the dialogue goes before the replay goes on.
        drop(question);
        replay.answer(reply);
        if !self.waiting() && asker == Asker::Replay && self.sim.playback.sampling() {
            // Arrived where it was to sample: on to the next point.
            self.record_sample();
            self.go_on_sampling();
        }
        if !self.waiting() {
            self.sim.playback.done_waiting();
            self.after_move();
        } else if self.sim.replay.now() != before {
            self.sim.playback.moved_while_waiting();
        }
        true
    }

    pub(super) fn step_forward(&mut self) {
        let now = self.sim.replay.now();
        let target = match self.tick_size() {
            Tick::Secs(t) => self.ticks_ahead(now, t, 1),
            Tick::NextEvent => match self.engine().next_event_time() {
                Some(t) => t,
                None => {
                    self.view.flash = Some("end of the trace".into());
                    return;
                }
            },
        };
        self.sim.playback.stepped_from(now);
        // A step does not go past a caption's moment.
        let target = self.caption_stop(now, target).unwrap_or(target);
        self.move_to(target);
    }

    pub(super) fn step_back(&mut self) {
        let now = self.sim.replay.now();
        let target = match self.tick_size() {
            Tick::Secs(t) => now - t,
            Tick::NextEvent => self.sim.playback.back_to().unwrap_or(now - 1),
        };
        let start = self.sim.facts.first() - 1;
        if now <= start {
            self.view.flash = Some("at the start of the trace".into());
            return;
        }
        self.move_to(target.max(start));
    }

    /// Goes to `t` with no line per event on the way: the live view,
    /// built anew at each answer, stands at its second again.
    pub(super) fn move_quietly_to(&mut self, t: Secs) {
        self.sim.playback.stop_sampling();
        self.sim.replay.seek(t);
        self.sim.replay.engine_mut().take_events();
        self.after_move();
    }

    /// Goes to `t` (forward or back) and refreshes what depends on the state.
    /// Going back logs one line, not the events re-simulated on the way.
    pub(super) fn move_to(&mut self, t: Secs) {
        let from = self.sim.replay.now();
        self.sim.playback.stop_sampling();
        if t > from {
            self.sample_on_the_way(from, t);
        } else {
            self.sim.replay.seek(t);
        }
        if t < from {
            self.sim.replay.engine_mut().take_events();
            let (from, to) = (self.clock(from), self.clock(self.sim.replay.now()));
            self.info(format!("back from {from} to {to}"));
        }
        self.after_move();
    }

    /// A move forward (a `g` jump, fast play) stops on its way to sample
    /// the timeline (`Playback::sample_on_the_way` says where): the
    /// timeline and the sparklines show what happened there, as `sim
    /// --timeline-out` does, rather than a straight line. Waiting for an
    /// external policy's answer, it goes on sampling once answered.
    fn sample_on_the_way(&mut self, from: Secs, to: Secs) {
        self.sim.playback.sample_on_the_way(from, to);
        self.go_on_sampling();
    }

    /// Goes on with the move under way: to each sample point in turn, a
    /// sample there, then to its end; stops where the replay waits.
    fn go_on_sampling(&mut self) {
        while let Some(stop) = self.sim.playback.next_stop() {
            match stop {
                Stop::End(t) => {
                    self.sim.replay.seek(t);
                    return;
                }
                Stop::Sample(t) => {
                    self.sim.replay.seek(t);
                    if self.sim.replay.waiting() {
                        return;
                    }
                    self.record_sample();
                }
            }
        }
    }

    /// The timeline's sample of the state now.
    fn record_sample(&mut self) {
        let e = self.sim.replay.engine();
        let sample = super::timeline::Sample {
            at: e.now(),
            util: e.busy_percent(),
            queue: e.queue_len() as u64,
            running: e.running().len() as u64,
            watts: e.watts(),
            frag: e.cluster().fragmentation().map(|f| f.percent()),
        };
        self.sim.timeline.record(sample);
        // The split's B side, at the same time, for `T`'s overlay.
        let now = self.sim.replay.now();
        if let Some(s) = self.sim.split.as_mut() {
            if !s.replay.waiting() && (s.replay.now() != now || s.replay.target() != now) {
                s.replay.seek(now);
                s.replay.engine_mut().take_events();
            }
            let b = s.replay.engine();
            s.timeline.record(super::timeline::Sample {
                at: b.now(),
                util: b.busy_percent(),
                queue: b.queue_len() as u64,
                running: b.running().len() as u64,
                watts: b.watts(),
                frag: b.cluster().fragmentation().map(|f| f.percent()),
            });
        }
    }

    /// Refreshes what depends on the replay's state after it moved or switched.
    pub(super) fn after_move(&mut self) {
        self.record_sample();
        self.log_events();
        self.sync_split();
        self.refresh_figures();
        self.refresh_gpu_util();
        self.follow_cursor_job();
    }

    /// Asks the runner for the measured utilisation of the minute shown
    /// (answered once the trace's file is indexed: Philly).
    pub(super) fn refresh_gpu_util(&mut self) {
        if self.trace().native.is_some() {
            let at = self.sim.replay.now();
            self.emit(Effect::ReadGpuUtil { at });
        }
    }

    /// The runner's answer: kept while the replay is still at `at`, the
    /// per-GPU values rebuilt only when the minute changes.
    pub(super) fn gpu_util_read(
        &mut self,
        at: Secs,
        minute: Option<(Secs, MachineValues)>,
    ) -> bool {
        if at != self.sim.replay.now() {
            return false;
        }
        let cluster = self.sim.replay.engine().cluster();
        self.sim.measured.minute_read(minute, cluster)
    }

    /// Engine events to the log: each when few, a summary when many.
    fn log_events(&mut self) {
        let events = self.sim.replay.engine_mut().take_events();
        let n = EventCounts::of(&events);
        let at = self.clock(self.sim.replay.now());
        self.log_failures(&events);
        if n.started + n.finished + n.rejected + n.preempted + n.resized + n.dropped <= 3 {
            // One line each, at the event's own time.
            for e in events {
                self.log_event(e);
            }
        } else {
            self.log_summary(&at, &n);
        }
    }

    /// One event's line on the log, at its own time.
    fn log_event(&mut self, e: Event) {
        let trace = self.trace().clone();
        let id = |j: u32| crate::text::sanitize(&trace.jobs[j as usize].id);
        match e {
            Event::Started {
                job,
                machines,
                at,
                milli,
            } => {
                let on = if machines > 1 {
                    format!(" on {machines} machines")
                } else {
                    String::new()
                };
                // What it started on: an elastic start holds what its policy gave it.
                let g = milli as f64 / 1000.0;
                let s = if g == 1.0 { "" } else { "s" };
                let g = super::queue::fmt_gpus(g);
                let at = self.clock(at);
                self.info(format!("{at} started {} · {g} GPU{s}{on}", id(job)))
            }
            Event::Finished { job, at } => {
                let at = self.clock(at);
                self.info(format!("{at} finished {}", id(job)))
            }
            Event::Preempted { job, at } => {
                let at = self.clock(at);
                self.info(format!("{at} preempted {}", id(job)))
            }
            Event::Resized { job, at, from, to } => {
                let at = self.clock(at);
                let how = if to > from {
                    "grew"
                } else if to < from {
                    "shrank"
                } else {
                    "moved"
                };
                self.info(format!("{at} {how} {} · {from}→{to} GPUs", id(job)))
            }
            Event::Dropped { job, at } => {
                let at = self.clock(at);
                self.warn(format!("{at} dropped {}: declined by the policy", id(job)))
            }
            Event::Rejected { job, at } => {
                let at = self.clock(at);
                self.warn(format!(
                    "{at} rejected {}: larger than the cluster",
                    id(job)
                ))
            }
            Event::PolicySwitched { .. }
            | Event::PowerSwitched { .. }
            | Event::PlacementSwitched { .. }
            | Event::PolicyFailed { .. } => {}
        }
    }

    /// Many events in one move: their counts by `at`, and the queue.
    fn log_summary(&mut self, at: &str, n: &EventCounts) {
        let mut pre = String::new();
        for (k, what) in [
            (n.preempted, "preempted"),
            (n.resized, "resized"),
            (n.dropped, "dropped"),
        ] {
            if k > 0 {
                pre.push_str(&format!(", {k} {what}"));
            }
        }
        let queue = self.engine().queue_len();
        let (started, finished, rejected) = (n.started, n.finished, n.rejected);
        self.info(format!(
            "by {at}: +{started} started, +{finished} finished{pre}, queue {queue}"
        ));
        if rejected > 0 {
            self.warn(format!(
                "{at} {rejected} jobs rejected: larger than the cluster"
            ));
        }
    }
}

/// How many of a move's events are of each kind the log tells of.
#[derive(Default)]
struct EventCounts {
    started: u64,
    finished: u64,
    rejected: u64,
    preempted: u64,
    resized: u64,
    dropped: u64,
}

impl EventCounts {
    /// The counts of `events` (switches and failures are logged apart).
    fn of(events: &[Event]) -> EventCounts {
        let mut n = EventCounts::default();
        for e in events {
            match e {
                Event::Started { .. } => n.started += 1,
                Event::Finished { .. } => n.finished += 1,
                Event::Rejected { .. } => n.rejected += 1,
                Event::Preempted { .. } => n.preempted += 1,
                Event::Resized { .. } => n.resized += 1,
                Event::Dropped { .. } => n.dropped += 1,
                Event::PolicySwitched { .. }
                | Event::PowerSwitched { .. }
                | Event::PlacementSwitched { .. }
                | Event::PolicyFailed { .. } => {}
            }
        }
        n
    }
}

impl App {
    /// A policy that failed: the reason (already made safe by the engine),
    /// what the replay fell back to, on the log and the flash line.
    fn log_failures(&mut self, events: &[Event]) {
        let failures = self.engine().failures();
        let n = events
            .iter()
            .filter(|e| matches!(e, Event::PolicyFailed { .. }))
            .count();
        let recent: Vec<_> = failures[failures.len().saturating_sub(n)..].to_vec();
        for f in recent {
            let at = self.clock(f.at);
            let back = f
                .fell_back_to
                .map_or("stopped".into(), |p| format!("back to {p}"));
            self.warn(format!("{at} {} failed: {}; {back}", f.policy, f.why));
            self.view.flash = Some(format!("{} failed ({back}): see the log", f.policy));
        }
    }
}
