//! The summary printed after a run: per workload and placement, the mean
//! GPU allocation over seeds at 100, 110, 120 and 130 % arrived, the
//! fragmentation of the empty cluster and the pods that fit nowhere —
//! with FGD's published mean, spread and our difference when given.

use super::peer::{Peer, PeerValues};
use super::Run;
use crate::sim::sharing::SharingRule;
use std::fmt::Write as _;

/// The arrived percents compared.
const AT: [usize; 4] = [100, 110, 120, 130];

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// The sample standard deviation (0 for fewer than two values).
fn sd(v: &[f64]) -> f64 {
    if v.len() < 2 {
        return 0.0;
    }
    let m = mean(v);
    (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt()
}

/// How far from the peer's mean ours may be: 1.5 of its seeds' standard
/// deviations, at least 0.3 points; 1 point for random (which even the
/// peer cannot reproduce).
pub(super) fn tolerance(rule: SharingRule, peer_sd: f64) -> f64 {
    if rule == SharingRule::Random {
        1.0
    } else {
        (1.5 * peer_sd).max(0.3)
    }
}

/// Our values at `x` for one workload and placement, over seeds.
fn ours(runs: &[Run], w: usize, rule: SharingRule, x: usize, frag: bool) -> Vec<f64> {
    runs.iter()
        .filter(|r| r.workload == w && r.rule == rule)
        .filter_map(|r| {
            if frag {
                r.curves.frag[x]
            } else {
                r.curves.alloc[x]
            }
        })
        .collect()
}

/// The peer's values at `x`, where it has them.
fn theirs<'a>(
    p: Option<&'a PeerValues>,
    name: &str,
    rule: SharingRule,
    x: usize,
) -> Option<&'a Vec<f64>> {
    p?.get(&(name.to_string(), rule))?.get(&x)
}

/// The fragmentation of the empty cluster may differ from the peer's by this much.
const FRAG_TOLERANCE: f64 = 0.1;

fn row(
    o: &mut String,
    runs: &[Run],
    w: usize,
    name: &str,
    rule: SharingRule,
    peer: Option<&Peer>,
) -> bool {
    let mut ok = true;
    let _ = write!(o, "  {:<15}", rule.name());
    for x in AT {
        let v = ours(runs, w, rule, x, false);
        let _ = write!(o, " {:>6.2}", mean(&v));
        if let Some(p) = theirs(peer.map(|p| &p.alloc), name, rule, x) {
            let (pm, ps) = (mean(p), sd(p));
            let d = mean(&v) - pm;
            let within = d.abs() <= tolerance(rule, ps);
            ok &= within;
            let _ = write!(
                o,
                " ({pm:>6.2}±{ps:.2} {d:>+5.2}{})",
                if within { " ok" } else { " !!" }
            );
        }
    }
    let f0 = mean(&ours(runs, w, rule, 0, true));
    let _ = write!(o, "  {f0:>5.2}");
    if let Some(p) = theirs(peer.map(|p| &p.frag), name, rule, 0) {
        let d = f0 - mean(p);
        let within = d.abs() <= FRAG_TOLERANCE;
        ok &= within;
        let _ = write!(
            o,
            " ({:>5.2} {d:>+5.2}{})",
            mean(p),
            if within { " ok" } else { " !!" }
        );
    }
    let mine: Vec<&Run> = runs
        .iter()
        .filter(|r| r.workload == w && r.rule == rule)
        .collect();
    let failed = mine.iter().map(|r| r.failed as f64).sum::<f64>() / mine.len().max(1) as f64;
    let tried = mine.iter().map(|r| r.attempts as f64).sum::<f64>() / mine.len().max(1) as f64;
    let _ = writeln!(o, "  {failed:>6.0} of {tried:.0}");
    ok
}

/// The summary of `runs` of `rules` on each workload.
pub(super) fn text(
    workloads: &[&str],
    pods: &[usize],
    rules: &[SharingRule],
    runs: &[Run],
    peer: Option<&Peer>,
) -> String {
    let mut o = String::new();
    let mut all_ok = true;
    for (w, name) in workloads.iter().enumerate() {
        let _ = writeln!(o, "{name}: {} pods; GPU allocation % at 100/110/120/130 % arrived (mean over seeds){}; frag % at 0; pods failed", pods[w], if peer.is_some() { ", FGD's mean±sd and ours − FGD's" } else { "" });
        for &rule in rules {
            all_ok &= row(&mut o, runs, w, name, rule, peer);
        }
        let at130 = |r: SharingRule| mean(&ours(runs, w, r, 130, false));
        if let Some(best) = rules
            .iter()
            .copied()
            .max_by(|a, b| at130(*a).total_cmp(&at130(*b)))
        {
            let _ = writeln!(o, "  first at 130 %: {}", best.name());
        }
    }
    if peer.is_some() {
        let _ = writeln!(
            o,
            "{}",
            if all_ok {
                "every value within FGD's spread"
            } else {
                "!! some values outside FGD's spread"
            }
        );
    }
    o
}
