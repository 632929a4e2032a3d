//! `cluster_machine_list` corrected from the release's own evidence: the
//! list says m29, m47 and m412 have 2 GPUs while the job log runs 8-GPU
//! attempts on them (philly-traces issue 8), and `cluster_gpu_util` reports
//! values for GPUs the list leaves out. Each machine gets the most GPUs any
//! of them shows, so no job is lost to the list.

use super::joblog::Evidence;
use crate::input::LoadReport;
use crate::lines::{Lines, Record};
use crate::model::Cluster;
use crate::text::sanitize;
use rustc_hash::FxHashMap;

/// How much of `cluster_gpu_util` is read for evidence: its first minutes,
/// where every machine has a row.
const UTIL_HEAD: u64 = 4 << 20;

/// Per machine: the GPUs with a value (not `NA`) in the head of
/// `cluster_gpu_util` (the highest such column + 1; 0 where none).
pub(super) fn util_gpus(
    f: Option<impl std::io::Read>,
    names: &FxHashMap<&str, u32>,
    machines: usize,
) -> Vec<u32> {
    let mut seen = vec![0u32; machines];
    let Some(f) = f else {
        return seen; // absent, or reported when the file is indexed
    };
    let head = std::io::Read::take(f, UTIL_HEAD);
    let mut lines = Lines::new(std::io::BufReader::new(head), String::new());
    let mut rec = Record::default();
    while let Ok(true) = lines.next(&mut rec) {
        let Some(&m) = std::str::from_utf8(rec.get(1))
            .ok()
            .and_then(|n| names.get(n))
        else {
            continue; // the header, or a machine the list lacks
        };
        let valued = (2..rec.len())
            .filter(|&i| {
                let v = rec.get(i);
                !v.is_empty() && v != b"NA"
            })
            .max();
        if let Some(i) = valued {
            let gpus = (i as u32 - 1).min(64);
            seen[m as usize] = seen[m as usize].max(gpus);
        }
    }
    seen
}

/// Raises each machine's GPU count to what the evidence shows, and says
/// once what changed.
pub(super) fn correct(
    cluster: &mut Cluster,
    jobs: &Evidence,
    util: &[u32],
    report: &mut LoadReport,
) {
    let mut changed = Vec::new();
    for (i, m) in cluster.machines.iter_mut().enumerate() {
        let shown = jobs.gpus[i].max(util.get(i).copied().unwrap_or(0));
        if shown > m.gpus {
            changed.push(format!("{} {}→{shown}", sanitize(&m.name), m.gpus));
            m.gpus = shown;
        }
    }
    if changed.is_empty() {
        return;
    }
    let n = changed.len();
    let listed: Vec<&str> = changed.iter().take(8).map(String::as_str).collect();
    let more = if n > 8 {
        format!(", and {} more", n - 8)
    } else {
        String::new()
    };
    report.note(format!(
        "cluster_machine_list corrected from the job log and cluster_gpu_util: {} ({}{more}); {} kept that ran on GPUs the list leaves out",
        crate::fmt::count(n as u64, "machine"),
        listed.join(", "),
        crate::fmt::count(jobs.jobs_saved, "job"),
    ));
    cluster.sized_by = format!("{} corrected", crate::fmt::count(n as u64, "machine"));
    cluster.origin = format!(
        "cluster: {} machines, {} GPUs from cluster_machine_list, {} corrected",
        cluster.machines.len(),
        cluster.total_gpus(),
        crate::fmt::count(n as u64, "machine"),
    );
}
