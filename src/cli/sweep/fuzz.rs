//! The plan reader as the fuzzer drives it (`examples/fuzz`): a plan's
//! text parsed, its runs made, and the arguments of the runs that give
//! every value checked — what `sweep` does before its first run.

use super::options::Options;
use super::plan::Plan;

/// Runs made at most (a larger grid is parsed and sized only: its million
/// runs would pass the fuzzer's time cap, not find a fault).
const MOST_RUNS: usize = 10_000;

/// The plan reader: sim's options built once (they take a moment).
#[doc(hidden)]
pub struct PlanReader(Options);

impl PlanReader {
    #[doc(hidden)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> PlanReader {
        PlanReader(Options::new())
    }

    /// Whether `text` is a plan whose covering runs' arguments all parse
    /// (the fuzzer's "loaded"); any other text is refused with an error,
    /// never a panic.
    #[doc(hidden)]
    pub fn read(&self, text: &str) -> bool {
        let Ok(plan) = Plan::parse(text, "plan.toml") else {
            return false;
        };
        if plan.len() > MOST_RUNS {
            return true;
        }
        let Ok(runs) = plan.runs() else {
            return false;
        };
        plan.covering()
            .into_iter()
            .take(64)
            .all(|i| self.0.sim_args(&runs[i]).is_ok())
    }
}
