//! The plan reader as the fuzzer drives it (`examples/fuzz`): a plan's
//! text parsed, its runs made, and the arguments of the runs that give
//! every value checked — what `sweep` does before its first run.

use super::options::Options;
use super::plan::Plan;
use std::sync::OnceLock;

/// Runs made at most (a larger grid is parsed and sized only: its million
/// runs would pass the fuzzer's time cap, not find a fault).
const MOST_RUNS: usize = 10_000;

/// Whether `text` is a plan whose covering runs' arguments all parse (the
/// fuzzer's "loaded"); any other text is refused with an error, never a
/// panic.
#[doc(hidden)]
pub fn fuzz_plan(text: &str) -> bool {
    static OPTIONS: OnceLock<Options> = OnceLock::new();
    let Ok(plan) = Plan::parse(text, "plan.toml") else {
        return false;
    };
    if plan.len() > MOST_RUNS {
        return true;
    }
    let Ok(runs) = plan.runs() else {
        return false;
    };
    let options = OPTIONS.get_or_init(Options::new);
    plan.covering()
        .into_iter()
        .take(64)
        .all(|i| options.sim_args(&runs[i]).is_ok())
}
