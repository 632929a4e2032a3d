//! Policies are an open set: a rule registered at run time, from outside the
//! crate, schedules like a built-in — parsed by name, listed, run by the
//! engine, preempting where its walk says so.

use crate::common;

use common::{starts, tiny};
use tracetui::sim::{Books, Engine, Phase, Placement, Policy, Rule, Unavailable, View, Walk};
use tracetui::trace::Trace;

/// Newest submission first; `walk` says whether it may preempt.
struct NewestFirst {
    name: &'static str,
    walk: Walk,
}

#[derive(Debug, Clone, Copy)]
struct NewestBooks;

impl Books for NewestBooks {
    fn clone_box(&self) -> Box<dyn Books> {
        Box::new(*self)
    }

    fn queued_key(&self, v: &dyn View, job: u32) -> u64 {
        (i64::MAX - v.trace().jobs[job as usize].submit) as u64
    }
}

impl Rule for NewestFirst {
    fn name(&self) -> &str {
        self.name
    }

    fn describe(&self) -> &str {
        "newest submission first (a test policy)"
    }

    fn walk(&self) -> Walk {
        self.walk
    }

    fn available(&self, trace: &Trace) -> Result<(), Unavailable> {
        if trace.jobs.len() < 100 {
            return Ok(());
        }
        Err(Unavailable {
            lacks: "fewer than 100 jobs".into(),
            short: "too many jobs".into(),
            hint: None,
        })
    }

    fn books(&self, _v: &dyn View) -> Box<dyn Books> {
        Box::new(NewestBooks)
    }
}

#[test]
fn a_registered_rule_schedules_like_a_built_in() {
    let mut registry = tracetui::sim::Policies::new();
    let p = registry.register(Box::new(NewestFirst {
        name: "newest-first",
        walk: Walk::Greedy,
    }));
    assert_eq!(registry.parse("newest-first").unwrap(), p);
    assert!(registry.all().contains(&p));
    assert!(registry.non_preemptive().any(|q| q == p));
    // A registry is a value: another knows nothing of it, nor do the built-ins.
    assert!(!tracetui::sim::Policies::new().all().contains(&p));
    assert!("newest-first".parse::<Policy>().is_err());
    // Registering the same name again gives the same handle.
    let again = registry.register(Box::new(NewestFirst {
        name: "newest-first",
        walk: Walk::Greedy,
    }));
    assert_eq!(again, p);

    // One GPU; A runs first, then B and C wait: C (newer) goes before B.
    let t = tiny(&[1], &[(0, 10, 1), (1, 10, 1), (2, 10, 1)]);
    assert_eq!(
        starts(&t, p, Placement::Consolidate),
        vec![Some(0), Some(20), Some(10)]
    );
    assert_eq!(
        starts(&t, Policy::Fifo, Placement::Consolidate),
        vec![Some(0), Some(10), Some(20)]
    );
    assert!(registry.available_on(&t).contains(&p));
    assert_eq!(p.to_string(), "newest-first");
}

#[test]
fn a_registered_preemptive_rule_preempts() {
    let p = tracetui::sim::Policies::new().register(Box::new(NewestFirst {
        name: "newest-first-preemptive",
        walk: Walk::Preemptive,
    }));
    assert!(p.preempts());
    // B (newer) arrives at 5 and takes A's GPU; A resumes when B ends at 15
    // with its 5 s left plus the default restart cost of 30 s.
    let t = tiny(&[1], &[(0, 10, 1), (5, 10, 1)]);
    let mut e = Engine::new(t.clone(), p, Placement::Consolidate);
    e.run_to_end();
    let (a, b) = (e.job_state(0), e.job_state(1));
    assert_eq!((a.phase, a.start, a.end), (Phase::Done, 0, 50));
    assert_eq!((b.phase, b.start, b.end), (Phase::Done, 5, 15));
    assert_eq!(e.preemptions_of(0), 1);
}

#[test]
fn availability_is_the_rules_answer() {
    let mut registry = tracetui::sim::Policies::new();
    let p = registry.register(Box::new(NewestFirst {
        name: "newest-first-small",
        walk: Walk::Greedy,
    }));
    let jobs: Vec<(i64, i64, u32)> = (0..100).map(|i| (i, 10, 1)).collect();
    let big = tiny(&[1], &jobs);
    assert!(!registry.available_on(&big).contains(&p));
    let msg = p.check(&big).unwrap_err().to_string();
    assert!(
        msg.contains("policy 'newest-first-small' needs fewer than 100 jobs"),
        "{msg}"
    );
    // The built-ins' own rules: recorded needs recorded starts, edf deadlines.
    assert!(Policy::Recorded
        .check(&big)
        .unwrap_err()
        .to_string()
        .contains("needs recorded start times"));
    assert!(Policy::Edf
        .check(&big)
        .unwrap_err()
        .to_string()
        .contains("needs deadlines"));
    assert!(Policy::Sjf.check(&big).is_ok());
}

#[test]
fn the_view_a_policy_sees_agrees_with_the_engine() {
    // Two machines of 4; at t=5 jobs 0 (2 GPUs) and 1 (4 GPUs) run, job 2 (4) waits.
    let t = tiny(&[4, 4], &[(0, 100, 2), (1, 100, 4), (2, 100, 4)]);
    let mut e = Engine::new(t, Policy::Fifo, Placement::Consolidate);
    e.advance_to(5);
    let v: &dyn View = &e;
    assert_eq!(v.now(), 5);
    assert_eq!(v.running_jobs(), vec![0, 1]);
    assert_eq!(v.queue_in_order(10), vec![2]);
    assert_eq!(v.job(2).phase, Phase::Queued);
    for j in [0u32, 1] {
        let held: u32 = v.held(j).unwrap().iter().map(|g| g.milli as u32).sum();
        assert_eq!(held, [2000, 4000][j as usize]);
    }
    assert_eq!(v.held(2), None);
    let free: u32 = (0..2).map(|m| v.free_gpus(m)).sum();
    assert_eq!(free, 2, "8 GPUs less the 6 held");
    assert!(v.preemptable(0) && !v.preemptable(2));
    assert_eq!((v.rank(2), v.job_at_rank(2)), (2, 2));
    assert_eq!(v.runtime(1), Some(100));
    assert!(v.preempted_before(0).is_none());
}
