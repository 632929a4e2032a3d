//! GPUs a deciding policy names for a job it starts: each a real GPU of
//! a machine the job may use, with room, adding up to its demand, and on
//! each machine the CPU and memory the job asks free too.

use super::Engine;
use crate::cluster::{ClusterState, Grant, TypeFilter};
use crate::error::Refused;
use tracetui_model::Demand;

impl Engine {
    /// GPUs a policy named for `job`: on real machines and GPUs of a type
    /// it may use, with room, adding up to its demand, and on each machine
    /// the CPU and memory it asks there free (held on the first grant
    /// there). Sorted by machine.
    pub(super) fn check_grants(
        &self,
        s: &ClusterState,
        job: u32,
        mut g: Vec<Grant>,
    ) -> Result<Vec<Grant>, Refused> {
        let (demand, filter) = self.shape_of(job);
        g.sort_by_key(|x| (x.machine, x.gpu));
        // A gang takes whole GPUs, as many as it asks for (instances are
        // held to their total below).
        if let Demand::Gang { gpus } = demand {
            if g.len() != *gpus as usize || g.iter().any(|x| x.milli != 1000) {
                return Err(Refused::Gang {
                    job,
                    gpus: *gpus as usize,
                });
            }
        }
        let mut total = 0u64;
        for (i, x) in g.iter().enumerate() {
            self.check_grant(s, job, *filter, x, &g[..i])?;
            total += x.milli as u64;
        }
        if total != demand.total_milli() {
            return Err(Refused::Total {
                job,
                total,
                needs: demand.total_milli(),
            });
        }
        // What it asks of each machine besides GPUs, held with them there.
        let g = self.carrying_asks(job, &g).unwrap_or(g);
        for x in g.iter().filter(|x| x.cpu_milli > 0 || x.mem_mib > 0) {
            if !s.host_fits(x.machine, x.cpu_milli, x.mem_mib) {
                return Err(Refused::Host {
                    job,
                    machine: x.machine,
                });
            }
        }
        Ok(g)
    }

    /// One GPU named for `job`: a real GPU of a machine it may use, of a
    /// type it may use, not named `before`, with room for the share named.
    fn check_grant(
        &self,
        s: &ClusterState,
        job: u32,
        filter: TypeFilter,
        x: &Grant,
        before: &[Grant],
    ) -> Result<(), Refused> {
        let machines = &self.trace.cluster.machines;
        if machines
            .get(x.machine as usize)
            .is_some_and(|m| m.recorded_only)
        {
            return Err(Refused::RecordedOnly {
                job,
                machine: x.machine,
            });
        }
        if x.machine as usize >= s.machine_count() || x.gpu as u32 >= s.cap(x.machine) {
            return Err(Refused::NoGpu {
                job,
                machine: x.machine,
                gpu: x.gpu as u32,
            });
        }
        if !filter.allows(s.machine_type(x.machine)) {
            return Err(Refused::GpuType {
                job,
                machine: x.machine,
            });
        }
        let twice = before
            .iter()
            .any(|y| (y.machine, y.gpu) == (x.machine, x.gpu));
        if x.milli == 0 || x.milli > 1000 || twice {
            return Err(Refused::GpuTwice {
                job,
                machine: x.machine,
                gpu: x.gpu as u32,
                milli: x.milli,
            });
        }
        let used = s.used_milli(s.first_gpu(x.machine) + x.gpu as usize);
        if used + x.milli as u32 > 1000 {
            return Err(Refused::Over {
                job,
                machine: x.machine,
                gpu: x.gpu as u32,
                free: 1000 - used.min(1000),
                milli: x.milli,
            });
        }
        Ok(())
    }
}
