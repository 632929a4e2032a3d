//! What the simulation layer refuses, by kind: a policy, schedule or
//! setting a user named ([`ArgError`]), an external policy's answer checked
//! against the engine ([`Refused`]), and what an external policy said that
//! the protocol does not allow ([`ProtocolError`]). The driver's own errors
//! (a process that cannot start, pipes, deadlines) are the driver's
//! `PolicyError`, kept here as the cause of a refused policy.
//! Every text from outside is made safe where the message is built.

use tracetui_model::clock::WhenError;
use tracetui_model::text::sanitize;

/// A policy, a policy schedule or a setting the simulation cannot take.
#[derive(Debug, thiserror::Error)]
pub enum ArgError {
    #[error("unknown policy '{}'; choose from {known}", sanitize(.name))]
    UnknownPolicy { name: String, known: String },
    #[error(
        "policy '{policy}' needs {lacks}, and this {format} trace has none{hint}; \
         choose another policy ({others})"
    )]
    Unavailable {
        policy: String,
        lacks: String,
        format: String,
        hint: String,
        others: String,
    },
    #[error("exec: needs a command, e.g. --policy 'exec:python3 policies/fifo.py'")]
    NoCommand,
    #[error(
        "'{}' is a built-in policy and takes no [key=value] parameters \
         (its knobs are options: --preempt-cost, --las-thresholds, --fair-by …)",
        sanitize(.0)
    )]
    BuiltinParams(String),
    #[error("parameter '{}': expected key=value, the key a letter then letters, digits, _ - .", sanitize(.0))]
    Param(String),
    #[error("parameter '{}' is given twice", sanitize(.0))]
    ParamTwice(String),
    /// An external policy that could not be named (its probe failed): the
    /// driver's error, kept whole as the cause.
    #[error(transparent)]
    Probe(Box<dyn std::error::Error + Send + Sync>),
    /// `exec:CMD` parsed where no driver starts programs: a program is
    /// named through the driver (which asks it who it is), never parsed.
    #[error("'exec:{}' is a program: only the command line and the replay start one", sanitize(.0))]
    NotStarted(String),
    #[error("'{}': expected TIME:POLICY, e.g. 2d:sjf", sanitize(.0))]
    NoColon(String),
    /// One item of a schedule, and what is wrong with it.
    #[error("'{}': {why}", sanitize(.item))]
    Item { item: String, why: Box<ArgError> },
    #[error("'{}' comes before the item ahead of it; list switches in time order", sanitize(.0))]
    OutOfOrder(String),
    #[error("empty policy schedule")]
    EmptySchedule,
    #[error("unknown power policy '{}'; choose max or zeus", sanitize(.0))]
    Power(String),
    #[error("unknown placement '{}'; choose consolidate, pack or spread", sanitize(.0))]
    Placement(String),
    #[error("after @, trace seconds")]
    AtSeconds,
    #[error(transparent)]
    When(#[from] WhenError),
    #[error("'{}' is not a whole number of GPU-seconds", sanitize(.0))]
    Threshold(String),
    #[error("give 1 to 8 ascending, positive thresholds, e.g. 3600,36000")]
    Thresholds,
    #[error("no policies given")]
    NoPolicies,
}

impl ArgError {
    /// `why`, said of one item of a list the user gave.
    pub fn item(item: &str, why: ArgError) -> ArgError {
        ArgError::Item {
            item: item.to_string(),
            why: Box::new(why),
        }
    }
}

/// Why an answer is refused: checked against the engine as it is now.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error("job {job} is not in the trace ({n} jobs)")]
    NoSuchJob { job: u32, n: u32 },
    #[error("priority for job {job} twice")]
    KeyTwice { job: u32 },
    #[error("priority for job {job}, which is not in the trace ({n} jobs)")]
    KeyForNoJob { job: u32, n: u32 },
    #[error("priority for job {job}, which is {phase}, not waiting or running")]
    KeyPhase { job: u32, phase: String },
    #[error("preempt job {job}, which is not running here (or named twice)")]
    Preempt { job: u32 },
    #[error("start job {job}, which is not waiting")]
    NotWaiting { job: u32 },
    #[error("start job {job} twice")]
    StartTwice { job: u32 },
    #[error("start job {job}: it does not fit now ({placement} placement)")]
    NoFit { job: u32, placement: &'static str },
    #[error("start job {job}: a gang of {gpus} GPUs takes {gpus} whole GPUs")]
    Gang { job: u32, gpus: usize },
    #[error("start job {job}: machine {machine} is known only from the trace's record")]
    RecordedOnly { job: u32, machine: u32 },
    #[error("start job {job}: machine {machine} has no GPU {gpu}")]
    NoGpu { job: u32, machine: u32, gpu: u32 },
    #[error("start job {job}: machine {machine} has the wrong GPU type")]
    GpuType { job: u32, machine: u32 },
    #[error("start job {job}: GPU {machine}/{gpu} named twice or with {milli} milli-GPUs")]
    GpuTwice {
        job: u32,
        machine: u32,
        gpu: u32,
        milli: u16,
    },
    #[error(
        "start job {job}: over-allocation: GPU {machine}/{gpu} has {free} milli-GPUs free, \
         {milli} asked"
    )]
    Over {
        job: u32,
        machine: u32,
        gpu: u32,
        free: u32,
        milli: u16,
    },
    #[error("start job {job}: the GPUs named add up to {total} milli-GPUs; it needs {needs}")]
    Total { job: u32, total: u64, needs: u64 },
    #[error("scale job {job}: it is not elastic (a gang that runs from throughput tables)")]
    NotElastic { job: u32 },
    #[error("scale job {job} to {gpus} GPUs: it may hold {min} to {max}")]
    ScaleRange {
        job: u32,
        gpus: u32,
        min: u32,
        max: u32,
    },
    #[error("scale job {job}, which is neither waiting nor running here (or named twice)")]
    Scale { job: u32 },
    #[error("drop job {job}, which is not waiting (or named twice)")]
    Drop { job: u32 },
    #[error("start job {job}, which this answer drops")]
    StartDropped { job: u32 },
    #[error("end job {job} at {at}: it does not run after this answer, the time is past, or it is named twice")]
    End { job: u32, at: i64 },
}

/// What an external policy said (or would be sent) that the protocol does not allow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    #[error("malformed answer to hello ({why}): {}{}", excerpt(.line), stdout_hint(.line))]
    Hello { why: String, line: String },
    #[error("malformed answer to start: {}{}", excerpt(.0), stdout_hint(.0))]
    Start(String),
    #[error("malformed answer ({why}): {}{}", excerpt(.line), stdout_hint(.line))]
    Answer { why: String, line: String },
    #[error("speaks protocol {0}, tracetui speaks 1 and {1}")]
    Version(u32, u32),
    #[error("answered with '{0}', which needs protocol 2: say \"protocol\": 2 in the hello")]
    NeedsV2(&'static str),
    #[error("lookahead {0} in its hello: at most 64, and only with protocol 2")]
    Lookahead(u32),
    #[error("walk '{}' in its hello: choose strict, greedy, preemptive or explicit", sanitize(.0))]
    Walk(String),
    #[error("ask '{}' in its hello: choose always or arrivals", sanitize(.0))]
    Ask(String),
    #[error("said {was} when first asked and {now} now")]
    Changed { was: String, now: String },
    #[error(
        "answered 'passed' with starts, preemptions, resizes, drops or ends: only priority, wakeup and deadline_admitted may follow a pass"
    )]
    StartAfterPass,
    #[error("asked to wake up at {0}, not after now")]
    WakeupPast(i64),
    #[error("asked to wake up at {0}, beyond any trace's time")]
    WakeupFar(i64),
    #[error("could not write the message: {0}")]
    Message(String),
    #[error(transparent)]
    Refused(#[from] Refused),
}

/// At most 120 characters of a line, made safe, for an error message.
/// For an answer that is not JSON at all (`debug 0` from a `print`): where
/// diagnostics belong.
fn stdout_hint(line: &str) -> &'static str {
    if line.trim_start().starts_with('{') {
        ""
    } else {
        " (stdout is the protocol, one JSON line per message: write diagnostics to stderr, \
         in Python print(..., file=sys.stderr))"
    }
}

pub(crate) fn excerpt(line: &str) -> String {
    let cut: String = line.chars().take(120).collect();
    let more = if cut.len() < line.len() { "…" } else { "" };
    format!("{}{more}", sanitize(&cut))
}
