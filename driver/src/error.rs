//! What goes wrong talking to an external policy's process: it cannot be
//! started, it stops reading or answering, it says what the protocol does
//! not allow. An OS error is kept as the cause and named in the message.

use std::io;
use std::process::ExitStatus;
use std::time::Duration;
use tracetui_engine::ProtocolError;
use tracetui_model::text::sanitize;

/// What went wrong with a policy program's process.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// `sh -c CMD` could not be started.
    #[error("could not start `sh -c {}`: {source}", sanitize(.cmd))]
    Spawn {
        /// The command.
        cmd: String,
        /// The OS's reason.
        #[source]
        source: io::Error,
    },
    /// Its stdin or stdout could not be taken.
    #[error("could not open the policy's pipes")]
    Pipes,
    /// The thread that reads its stderr could not start.
    #[error("could not start the stderr reader: {0}")]
    StderrReader(#[source] io::Error),
    /// Its input was closed before a message went.
    #[error("its input is closed")]
    InputClosed,
    /// It stopped reading its input (and ended, with this status, if it did).
    #[error("stopped reading its input{}", ended(.0))]
    StoppedReading(Option<ExitStatus>),
    /// It did not take a message within the timeout.
    #[error("did not read its input in time")]
    SlowReader,
    /// Its input closed while it runs on (one that exited is `Closed`).
    #[error("closed its input")]
    ClosedInput,
    /// Its answer is not UTF-8.
    #[error("answered with a line that is not UTF-8")]
    NotUtf8,
    /// Its answer is longer than this many MiB.
    #[error("answered with a line over {0} MiB")]
    TooLong(usize),
    /// It closed its output (and ended, with this status, if it did).
    #[error("closed its output without answering{}", ended(.0))]
    Closed(Option<ExitStatus>),
    /// Its output could not be read.
    #[error("could not be read: {0}")]
    Read(#[source] io::Error),
    /// It wrote a line no message asked for (the line).
    #[error(
        "answered out of step: it wrote a line no message asked for (`{0}`); \
         write exactly one line per message on stdout, and diagnostics on stderr"
    )]
    OutOfStep(String),
    /// The probe's thread panicked.
    #[error("asking who it is panicked (a bug in tracetui)")]
    ProbePanicked,
    /// It did not answer within its timeout.
    #[error("did not answer within {:.1} s", .0.as_secs_f64())]
    Timeout(Duration),
    /// It said what the protocol does not allow.
    #[error(transparent)]
    Protocol(#[from] ProtocolError),
    /// Any of the above, with the last lines the program wrote on stderr.
    #[error("{source}{}", told(.tail))]
    Stderr {
        /// The error.
        #[source]
        source: Box<PolicyError>,
        /// Its last lines on stderr, made safe.
        tail: Vec<String>,
    },
    /// Any of the above, said of the policy by its name.
    #[error("policy '{}': {source}", sanitize(.name))]
    Named {
        /// The policy's name (`exec:CMD`).
        name: String,
        /// The error.
        #[source]
        source: Box<PolicyError>,
    },
}

impl PolicyError {
    /// The error with what the program wrote on stderr (for a timeout,
    /// a program that is still running: its stderr so far).
    pub fn with_stderr(self, tail: Vec<String>) -> PolicyError {
        PolicyError::Stderr {
            source: Box::new(self),
            tail,
        }
    }

    /// The error said of the policy called `name`.
    pub fn named(self, name: &str) -> PolicyError {
        PolicyError::Named {
            name: name.to_string(),
            source: Box::new(self),
        }
    }
}

/// The stderr lines under the error, indented (each made safe when read).
fn told(tail: &[String]) -> String {
    if tail.is_empty() {
        return " (it wrote nothing on stderr)".into();
    }
    let mut s = String::from("; the last lines it wrote on stderr:");
    for l in tail {
        s.push_str("\n    ");
        s.push_str(l);
    }
    s
}

/// ` (exit status: 1)` when the process has ended.
fn ended(status: &Option<ExitStatus>) -> String {
    status.map(|s| format!(" ({s})")).unwrap_or_default()
}

/// A policy that could not be named: the driver's error, kept whole as the cause.
impl From<PolicyError> for tracetui_engine::ArgError {
    fn from(e: PolicyError) -> Self {
        tracetui_engine::ArgError::Probe(Box::new(e))
    }
}
