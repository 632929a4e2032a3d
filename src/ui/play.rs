//! Moving through time: playing, stepping, stepping back, going to a time.

use super::app::{App, Tick, HISTORY, SPEEDS};
use crate::sim::Event;
use crate::trace::model::Secs;
use std::sync::Arc;

impl App {
    /// Wall time passed: while playing, advance by whole ticks owed.
    pub(super) fn play(&mut self, dt: f64) -> bool {
        if self.paused || self.popup.is_some() {
            return false;
        }
        if self.engine().next_event_time().is_none() {
            self.paused = true;
            self.flash = Some("end of the trace".into());
            return true;
        }
        let speed = SPEEDS[self.speed];
        match self.tick_size() {
            Tick::Secs(t) => {
                self.debt += speed * dt;
                let steps = (self.debt / t as f64).floor();
                if steps < 1.0 {
                    return false;
                }
                self.debt -= steps * t as f64;
                let target = self.replay.now() + steps as Secs * t;
                self.move_to(target, false);
            }
            Tick::NextEvent => {
                // Events a second: the speed in minutes of trace time.
                self.debt += (speed / 60.0).max(1.0) * dt;
                let mut moved = false;
                while self.debt >= 1.0 {
                    self.debt -= 1.0;
                    let Some(t) = self.engine().next_event_time() else {
                        break;
                    };
                    self.replay.seek(t);
                    moved = true;
                }
                if !moved {
                    return false;
                }
                self.after_move_with(false);
            }
        }
        true
    }

    pub(super) fn step_forward(&mut self) {
        let now = self.replay.now();
        let target = match self.tick_size() {
            Tick::Secs(t) => now + t,
            Tick::NextEvent => match self.engine().next_event_time() {
                Some(t) => t,
                None => {
                    self.flash = Some("end of the trace".into());
                    return;
                }
            },
        };
        self.back.push(now);
        if self.back.len() > 10_000 {
            self.back.remove(0);
        }
        self.move_to(target, true);
    }

    pub(super) fn step_back(&mut self) {
        let now = self.replay.now();
        let target = match self.tick_size() {
            Tick::Secs(t) => now - t,
            Tick::NextEvent => self.back.pop().unwrap_or(now - 1),
        };
        let start = self.first - 1;
        if now <= start {
            self.flash = Some("at the start of the trace".into());
            return;
        }
        self.move_to(target.max(start), true);
    }

    /// Goes to `t` (forward or back) and refreshes what depends on the state.
    pub fn move_to(&mut self, t: Secs, force: bool) {
        self.replay.seek(t);
        self.after_move_with(force);
    }

    pub(super) fn after_move(&mut self) {
        self.after_move_with(true);
    }

    fn after_move_with(&mut self, _full: bool) {
        let e = self.replay.engine();
        let gpus = self.trace().cluster.total_gpus().max(1);
        let util = e.cluster().allocated_milli() * 100 / (gpus * 1000);
        let queue = e.queue_len() as u64;
        push(&mut self.util_hist, util);
        if let Some(w) = e.watts() {
            push(&mut self.power_hist, w.max(0.0) as u64);
        }
        push(&mut self.queue_hist, queue);
        self.log_events();
        self.refresh_figures();
        self.refresh_gpu_util();
        self.follow_cursor_job();
    }

    /// The measured utilisation of the minute shown, once the file is indexed
    /// (Philly); read again only when the minute changes.
    pub(super) fn refresh_gpu_util(&mut self) {
        let Some(file) = self.trace().native.as_ref().filter(|n| n.gpu_util_ready()) else {
            return;
        };
        let now = self.replay.now();
        let cached = self.gpu_util.as_ref().map(|g| g.0);
        // Rows older than two minutes do not describe now.
        match file.gpu_util_at(now, 120) {
            Some((when, _)) if Some(when) == cached => {}
            Some((when, rows)) => {
                let c = self.engine().cluster();
                let mut v = vec![f32::NAN; c.gpu_count()];
                for (m, vals) in rows {
                    let base = c.first_gpu(m);
                    for (k, x) in vals.into_iter().enumerate().take(c.cap(m) as usize) {
                        v[base + k] = x.unwrap_or(f32::NAN);
                    }
                }
                self.gpu_util = Some((when, Arc::new(v)));
            }
            None => self.gpu_util = None,
        }
    }

    /// Engine events to the log: each when few, a summary when many.
    fn log_events(&mut self) {
        let events = self.replay.engine_mut().take_events();
        let (mut started, mut finished, mut rejected) = (0u64, 0u64, 0u64);
        let mut preempted = 0u64;
        for e in &events {
            match e {
                Event::Started { .. } => started += 1,
                Event::Finished { .. } => finished += 1,
                Event::Rejected { .. } => rejected += 1,
                Event::Preempted { .. } => preempted += 1,
                Event::PolicySwitched { .. } | Event::PowerSwitched { .. } => {}
            }
        }
        let at = self.clock(self.replay.now());
        if started + finished + rejected + preempted <= 3 {
            for e in events {
                let trace = self.trace().clone();
                let id = |j: u32| crate::trace::input::sanitize(&trace.jobs[j as usize].id);
                match e {
                    Event::Started { job, machines, .. } => log::info!(
                        "{at} job {} started on {machines} machine{} ({} GPUs)",
                        id(job),
                        if machines == 1 { "" } else { "s" },
                        trace.jobs[job as usize].gpus_display()
                    ),
                    Event::Finished { job, .. } => log::info!("{at} job {} finished", id(job)),
                    Event::Preempted { job, .. } => log::info!("{at} job {} preempted", id(job)),
                    Event::Rejected { job, .. } => {
                        log::warn!("{at} job {} rejected: larger than the cluster", id(job))
                    }
                    Event::PolicySwitched { .. } | Event::PowerSwitched { .. } => {}
                }
            }
        } else {
            let pre = if preempted > 0 {
                format!(", {preempted} preempted")
            } else {
                String::new()
            };
            log::info!(
                "{at} +{started} started, +{finished} finished{pre}, queue {}",
                self.engine().queue_len()
            );
            if rejected > 0 {
                log::warn!("{at} {rejected} jobs rejected: larger than the cluster");
            }
        }
    }
}

fn push(h: &mut std::collections::VecDeque<u64>, v: u64) {
    if h.len() == HISTORY {
        h.pop_front();
    }
    h.push_back(v);
}
