//! The GPU-sharing placements over the cluster's state: the ledger they
//! read (`ledger.rs`), kept in step with every grant once built, and the
//! placement itself — each machine a job fits scored by the rule, the best
//! taken (the first machine among equals), the GPUs chosen as FGD chooses.

use super::{ClusterState, Grant, TypeFilter};
use crate::ledger::{split, Ledger};
use crate::shape_classes::Asks;
use crate::sharing::{Ask, SharingRule};
use tracetui_model::{Demand, Rng};

/// How the one machine of a job is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum How {
    /// By a GPU-sharing rule's score.
    Sharing(SharingRule),
    /// As `consolidate` and `pack` choose, among the machines with the
    /// CPU and memory too: a share on the partly used GPU with the least
    /// room that fits, else the machine with the fewest idle GPUs that fit.
    Tightest,
    /// As `spread` chooses: the machine with the most idle GPUs.
    Roomiest,
}

/// Keeps `ranked` the best `RANKED` (machine, score), best first, the
/// earlier machine among equals (machines come in order).
fn keep_best(ranked: &mut Vec<(u32, i32)>, x: (u32, i32)) {
    let at = ranked.partition_point(|&(_, s)| s >= x.1);
    if at < crate::sharing::RANKED {
        ranked.insert(at, x);
        ranked.truncate(crate::sharing::RANKED);
    }
}

/// A machine's score under `Tightest` and `Roomiest`.
fn classic(how: How, n: &crate::sharing::Node, a: &Ask) -> i32 {
    let idle = n.fitting(1000) as i32;
    match how {
        How::Roomiest => idle,
        _ if a.is_share() => {
            let partial = n
                .free
                .iter()
                .map(|&l| l as u32)
                .filter(|&l| l < 1000 && l >= a.milli)
                .min();
            match partial {
                Some(room) => 2_000_000 - room as i32,
                None => 1_000_000 - idle,
            }
        }
        _ => 1_000_000 - idle,
    }
}

impl ClusterState {
    /// Builds the ledger from the holders, the first time (false without
    /// the trace to build it from).
    pub(crate) fn ensure_ledger(&mut self) -> bool {
        let Some(inputs) = self.inputs.clone() else {
            return false;
        };
        if self.ledger.is_some() {
            return true;
        }
        let typical = inputs.typical();
        let mut l = Ledger::new(inputs.machines(), typical);
        for (m, ms) in self.machines.iter().enumerate() {
            let (a, b) = (ms.first_gpu as usize, (ms.first_gpu + ms.gpus) as usize);
            let mut jobs: Vec<u32> = (a..b)
                .flat_map(|g| self.holders.of(g).iter().map(|h| h.0))
                .collect();
            jobs.sort_unstable();
            jobs.dedup();
            let now = (&self.used[a..b], self.host_use(m as u32));
            l.note(m as u32, now, None, 1, typical);
            for j in jobs {
                l.note(m as u32, now, inputs.held(j), 1, typical);
            }
        }
        self.ledger = Some(Box::new(l));
        true
    }

    /// The cluster's fragmentation against the typical pods and its free
    /// GPU milli, once the ledger is built: from its running sum, so the
    /// screen and the run's summary read one figure, at no cost per instant.
    pub fn fragmentation(&self) -> Option<crate::sharing::Fragmentation> {
        let l = self.ledger.as_deref()?;
        let capacity_milli = self.gpu_count() as u64 * 1000;
        Some(crate::sharing::Fragmentation {
            frag_milli: l.frag_total,
            free_milli: capacity_milli.saturating_sub(self.allocated_milli()),
            capacity_milli,
        })
    }

    /// How the last sharing placement ranked the machines (taken).
    pub(crate) fn take_ranking(&mut self) -> Option<Box<crate::sharing::Ranking>> {
        self.ranking.take()
    }

    /// Keeps the ledger (if built) in step: `job` took (`sign` 1) or gave
    /// back (−1) `grants`.
    pub(super) fn note_ledger(&mut self, job: u32, grants: &[Grant], sign: i64) {
        let (Some(l), Some(inputs)) = (self.ledger.as_deref_mut(), self.inputs.as_deref()) else {
            return;
        };
        let held = inputs.held(job);
        let mut last = None;
        for g in grants {
            if last == Some(g.machine) {
                continue;
            }
            last = Some(g.machine);
            let ms = &self.machines[g.machine as usize];
            let (a, b) = (ms.first_gpu as usize, (ms.first_gpu + ms.gpus) as usize);
            let now = (
                &self.used[a..b],
                super::host::host_of(&self.machines[g.machine as usize]),
            );
            l.note(g.machine, now, held, sign, inputs.typical());
        }
    }

    /// Places `demand` (of type filter `f`, asking `asks` of its machine)
    /// on one machine chosen `how`, into `out`: whether it fits now; `None`
    /// where the demand is not one machine's (several instances, a gang
    /// larger than any machine) or there is no ledger.
    pub(crate) fn place_one(
        &mut self,
        how: How,
        demand: &Demand,
        f: TypeFilter,
        asks: Asks,
        out: &mut Vec<Grant>,
    ) -> Option<bool> {
        self.ranking = None;
        let (gpus, milli) = split(demand)?;
        if gpus > self.max_gpus(TypeFilter::Any) || !self.ensure_ledger() {
            return None;
        }
        let a = Ask {
            cpu_milli: asks.cpu_milli,
            mem_mib: asks.mem_mib,
            gpus,
            milli,
            models: f.types(64).into(),
            kind: 0,
        };
        let chosen = self.choose_one(how, &a)?;
        let Some((m, gpu)) = chosen else {
            return Some(false);
        };
        let l = self.ledger.as_deref()?;
        let n = &l.nodes[m];
        let picked = match gpu {
            Some(g) => vec![g],
            None => n.tightest(a.gpus, a.milli),
        };
        out.extend(picked.into_iter().map(|g| Grant {
            machine: m as u32,
            gpu: g,
            milli: a.milli as u16,
            ..Grant::default()
        }));
        // The first grant holds the pod's CPU and memory; a pod without
        // GPUs holds them by a grant of none.
        match out.first_mut() {
            Some(g) => (g.cpu_milli, g.mem_mib) = (a.cpu_milli, a.mem_mib),
            None if a.cpu_milli > 0 || a.mem_mib > 0 => {
                out.push(Grant::host(m as u32, a.cpu_milli, a.mem_mib))
            }
            None => {}
        }
        Some(true)
    }

    /// The machine (and share GPU) `a` goes to, chosen `how`: `Some(None)`
    /// where it fits none.
    fn choose_one(&mut self, how: How, a: &Ask) -> Option<Option<(usize, Option<u16>)>> {
        let typical = self.inputs.as_deref()?.typical();
        let l = self.ledger.as_deref_mut()?;
        let offered = |m: usize| self.machines[m].indexed;
        let fits: Vec<usize> = (0..l.nodes.len())
            .filter(|&m| offered(m) && l.nodes[m].fits(a))
            .collect();
        if fits.is_empty() {
            return Some(None);
        }
        if how == How::Sharing(SharingRule::Random) {
            l.draws += 1;
            let mut rng = Rng::new(l.draws);
            let m = fits[rng.below(fits.len() as u64) as usize];
            let gpu = a.is_share().then(|| {
                let room: Vec<u16> = (0..l.nodes[m].free.len() as u16)
                    .filter(|&g| l.nodes[m].free[g as usize] as u32 >= a.milli)
                    .collect();
                room[rng.below(room.len() as u64) as usize]
            });
            return Some(Some((m, gpu)));
        }
        let mut scratch = Vec::new();
        let mut best: Option<(i32, usize, Option<u16>)> = None;
        let mut ranked: Vec<(u32, i32)> = Vec::new();
        let fit = fits.len() as u32;
        for m in fits {
            let s = match how {
                How::Sharing(rule) => rule.score(&l.nodes[m], a, typical, &mut scratch),
                _ => crate::sharing::Scored {
                    score: classic(how, &l.nodes[m], a),
                    gpu: None,
                },
            };
            keep_best(&mut ranked, (m as u32, s.score));
            if best.is_none_or(|(b, _, _)| s.score > b) {
                best = Some((s.score, m, s.gpu));
            }
        }
        if let How::Sharing(r) = how {
            self.ranking = Some(Box::new(crate::sharing::Ranking {
                rule: r.name(),
                fit,
                best: ranked,
            }));
        }
        Some(best.map(|(_, m, g)| (m, g)))
    }
}
