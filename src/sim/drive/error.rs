//! What goes wrong talking to an external policy's process: it cannot be
//! started, it stops reading or answering, it says what the protocol does
//! not allow. An OS error is kept as the cause and named in the message.

use crate::sim::error::ProtocolError;
use crate::text::sanitize;
use std::io;
use std::process::ExitStatus;
use std::time::Duration;

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
    /// Any of the above, said of the policy by its name.
    #[error("policy '{}': {source}", sanitize(.name))]
    Named {
        name: String,
        #[source]
        source: Box<PolicyError>,
    },
}

impl PolicyError {
    pub fn named(self, name: &str) -> PolicyError {
        PolicyError::Named {
            name: name.to_string(),
            source: Box::new(self),
        }
    }
}

/// ` (exit status: 1)` when the process has ended.
fn ended(status: &Option<ExitStatus>) -> String {
    status.map(|s| format!(" ({s})")).unwrap_or_default()
}
