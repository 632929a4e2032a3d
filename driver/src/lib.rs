#![warn(missing_docs)]
#![warn(unreachable_pub)]
//! tracetui's driver: the one place an engine's external policies are talked to,
//! processes are started, reaped and ended, and signals are heard.
//! An engine never waits: at a scheduling point whose answer is an external
//! program's, it stops at a [`Question`] (data: which dialogue, which
//! exchange, the message) and is resumed with the [`Reply`]. Here are the
//! processes (kept by dialogue id, one per dialogue, ended when no engine
//! can ask in it any more), pipes, deadlines and the wall clock: the probe
//! when a policy is named ([`resolve`], [`register_spec`]), the answer to a
//! question (by a deadline, or up to the policy's timeout), and the loops
//! that run an engine or a replay answering as they go — used by `sim`,
//! `compare`, schedules and what-if rows (through [`Driver`], the engine's
//! `Answers`), and by the replay's runner (`ui::effects`), which gives each
//! answer until shortly before the next frame.

mod ask_terminal;
pub mod cache_writes;
mod child;
mod echo;
mod error;
pub mod keeper;
mod link;
mod probe;
mod procs;
mod signals;
pub mod slurm_live;
mod stderr;
mod tools;

// Policies that are programs: named, probed, registered; and their errors.
pub use error::PolicyError;
pub use probe::{
    probe_spec, register, register_all, register_all_named, register_probed, register_spec,
    resolve, ExecSpec, Probed,
};
pub use stderr::POLICY_OUTPUT;

// Processes: all ended (at exit, on a signal), and the temporary files with them.
pub use procs::{
    die_if_signalled, die_of, end_all, end_on_signals, first_write_in, temp_done, temp_file,
};

// Signals the replay hears, and the terminal's typing kept quiet.
pub use ask_terminal::ask_terminal;
pub use echo::quiet_typing;
pub use signals::{stop_here, terminal_hung_up, Signals};

// Programs the application runs to their end (Slurm's).
/// Renamed from `tools::output`: a program's output, run to its end.
pub use tools::output as tool_output;
/// Renamed from `tools::output_within`: `tool_output`, given up after a time.
pub use tools::output_within as tool_output_within;

use std::time::Instant;
use tracetui_engine::{
    advance_to_answered, run_to_end_answered, seek_answered, settle_with, Answers, Asks, Engine,
    Question, Replay, Reply,
};
use tracetui_model::Secs;

/// The driver as the engine's answerer: each question answered by its
/// program, waiting up to the policy's timeout.
#[derive(Debug, Clone, Copy, Default)]
pub struct Driver;

impl Answers for Driver {
    fn reply(&self, q: &Question) -> Reply {
        // Without a deadline an answer always comes (or the program fails).
        ask(q, None).unwrap_or_else(|| Reply::Failed("no answer".into()))
    }
}

/// The answer to `q`, if it comes by `by` (None: up to its timeout; a
/// program that does not answer within it has failed). Not answered by
/// `by`, the message stays out: asked again, the same question waits on.
pub fn ask(q: &Question, by: Option<Instant>) -> Option<Reply> {
    link::ask(q, by)
}

/// Ends the processes of dialogues no engine can ask in any more (their
/// engines and every copy were dropped). Asking does it too; the replay's
/// runner does it between frames.
pub fn reap() {
    link::reap();
}

/// Answers `a`'s questions as they come until it stands at none (true) or
/// one is not answered by `by` (false; None waits up to each timeout).
pub fn settle(a: &mut impl Asks, by: Option<Instant>) -> bool {
    settle_with(a, |q| ask(q, by))
}

/// Runs `e` to the end, answering its questions as they come.
pub fn run_to_end(e: &mut Engine) {
    run_to_end_answered(e, &Driver);
}

/// Processes every instant of `e` up to `t`, answering its questions.
pub fn advance_to(e: &mut Engine, t: Secs) {
    advance_to_answered(e, t, &Driver);
}

/// Takes `r` to `t`, answering its questions as they come.
pub fn seek(r: &mut Replay, t: Secs) {
    seek_answered(r, t, &Driver);
}
