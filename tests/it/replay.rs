//! Stepping back: the state after going back to t equals a fresh run
//! advanced to t under the same switch history.

use crate::common;

use common::{fingerprint, fresh_run as fresh, Step};

use common::{tiny, tiny_rich};
use proptest::prelude::*;
use std::sync::Arc;
use tracetui::sim::{Engine, Placement, Policy, Replay, Switch};

fn arb_steps() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(
        prop_oneof![
            (1i64..200).prop_map(Step::Forward),
            (1i64..300).prop_map(Step::Back),
            (0usize..9).prop_map(Step::Switch)
        ],
        1..25,
    )
}

proptest! {
    #[test]
    fn stepping_back_equals_a_fresh_run(
        machines in prop::collection::vec(prop::sample::select(vec![2u32, 4, 8]), 1..4),
        jobs in prop::collection::vec((0i64..600, 1i64..200, 1u32..10), 1..40),
        steps in arb_steps(),
    ) {
        let t = tiny_rich(&machines, &jobs, 2, 2);
        let policies: Vec<Policy> = tracetui::sim::Policies::new().simulated().collect();
        let mut r = Replay::new(Engine::new(t.clone(), Policy::Fifo, Placement::Consolidate));
        for s in steps {
            match s {
                Step::Forward(d) => r.seek(r.now() + d),
                Step::Back(d) => r.seek(r.now() - d),
                Step::Switch(i) => r.set_policy(policies[i]),
            }
            let want = fresh(&t, Policy::Fifo, r.switches(), r.now());
            prop_assert_eq!(fingerprint(r.engine()), fingerprint(&want));
            // What a checkpoint keeps of the jobs is found without a scan.
            prop_assert!(r.engine().open_jobs_are_found());
        }
        // The start, rebuilt from the live engine and its snapshot.
        let start = Engine::new(t.clone(), Policy::Fifo, Placement::Consolidate);
        prop_assert_eq!(fingerprint(&r.start_engine()), fingerprint(&start));
    }
}

#[test]
fn back_before_a_switch_and_forward_again_reapplies_it() {
    let t = tiny(&[1], &[(0, 100, 1), (1, 50, 1), (2, 10, 1)]);
    let mut r = Replay::new(Engine::new(t.clone(), Policy::Fifo, Placement::Consolidate));
    r.seek(5);
    r.set_policy(Policy::Sjf);
    r.seek(200);
    assert_eq!(
        r.engine().job_state(2).start,
        100,
        "sjf ran the short job first"
    );
    r.seek(3);
    assert_eq!(r.engine().policy(), Policy::Fifo, "before the switch");
    r.seek(200);
    assert_eq!(r.engine().policy(), Policy::Sjf);
    assert_eq!(r.engine().job_state(2).start, 100);
    // A new switch after stepping back replaces the later history.
    r.seek(3);
    r.set_policy(Policy::FirstFit);
    assert_eq!(r.switches(), &[(3, Switch::Policy(Policy::FirstFit))]);
    r.seek(200);
    assert_eq!(r.engine().job_state(1).start, 100, "arrival order again");
}

#[test]
fn checkpoints_stay_bounded_on_a_long_replay() {
    let jobs: Vec<(i64, i64, u32)> = (0..3000)
        .map(|i| (i * 100, 150, 1 + (i % 4) as u32))
        .collect();
    let t = tiny(&[8, 8], &jobs);
    let mut r = Replay::new(Engine::new(
        t.clone(),
        Policy::FirstFit,
        Placement::Consolidate,
    ));
    for k in 1..400 {
        r.seek(k * 1000);
    }
    assert!(r.checkpoint_count() <= 256 + 1, "{}", r.checkpoint_count());
    r.seek(12_345);
    assert_eq!(
        fingerprint(r.engine()),
        fingerprint(&fresh(&t, Policy::FirstFit, &[], 12_345))
    );
}

#[test]
fn stepping_back_through_a_recorded_replay_and_a_switch_away_from_it() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/pai");
    let (t, _) = tracetui::trace::load_pai(std::path::Path::new(dir), &Default::default()).unwrap();
    let t = Arc::new(t);
    let t0 = 4_550_879;
    let mut r = Replay::new(Engine::new(
        t.clone(),
        Policy::Recorded,
        Placement::Consolidate,
    ));
    r.seek(t0 + 75);
    r.set_policy(Policy::Sjf);
    r.seek(t0 + 400);
    for back in [t0 + 300, t0 + 76, t0 + 75, t0 + 60, t0 + 10] {
        r.seek(back);
        let want = fresh(&t, Policy::Recorded, r.switches(), back);
        assert_eq!(fingerprint(r.engine()), fingerprint(&want), "at {back}");
        assert!(r.engine().open_jobs_are_found(), "at {back}");
    }
    r.seek(t0 + 30_000);
    assert_eq!(
        fingerprint(r.engine()),
        fingerprint(&fresh(&t, Policy::Recorded, r.switches(), t0 + 30_000))
    );
}
