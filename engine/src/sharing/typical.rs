//! The trace's typical pods: the most common requests that together make
//! 95 % of its pods, each with its share, which the fragmentation measure
//! weighs a node's free GPU milli against.

use tracetui_model::{Pod, TypeId};

/// One kind of pod, and how often the trace asks it.
#[derive(Debug, Clone, PartialEq)]
pub struct Typical {
    /// CPU, milli-cores.
    pub cpu_milli: u32,
    /// Milli-GPUs of each GPU (0: a CPU pod).
    pub milli: u32,
    /// GPUs.
    pub gpus: u32,
    /// The models it may run on (empty: any).
    pub models: Box<[TypeId]>,
    /// Its share of the kept kinds' pods (they sum to 1).
    pub p: f64,
}

impl Typical {
    /// Whether it may run on model `t`.
    pub fn allows(&self, t: TypeId) -> bool {
        self.models.is_empty() || self.models.contains(&t)
    }
}

/// `spec` as FGD's converter writes it: empty models dropped, order and
/// repeats kept.
fn spec_key(spec: &str) -> String {
    spec.split('|')
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("|")
}

/// The typical pods of `pods` (every row of the trace, never clones): kinds
/// by (CPU, milli, GPUs, models as written), most common first — equal
/// counts by those four descending — taken until they hold `percent` of the
/// pods, their shares renormalised to 1.
pub fn typical_pods(pods: &[Pod], percent: u32) -> Vec<Typical> {
    let mut counts: std::collections::HashMap<(u32, u32, u32, String), (u64, usize)> =
        std::collections::HashMap::new();
    for (i, p) in pods.iter().enumerate() {
        let (gpus, milli) = if p.is_cpu() {
            (0, 0)
        } else {
            (p.gpus, p.milli)
        };
        let e = counts
            .entry((p.cpu_milli, milli, gpus, spec_key(&p.spec)))
            .or_insert((0, i));
        e.0 += 1;
    }
    let mut kinds: Vec<_> = counts.into_iter().collect();
    kinds.sort_by(|(a, (na, _)), (b, (nb, _))| nb.cmp(na).then_with(|| b.cmp(a)));
    let total = pods.len() as u64;
    let (mut kept, mut sum) = (Vec::new(), 0u64);
    for (key, (n, first)) in kinds {
        if sum * 100 >= percent as u64 * total {
            break;
        }
        sum += n;
        kept.push((key, n, first));
    }
    kept.into_iter()
        .map(|((cpu_milli, milli, gpus, _), n, first)| Typical {
            cpu_milli,
            milli,
            gpus,
            models: pods[first].models.clone(),
            p: n as f64 / sum as f64,
        })
        .collect()
}
