//! The answers an external policy gave are kept for step back within a
//! budget: past it the oldest go, and stepping back before them asks the
//! program again from a snapshot — the replay still comes back to the same
//! state (for a deterministic program), and memory stays bounded.

use crate::common;

use common::python;

use common::{scratch_dir, tiny};
use std::time::Duration;
use tracetui::sim::{self, Engine, JobState, Placement, Policy, Replay};

#[test]
fn past_the_budget_old_answers_go_and_stepping_back_asks_again() {
    if !python() {
        return;
    }
    let dir = scratch_dir("budget");
    let log = dir.join("said.log");
    let path = dir.join("keyed.py");
    std::fs::write(
        &path,
        format!(
            r#"import json, sys
out = open({log:?}, "a")
for line in sys.stdin:
    msg = json.loads(line)
    out.write(msg["type"] + "\n")
    out.flush()
    answer = {{}}
    if msg["type"] == "hello":
        answer = {{"name": "keyed", "walk": "greedy"}}
    elif msg["type"] == "schedule":
        answer = {{"priority": [[j["job"], j["runtime"]] for j in msg["arrived"]]}}
    print(json.dumps(answer), flush=True)
"#
        ),
    )
    .unwrap();
    let p: Policy = tracetui::driver::resolve(
        &format!("exec:python3 {}", path.display()),
        &mut tracetui::sim::Policies::new(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let jobs: Vec<(i64, i64, u32)> = (0..60)
        .map(|i| (i * 40, 100 + (i * 37) % 500, 1 + (i % 4) as u32))
        .collect();
    let t = tiny(&[4, 4], &jobs);
    let states = |e: &Engine| -> Vec<JobState> {
        (0..t.jobs.len() as u32).map(|j| e.job_state(j)).collect()
    };
    // A few hundred bytes of answers kept: a handful.
    let tuning = sim::Tuning {
        policy_timeout: Duration::from_secs(5),
        answer_budget: 600,
        ..sim::Tuning::default()
    };
    let e = Engine::new(t.clone(), p, Placement::Consolidate);
    let mut r = Replay::new(e.with_tuning(std::sync::Arc::new(tuning)));
    tracetui::driver::seek(&mut r, 5000);
    let want = states(r.engine());
    let starts = |log: &std::path::Path| {
        std::fs::read_to_string(log)
            .unwrap()
            .lines()
            .filter(|l| *l == "start")
            .count()
    };
    assert_eq!(starts(&log), 1);
    // Back to the beginning, whose answers are gone: a new conversation.
    tracetui::driver::seek(&mut r, 10);
    tracetui::driver::seek(&mut r, 5000);
    assert!(r.engine().failures().is_empty());
    assert_eq!(states(r.engine()), want);
    assert_eq!(
        starts(&log),
        2,
        "the program was asked again from a snapshot"
    );
}
