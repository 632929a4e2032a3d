//! External policies written as small Python scripts for a test, and the
//! failure a run of one ends with.

use super::{scratch_dir, tiny};
use std::sync::Arc;
use std::time::Duration;
use tracetui::sim::{self, Engine, Placement, Policy, Report};
use tracetui::trace::Trace;

/// A policy whose program is the Python `body`, run as `exec:python3`.
pub fn script(name: &str, body: &str) -> Result<Policy, String> {
    let dir = scratch_dir("exec");
    let path = dir.join(format!("{name}.py"));
    std::fs::write(&path, body).unwrap();
    tracetui::driver::resolve(
        &format!("exec:python3 {}", path.display()),
        &mut tracetui::sim::Policies::new(),
    )
    .map_err(|e: tracetui::sim::ArgError| e.to_string())
}

/// A policy that answers the hello as `walk`, then runs `schedule` (Python
/// statements with `msg` the message, setting `answer`) for each schedule.
pub fn scripted(name: &str, walk: &str, schedule: &str) -> Policy {
    let body = format!(
        r#"import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    answer = {{}}
    if msg["type"] == "hello":
        answer = {{"name": "{name}", "walk": "{walk}"}}
    elif msg["type"] == "schedule":
{schedule}
    print(json.dumps(answer), flush=True)
"#,
        schedule = schedule
            .lines()
            .map(|l| format!("        {l}\n"))
            .collect::<String>()
    );
    script(name, &body).unwrap_or_else(|e| panic!("{e}"))
}

/// `e` with 1.5 s for an external policy's answer.
pub fn quick(e: Engine) -> Engine {
    let tuning = sim::Tuning {
        policy_timeout: Duration::from_millis(1500),
        ..sim::Tuning::default()
    };
    e.with_tuning(std::sync::Arc::new(tuning))
}

/// Runs `p` headless on a small trace; the failure's message.
pub fn failure(p: Policy) -> String {
    let t = tiny(&[4], &[(0, 100, 2), (10, 100, 2), (20, 100, 4)]);
    let mut e = quick(Engine::new(t, p, Placement::Consolidate));
    e.set_halt_on_failure(true);
    tracetui::driver::run_to_end(&mut e);
    assert!(e.halted(), "{p} should have failed");
    let f = &e.failures()[0];
    assert_eq!(f.policy, p);
    assert_eq!(f.fell_back_to, None);
    f.why.clone()
}

/// A report with the policy's name left out, for comparing runs.
pub fn figures(mut r: Report) -> String {
    r.policy.clear();
    r.command = None;
    r.failed = None;
    format!("{r:?}")
}

/// `p` run headless on `trace` under `placement`, asserting it never failed.
pub fn run_placed(trace: &Arc<Trace>, p: Policy, placement: Placement) -> Report {
    let mut e = Engine::new(trace.clone(), p, placement);
    e.set_halt_on_failure(true);
    tracetui::driver::run_to_end(&mut e);
    assert_eq!(e.failures(), &[], "{p} failed");
    e.report()
}
