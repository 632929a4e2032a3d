//! `Answer::finish`: a policy may hold a job it preempted done, work left
//! (ElasticFlow's `edf-accessctrl` ends such a job at the end it kept,
//! which may have passed while it waited for a round): done at that time,
//! counted cut short, its GPUs long free; a job that never ran, or a time
//! before the job stopped or after now, is refused.

use crate::common::tiny;
use tracetui::sim::Unavailable;
use tracetui::sim::{
    Acts, Answer, Books, Checked, Engine, NoAnswer, Phase, Placement, Policy, Rule, View, Walk,
};
use tracetui::trace::{Secs, Trace};

/// Starts job 0 at 0, preempts it at 5 (starting job 2, a second's
/// filler) and at 7 holds it done at 6, starting job 1 then; job 3 (a
/// filler whose arrival makes the instant 7) runs after job 1.
struct Scripted;

#[derive(Debug, Clone, Default)]
struct ScriptBooks;

impl Books for ScriptBooks {
    fn clone_box(&self) -> Box<dyn Books> {
        Box::new(self.clone())
    }

    fn queued_key(&self, _v: &dyn View, job: u32) -> u64 {
        job as u64
    }

    fn next_wakeup(&self) -> Option<Secs> {
        None
    }

    fn wake(&mut self, _v: &dyn View, _acts: &mut Acts<'_>, _t: Secs) -> bool {
        false
    }

    fn decide(&mut self, v: &dyn View) -> Result<Option<Checked>, NoAnswer> {
        let a = match v.now() {
            0 if v.job(0).phase == Phase::Queued => Answer {
                start_if_fits: vec![0],
                ..Answer::default()
            },
            5 => Answer {
                preempt: vec![0],
                start_if_fits: vec![2],
                ..Answer::default()
            },
            7 => {
                let refused = |finish: Vec<(u32, Secs)>| {
                    let a = Answer {
                        finish,
                        ..Answer::default()
                    };
                    v.check(&a).is_err()
                };
                assert!(refused(vec![(1, 7)]), "job 1 never ran");
                assert!(refused(vec![(0, 4)]), "job 0 ran until 5");
                assert!(refused(vec![(0, 8)]), "8 is after now");
                Answer {
                    finish: vec![(0, 6)],
                    start_if_fits: vec![1],
                    ..Answer::default()
                }
            }
            // The last filler job, once the GPU is free.
            17 => Answer {
                start_if_fits: vec![3],
                ..Answer::default()
            },
            _ => return Ok(None),
        };
        v.check(&a)
            .map(Some)
            .map_err(|why| NoAnswer::Failed(why.to_string()))
    }
}

impl Rule for Scripted {
    fn name(&self) -> &str {
        "finish-script"
    }

    fn describe(&self) -> &str {
        "preempts job 0 at 5 and finishes it at 7 (a test policy)"
    }

    fn walk(&self) -> Walk {
        Walk::Explicit
    }

    fn preempts(&self) -> bool {
        true
    }

    fn available(&self, _trace: &Trace) -> Result<(), Unavailable> {
        Ok(())
    }

    fn books(&self, _v: &dyn View) -> Box<dyn Books> {
        Box::new(ScriptBooks)
    }
}

#[test]
fn a_preempted_job_the_policy_finishes_is_done_at_its_time_and_cut_short() {
    let p: Policy = tracetui::sim::Policies::new().register(Box::new(Scripted));
    // One GPU; two 10-s jobs at 0; instants at 5 and 7 from arrivals.
    let t = tiny(&[1], &[(0, 10, 1), (0, 10, 1), (5, 1, 1), (7, 1, 1)]);
    let mut e = Engine::new(t, p, Placement::Consolidate);
    e.run_to_end();
    let (a, b) = (e.job_state(0), e.job_state(1));
    assert_eq!((a.phase, a.start, a.end), (Phase::Done, 0, 6));
    assert_eq!((b.phase, b.start, b.end), (Phase::Done, 7, 17));
    let r = e.report();
    assert_eq!(r.jobs_cut_short, 1);
    assert_eq!(e.job_state(3).end, 18);
    assert!(e.failures().is_empty(), "{:?}", e.failures());
}
