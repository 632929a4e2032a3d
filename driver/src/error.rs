//! What goes wrong talking to an external policy's process: it cannot be
//! started, it stops reading or answering, it says what the protocol does
//! not allow. An OS error is kept as the cause and named in the message.

use std::io;
use std::process::ExitStatus;
use std::time::Duration;
use tracetui_engine::error::ProtocolError;
use tracetui_model::text::sanitize;

#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error("could not start `sh -c {}`: {source}", sanitize(.cmd))]
    Spawn {
        cmd: String,
        #[source]
        source: io::Error,
    },
    #[error("could not open the policy's pipes")]
    Pipes,
    #[error("could not start the stderr reader: {0}")]
    StderrReader(#[source] io::Error),
    #[error("its input is closed")]
    InputClosed,
    #[error("stopped reading its input{}", ended(.0))]
    StoppedReading(Option<ExitStatus>),
    #[error("did not read its input in time")]
    SlowReader,
    /// Its input closed while it runs on (one that exited is `Closed`).
    #[error("closed its input")]
    ClosedInput,
    #[error("answered with a line that is not UTF-8")]
    NotUtf8,
    #[error("answered with a line over {0} MiB")]
    TooLong(usize),
    #[error("closed its output without answering{}", ended(.0))]
    Closed(Option<ExitStatus>),
    #[error("could not be read: {0}")]
    Read(#[source] io::Error),
    #[error(
        "answered out of step: it wrote a line no message asked for (`{0}`); \
         write exactly one line per message on stdout, and diagnostics on stderr"
    )]
    OutOfStep(String),
    #[error("asking who it is panicked (a bug in tracetui)")]
    ProbePanicked,
    #[error("did not answer within {:.1} s", .0.as_secs_f64())]
    Timeout(Duration),
    #[error(transparent)]
    Protocol(#[from] ProtocolError),
    /// Any of the above, with the last lines the program wrote on stderr.
    #[error("{source}{}", told(.tail))]
    Stderr {
        #[source]
        source: Box<PolicyError>,
        tail: Vec<String>,
    },
    /// Any of the above, said of the policy by its name.
    #[error("policy '{}': {source}", sanitize(.name))]
    Named {
        name: String,
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
impl From<PolicyError> for tracetui_engine::error::ArgError {
    fn from(e: PolicyError) -> Self {
        tracetui_engine::error::ArgError::Probe(Box::new(e))
    }
}
