//! A plain stderr logger for the headless commands: warnings and errors only,
//! so stdout stays clean for JSON and CSV.

use log::{Level, LevelFilter, Metadata, Record};

struct Stderr;

impl log::Log for Stderr {
    fn enabled(&self, m: &Metadata) -> bool {
        m.level() <= Level::Warn || m.target() == crate::driver::POLICY_OUTPUT
    }

    fn log(&self, r: &Record) {
        // An external policy's stderr: its own output, as it wrote it.
        if r.target() == crate::driver::POLICY_OUTPUT {
            super::print_err(&format!("{}", r.args()));
            return;
        }
        if self.enabled(r.metadata()) {
            let tag = if r.level() == Level::Error {
                "error"
            } else {
                "warning"
            };
            super::print_err(&format!("tracetui: {tag}: {}", r.args()));
        }
    }

    fn flush(&self) {}
}

static LOGGER: Stderr = Stderr;

pub(crate) fn init_stderr() {
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(LevelFilter::Info);
    }
}

/// The engine's warnings (it writes nothing itself), logged: on stderr
/// headless, in the replay's log pane.
pub(crate) const ENGINE_WARN: crate::sim::Warn = crate::sim::Warn(engine_warn);

fn engine_warn(line: &str) {
    log::warn!("{line}");
}

/// The engine's default knobs, its warnings logged.
pub(crate) fn logged_tuning() -> crate::sim::Tuning {
    crate::sim::Tuning {
        warn: ENGINE_WARN,
        ..crate::sim::Tuning::default()
    }
}
