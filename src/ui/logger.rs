//! The log pane's logger: records at Info and above, guarded on the way
//! in, held in tui-logger's buffer until the event loop moves them into
//! the pane (`run.rs`, before each frame).

/// Log records held between two moves into the log pane (a move at least
/// every 250 ms; more than this many in between are logged as lost).
const LOG_HOT_DEPTH: usize = 256;

/// Records at Info and above, into tui-logger's buffer.
struct LogPane;

impl log::Log for LogPane {
    fn enabled(&self, m: &log::Metadata) -> bool {
        m.level() <= log::Level::Info
    }

    fn log(&self, r: &log::Record) {
        if self.enabled(r.metadata()) {
            // Guarded on the way in: a record is made of escaped fields,
            // and nothing raw reaches the pane even if one was missed.
            let text = r.args().to_string();
            let safe = super::logfmt::kept(&text);
            tui_logger::Drain.log(
                &log::Record::builder()
                    .args(format_args!("{safe}"))
                    .level(r.level())
                    .target(r.target())
                    .module_path(r.module_path())
                    .file(r.file())
                    .line(r.line())
                    .build(),
            );
        }
    }

    fn flush(&self) {}
}

static LOG_PANE: LogPane = LogPane;

/// The log pane's logger, without tui-logger's own mover thread: that
/// thread woke 100 times a second and swapped in a fresh 1,000-record
/// buffer (150 KB) whenever anything was logged, 16–18 % of the replay's
/// CPU at x1800. The loop moves records into the pane before each frame.
pub(super) fn init_log_pane() {
    tui_logger::set_hot_buffer_depth(LOG_HOT_DEPTH);
    tui_logger::set_default_level(log::LevelFilter::Info);
    if log::set_logger(&LOG_PANE).is_ok() {
        log::set_max_level(log::LevelFilter::Info);
    }
}
