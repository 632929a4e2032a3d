//! Reading untrusted rows: where a problem is, strict versus lenient handling,
//! and counted skips.

use std::fmt;
use std::sync::Arc;

/// Where in the input a problem is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The file, as the user knows it (an archive member as `ARCHIVE[MEMBER]`).
    pub file: String,
    /// 1-based line (or, for JSON, byte offset when `byte` is set).
    pub line: u64,
    /// The column's released name, where the problem is in one field.
    pub column: Option<String>,
    /// Whether `line` is a byte offset (JSON) rather than a line number.
    pub byte: bool,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.byte {
            write!(f, "{}: byte {}", self.file, self.line)?;
        } else {
            write!(f, "{}:{}", self.file, self.line)?;
        }
        if let Some(c) = &self.column {
            write!(f, ": column {c}")?;
        }
        Ok(())
    }
}

/// A problem with the input: the whole message a user sees, and the
/// error under it where there is one (the OS's, for a file that cannot be
/// read), kept as its `source()`.
#[derive(Debug, Clone)]
pub struct InputError {
    /// Where in the file; none for a problem with the file as a whole (missing,
    /// empty, unreadable).
    pub at: Option<Location>,
    /// The file, as the user knows it.
    pub file: String,
    /// What is wrong, in words for the user.
    pub message: String,
    /// The OS's error under it (a thin pointer: the error stays small).
    cause: Option<Arc<std::io::Error>>,
}

/// The same problem: the same place and message (the cause is in the message).
impl PartialEq for InputError {
    fn eq(&self, other: &InputError) -> bool {
        (&self.at, &self.file, &self.message) == (&other.at, &other.file, &other.message)
    }
}

impl Eq for InputError {}

impl InputError {
    /// A problem with `file` as a whole, at no one line.
    pub fn file(file: &str, message: impl Into<String>) -> InputError {
        InputError {
            at: None,
            file: file.to_string(),
            message: message.into(),
            cause: None,
        }
    }

    /// `file` could not be read (`what`: `cannot read`, `cannot open` …):
    /// the OS's error said in the message and kept as the cause.
    pub fn io(file: &str, what: &str, e: std::io::Error) -> InputError {
        InputError {
            message: format!("{what}: {e}"),
            cause: Some(Arc::new(e)),
            ..InputError::file(file, "")
        }
    }

    /// The same error, the OS's `e` kept as its cause (its text is in the message).
    pub fn because(mut self, e: std::io::Error) -> InputError {
        self.cause = Some(Arc::new(e));
        self
    }

    /// A CSV reader's error, at the line it names.
    pub fn csv(file: &str, e: &csv::Error) -> InputError {
        if let csv::ErrorKind::Io(io) = e.kind() {
            if let Some(long) = super::reader::LineTooLong::in_io(file, io) {
                return long;
            }
        }
        let line = e.position().map_or(0, |p| p.line());
        InputError::on_line(file, line, format!("unreadable CSV: {e}"))
    }

    /// A problem with a whole line (a header, say) rather than one column.
    pub(crate) fn on_line(file: &str, line: u64, message: impl Into<String>) -> InputError {
        InputError::at(
            Location {
                file: file.to_string(),
                line,
                column: None,
                byte: false,
            },
            message,
        )
    }

    /// A problem at `loc`.
    pub fn at(loc: Location, message: impl Into<String>) -> InputError {
        InputError {
            file: loc.file.clone(),
            at: Some(loc),
            message: message.into(),
            cause: None,
        }
    }

    /// The same error `by` lines further down: for a part of a file read
    /// on its own, whose lines were numbered from its start.
    pub(crate) fn shifted(mut self, by: u64) -> InputError {
        if let Some(loc) = &mut self.at {
            if !loc.byte {
                loc.line += by;
            }
        }
        self
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.at {
            Some(loc) => write!(f, "{loc}: {}", self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for InputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause
            .as_deref()
            .map(|c| c as &(dyn std::error::Error + 'static))
    }
}

/// Side tables whose index could not be built: each one's error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damaged(pub Vec<InputError>);

impl fmt::Display for Damaged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Damaged {}

/// How many reasons per file are kept to be shown.
pub(crate) const FIRST_REASONS: usize = 5;

/// Rows skipped in one file, with the first few reasons.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Skips {
    /// The file, as the user knows it.
    pub file: String,
    /// Rows skipped.
    pub count: u64,
    /// The first reasons, at most `FIRST_REASONS` (5), as shown.
    pub first: Vec<String>,
}

/// Strict mode stops at the first bad row; lenient mode counts and keeps going.
#[derive(Debug, Clone)]
pub(crate) struct RowPolicy {
    pub strict: bool,
    pub skips: Skips,
}

impl RowPolicy {
    pub(crate) fn new(file: &str, strict: bool) -> RowPolicy {
        RowPolicy {
            strict,
            skips: Skips {
                file: file.to_string(),
                ..Skips::default()
            },
        }
    }

    /// A bad row: an error in strict mode, a counted skip otherwise.
    pub(crate) fn bad_row(&mut self, err: InputError) -> Result<(), InputError> {
        if self.strict {
            return Err(err);
        }
        self.skips.count += 1;
        if self.skips.first.len() < FIRST_REASONS {
            self.skips.first.push(err.to_string());
        }
        Ok(())
    }
}

/// What a loader reports about its input besides the trace.
#[derive(Debug, Clone, Default)]
pub struct LoadReport {
    /// Rows skipped, per file read.
    pub skips: Vec<Skips>,
    /// Lines for the user: which tables were found, how the cluster was chosen.
    pub notes: Vec<String>,
    /// Seconds each loading phase took, for `tracetui bench`.
    pub timings: Vec<(&'static str, f64)>,
    /// The load cache file the trace was read from (`None`: its tables).
    pub cache: Option<std::path::PathBuf>,
    /// The load cache file to write for next time, if any.
    pub cache_write: Option<crate::cache::CacheWrite>,
}

impl LoadReport {
    /// Rows skipped over every file.
    pub fn total_skipped(&self) -> u64 {
        self.skips.iter().map(|s| s.count).sum()
    }

    /// Records that `phase` ended, `since` the load began.
    pub fn time(&mut self, phase: &'static str, since: std::time::Instant) {
        self.timings.push((phase, since.elapsed().as_secs_f64()));
    }

    /// A note on the load, for whoever shows the report (`announce` on
    /// stderr, the replay's log).
    pub fn note(&mut self, line: String) {
        self.notes.push(line);
    }

    /// Lines summarising skips, for stderr or the log pane.
    pub fn skip_lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        for s in self.skips.iter().filter(|s| s.count > 0) {
            out.push(format!(
                "{}: skipped {} bad row{} (--strict stops at the first)",
                s.file,
                s.count,
                if s.count == 1 { "" } else { "s" }
            ));
            for r in &s.first {
                out.push(format!("  {r}"));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn a_file_that_cannot_be_read_keeps_the_os_error_as_its_cause() {
        let missing = std::env::temp_dir().join("tracetui-no-such-dir/no-such.csv");
        let e = crate::reader::open_file(&missing).unwrap_err();
        let io = e
            .source()
            .and_then(|c| c.downcast_ref::<std::io::Error>())
            .expect("the OS's error as the cause");
        assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
        assert!(
            e.to_string().ends_with(&format!("cannot open: {io}")),
            "{e}"
        );
        assert_eq!(e.clone(), e, "a cause changes no equality");
        assert!(InputError::file("f.csv", "bad").source().is_none());
    }

    #[test]
    fn lenient_counts_and_keeps_first_reasons() {
        let mut p = RowPolicy::new("f.csv", false);
        for i in 0..8 {
            let loc = Location {
                file: "f.csv".into(),
                line: i,
                column: None,
                byte: false,
            };
            p.bad_row(InputError::at(loc, "bad")).unwrap();
        }
        assert_eq!(p.skips.count, 8);
        assert_eq!(p.skips.first.len(), FIRST_REASONS);
        assert_eq!(p.skips.first[0], "f.csv:0: bad");
    }

    #[test]
    fn strict_stops() {
        let mut p = RowPolicy::new("f.csv", true);
        let e = InputError::file("f.csv", "boom");
        assert_eq!(p.bad_row(e.clone()), Err(e));
    }
}
