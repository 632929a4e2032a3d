//! Where a job's GPUs go: the placement rules, as pure queries over the
//! cluster's free-capacity indices.

use super::cluster::How;
use super::cluster::{ClusterState, Grant, TypeFilter};
use super::shape_classes::Asks;
use super::sharing::SharingRule;
use tracetui_model::{Demand, Unit, MILLI_PER_GPU};

/// How GPUs are chosen for a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Placement {
    /// A job that fits in one machine runs on one machine (best fit); a larger one
    /// takes whole free machines (largest first) plus a best-fit remainder; else it waits.
    #[default]
    Consolidate,
    /// Like consolidate, but when locality cannot be kept, any free GPUs, fullest machines first.
    Pack,
    /// A job that fits in one machine goes to the machine with the most free GPUs.
    Spread,
    /// One of FGD's GPU-sharing placements: a job on one machine, the
    /// machine the rule scores best, CPU and memory respected.
    Sharing(SharingRule),
}

/// Written by name (`consolidate`, `fgd`), as `--placement` takes it.
impl serde::Serialize for Placement {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl Placement {
    /// Every rule, in the order lists show them.
    pub const ALL: [Placement; 9] = [
        Placement::Consolidate,
        Placement::Pack,
        Placement::Spread,
        Placement::Sharing(SharingRule::Random),
        Placement::Sharing(SharingRule::DotProduct),
        Placement::Sharing(SharingRule::GpuClustering),
        Placement::Sharing(SharingRule::GpuPacking),
        Placement::Sharing(SharingRule::BestFit),
        Placement::Sharing(SharingRule::Fgd),
    ];

    /// The GPU-sharing rule it is, if one.
    pub fn sharing(self) -> Option<SharingRule> {
        match self {
            Placement::Sharing(r) => Some(r),
            _ => None,
        }
    }

    /// The rule called `name`.
    pub fn from_name(name: &str) -> Option<Placement> {
        Placement::ALL.into_iter().find(|p| p.name() == name)
    }

    /// One line on what it does, for help.
    pub fn about(self) -> &'static str {
        match self {
            Placement::Consolidate => {
                "A job that fits in one machine runs on one machine (best fit); a larger one \
                 takes whole free machines (largest first) plus a best-fit remainder; else it waits"
            }
            Placement::Pack => {
                "Like consolidate, but when locality cannot be kept, any free GPUs, fullest machines first"
            }
            Placement::Spread => {
                "A job that fits in one machine goes to the machine with the most free GPUs"
            }
            Placement::Sharing(r) => r.about(),
        }
    }

    /// The next rule in the cycle `o` steps through, in `ALL`'s order:
    /// consolidate → pack → spread → random → … → fgd → consolidate.
    pub fn next(self) -> Placement {
        let i = Placement::ALL.iter().position(|&p| p == self).unwrap_or(0);
        Placement::ALL[(i + 1) % Placement::ALL.len()]
    }

    /// Its name, as `--placement` and schedules (`placement=`) take it and
    /// results show it.
    pub fn name(self) -> &'static str {
        match self {
            Placement::Consolidate => "consolidate",
            Placement::Pack => "pack",
            Placement::Spread => "spread",
            Placement::Sharing(r) => r.name(),
        }
    }
}

/// The GPUs `demand` would get now, or `None` if it must wait. Leaves `state` as it was.
pub fn place(
    state: &mut ClusterState,
    rule: Placement,
    demand: &Demand,
    filter: TypeFilter,
) -> Option<Vec<Grant>> {
    place_asking(state, rule, demand, filter, Asks::default())
}

/// `place`, for a job that also asks `asks` of its machine (CPU and
/// memory, which the sharing placements respect).
pub(crate) fn place_asking(
    state: &mut ClusterState,
    rule: Placement,
    demand: &Demand,
    filter: TypeFilter,
    asks: Asks,
) -> Option<Vec<Grant>> {
    let mut out = Vec::new();
    place_into(state, rule, demand, filter, asks, &mut out).then_some(out)
}

/// `place`, into `out` (emptied first; a caller that keeps it allocates
/// nothing for a gang on one machine): whether the demand fits now.
pub(crate) fn place_into(
    state: &mut ClusterState,
    rule: Placement,
    demand: &Demand,
    filter: TypeFilter,
    mut asks: Asks,
    out: &mut Vec<Grant>,
) -> bool {
    out.clear();
    let mut rule = rule;
    // A sharing rule, or a job that asks CPU or memory of its machine: one
    // machine with all of it free, chosen as the rule chooses.
    let how = match rule.sharing() {
        Some(r) => {
            // One instance that asks CPU or memory (PAI with --cpu-mem):
            // a pod asking the same.
            if let Demand::Instances(units) = demand {
                if let [u] = &units[..] {
                    if u.count == 1 && u.asks_host() {
                        (asks.cpu_milli, asks.mem_mib) = (u.cpu_milli, u.mem_mib);
                    }
                }
            }
            Some(How::Sharing(r))
        }
        None if asks != Asks::default() => Some(match rule {
            Placement::Spread => How::Roomiest,
            _ => How::Tightest,
        }),
        None => None,
    };
    if let Some(how) = how {
        match state.place_one(how, demand, filter, asks, out) {
            Some(fits) => return fits,
            // Not one machine's demand: placed as consolidate places it.
            None if rule.sharing().is_some() => rule = Placement::Consolidate,
            None => {}
        }
    }
    match demand {
        Demand::Gang { gpus } => gang(state, rule, *gpus, filter, out),
        Demand::Instances(units) => instances(state, rule, units, filter, out),
    }
}

/// Instances of `units`, into `out` (empty): whether they all fit now.
fn instances(
    state: &mut ClusterState,
    rule: Placement,
    units: &[Unit],
    filter: TypeFilter,
    out: &mut Vec<Grant>,
) -> bool {
    let whole_needed: u64 = units
        .iter()
        .map(|u| u.count as u64 * (u.milli / MILLI_PER_GPU) as u64)
        .sum();
    if whole_needed > state.free_gpus(filter) {
        return false;
    }
    // Each instance sees the ones placed before it: place tentatively, then undo.
    let mut ok = true;
    'units: for u in units.iter() {
        for _ in 0..u.count {
            let placed = match u.asks_host() {
                true => state.instance_with_host(rule == Placement::Spread, u, filter),
                false => instance(state, rule, u.milli, filter),
            };
            match placed {
                Some(g) => {
                    state.acquire(u32::MAX, &g);
                    out.extend(g);
                }
                None => {
                    ok = false;
                    break 'units;
                }
            }
        }
    }
    state.release(u32::MAX, out);
    if !ok {
        out.clear();
    }
    ok
}

fn on_machine(state: &ClusterState, m: u32, k: u32) -> Vec<Grant> {
    let mut out = Vec::new();
    state.grant_free_gpus(m, k, &mut out);
    out
}

/// A gang of `k` whole GPUs, into `out` (empty): whether it fits now.
fn gang(
    state: &ClusterState,
    rule: Placement,
    k: u32,
    f: TypeFilter,
    out: &mut Vec<Grant>,
) -> bool {
    if k == 0 {
        return true;
    }
    if (k as u64) > state.free_gpus(f) {
        return false;
    }
    if k <= state.max_gpus(f) {
        let m = match rule {
            Placement::Spread => state.most_free(f).filter(|&m| state.free(m) >= k),
            _ => state.best_fit(f, k, &[]),
        };
        if let Some(m) = m {
            state.grant_free_gpus(m, k, out);
            return true;
        }
    } else if let Some(g) = whole_machines(state, k, f) {
        *out = g;
        return true;
    }
    match rule {
        Placement::Pack => relaxed(state, k, f).map(|g| *out = g).is_some(),
        _ => false,
    }
}

/// Whole free machines, largest first, plus one best-fit machine for the remainder.
fn whole_machines(state: &ClusterState, k: u32, f: TypeFilter) -> Option<Vec<Grant>> {
    let mut rem = k;
    let mut taken = Vec::new();
    for m in state.whole_free(f) {
        let cap = state.cap(m);
        if cap <= rem {
            taken.push(m);
            rem -= cap;
            if rem == 0 {
                break;
            }
        }
    }
    let mut grants: Vec<Grant> = Vec::with_capacity(k as usize);
    if rem > 0 {
        let r = state.best_fit(f, rem, &taken)?;
        state.grant_free_gpus(r, rem, &mut grants);
    }
    for &m in &taken {
        state.grant_free_gpus(m, state.cap(m), &mut grants);
    }
    grants.sort_unstable();
    Some(grants)
}

/// Any free GPUs, fullest machines first: locality given up.
fn relaxed(state: &ClusterState, k: u32, f: TypeFilter) -> Option<Vec<Grant>> {
    let mut rem = k;
    let mut grants = Vec::with_capacity(k as usize);
    for m in state.fullest_first(f) {
        let take = state.free(m).min(rem);
        state.grant_free_gpus(m, take, &mut grants);
        rem -= take;
        if rem == 0 {
            grants.sort_unstable();
            return Some(grants);
        }
    }
    None
}

/// One instance of `milli` milli-GPUs on one machine: a fraction goes best fit
/// onto a partly used GPU; whole GPUs (plus a fraction) onto one machine.
fn instance(
    state: &ClusterState,
    rule: Placement,
    milli: u32,
    f: TypeFilter,
) -> Option<Vec<Grant>> {
    let whole = milli / MILLI_PER_GPU;
    let frac = milli % MILLI_PER_GPU;
    if whole == 0 {
        if frac == 0 {
            return Some(Vec::new());
        }
        if let Some((m, gpu)) = state.best_partial(f, frac as u16) {
            return Some(vec![Grant {
                machine: m,
                gpu,
                milli: frac as u16,
                ..Grant::default()
            }]);
        }
    }
    let need = whole + u32::from(frac > 0);
    let m = match rule {
        Placement::Spread => state.most_free(f).filter(|&m| state.free(m) >= need),
        _ => state.best_fit(f, need, &[]),
    }?;
    let mut grants = on_machine(state, m, need);
    if frac > 0 {
        if let Some(last) = grants.last_mut() {
            last.milli = frac as u16;
        }
    }
    Some(grants)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracetui_model::{Cluster, Machine, Unit};

    fn state(sizes: &[u32]) -> ClusterState {
        let mut c = Cluster::uniform(0, 8, String::new());
        c.machines = sizes
            .iter()
            .enumerate()
            .map(|(i, &g)| Machine {
                name: format!("m{i}"),
                gpu_type: 0,
                gpus: g,
                cpu_milli: 0,
                mem_mib: 0,
                recorded_only: false,
            })
            .collect();
        ClusterState::new(&c)
    }

    fn machines(g: &[Grant]) -> Vec<u32> {
        let mut v: Vec<u32> = g.iter().map(|g| g.machine).collect();
        v.dedup();
        v
    }

    fn take(s: &mut ClusterState, m: u32, k: u32) {
        let g = on_machine(s, m, k);
        s.acquire(99, &g);
    }

    #[test]
    fn consolidate_best_fit_waits_rather_than_split() {
        let mut s = state(&[4, 4]);
        take(&mut s, 0, 2);
        take(&mut s, 1, 1);
        let g = place(
            &mut s,
            Placement::Consolidate,
            &Demand::Gang { gpus: 2 },
            TypeFilter::Any,
        )
        .unwrap();
        assert_eq!(machines(&g), vec![0], "fewest free GPUs that still fit");
        assert!(place(
            &mut s,
            Placement::Consolidate,
            &Demand::Gang { gpus: 4 },
            TypeFilter::Any
        )
        .is_none());
        let g = place(
            &mut s,
            Placement::Pack,
            &Demand::Gang { gpus: 4 },
            TypeFilter::Any,
        )
        .unwrap();
        assert_eq!(
            machines(&g),
            vec![0, 1],
            "pack relaxes locality, fullest first"
        );
        assert_eq!(g.iter().filter(|x| x.machine == 0).count(), 2);
    }

    #[test]
    fn spread_takes_most_free() {
        let mut s = state(&[4, 4, 4]);
        take(&mut s, 0, 1);
        let g = place(
            &mut s,
            Placement::Spread,
            &Demand::Gang { gpus: 1 },
            TypeFilter::Any,
        )
        .unwrap();
        assert_eq!(machines(&g), vec![1]);
        let g = place(
            &mut s,
            Placement::Consolidate,
            &Demand::Gang { gpus: 1 },
            TypeFilter::Any,
        )
        .unwrap();
        assert_eq!(machines(&g), vec![0]);
    }

    #[test]
    fn large_jobs_take_whole_machines_and_a_best_fit_remainder() {
        let mut s = state(&[8, 8, 8, 8]);
        take(&mut s, 2, 5); // 3 free
        take(&mut s, 3, 6); // 2 free
        let g = place(
            &mut s,
            Placement::Consolidate,
            &Demand::Gang { gpus: 18 },
            TypeFilter::Any,
        )
        .unwrap();
        assert_eq!(machines(&g), vec![0, 1, 3]);
        assert!(place(
            &mut s,
            Placement::Consolidate,
            &Demand::Gang { gpus: 20 },
            TypeFilter::Any
        )
        .is_none());
        assert!(place(
            &mut s,
            Placement::Pack,
            &Demand::Gang { gpus: 21 },
            TypeFilter::Any
        )
        .is_some());
        assert!(place(
            &mut s,
            Placement::Pack,
            &Demand::Gang { gpus: 22 },
            TypeFilter::Any
        )
        .is_none());
    }

    #[test]
    fn fractions_share_a_gpu_best_fit() {
        let mut s = state(&[2, 2]);
        let d = Demand::Instances(vec![Unit::gpus(3, 400)].into_boxed_slice());
        let g = place(&mut s, Placement::Consolidate, &d, TypeFilter::Any).unwrap();
        // Two share one GPU (800), the third starts another GPU on the same machine.
        assert_eq!(g.len(), 3);
        assert_eq!((g[0].machine, g[0].gpu), (g[1].machine, g[1].gpu));
        assert_eq!(g[2].machine, g[0].machine);
        assert_ne!(g[2].gpu, g[0].gpu);
        assert_eq!(s.allocated_milli(), 0, "place leaves the state as it was");
    }
}
