#![warn(unreachable_pub)]
//! tracetui: replay public GPU-cluster job traces through a deterministic
//! scheduling simulation.
//!
//! Data flows one way: `trace` (load) → the model → `sim` (engine) → views.

pub mod cli;
pub(crate) mod config;
pub mod gen;
pub mod lesson;
pub(crate) mod outfile;
pub(crate) mod plot;
pub mod spec;
pub mod stats;
pub mod ui;

pub use tracetui_driver as driver;
pub use tracetui_engine as sim;
pub use tracetui_model as trace;
use tracetui_model::{fmt, par};
pub use tracetui_model::{rng, sample, text};

/// The program: parses the command line and returns the exit code.
pub fn run() -> i32 {
    // An error is told in one line, never with a backtrace: capturing one
    // (RUST_BACKTRACE=1 asks eyre to) costs 0.6 s of a debug build's exit.
    // Panics keep theirs. Set here, before any thread starts.
    if std::env::var_os("RUST_LIB_BACKTRACE").is_none() {
        std::env::set_var("RUST_LIB_BACKTRACE", "0");
    }
    let _ = color_eyre::install();
    // A panic unwinds through here: every policy process ends with it.
    let code = std::panic::catch_unwind(|| cli::main_with(std::env::args_os()));
    // What a policy left behind (a grandchild that outlived its parent).
    driver::procs::end_all();
    code.unwrap_or_else(|p| std::panic::resume_unwind(p))
}
