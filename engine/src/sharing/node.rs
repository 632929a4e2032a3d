//! A node as the sharing placements see it: CPU, memory and each GPU's free
//! milli, the pods on it by kind, and its fragmentation, kept as pods land.

use super::frag::node_frag;
use super::typical::Typical;
use tracetui_model::{Machine, Pod, TypeId, MILLI_PER_GPU};

/// Pods one node may hold (Kubernetes' `pods` allocatable in FGD's nodes).
const MAX_PODS: u32 = 1001;

/// A pod's request, as placement reads it.
#[derive(Debug, Clone)]
pub struct Ask {
    /// CPU, milli-cores.
    pub cpu_milli: u32,
    /// Memory, MiB.
    pub mem_mib: u32,
    /// GPUs (0: a CPU pod).
    pub gpus: u32,
    /// Milli of each GPU (0: a CPU pod).
    pub milli: u32,
    /// The models it may use (empty: any).
    pub models: Box<[TypeId]>,
    /// Its kind among the run's pods: requests alike score alike.
    pub kind: u32,
}

impl Ask {
    /// `pod`'s request (a GPU count with no milli is a CPU pod, as in FGD).
    pub fn of(pod: &Pod, kind: u32) -> Ask {
        let cpu = pod.is_cpu();
        Ask {
            cpu_milli: pod.cpu_milli,
            mem_mib: pod.mem_mib,
            gpus: if cpu { 0 } else { pod.gpus },
            milli: if cpu { 0 } else { pod.milli },
            models: pod.models.clone(),
            kind,
        }
    }

    /// Milli-GPUs in all.
    pub fn total_milli(&self) -> u64 {
        self.gpus as u64 * self.milli as u64
    }

    /// A share of one GPU (FGD's `share-gpu` pods).
    pub fn is_share(&self) -> bool {
        self.gpus == 1 && self.milli < MILLI_PER_GPU
    }

    /// Its kind for GPU clustering: 0 a share, else its whole GPUs; none
    /// for a CPU pod.
    pub fn tag(&self) -> Option<u32> {
        tag(self.gpus, self.milli)
    }
}

/// The kind of a pod of `gpus` GPUs of `milli` each, for GPU clustering: 0
/// a share of one GPU, else its whole GPUs; none for a CPU pod.
pub(crate) fn tag(gpus: u32, milli: u32) -> Option<u32> {
    match (gpus, milli) {
        (0, _) | (_, 0) => None,
        (1, m) if m < MILLI_PER_GPU => Some(0),
        (n, _) => Some(n),
    }
}

/// One node's state.
#[derive(Debug, Clone)]
pub struct Node {
    /// Its GPU model.
    pub model: TypeId,
    /// CPU not taken, milli-cores.
    pub cpu_left: u32,
    /// Memory not taken, MiB.
    pub mem_left: u32,
    /// Free milli of each GPU (1000: idle).
    pub free: Box<[u16]>,
    /// Pods on it.
    pub pods: u32,
    /// GPU pods on it by tag (`Ask::tag`), with counts.
    pub tags: Vec<(u32, u32)>,
    /// Its fragmentation now (`node_frag`).
    pub frag: f64,
    /// Changes so far: a score kept from before a change is stale.
    pub version: u32,
}

impl Node {
    /// `m` with nothing on it.
    pub fn new(m: &Machine, typical: &[Typical]) -> Node {
        let free: Box<[u16]> = vec![MILLI_PER_GPU as u16; m.gpus as usize].into();
        Node {
            model: m.gpu_type,
            cpu_left: m.cpu_milli,
            mem_left: m.mem_mib,
            frag: node_frag(typical, m.gpu_type, m.cpu_milli, &free),
            free,
            pods: 0,
            tags: Vec::new(),
            version: 0,
        }
    }

    /// Free GPU milli in all.
    pub fn free_milli(&self) -> u32 {
        self.free.iter().map(|&l| l as u32).sum()
    }

    /// GPUs with room for `milli` each.
    pub fn fitting(&self, milli: u32) -> u32 {
        self.free.iter().filter(|&&l| l as u32 >= milli).count() as u32
    }

    /// Whether `a` fits: CPU, memory, the pod count, and for a GPU pod the
    /// model and enough GPUs with room for its milli each.
    pub fn fits(&self, a: &Ask) -> bool {
        if self.cpu_left < a.cpu_milli || self.mem_left < a.mem_mib || self.pods >= MAX_PODS {
            return false;
        }
        if a.gpus == 0 {
            return true;
        }
        !self.free.is_empty()
            && (a.models.is_empty() || a.models.contains(&self.model))
            && self.fitting(a.milli) >= a.gpus
    }

    /// The GPUs a pod of `gpus` × `milli` takes when none is chosen for
    /// it: the fullest with room first, the lower index among equals.
    pub fn tightest(&self, gpus: u32, milli: u32) -> Vec<u16> {
        let mut order: Vec<u16> = (0..self.free.len() as u16)
            .filter(|&i| self.free[i as usize] as u32 >= milli)
            .collect();
        order.sort_by_key(|&i| self.free[i as usize]);
        order.truncate(gpus as usize);
        order
    }

    /// Puts `a` on GPUs `gpus` of this node.
    pub fn take(&mut self, a: &Ask, gpus: &[u16], typical: &[Typical]) {
        self.cpu_left -= a.cpu_milli;
        self.mem_left -= a.mem_mib;
        self.pods += 1;
        for &g in gpus {
            self.free[g as usize] -= a.milli as u16;
        }
        if let Some(t) = a.tag() {
            match self.tags.iter_mut().find(|(k, _)| *k == t) {
                Some(e) => e.1 += 1,
                None => self.tags.push((t, 1)),
            }
        }
        self.frag = node_frag(typical, self.model, self.cpu_left, &self.free);
        self.version += 1;
    }
}
