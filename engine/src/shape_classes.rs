//! Numbering the jobs' shapes (demand and GPU-type constraint) into classes
//! in arrival order, in one pass over the jobs when the trace is in submit
//! order already (every generated trace and most released ones): the jobs'
//! records (about 110 bytes each, 140 MB at 1.26 M jobs) are read once.

use super::cluster::TypeFilter;
use rustc_hash::FxHashMap;
use tracetui_model::{Demand, Job, Trace};

/// What a job asks of each machine it runs on besides GPUs: CPU and
/// memory (none for most traces; openb's pods ask both).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) struct Asks {
    /// CPU, milli-cores.
    pub(crate) cpu_milli: u32,
    /// Memory, MiB.
    pub(crate) mem_mib: u32,
}

impl Asks {
    /// What `job` asks.
    pub(crate) fn of(job: &Job) -> Asks {
        Asks {
            cpu_milli: job.cpu_milli,
            mem_mib: job.mem_mib,
        }
    }
}

/// Whole-GPU gangs of any GPU type up to this size are looked up by size
/// in a table instead of hashed.
const TABLED_GANGS: usize = 1024;

/// A class's demand and the GPU types it may use.
type Shape = (Demand, TypeFilter);

/// Classes, arrival order and ranks of a trace's jobs.
pub(super) struct Classes {
    pub arrival: Vec<u32>,
    pub rank: Vec<u32>,
    pub class_of: Vec<u32>,
    pub shapes: Vec<(Demand, TypeFilter)>,
    /// Each class's CPU and memory (jobs that ask differently are of
    /// different classes).
    pub asks: Vec<Asks>,
}

/// Arrival is by submit time, then by place in the trace; classes are
/// numbered in order of first arrival.
pub(super) fn classes(trace: &Trace) -> Classes {
    let n = trace.jobs.len();
    let mut numbering = Numbering::default();
    let mut class_of = Vec::with_capacity(n);
    let mut in_order = true;
    let mut last = i64::MIN;
    for job in &trace.jobs {
        in_order &= job.submit >= last;
        last = job.submit;
        class_of.push(numbering.class(job));
    }
    let (shapes, asks) = (numbering.shapes, numbering.asks);
    if in_order {
        let arrival: Vec<u32> = (0..n as u32).collect();
        let rank = arrival.clone();
        return Classes {
            arrival,
            rank,
            class_of,
            shapes,
            asks,
        };
    }
    let mut arrival: Vec<u32> = (0..n as u32).collect();
    arrival.sort_by_key(|&j| (trace.jobs[j as usize].submit, j));
    let mut rank = vec![0u32; n];
    // Renumber the classes (numbered in trace order) by first arrival.
    let mut renumbered = vec![u32::MAX; shapes.len()];
    let mut next = 0;
    for (r, &j) in arrival.iter().enumerate() {
        rank[j as usize] = r as u32;
        let c = &mut renumbered[class_of[j as usize] as usize];
        if *c == u32::MAX {
            *c = next;
            next += 1;
        }
    }
    for c in &mut class_of {
        *c = renumbered[*c as usize];
    }
    let mut by_new: Vec<(u32, (Shape, Asks))> = renumbered
        .into_iter()
        .zip(shapes.into_iter().zip(asks))
        .collect();
    by_new.sort_unstable_by_key(|(c, _)| *c);
    let (shapes, asks) = by_new.into_iter().map(|(_, s)| s).unzip();
    Classes {
        arrival,
        rank,
        class_of,
        shapes,
        asks,
    }
}

/// Shapes numbered in order of first sight.
#[derive(Default)]
struct Numbering<'t> {
    hashed: FxHashMap<(&'t Demand, TypeFilter, Asks), u32>,
    /// Class + 1 of a whole-GPU gang of any type asking nothing else, by
    /// its GPUs (0: none yet).
    tabled: Vec<u32>,
    shapes: Vec<(Demand, TypeFilter)>,
    asks: Vec<Asks>,
}

impl<'t> Numbering<'t> {
    fn class(&mut self, job: &'t Job) -> u32 {
        let filter = TypeFilter::of_job(job);
        let asks = Asks::of(job);
        if let (Demand::Gang { gpus }, TypeFilter::Any, 0, 0) =
            (&job.demand, filter, asks.cpu_milli, asks.mem_mib)
        {
            let gpus = *gpus as usize;
            if gpus < TABLED_GANGS {
                if self.tabled.is_empty() {
                    self.tabled = vec![0; TABLED_GANGS];
                }
                if self.tabled[gpus] == 0 {
                    self.shapes.push((job.demand.clone(), filter));
                    self.asks.push(asks);
                    self.tabled[gpus] = self.shapes.len() as u32;
                }
                return self.tabled[gpus] - 1;
            }
        }
        let (shapes, all) = (&mut self.shapes, &mut self.asks);
        *self
            .hashed
            .entry((&job.demand, filter, asks))
            .or_insert_with(|| {
                shapes.push((job.demand.clone(), filter));
                all.push(asks);
                (shapes.len() - 1) as u32
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use tracetui_model::Unit;

    /// The classes as numbered before this module: sort, then hash each
    /// job's shape in arrival order.
    fn plain(trace: &Trace) -> Classes {
        let n = trace.jobs.len();
        let mut arrival: Vec<u32> = (0..n as u32).collect();
        arrival.sort_by_key(|&j| (trace.jobs[j as usize].submit, j));
        let mut rank = vec![0u32; n];
        let mut index: FxHashMap<(Demand, TypeFilter), u32> = FxHashMap::default();
        let mut shapes = Vec::new();
        let mut asks = Vec::new();
        let mut class_of = vec![0u32; n];
        for (r, &j) in arrival.iter().enumerate() {
            rank[j as usize] = r as u32;
            let job = &trace.jobs[j as usize];
            let key = (job.demand.clone(), TypeFilter::from(job.gpu_type));
            class_of[j as usize] = *index.entry(key.clone()).or_insert_with(|| {
                shapes.push(key);
                asks.push(Asks::default());
                (shapes.len() - 1) as u32
            });
        }
        Classes {
            arrival,
            rank,
            class_of,
            shapes,
            asks,
        }
    }

    proptest! {
        /// In order or not, gangs small and large, typed or not, and
        /// instance demands: the same numbering as sorting and hashing.
        #[test]
        fn classes_are_numbered_by_first_arrival(
            jobs in proptest::collection::vec((0i64..20, 0u32..1100, 0u8..3, any::<bool>()), 0..120),
            sorted in any::<bool>(),
        ) {
            let mut trace = tracetui_model::sample_itp().expect("the embedded sample loads").0;
            let mut jobs = jobs;
            if sorted {
                jobs.sort_by_key(|j| j.0);
            }
            let template = trace.jobs[0].clone();
            trace.jobs = jobs.iter().map(|&(submit, gpus, ty, instances)| {
                let mut j = template.clone();
                j.submit = submit;
                j.gpu_type = (ty > 0).then(|| ty as u16 - 1);
                j.demand = match instances {
                    true => Demand::Instances(vec![Unit::gpus(1 + gpus % 3, 500)].into()),
                    false => Demand::Gang { gpus: gpus % 8 + (gpus / 1000) * 1000 },
                };
                j
            }).collect();
            let (got, want) = (classes(&trace), plain(&trace));
            prop_assert_eq!(got.arrival, want.arrival);
            prop_assert_eq!(got.rank, want.rank);
            prop_assert_eq!(got.class_of, want.class_of);
            prop_assert_eq!(got.shapes, want.shapes);
            prop_assert_eq!(got.asks, want.asks);
        }
    }
}
