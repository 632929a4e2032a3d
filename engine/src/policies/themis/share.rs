//! The optimisation a `themis` lease solves (`scheduler.py:2360-2398`):
//! each runnable job i a share x_i of its trace GPUs, in [0, 1], the
//! shares' GPUs at most the cluster's, minimising the largest
//! finish-time fairness ρ_i(x_i) = α_i + β_i / x_i (ElasticFlow's
//! `expected_time_allocation / expected_time_isolated`, divided out:
//! `lease.rs`).
//!
//! ElasticFlow hands it to cvxpy and ECOS; here it goes, in the same
//! conic form, to Clarabel (a pure-Rust interior-point solver of the same
//! family): minimise t subject to α_i + β_i s_i ≤ t, s_i x_i ≥ 1 (a
//! rotated second-order cone), 0 ≤ x_i ≤ 1 and Σ g_i x_i ≤ N. The best ρ
//! is one number, but where the cluster is contended the shares that
//! reach it are many (every job below the worst may take any share the
//! slack allows: `docs/peers/elasticflow-themis.md`); each interior-point
//! solver returns a point of its own inside that set, so the jobs chosen
//! from the shares differ from ECOS's in some leases
//! (`docs/fidelity.md` says how much that moves the figures).

use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultSettingsBuilder, DefaultSolver, IPSolver, NonnegativeConeT, SecondOrderConeT,
    SupportedConeT,
};

/// One job's terms: ρ(x) = `alpha` + `beta` / x on `gpus` GPUs.
#[derive(Debug, Clone, Copy)]
pub(super) struct Terms {
    pub(super) alpha: f64,
    pub(super) beta: f64,
    pub(super) gpus: u32,
}

/// Each job's share, in `jobs`' order, on a cluster of `n` GPUs; None
/// where the solver returns no point (never seen: ECOS's own answers
/// are used whatever its status, and so are Clarabel's).
pub(super) fn shares(jobs: &[Terms], n: u32) -> Option<Vec<f64>> {
    let k = jobs.len();
    if k == 0 {
        return Some(Vec::new());
    }
    let (a, b, cones) = problem(jobs, n);
    let vars = 2 * k + 1;
    let p = CscMatrix::<f64>::zeros((vars, vars));
    let mut q = vec![0.0; vars];
    q[2 * k] = 1.0;
    let settings = DefaultSettingsBuilder::default()
        .verbose(false)
        .iterative_refinement_enable(false)
        .build()
        .ok()?;
    let mut solver = DefaultSolver::new(&p, &q, &a, &b, &cones, settings).ok()?;
    solver.solve();
    let x: Vec<f64> = solver.solution.x[..k]
        .iter()
        .map(|&v| v.clamp(0.0, 1.0))
        .collect();
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// The conic form: variables x (k), s (k), t; rows, in cone order: the k
/// fairness rows, −x ≤ 0, x ≤ 1, Σ g x ≤ N (nonnegative), then each job's
/// (x + s, 2, x − s) in a second-order cone (x s ≥ 1).
fn problem(jobs: &[Terms], n: u32) -> (CscMatrix<f64>, Vec<f64>, Vec<SupportedConeT<f64>>) {
    let k = jobs.len();
    let cap_row = 3 * k;
    let soc = |i: usize| 3 * k + 1 + 3 * i;
    let rows = 3 * k + 1 + 3 * k;
    let mut b = vec![0.0; rows];
    for (i, j) in jobs.iter().enumerate() {
        b[i] = -j.alpha;
        b[2 * k + i] = 1.0;
        b[soc(i) + 1] = 2.0;
    }
    b[cap_row] = n as f64;
    let (mut colptr, mut rowval, mut nzval) = (vec![0], Vec::new(), Vec::new());
    let mut push = |entries: &[(usize, f64)], colptr: &mut Vec<usize>| {
        for &(r, v) in entries {
            rowval.push(r);
            nzval.push(v);
        }
        colptr.push(rowval.len());
    };
    for (i, j) in jobs.iter().enumerate() {
        let col = [
            (k + i, -1.0),
            (2 * k + i, 1.0),
            (cap_row, j.gpus as f64),
            (soc(i), -1.0),
            (soc(i) + 2, -1.0),
        ];
        push(&col, &mut colptr);
    }
    for (i, j) in jobs.iter().enumerate() {
        push(
            &[(i, j.beta), (soc(i), -1.0), (soc(i) + 2, 1.0)],
            &mut colptr,
        );
    }
    let t: Vec<(usize, f64)> = (0..k).map(|i| (i, -1.0)).collect();
    push(&t, &mut colptr);
    let a = CscMatrix::new(rows, 2 * k + 1, colptr, rowval, nzval);
    let mut cones = vec![NonnegativeConeT(3 * k + 1)];
    cones.extend((0..k).map(|_| SecondOrderConeT(3)));
    (a, b, cones)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rho(t: &Terms, x: f64) -> f64 {
        t.alpha + t.beta / x
    }

    #[test]
    fn the_worst_fairness_is_the_least_the_capacity_allows() {
        // Two 4-GPU jobs on 4 GPUs, alike: each half, ρ = 1 + 1/0.5 = 3.
        let a = Terms {
            alpha: 1.0,
            beta: 1.0,
            gpus: 4,
        };
        let x = shares(&[a, a], 4).unwrap();
        assert!(
            (x[0] - 0.5).abs() < 1e-5 && (x[1] - 0.5).abs() < 1e-5,
            "{x:?}"
        );
        // One far behind (β 3): it gets more, both end at the same ρ.
        let b = Terms { beta: 3.0, ..a };
        let x = shares(&[a, b], 4).unwrap();
        assert!(x[1] > x[0], "{x:?}");
        assert!((rho(&a, x[0]) - rho(&b, x[1])).abs() < 1e-4, "{x:?}");
        assert!((x[0] + x[1] - 1.0).abs() < 1e-5, "{x:?}");
    }

    #[test]
    fn a_lone_job_takes_its_whole_share() {
        let a = Terms {
            alpha: 2.0,
            beta: 5.0,
            gpus: 8,
        };
        let x = shares(&[a], 64).unwrap();
        assert!((x[0] - 1.0).abs() < 1e-6, "{x:?}");
    }
}
