//! Energy accounting and the live power-limit policy (with a Zeus model).

use super::power_meter::{JobPower, Power};
use super::Engine;
use crate::energy::{Draw, EnergyModel, PowerPolicy};
use rustc_hash::FxHashMap;
use std::sync::Arc;
use tracetui_model::Secs;

impl Engine {
    /// Gives the replay an energy model; jobs start under `policy`'s power limits.
    pub fn with_energy(mut self, model: Arc<EnergyModel>, policy: PowerPolicy) -> Engine {
        let workload = Arc::new(crate::energy::workloads(&self.trace));
        self.power = Some(Power {
            model,
            workload,
            policy,
            draw: 0.0,
            draw_start: 0.0,
            joules: 0.0,
            held: FxHashMap::default(),
            per_job: FxHashMap::default(),
        });
        self.rebuild_queue();
        self
    }

    /// The power-limit policy in force (None without an energy model).
    pub fn power_policy(&self) -> Option<PowerPolicy> {
        self.power.as_ref().map(|p| p.policy)
    }

    /// The limit, run-time factor and watts per GPU `job` gets under the current power policy.
    pub fn draw_of(&self, job: u32) -> Option<Draw> {
        let p = self.power.as_ref()?;
        Some(p.model.draw(p.policy, p.workload[job as usize] as usize))
    }

    /// The job's run time under the current power policy.
    pub(super) fn runtime_of(&self, job: u32) -> Option<Secs> {
        if let Some(rt) = self.speed_runtime(job) {
            return Some(rt);
        }
        let rt = self.trace.jobs[job as usize].runtime.get()?;
        Some(match self.draw_of(job) {
            Some(d) if self.seat.walk != crate::policy::Walk::Recorded => {
                (rt as f64 * d.time_factor).round() as Secs
            }
            _ => rt,
        })
    }

    /// The most watts per GPU the model has (for colour scales).
    pub fn max_watts(&self) -> Option<f64> {
        self.power.as_ref().map(|p| p.model.max_watts())
    }

    /// Watts the cluster draws now.
    pub fn watts(&self) -> Option<f64> {
        self.power.as_ref().map(|p| p.draw)
    }

    /// Joules drawn so far, running holds included.
    pub fn joules(&self) -> Option<f64> {
        self.power
            .as_ref()
            .map(|p| p.joules + p.draw * self.now as f64 - p.draw_start)
    }

    /// A hold (a job, or a recorded segment) starts drawing `gpus` GPUs' worth of power.
    pub(super) fn power_on(&mut self, key: u64, job: u32, gpus: f64, max_limit: bool) {
        let now = self.now;
        let Some(p) = self.power.as_mut() else { return };
        let pol = if max_limit {
            PowerPolicy::Max
        } else {
            p.policy
        };
        let d = p.model.draw(pol, p.workload[job as usize] as usize);
        let w = d.watts * gpus;
        p.draw += w;
        p.draw_start += w * now as f64;
        p.held.insert(key, (w, now, job));
        p.per_job.entry(job).or_insert((0, 0.0)).0 = d.limit;
    }

    pub(super) fn power_off(&mut self, key: u64) {
        let now = self.now;
        let Some(p) = self.power.as_mut() else { return };
        if let Some((w, start, job)) = p.held.remove(&key) {
            let j = w * (now - start) as f64;
            p.draw -= w;
            p.draw_start -= w * start as f64;
            p.joules += j;
            p.per_job.entry(job).or_insert((0, 0.0)).1 += j;
        }
    }

    /// A job's power limit, watts now and energy so far (None before it first starts).
    pub fn job_power(&self, job: u32) -> Option<JobPower> {
        let p = self.power.as_ref()?;
        let &(limit, done) = p.per_job.get(&job)?;
        let now = self.now;
        let (watts, running) = p
            .held
            .values()
            .filter(|h| h.2 == job)
            .fold((0.0, 0.0), |(w, r), h| {
                (w + h.0, r + h.0 * (now - h.1) as f64)
            });
        Some(JobPower {
            limit,
            watts,
            joules: done + running,
        })
    }
}
