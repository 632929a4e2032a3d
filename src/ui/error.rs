//! What the screen's own inputs get wrong: a filter typed in the replay, a
//! theme named or read from a file. A file that cannot be read keeps the
//! OS's reason as its cause.

use crate::text::sanitize;
use std::io;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum UiError {
    #[error("filter: '{}' is not one of user=, group=, gpu=, state=", sanitize(.0))]
    FilterKey(String),
    #[error(
        "filter: state={}: a job's state is queued or running; idle machines: :idle lists them",
        sanitize(.0)
    )]
    FilterState(String),
    #[error("'{}' is not a colour (#rrggbb, reset, an ANSI name or idx:N)", sanitize(.0))]
    Color(String),
    /// A theme file's TOML error, its lines cut (`config::toml_error`).
    #[error("{0}")]
    Toml(String),
    #[error("missing roles: {0}")]
    MissingRoles(String),
    #[error("missing role '{0}'")]
    MissingRole(String),
    #[error("role '{0}' must be a colour string")]
    NotAString(String),
    #[error("role '{name}': {why}")]
    Role { name: String, why: Box<UiError> },
    #[error("jobs: colours must be strings")]
    JobsNotStrings,
    #[error("missing role 'jobs' (a list of colours)")]
    NoJobs,
    #[error("role 'jobs' needs at least one colour")]
    EmptyJobs,
    #[error("{}: {source}", sanitize(&.path.display().to_string()))]
    Read {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// What is wrong inside a theme file.
    #[error("{}: {why}", sanitize(&.path.display().to_string()))]
    InFile { path: PathBuf, why: Box<UiError> },
    #[error("no theme '{}': choose {choices} or give a path to a theme file", sanitize(.spec))]
    NoTheme { spec: String, choices: String },
    /// `:` followed by a word that names no command.
    #[error("no command '{}' (:help lists them)", sanitize(.0))]
    NoCommand(String),
    /// `:` followed by the start of several commands' names.
    #[error(":{} could be {}", sanitize(.0), .1)]
    AmbiguousCommand(String, String),
    /// A `:` command that takes no argument, given one.
    #[error(":{0} takes nothing after it")]
    TakesNothing(&'static str),
    /// A `:` command that needs an argument, without one: what it takes.
    #[error(":{0} {1}")]
    NeedsArgument(&'static str, &'static str),
}
