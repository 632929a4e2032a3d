#![warn(unreachable_pub)]
//! tracetui: replay public GPU-cluster job traces through a deterministic
//! scheduling simulation.
//!
//! Data flows one way: `trace` (load) → the model → `sim` (engine) → views.

pub mod cli;
pub(crate) mod fmt;
pub mod gen;
pub mod lesson;
pub(crate) mod outfile;
pub(crate) mod par;
pub(crate) mod plot;
pub mod sample;
pub mod sim;
pub mod stats;
pub mod text;
pub mod trace;
pub mod ui;

/// The program: parses the command line and returns the exit code.
pub fn run() -> i32 {
    let _ = color_eyre::install();
    cli::main_with(std::env::args_os())
}
