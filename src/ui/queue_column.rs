//! The queue's ordering column: what a policy orders its queue by, shown
//! beside each waiting job — the run time, a deadline's time left, the
//! owner's share, a `las` level — so the order on screen is explained.
//! The main queue and each side of the A/B split use it.

use crate::sim::Engine;
use crate::trace::{human_secs, Trace};

/// The queue's last column: what the policy orders by, where that is not
/// the run time — `edf` a deadline, `fair` the owner's share of the GPUs.
pub(super) enum QueueColumn {
    Runtime,
    DueIn,
    Share(crate::sim::FairBy),
    /// A priority queue's number and the attained GPU service (`las`).
    Level,
    /// How long it has waited: arrival order (`fifo`; the split's queue,
    /// which has one column).
    Waited,
    /// Run time × GPUs, what `sgf` orders by (the split's queue).
    GpuTime,
}

impl QueueColumn {
    /// The column for the policy `e` runs (the main queue's second column).
    pub(super) fn of(e: &Engine) -> QueueColumn {
        match e.policy() {
            p if p.key_meaning() == crate::sim::KeyMeaning::Deadline => QueueColumn::DueIn,
            p if p == crate::sim::Policy::Fair => QueueColumn::Share(e.tuning().fair_by),
            p if p.key_meaning() == crate::sim::KeyMeaning::Level => QueueColumn::Level,
            _ => QueueColumn::Runtime,
        }
    }

    /// The one column that explains `e`'s order (the split's queue):
    /// arrival order shows the wait, any other its key.
    pub(super) fn ordering(e: &Engine) -> QueueColumn {
        match e.policy().key_meaning() {
            crate::sim::KeyMeaning::Arrival => QueueColumn::Waited,
            crate::sim::KeyMeaning::GpuTime => QueueColumn::GpuTime,
            _ => QueueColumn::of(e),
        }
    }

    pub(super) fn head(&self) -> &'static str {
        match self {
            QueueColumn::Runtime => "runtime",
            QueueColumn::DueIn => "due in",
            QueueColumn::Share(_) => "share",
            QueueColumn::Level => "queue",
            QueueColumn::Waited => "waited",
            QueueColumn::GpuTime => "GPU time",
        }
    }

    /// Job `j`'s value in `e` (its column's text).
    pub(super) fn value(&self, trace: &Trace, e: &Engine, j: u32) -> String {
        let job = &trace.jobs[j as usize];
        match self {
            // Under a speed model, on what it asks for (fastest type).
            QueueColumn::Runtime => e
                .speed_runtime(j)
                .or(job.runtime.get())
                .map_or("?".into(), |r| human_secs(r as f64)),
            // `Q1 3h12m`: its queue, and the GPU service it has had.
            QueueColumn::Level => {
                let r = crate::sim::View::resume(e, j);
                let q = if r.promoted {
                    0
                } else {
                    e.tuning().las_queue(r.attained)
                };
                let gpu_secs = (r.attained / 1000) as f64;
                crate::text::fit(&format!("Q{q} {}", human_secs(gpu_secs)), 8)
            }
            QueueColumn::Waited => human_secs(waited(trace, e, j) as f64),
            QueueColumn::GpuTime => e
                .speed_runtime(j)
                .or(job.runtime.get())
                .map_or("?".into(), |r| human_secs(r as f64 * job.gpus_display())),
            QueueColumn::DueIn => match job.deadline.get() {
                Some(d) if d >= e.now() => human_secs((d - e.now()) as f64),
                Some(d) => format!("-{}", human_secs((e.now() - d) as f64)),
                None => "-".into(),
            },
            QueueColumn::Share(by) => {
                let owner = |j: u32| {
                    let job = &trace.jobs[j as usize];
                    match by {
                        crate::sim::FairBy::User => job.user,
                        crate::sim::FairBy::Group => job.group,
                    }
                };
                let me = owner(j);
                if me.is_none() {
                    return "-".into();
                }
                let milli: u64 = e
                    .running()
                    .iter()
                    .filter(|(&r, _)| owner(r) == me)
                    .flat_map(|(_, g)| g.iter().map(|g| g.milli as u64))
                    .sum();
                let total = trace.cluster.total_gpus().max(1) * 1000;
                format!("{:.1}%", milli as f64 * 100.0 / total as f64)
            }
        }
    }
}

/// How long waiting job `j` has waited: since its submission, less the
/// time it held GPUs before a preemption (a preempted job's runs are not
/// waits).
pub(super) fn waited(trace: &Trace, e: &Engine, j: u32) -> crate::trace::Secs {
    let held = crate::sim::View::preempted_before(e, j).map_or(0, |r| r.held);
    (e.now() - trace.jobs[j as usize].submit - held).max(0)
}

/// When running job `j`'s current run began: a resumed job's resumption,
/// else its start.
pub(super) fn run_began(e: &Engine, j: u32) -> crate::trace::Secs {
    let start = e.job_state(j).start;
    crate::sim::View::preempted_before(e, j).map_or(start, |r| r.run_from.max(start))
}
