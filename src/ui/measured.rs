//! What the trace measured, as the runner read it from the trace's side
//! files: each job's mean GPU utilisation (PAI's sensor table, once
//! indexed) and each GPU's in the minute shown (Philly's per-minute file).

use crate::sim::ClusterState;
use crate::trace::MachineValues;
use crate::trace::Secs;
use std::sync::Arc;

/// The measured utilisation the runner has read, per job and per GPU.
#[derive(Default)]
pub(super) struct Measured {
    /// Per PAI job-table row: mean GPU utilisation from the sensor table, when indexed.
    job_util: Option<Arc<Vec<f32>>>,
    /// Per GPU (flat index): utilisation measured in the minute shown (Philly's
    /// cluster_gpu_util), with that minute; NaN where the file says NA.
    gpu_util: Option<(Secs, Arc<Vec<f32>>)>,
}

impl Measured {
    /// Per job-table row: the mean utilisation of its sensor rows (NaN: none).
    pub(super) fn job_util(&self) -> Option<&[f32]> {
        self.job_util.as_deref().map(|v| v.as_slice())
    }

    /// Per GPU: utilisation measured in the minute shown, with that minute.
    pub(super) fn gpu_util(&self) -> Option<&(Secs, Arc<Vec<f32>>)> {
        self.gpu_util.as_ref()
    }

    /// A PAI job's measured utilisation: (as recorded — the mean of its
    /// sensor rows' `gpu_wrk_util`, per instance, 100 = one whole GPU —
    /// and the GPUs each instance asks for).
    pub(super) fn job_util_of(&self, job: &crate::trace::Job) -> Option<(f64, f64)> {
        let u = *self.job_util()?.get(job.native_row as usize)?;
        let per = job.demand.gpus_per_instance()?;
        (u.is_finite() && per > 0.0).then_some((u as f64, per))
    }

    /// The sensor table's per-job means, once indexed.
    pub(super) fn set_job_util(&mut self, util: Arc<Vec<f32>>) {
        self.job_util = Some(util);
    }

    /// Measured utilisation (0–100) of GPUs `flat..flat + n` in the minute
    /// shown, where a per-minute file gives it; the mean over those it knows.
    pub(super) fn gpu_mean(&self, flat: usize, n: usize) -> Option<f64> {
        let (_, u) = self.gpu_util.as_ref()?;
        let vals: Vec<f64> = u
            .get(flat..flat + n)?
            .iter()
            .filter(|x| x.is_finite())
            .map(|&x| x as f64)
            .collect();
        (!vals.is_empty()).then(|| vals.iter().sum::<f64>() / vals.len() as f64)
    }

    /// The minute read for the time shown (None: the file has none), laid
    /// over `cluster`'s GPUs: rebuilt only when the minute changes.
    /// Whether what is kept changed.
    pub(super) fn minute_read(
        &mut self,
        minute: Option<(Secs, MachineValues)>,
        cluster: &ClusterState,
    ) -> bool {
        let cached = self.gpu_util.as_ref().map(|g| g.0);
        match minute {
            Some((when, _)) if Some(when) == cached => false,
            Some((when, rows)) => {
                let mut v = vec![f32::NAN; cluster.gpu_count()];
                for (m, vals) in rows {
                    let base = cluster.first_gpu(m);
                    for (k, x) in vals.into_iter().enumerate().take(cluster.cap(m) as usize) {
                        v[base + k] = x.unwrap_or(f32::NAN);
                    }
                }
                self.gpu_util = Some((when, Arc::new(v)));
                true
            }
            None => self.gpu_util.take().is_some(),
        }
    }
}
