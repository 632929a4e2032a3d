//! The engine's rules on hand-computed tiny traces, and its agreement with a
//! naive reference simulator on random ones.

use crate::common;

use common::{reference, starts, tiny};
use proptest::prelude::*;
use tracetui::sim::{Engine, Phase, Placement, Policy};

const C: Placement = Placement::Consolidate;

#[test]
fn fifo_blocks_at_the_head_first_fit_does_not() {
    // One machine of 4 GPUs. A holds 2; B needs 4 and waits; C needs 1.
    let t = tiny(&[4], &[(0, 10, 2), (1, 10, 4), (2, 5, 1)]);
    assert_eq!(
        starts(&t, Policy::Fifo, C),
        vec![Some(0), Some(10), Some(20)]
    );
    assert_eq!(
        starts(&t, Policy::FirstFit, C),
        vec![Some(0), Some(10), Some(2)]
    );
}

#[test]
fn sjf_runs_the_shortest_waiting_job_first() {
    let t = tiny(&[1], &[(0, 100, 1), (1, 50, 1), (2, 10, 1), (3, 30, 1)]);
    assert_eq!(
        starts(&t, Policy::Sjf, C),
        vec![Some(0), Some(140), Some(100), Some(110)]
    );
    assert_eq!(
        starts(&t, Policy::Fifo, C),
        vec![Some(0), Some(100), Some(150), Some(160)]
    );
    // sgf weighs by GPUs: a 2-GPU 10 s job (20 GPU-s) goes after a 1-GPU 15 s
    // job, which then holds one of the two GPUs until 115.
    let t = tiny(&[2], &[(0, 100, 2), (1, 10, 2), (2, 15, 1)]);
    assert_eq!(
        starts(&t, Policy::Sgf, C),
        vec![Some(0), Some(115), Some(100)]
    );
    assert_eq!(
        starts(&t, Policy::Sjf, C),
        vec![Some(0), Some(100), Some(110)]
    );
}

#[test]
fn easy_backfill_never_delays_the_head() {
    // A holds 2 of 4 GPUs until 10. H needs all 4: reserved for t = 10.
    // C (2 GPUs, 20 s) fits now but would hold GPUs past 10: not backfilled.
    // B (2 GPUs, ends at 10) fits now and ends by the reservation: backfilled.
    let t = tiny(&[4], &[(0, 10, 2), (1, 10, 4), (2, 20, 2), (3, 7, 2)]);
    assert_eq!(
        starts(&t, Policy::FifoBackfill, C),
        vec![Some(0), Some(10), Some(20), Some(3)]
    );
    // first-fit lets C in and the wide job H waits until 22.
    assert_eq!(
        starts(&t, Policy::FirstFit, C),
        vec![Some(0), Some(22), Some(2), Some(10)]
    );
    assert_eq!(
        starts(&t, Policy::Fifo, C),
        vec![Some(0), Some(10), Some(20), Some(20)]
    );
}

#[test]
fn backfill_may_use_machines_the_head_does_not_need() {
    // m0 and m1 of 4 GPUs. A: 3 GPUs on m0 until 10. X: 2 GPUs on m1 for 100 s.
    // H needs 4 on one machine: reserved on m0 at t = 10.
    // C (1 GPU, long) would go to m0: refused. D (2 GPUs, long) goes to m1: allowed.
    let t = tiny(
        &[4, 4],
        &[(0, 10, 3), (0, 100, 2), (1, 10, 4), (2, 50, 1), (3, 50, 2)],
    );
    assert_eq!(
        starts(&t, Policy::FifoBackfill, C),
        vec![Some(0), Some(0), Some(10), Some(20), Some(3)]
    );
}

#[test]
fn spread_fragments_where_consolidate_packs() {
    // Two 4-GPU jobs then an 8-GPU job on two 8-GPU machines.
    let t = tiny(&[8, 8], &[(0, 100, 4), (1, 100, 4), (2, 10, 8)]);
    assert_eq!(
        starts(&t, Policy::FirstFit, C),
        vec![Some(0), Some(1), Some(2)]
    );
    assert_eq!(
        starts(&t, Policy::FirstFit, Placement::Spread),
        vec![Some(0), Some(1), Some(100)]
    );
}

#[test]
fn pack_gives_up_locality_consolidate_waits() {
    // Three 4-GPU machines with 3 GPUs busy each; a 2-GPU job.
    let t = tiny(
        &[4, 4, 4],
        &[(0, 50, 3), (0, 50, 3), (0, 50, 3), (1, 10, 2)],
    );
    assert_eq!(starts(&t, Policy::FirstFit, C)[3], Some(50));
    assert_eq!(starts(&t, Policy::FirstFit, Placement::Pack)[3], Some(1));
    let mut e = Engine::new(t.clone(), Policy::FirstFit, Placement::Pack);
    e.advance_to(1);
    let mut machines: Vec<u32> = e.running()[&3].iter().map(|g| g.machine).collect();
    machines.dedup();
    assert_eq!(machines.len(), 2, "split over two machines");
}

#[test]
fn jobs_larger_than_the_cluster_are_rejected_and_counted() {
    let t = tiny(&[4, 4], &[(0, 10, 9), (1, 10, 8), (2, 10, 1)]);
    let mut e = Engine::new(t, Policy::Fifo, C);
    e.run_to_end();
    assert_eq!(e.job_state(0).phase, Phase::Rejected);
    assert_eq!(e.job_state(1).phase, Phase::Done);
    assert_eq!(e.jobs_rejected(), 1);
    let r = e.report();
    assert_eq!((r.jobs, r.jobs_done, r.jobs_rejected), (3, 2, 1));
}

#[test]
fn live_switch_reorders_the_queue_at_once_and_schedules() {
    // One GPU busy until 100; three jobs wait: 50 s, 10 s, 30 s.
    let t = tiny(
        &[1, 2],
        &[
            (0, 100, 1),
            (0, 100, 2),
            (1, 50, 1),
            (2, 10, 1),
            (3, 30, 1),
            (4, 5, 2),
        ],
    );
    let mut e = Engine::new(t.clone(), Policy::Fifo, C);
    e.advance_to(10);
    assert_eq!(e.queue_in_order(10), vec![2, 3, 4, 5]);
    e.set_policy(Policy::Sjf);
    assert_eq!(e.queue_in_order(10), vec![5, 3, 4, 2], "reordered at once");
    assert_eq!(e.policy_since(), 10);
    assert_eq!(e.policy(), Policy::Sjf);
    e.run_to_end();
    // At 100 both machines free: 5 (5 s, 2 GPUs) takes m1, 3 (10 s) takes m0;
    // at 105 m1 frees and 4 then 2 start there.
    assert_eq!(e.job_state(5).start, 100);
    assert_eq!(e.job_state(3).start, 100);
    assert_eq!(e.job_state(4).start, 105);
    assert_eq!(e.job_state(2).start, 105);
}

#[test]
fn switching_from_fifo_to_first_fit_starts_what_fits_now() {
    let t = tiny(&[4], &[(0, 10, 2), (1, 10, 4), (2, 5, 1)]);
    let mut e = Engine::new(t, Policy::Fifo, C);
    e.advance_to(3);
    assert_eq!(e.job_state(2).phase, Phase::Queued);
    e.set_policy(Policy::FirstFit);
    assert_eq!(e.job_state(2).phase, Phase::Running);
    assert_eq!(e.job_state(2).start, 3);
}

#[test]
fn instants_order_completions_then_arrivals_then_one_pass() {
    // A finishes at 10 exactly when B arrives: B starts at 10 on the freed GPU.
    let t = tiny(&[1], &[(0, 10, 1), (10, 5, 1)]);
    assert_eq!(starts(&t, Policy::Fifo, C), vec![Some(0), Some(10)]);
    // Same submit time: trace order breaks the tie.
    let t = tiny(&[1], &[(0, 10, 1), (0, 5, 1)]);
    assert_eq!(starts(&t, Policy::Fifo, C), vec![Some(0), Some(10)]);
    // Zero run time finishes in the same instant and frees its GPU for the next.
    let t = tiny(&[1], &[(0, 0, 1), (0, 5, 1)]);
    assert_eq!(starts(&t, Policy::Fifo, C), vec![Some(0), Some(0)]);
}

#[test]
fn occupancy_reports_which_job_holds_which_gpu() {
    let t = tiny(&[2, 2], &[(0, 10, 1), (0, 10, 2)]);
    let mut e = Engine::new(t, Policy::Fifo, C);
    e.advance_to(0);
    let c = e.cluster();
    let holders: Vec<Vec<u32>> = (0..c.gpu_count())
        .map(|g| c.holders(g).iter().map(|h| h.0).collect())
        .collect();
    assert_eq!(holders, vec![vec![0], vec![], vec![1], vec![1]]);
}

#[test]
fn advance_to_stops_at_the_requested_time() {
    let t = tiny(&[1], &[(0, 10, 1), (5, 10, 1)]);
    let mut e = Engine::new(t, Policy::Fifo, C);
    e.advance_to(4);
    assert_eq!(e.now(), 4);
    assert_eq!(e.next_event_time(), Some(5));
    assert_eq!(e.job_state(1).phase, Phase::Future);
    e.advance_to(10);
    assert_eq!(e.job_state(1).start, 10);
    assert_eq!(e.jobs_done(), 1);
}

fn arb_trace() -> impl Strategy<Value = (Vec<u32>, Vec<(i64, i64, u32)>)> {
    let machines = prop::collection::vec(prop::sample::select(vec![1u32, 2, 4, 8]), 1..5);
    let jobs = prop::collection::vec(
        (
            0i64..200,
            0i64..120,
            prop::sample::select(vec![1u32, 1, 2, 3, 4, 8, 12, 16]),
        ),
        1..40,
    );
    (machines, jobs)
}

/// The reference simulator knows the policies that never preempt and
/// walk the queue (not those that decide their own placements, as
/// `fifo-fastest`).
fn all_policies() -> Vec<Policy> {
    tracetui::sim::Policies::new()
        .non_preemptive()
        .filter(|p| p.walk() != tracetui::sim::Walk::Explicit)
        .collect()
}

proptest! {
    // 256 cases by default; PROPTEST_CASES=5000 for a deeper run.
    #[test]
    fn engine_agrees_with_the_naive_reference((machines, jobs) in arb_trace()) {
        let t = tiny(&machines, &jobs);
        for p in all_policies() {
            for rule in [Placement::Consolidate, Placement::Pack, Placement::Spread] {
                let fast = starts(&t, p, rule);
                let slow = reference::simulate(&t, p, rule);
                prop_assert_eq!(fast, slow, "policy {} placement {}", p, rule.name());
            }
        }
    }
}
