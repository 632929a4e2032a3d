//! Properties that hold for every trace, policy and placement.

use crate::common;

use common::{run_checked, tiny_rich};
use proptest::prelude::*;
use tracetui::sim::{Engine, Placement, Policy};

fn arb_jobs() -> impl Strategy<Value = (Vec<u32>, Vec<(i64, i64, u32)>)> {
    (
        prop::collection::vec(prop::sample::select(vec![2u32, 4, 8]), 1..6),
        prop::collection::vec((0i64..500, 0i64..300, 1u32..20), 1..60),
    )
}

proptest! {
    #[test]
    fn no_overallocation_each_job_once_and_work_conserved((machines, jobs) in arb_jobs(), users in 1usize..4) {
        // Users and deadlines, so that fair and edf have something to work with.
        let t = tiny_rich(&machines, &jobs, users, 2);
        // The policies offered on it (not those that need throughput tables).
        for p in tracetui::sim::Policies::new().simulated().filter(|p| p.rule().available(&t).is_ok()) {
            for rule in [Placement::Consolidate, Placement::Pack, Placement::Spread] {
                run_checked(&t, p, rule);
            }
        }
    }

    #[test]
    fn same_input_same_output_bytes((machines, jobs) in arb_jobs(), p in prop::sample::select(tracetui::sim::Policies::new().simulated().collect::<Vec<_>>())) {
        let out = || {
            let mut e = Engine::new(tiny_rich(&machines, &jobs, 2, 2), p, Placement::Consolidate);
            e.run_to_end();
            let states: Vec<_> = (0..jobs.len() as u32).map(|j| { let s = e.job_state(j); (s.start, s.end) }).collect();
            format!("{}{:?}", serde_json::to_string(&e.report()).unwrap(), states)
        };
        prop_assert_eq!(out(), out());
    }

    #[test]
    fn switching_policy_midway_keeps_the_invariants((machines, jobs) in arb_jobs(), at in 0i64..500, seq in prop::collection::vec(0usize..9, 1..4)) {
        let t = tiny_rich(&machines, &jobs, 3, 2);
        let policies: Vec<Policy> = tracetui::sim::Policies::new().simulated().collect();
        let mut e = Engine::new(t.clone(), Policy::Fifo, Placement::Consolidate);
        let mut when = at;
        for i in seq {
            e.advance_to(when);
            e.set_policy(policies[i]);
            when += 37;
        }
        e.run_to_end();
        let done = e.jobs_done() + e.jobs_rejected();
        prop_assert_eq!(done, jobs.len() as u64);
        prop_assert_eq!(e.cluster().allocated_milli(), 0);
    }
}
