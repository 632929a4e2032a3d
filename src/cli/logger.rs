//! A plain stderr logger for the headless commands: warnings and errors only,
//! so stdout stays clean for JSON and CSV.

use log::{Level, LevelFilter, Metadata, Record};

struct Stderr;

impl log::Log for Stderr {
    fn enabled(&self, m: &Metadata) -> bool {
        m.level() <= Level::Warn
    }

    fn log(&self, r: &Record) {
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
        log::set_max_level(LevelFilter::Warn);
    }
}
