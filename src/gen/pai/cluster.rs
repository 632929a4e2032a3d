//! The cluster a PAI trace is generated for: the released composition
//! (scaled by `--gpus`, fresh machine ids), or the machines of a
//! `pai_machine_spec` given with `--machine-spec`, kept as named and typed.

use super::SPEC;
use crate::trace::PaiSpecRow;

/// GPU types by index, and the machines.
#[derive(Debug, Clone)]
pub struct GenCluster {
    /// The GPU types' names (a machine's type indexes them).
    pub types: Vec<String>,
    /// (type index, cap_cpu, cap_mem, GPUs) per machine.
    pub machines: Vec<(u8, u32, u32, u32)>,
    /// The machines' rows as a spec gave them (None: the released
    /// composition, named by fresh ids).
    pub spec: Option<Vec<PaiSpecRow>>,
}

/// Why a spec cannot be generated for.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("it lists no machine with GPUs (cap_gpu above 0)")]
    NoGpus,
    #[error("it has {0} GPU types; at most 255")]
    TooManyTypes(usize),
}

impl GenCluster {
    /// The released machines, each kind's count scaled by `scale` (at least one).
    pub(super) fn released(scale: f64) -> GenCluster {
        let mut machines = Vec::new();
        for (t, (_, _, gpus, caps)) in SPEC.iter().enumerate() {
            for &(cpu, mem, count) in caps.iter() {
                let n = ((count as f64 * scale).round() as usize).max(1);
                machines.extend(std::iter::repeat_n((t as u8, cpu, mem, *gpus), n));
            }
        }
        GenCluster {
            types: SPEC.iter().map(|s| s.0.to_string()).collect(),
            machines,
            spec: None,
        }
    }

    /// The machines of a spec, in its order; types by first appearance.
    pub fn of_spec(rows: Vec<PaiSpecRow>) -> Result<GenCluster, SpecError> {
        if rows.iter().all(|r| r.cap_gpu == 0) {
            return Err(SpecError::NoGpus);
        }
        let mut types: Vec<String> = Vec::new();
        let mut machines = Vec::with_capacity(rows.len());
        for r in &rows {
            let t = match types.iter().position(|t| *t == r.gpu_type) {
                Some(t) => t,
                None => {
                    types.push(r.gpu_type.clone());
                    types.len() - 1
                }
            };
            if t > u8::MAX as usize {
                return Err(SpecError::TooManyTypes(types.len()));
            }
            let whole =
                |v: Option<f64>| v.map_or(0, |x| x.round().clamp(0.0, u32::MAX as f64) as u32);
            machines.push((t as u8, whole(r.cap_cpu), whole(r.cap_mem), r.cap_gpu));
        }
        Ok(GenCluster {
            types,
            machines,
            spec: Some(rows),
        })
    }

    /// The types a GPU job may ask for: those with GPUs (`eight`: with a
    /// machine of 8 GPUs or more, for a job with an instance above 2 GPUs).
    pub(super) fn askable(&self, eight: bool) -> Vec<u8> {
        let least = if eight { 8 } else { 1 };
        let mut out: Vec<u8> = (0..self.types.len() as u8)
            .filter(|&t| self.machines.iter().any(|m| m.0 == t && m.3 >= least))
            .collect();
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_released_cluster_offers_the_types_the_generator_always_drew() {
        let c = GenCluster::released(1.0);
        // T4, MISC, P100, V100, V100M32; the 8-GPU ones MISC, V100, V100M32.
        assert_eq!(c.askable(false), vec![1, 2, 3, 4, 5]);
        assert_eq!(c.askable(true), vec![2, 4, 5]);
        assert_eq!(c.machines.iter().map(|m| m.3).sum::<u32>(), 6_742);
    }
}
