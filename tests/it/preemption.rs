//! The preemptive policies on tiny traces worked out by hand (restart cost
//! 30 s unless said otherwise).

use crate::common;

use common::{run_checked_with, tiny};
use std::sync::Arc;
use tracetui::sim::{Engine, Placement, Policy, Tuning};
use tracetui::trace::Trace;

const C: Placement = Placement::Consolidate;

fn run(t: &Arc<Trace>, p: Policy, tuning: Tuning) -> Engine {
    run_checked_with(Engine::new(t.clone(), p, C).with_tuning(Arc::new(tuning)))
}

/// (start, end) of every job.
fn spans(e: &Engine) -> Vec<(i64, i64)> {
    (0..e.trace().jobs.len() as u32)
        .map(|j| (e.job_state(j).start, e.job_state(j).end))
        .collect()
}

fn with(t: Arc<Trace>, users: &[&str], deadlines: &[Option<i64>]) -> Arc<Trace> {
    let mut t = (*t).clone();
    for (i, j) in t.jobs.iter_mut().enumerate() {
        if let Some(u) = users.get(i) {
            j.user = Some(t.symbols.intern(u));
        }
        j.deadline = deadlines.get(i).copied().flatten().into();
    }
    Arc::new(t)
}

#[test]
fn srtf_preempts_the_longer_remaining_job_and_charges_the_restart() {
    // One GPU. A (0, 100 s); B (10, 20 s) is shorter than A's 90 s left and
    // preempts it; C (15, 95 s) is not shorter than B's 15 s left. At 30 B
    // ends: C needs 95 s, A 90 + 30 (restart) = 120 s, so C goes first.
    let t = tiny(&[1], &[(0, 100, 1), (10, 20, 1), (15, 95, 1)]);
    let e = run(&t, Policy::Srtf, Tuning::default());
    assert_eq!(spans(&e), vec![(0, 245), (10, 30), (30, 125)]);
    let r = e.report();
    assert_eq!(r.preemptions, 1);
    assert_eq!(e.preemptions_of(0), 1);
    // Waits count to the first start; slowdown uses the job's own run time.
    assert_eq!(r.wait_s.mean, Some(5.0));
    assert_eq!(r.jct_s.mean, Some((245.0 + 20.0 + 110.0) / 3.0));
    // Same trace, no restart cost: A resumes at 30 with 90 s left, before C.
    let free = Tuning {
        preempt_cost: 0,
        ..Tuning::default()
    };
    let e = run(&t, Policy::Srtf, free);
    assert_eq!(spans(&e), vec![(0, 120), (10, 30), (120, 215)]);
}

#[test]
fn las_demotes_at_the_threshold_and_preempts_from_the_lower_queue() {
    // Two GPUs, one queue boundary at 100 GPU-seconds. A (0, 1000 s, 2 GPUs)
    // has attained 20 when B (10, 30 s, 2 GPUs) arrives: same queue, FIFO,
    // no preemption. At 50 A crosses 100 GPU-s, drops to queue 1, and B
    // preempts it; A resumes at 80 with 950 s + 30 s left.
    let t = tiny(&[2], &[(0, 1000, 2), (10, 30, 2)]);
    let tuning = Tuning {
        las_thresholds: vec![100],
        ..Tuning::default()
    };
    let e = run(&t, Policy::Las, tuning);
    assert_eq!(spans(&e), vec![(0, 1060), (50, 80)]);
    assert_eq!(e.report().preemptions, 1);
}

#[test]
fn las_promotes_a_starved_job_back_to_the_first_queue() {
    // One GPU, boundary at 10 GPU-s, starvation guard 2× the run so far.
    // A (0, 100 s) drops to queue 1 at 10 and B (5, 50 s) preempts it.
    // A has run 10 s, so at 10 + 2×10 = 30 it is promoted to queue 0 for
    // good and preempts B (demoted at 20). A resumes (30 s restart) and,
    // pinned to queue 0, runs to the end at 30 + 90 + 30 = 150. B, promoted
    // at 30 + 2×20 = 70, is in A's queue and waits; it resumes at 150 with
    // 30 + 30 s to go.
    let t = tiny(&[1], &[(0, 100, 1), (5, 50, 1)]);
    let tuning = Tuning {
        las_thresholds: vec![10],
        las_starve: 2.0,
        ..Tuning::default()
    };
    let e = run(&t, Policy::Las, tuning.clone());
    assert_eq!(spans(&e), vec![(0, 150), (10, 210)]);
    assert_eq!(e.report().preemptions, 2);
    // Without the guard, B runs to the end first (demoted at 20, it is in
    // A's queue, which is FIFO among waiting jobs and never preempts within
    // a queue); A resumes at 60 with 90 + 30 s left.
    let off = Tuning {
        las_starve: 0.0,
        ..tuning
    };
    let e = run(&t, Policy::Las, off);
    assert_eq!(spans(&e), vec![(0, 180), (10, 60)]);
    assert_eq!(e.report().preemptions, 1);
}

#[test]
fn fair_takes_gpus_from_the_most_over_share_user_until_shares_are_equal() {
    // Four GPUs on one machine. u0 fills them at 0 (four 1-GPU, 100 s jobs).
    // At 10 u1 submits two 1-GPU, 50 s jobs: two users, a share of 2 GPUs
    // each. u1's jobs preempt u0's newest two (3, then 2); then both users
    // hold 2 and nothing moves. At 60 u1 is done and u0's jobs resume
    // (10 s done, 90 + 30 s left).
    let t = tiny(
        &[4],
        &[
            (0, 100, 1),
            (0, 100, 1),
            (0, 100, 1),
            (0, 100, 1),
            (10, 50, 1),
            (10, 50, 1),
        ],
    );
    let t = with(t, &["u0", "u0", "u0", "u0", "u1", "u1"], &[]);
    let e = run(&t, Policy::Fair, Tuning::default());
    assert_eq!(
        spans(&e),
        vec![(0, 100), (0, 100), (0, 180), (0, 180), (10, 60), (10, 60)]
    );
    assert_eq!(e.report().preemptions, 2);
    // Under first-fit u1 waits for u0's jobs to end.
    let e = run(&t, Policy::FirstFit, Tuning::default());
    assert_eq!(e.job_state(4).start, 100);
}

#[test]
fn fair_by_group_shares_between_groups() {
    // Same jobs; u0 and u1 are both in group g, so by group nobody is over
    // share and nothing is preempted.
    let t = tiny(&[2], &[(0, 100, 1), (0, 100, 1), (10, 50, 1)]);
    let mut t = (*with(t, &["u0", "u0", "u1"], &[])).clone();
    let g = t.symbols.intern("g");
    for j in &mut t.jobs {
        j.group = Some(g);
    }
    let t = Arc::new(t);
    let by_user = run(&t, Policy::Fair, Tuning::default());
    assert_eq!(by_user.report().preemptions, 1, "by user, u1 gets one GPU");
    let by_group = run(
        &t,
        Policy::Fair,
        Tuning {
            fair_by: tracetui::sim::FairBy::Group,
            ..Tuning::default()
        },
    );
    assert_eq!(by_group.report().preemptions, 0);
    assert_eq!(by_group.job_state(2).start, 100);
}

#[test]
fn edf_runs_the_earliest_deadline_and_counts_deadlines_met() {
    // One GPU. A (0, 100 s, due 1000); B (10, 20 s, due 50) preempts A;
    // C (20, 10 s, due 25) preempts B and ends at 30, late. B resumes
    // (10 + 30 s left) and ends at 70, late; A resumes at 70 (90 + 30 s) and
    // ends at 190, in time. One deadline in three met.
    let t = tiny(&[1], &[(0, 100, 1), (10, 20, 1), (20, 10, 1)]);
    let t = with(t, &[], &[Some(1000), Some(50), Some(25)]);
    let e = run(&t, Policy::Edf, Tuning::default());
    assert_eq!(spans(&e), vec![(0, 190), (10, 70), (20, 30)]);
    let r = e.report();
    assert_eq!(r.preemptions, 2);
    assert_eq!(r.deadline_met, Some(1.0 / 3.0));
    // FIFO meets only A's.
    let e = run(&t, Policy::Fifo, Tuning::default());
    assert_eq!(e.report().deadline_met, Some(1.0 / 3.0));
    assert_eq!(e.report().preemptions, 0);
    // Without deadlines in the trace there is no deadline_met at all.
    let plain = tiny(&[1], &[(0, 10, 1)]);
    let r = run(&plain, Policy::Fifo, Tuning::default()).report();
    assert_eq!(r.deadline_met, None);
    let json = serde_json::to_value(&r).unwrap();
    assert!(json.get("deadline_met").is_none());
    assert_eq!(json["preemptions"], 0);
}

#[test]
fn switching_between_preemptive_policies_midway_keeps_work() {
    // Start under fifo, go to srtf at 15: the waiting short job preempts
    // the long one at once.
    let t = tiny(&[1], &[(0, 100, 1), (10, 20, 1)]);
    let mut e = Engine::new(t.clone(), Policy::Fifo, C);
    e.advance_to(15);
    assert_eq!(e.job_state(1).phase, tracetui::sim::Phase::Queued);
    e.set_policy(Policy::Srtf);
    assert_eq!(e.job_state(1).phase, tracetui::sim::Phase::Running);
    assert_eq!(e.job_state(1).start, 15);
    e.set_policy(Policy::Las);
    e.run_to_end();
    // B ends at 35; A resumes with 85 + 30 s left.
    assert_eq!(spans(&e), vec![(0, 150), (15, 35)]);
}

mod fractional {
    use super::*;
    use proptest::prelude::*;
    use tracetui::trace::{Demand, Unit};

    proptest! {
        // PAI-style jobs: instances of a quarter, half or whole GPU, or
        // 8 GPUs on one machine, sharing GPUs, under every preemptive policy.
        #[test]
        fn sharing_and_preemption_keep_the_invariants(
            jobs in prop::collection::vec(
                (0i64..300, 1i64..200, prop::sample::select(vec![250u32, 500, 1000, 8000]), 1u32..4),
                1..40,
            ),
            users in 1usize..4,
        ) {
            let plain: Vec<(i64, i64, u32)> = jobs.iter().map(|&(s, r, _, _)| (s, r, 1)).collect();
            let mut t = (*common::tiny_rich(&[8, 8], &plain, users, 3)).clone();
            for (j, &(_, _, milli, count)) in t.jobs.iter_mut().zip(&jobs) {
                // Whole-GPU gangs among them, so a gang may preempt holders
                // of shared GPUs.
                j.demand = if milli >= 1000 && count == 1 {
                    Demand::Gang { gpus: milli / 1000 }
                } else {
                    Demand::Instances(vec![Unit::gpus(count, milli)].into_boxed_slice())
                };
            }
            let t = Arc::new(t);
            for p in [Policy::Srtf, Policy::Las, Policy::Fair, Policy::Edf] {
                let tuning = Tuning { las_thresholds: vec![60, 600], ..Tuning::default() };
                run(&t, p, tuning);
            }
        }
    }
}
