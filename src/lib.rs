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
pub use tracetui_model::text;

/// The program: parses the command line and returns the exit code.
pub fn run() -> i32 {
    // Panics are reported by color-eyre (with a backtrace where
    // RUST_BACKTRACE asks for one); errors by `Plain`.
    // Hooks are set once a process (a second call keeps the first).
    let mut hooks = color_eyre::config::HookBuilder::default();
    if !coloured(
        std::io::IsTerminal::is_terminal(&std::io::stderr()),
        std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
    ) {
        // No colour codes into a file, a pipe or a NO_COLOR terminal.
        hooks = hooks.theme(color_eyre::config::Theme::new());
    }
    if let Ok((panics, _)) = hooks.try_into_hooks() {
        panics.install();
    }
    let _ = color_eyre::eyre::set_hook(Box::new(|_| Box::new(Plain)));
    // A panic unwinds through here: every policy process ends with it.
    let code = std::panic::catch_unwind(|| cli::main_with(std::env::args_os()));
    // What a policy left behind (a grandchild that outlived its parent).
    driver::end_all();
    // A load cache still being written is finished (a cache half written
    // is never read, but then the next open reads the tables again).
    let _ = driver::cache_writes::finish();
    code.unwrap_or_else(|p| std::panic::resume_unwind(p))
}

/// Whether a panic's report is coloured: on a terminal, unless NO_COLOR.
fn coloured(terminal: bool, no_color: bool) -> bool {
    terminal && !no_color
}

/// How an error is told: its words and its causes, in one line, never
/// with a backtrace — the command line prints its errors itself
/// (`cli::with_causes`), and capturing a backtrace (which RUST_BACKTRACE=1
/// asks eyre's own handlers to do) costs 0.6 s of a debug build's exit.
struct Plain;

impl color_eyre::eyre::EyreHandler for Plain {
    fn debug(
        &self,
        error: &(dyn std::error::Error + 'static),
        f: &mut std::fmt::Formatter<'_>,
    ) -> std::fmt::Result {
        write!(f, "{}", cli::causes_of(error))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_panic_is_coloured_only_on_a_terminal_without_no_color() {
        assert!(super::coloured(true, false));
        assert!(!super::coloured(false, false));
        assert!(!super::coloured(true, true));
    }
}
