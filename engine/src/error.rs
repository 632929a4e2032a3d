//! What the simulation layer refuses, by kind: a policy, schedule or
//! setting a user named ([`ArgError`]), an external policy's answer checked
//! against the engine ([`Refused`]), and what an external policy said that
//! the protocol does not allow ([`ProtocolError`]). The driver's own errors
//! (a process that cannot start, pipes, deadlines) are the driver's
//! `PolicyError`, kept here as the cause of a refused policy.
//! Every text from outside is made safe where the message is built.

use tracetui_model::text::sanitize;
use tracetui_model::WhenError;

/// A policy, a policy schedule or a setting the simulation cannot take.
#[derive(Debug, thiserror::Error)]
pub enum ArgError {
    /// A policy name that is no built-in's name or alias, no registered
    /// program and (on the command line) no name from config.toml's
    /// `[policies]`.
    #[error("unknown policy '{}'; choose from {known}", sanitize(.name))]
    UnknownPolicy {
        /// The name as given, trimmed (lower-cased where the engine looked it up).
        name: String,
        /// The names to choose from, comma-separated (config.toml's after them,
        /// on the command line).
        known: String,
    },
    /// A policy the trace cannot support (`Policy::check`): it lacks what
    /// the policy needs, such as deadlines or recorded starts.
    #[error(
        "policy '{policy}' needs {lacks}, and this {format} trace has none{hint}; \
         choose another policy ({others})"
    )]
    Unavailable {
        /// The policy's name.
        policy: String,
        /// What the trace lacks, as a noun: `deadlines`, `recorded start times`.
        lacks: String,
        /// The trace's format, as the trace names it.
        format: String,
        /// Where to find traces that have it, as ` (…)`; empty when nowhere.
        hint: String,
        /// The built-in policies this trace supports, comma-separated (the
        /// recorded replay left out).
        others: String,
    },
    /// A policy that needs every machine alike on a cluster whose size
    /// (`--gpus`) leaves a last machine smaller than the rest: refused
    /// before the run, a usage error.
    #[error("policy '{policy}' cannot run on this cluster: it needs {why}; {hint}")]
    PartMachine {
        /// The policy's name.
        policy: String,
        /// The rule and where the cluster breaks it.
        why: String,
        /// The sizes that would do.
        hint: String,
    },
    /// `exec:` with nothing after it: an external policy needs a command.
    #[error("exec: needs a command, e.g. --policy 'exec:python3 policies/fifo.py'")]
    NoCommand,
    /// A built-in policy named with `[key=value]` parameters, which only
    /// external programs take; holds the built-in's name.
    #[error(
        "'{}' is a built-in policy and takes no [key=value] parameters \
         (its knobs are options: --preempt-cost, --las-thresholds, --fair-by …)",
        sanitize(.0)
    )]
    BuiltinParams(String),
    /// A parameter in `[…]` that is not `key=value`: no `=`, a key that is
    /// not a letter or `_` then letters, digits, `_ - .`, or a value empty or
    /// holding a control character; holds the item.
    #[error("parameter '{}': expected key=value, the key a letter then letters, digits, _ - .", sanitize(.0))]
    Param(String),
    /// The same key twice in one `[key=value,…]` list; holds the key.
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
    /// A schedule item with no `:` between its time and what it switches
    /// to; holds the item.
    #[error("'{}': expected TIME:POLICY, e.g. 2d:sjf", sanitize(.0))]
    NoColon(String),
    /// One item of a schedule, and what is wrong with it.
    #[error("'{}': {why}", sanitize(.item))]
    Item {
        /// The item as the user gave it.
        item: String,
        /// What is wrong with it.
        why: Box<ArgError>,
    },
    /// A schedule item timed before the item ahead of it; holds the item.
    #[error("'{}' comes before the item ahead of it; list switches in time order", sanitize(.0))]
    OutOfOrder(String),
    /// A policy schedule with no items (nothing but commas and spaces).
    #[error("empty policy schedule")]
    EmptySchedule,
    /// A schedule's `power=` naming neither `max` nor `zeus`; holds the name given.
    #[error("unknown power policy '{}'; choose max or zeus", sanitize(.0))]
    Power(String),
    /// A schedule's `placement=` naming no placement rule; holds the name given.
    #[error("unknown placement '{}'; choose consolidate, pack or spread", sanitize(.0))]
    Placement(String),
    /// A schedule time `@T` whose `T` is not a whole number of trace seconds.
    #[error("after @, trace seconds")]
    AtSeconds,
    /// A schedule time that is neither `start`, `@T` nor an offset, and that
    /// the trace's clock cannot read as a clock time either: the clock's error.
    #[error(transparent)]
    When(#[from] WhenError),
    /// An item of `--las-thresholds` that is not a whole, non-negative
    /// number; holds the item.
    #[error("'{}' is not a whole number of GPU-seconds", sanitize(.0))]
    Threshold(String),
    /// `--las-thresholds` with more than 8 thresholds, a zero, or not
    /// strictly ascending.
    #[error("give 1 to 8 ascending, positive thresholds, e.g. 3600,36000")]
    Thresholds,
    /// A list of policies (`--policies`) with no name in it, only commas and spaces.
    #[error("no policies given")]
    NoPolicies,
    /// `--estimate` that is none of its forms; holds what was given.
    #[error("'{}' is no estimate: give oracle, requested or lognormal:SIGMA (0 < SIGMA ≤ 5)", sanitize(.0))]
    Estimate(String),
    /// `--estimate requested` on a trace with a job whose requested run
    /// time it does not record.
    #[error("--estimate requested: this {format} trace records no requested run time (job {job} has none); give oracle or lognormal:SIGMA")]
    NoRequested {
        /// The trace's format.
        format: String,
        /// The first job without one, made safe.
        job: String,
    },
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
    /// An answer names a job past the end of the trace.
    #[error("job {job} is not in the trace ({n} jobs)")]
    NoSuchJob {
        /// The job as named: an index into the trace.
        job: u32,
        /// Jobs in the trace.
        n: u32,
    },
    /// An answer gives the same job a priority twice.
    #[error("priority for job {job} twice")]
    KeyTwice {
        /// The job, by index in the trace.
        job: u32,
    },
    /// An answer gives a priority to a job past the end of the trace.
    #[error("priority for job {job}, which is not in the trace ({n} jobs)")]
    KeyForNoJob {
        /// The job as named: an index into the trace.
        job: u32,
        /// Jobs in the trace.
        n: u32,
    },
    /// An answer gives a priority to a job that neither waits nor runs: not
    /// submitted yet, finished, rejected or dropped.
    #[error("priority for job {job}, which is {phase}, not waiting or running")]
    KeyPhase {
        /// The job, by index in the trace.
        job: u32,
        /// Its phase, as `Phase`'s `Debug` names it (`Done`, `Future`, …).
        phase: String,
    },
    /// An answer preempts a job that is not running on GPUs the simulation
    /// gave it (a recorded hold keeps its recorded end), or names it twice.
    #[error("preempt job {job}, which is not running here (or named twice)")]
    Preempt {
        /// The job, by index in the trace.
        job: u32,
    },
    /// An answer starts a job that is not waiting in the queue.
    #[error("start job {job}, which is not waiting")]
    NotWaiting {
        /// The job, by index in the trace.
        job: u32,
    },
    /// An answer starts a job twice, or both resizes and starts it.
    #[error("start job {job} twice")]
    StartTwice {
        /// The job, by index in the trace.
        job: u32,
    },
    /// A start or resize that names no GPUs, and the placement rule finds
    /// none for it on the cluster as the answer leaves it so far.
    #[error("start job {job}: it does not fit now ({placement} placement, {free} GPUs free once the answer's earlier changes are made); start it when its GPUs are free, or name free GPUs for it")]
    NoFit {
        /// The job, by index in the trace.
        job: u32,
        /// The placement rule's name.
        placement: &'static str,
        /// Whole GPUs free then.
        free: u64,
    },
    /// A resize (or an elastic start) to a count the cluster cannot give
    /// now, without `shrink_to_fit`.
    #[error("scale job {job} to {gpus} GPUs: they do not fit now ({placement} placement, {free} GPUs free once the answer's earlier changes are made); ask for fewer, or set shrink_to_fit to take the largest of its levels that fits")]
    ScaleNoFit {
        /// The job, by index in the trace.
        job: u32,
        /// The GPUs asked for.
        gpus: u32,
        /// The placement rule's name.
        placement: &'static str,
        /// Whole GPUs free then.
        free: u64,
    },
    /// A start names GPUs for a gang that are not its count of whole GPUs.
    #[error("start job {job}: a gang of {gpus} GPUs takes {gpus} whole GPUs")]
    Gang {
        /// The job, by index in the trace.
        job: u32,
        /// The gang's size in GPUs.
        gpus: usize,
    },
    /// A start names a machine known only from the trace's record, which
    /// is replayed as recorded and never offered to policies.
    #[error("start job {job}: machine {machine} is known only from the trace's record")]
    RecordedOnly {
        /// The job, by index in the trace.
        job: u32,
        /// The machine, by index in the cluster.
        machine: u32,
    },
    /// A start names a machine the cluster does not have, or a GPU its
    /// machine does not have.
    #[error("start job {job}: machine {machine} has no GPU {gpu}")]
    NoGpu {
        /// The job, by index in the trace.
        job: u32,
        /// The machine as named, by index in the cluster.
        machine: u32,
        /// The GPU as named, by index on its machine.
        gpu: u32,
    },
    /// A start names a machine whose GPU type the job may not use.
    #[error("start job {job}: machine {machine} has the wrong GPU type")]
    GpuType {
        /// The job, by index in the trace.
        job: u32,
        /// The machine, by index in the cluster.
        machine: u32,
    },
    /// A start names the same GPU twice, or asks for a share of one that
    /// is not 1 to 1000 milli-GPUs.
    #[error("start job {job}: GPU {machine}/{gpu} named twice or with {milli} milli-GPUs")]
    GpuTwice {
        /// The job, by index in the trace.
        job: u32,
        /// The machine, by index in the cluster.
        machine: u32,
        /// The GPU, by index on its machine.
        gpu: u32,
        /// The share asked of it, milli-GPUs.
        milli: u16,
    },
    /// A start asks more of a GPU than is free on it after the answer's
    /// preemptions and earlier starts.
    #[error(
        "start job {job}: over-allocation: GPU {machine}/{gpu} has {free} milli-GPUs free, \
         {milli} asked"
    )]
    Over {
        /// The job, by index in the trace.
        job: u32,
        /// The machine, by index in the cluster.
        machine: u32,
        /// The GPU, by index on its machine.
        gpu: u32,
        /// Milli-GPUs free on the GPU.
        free: u32,
        /// Milli-GPUs asked of it.
        milli: u16,
    },
    /// A start names GPUs on a machine without the CPU or memory free that
    /// the job asks of it.
    #[error(
        "start job {job}: machine {machine} has not the CPU and memory free that the job asks of it"
    )]
    Host {
        /// The job, by index in the trace.
        job: u32,
        /// The machine, by index in the cluster.
        machine: u32,
    },
    /// The shares a start names do not add up to the job's demand.
    #[error("start job {job}: the GPUs named add up to {total} milli-GPUs; it needs {needs}")]
    Total {
        /// The job, by index in the trace.
        job: u32,
        /// Milli-GPUs the shares named add up to.
        total: u64,
        /// Milli-GPUs the job's demand comes to.
        needs: u64,
    },
    /// An answer resizes a job that is not elastic: only a gang that runs
    /// from throughput tables may change its GPU count.
    #[error("scale job {job}: it is not elastic (a gang that runs from throughput tables)")]
    NotElastic {
        /// The job, by index in the trace.
        job: u32,
    },
    /// A resize to a GPU count outside what the job may hold (1 to the
    /// largest count its throughput table has).
    #[error("scale job {job} to {gpus} GPUs: it may hold {min} to {max}")]
    ScaleRange {
        /// The job, by index in the trace.
        job: u32,
        /// GPUs asked for.
        gpus: u32,
        /// The fewest GPUs it may hold.
        min: u32,
        /// The most GPUs it may hold.
        max: u32,
    },
    /// An answer resizes a job that neither waits nor runs on GPUs the
    /// simulation gave it, one it also drops or preempts, or one it names
    /// twice.
    #[error("scale job {job}, which is neither waiting nor running here (or named twice)")]
    Scale {
        /// The job, by index in the trace.
        job: u32,
    },
    /// An answer drops (declines for good) a job that is not waiting, or
    /// names it twice.
    #[error("drop job {job}, which is not waiting (or named twice)")]
    Drop {
        /// The job, by index in the trace.
        job: u32,
    },
    /// An answer finishes a job that is not a waiting job that ran, or at
    /// a time before it stopped or after now, or one it also starts or
    /// drops, or names it twice.
    #[error("finish job {job} at {at}, which is not a preempted job waiting since then (or this answer also starts or drops it, or names it twice)")]
    Finish {
        /// The job, by index in the trace.
        job: u32,
        /// The time the answer gave.
        at: tracetui_model::Secs,
    },
    /// An answer both drops a job and starts it.
    #[error("start job {job}, which this answer drops")]
    StartDropped {
        /// The job, by index in the trace.
        job: u32,
    },
    /// An answer holds an end for a job that does not run after it, at a
    /// time not after now, or for a job it names twice.
    #[error("end job {job} at {at}: it does not run after this answer, the time is past, or it is named twice")]
    End {
        /// The job, by index in the trace.
        job: u32,
        /// The end asked for, trace seconds.
        at: i64,
    },
}

/// What an external policy said (or would be sent) that the protocol does not allow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    /// The program's answer to the hello is not the JSON object the
    /// protocol asks for.
    #[error("malformed answer to hello ({why}): {}{}", excerpt(.line), stdout_hint(.line))]
    Hello {
        /// The JSON parser's reason.
        why: String,
        /// The line the program answered with.
        line: String,
    },
    /// The answer to a `start` message (the snapshot a dialogue of its own
    /// begins with) is not JSON at all; holds the line.
    #[error("malformed answer to start: {}{}", excerpt(.0), stdout_hint(.0))]
    Start(String),
    /// An answer to a scheduling message is not the JSON the protocol asks for.
    #[error("malformed answer ({why}): {}{}", excerpt(.line), stdout_hint(.line))]
    Answer {
        /// The JSON parser's reason.
        why: String,
        /// The answer's first 200 characters.
        line: String,
    },
    /// The hello names a protocol version tracetui does not speak; holds
    /// that version and the newest tracetui speaks.
    #[error("speaks protocol {0}, tracetui speaks 1 and {1}")]
    Version(u32, u32),
    /// An answer uses a field only protocol 2 has (`resize`, `drop`,
    /// `ends`, …) from a program that said protocol 1; holds the field.
    #[error("answered with '{0}', which needs protocol 2: say \"protocol\": 2 in the hello")]
    NeedsV2(&'static str),
    /// The hello asks to see the submit times of more than 64 coming
    /// arrivals, or of any under protocol 1; holds the lookahead asked.
    #[error("lookahead {0} in its hello: at most 64, and only with protocol 2")]
    Lookahead(u32),
    /// The hello names a walk (how the engine applies its answers) that is
    /// none of the four; holds the name.
    #[error("walk '{}' in its hello: choose strict, greedy, preemptive or explicit", sanitize(.0))]
    Walk(String),
    /// The hello's `ask` is neither `always` nor `arrivals`; holds what it said.
    #[error("ask '{}' in its hello: choose always or arrivals", sanitize(.0))]
    Ask(String),
    /// A new process of the program says other terms in its hello than
    /// the program said when the policy was named.
    #[error("said {was} when first asked and {now} now")]
    Changed {
        /// The terms first said: walk, notify, ask, protocol, lookahead.
        was: String,
        /// The terms the new process says.
        now: String,
    },
    /// An answer to a `passed` message that acts on jobs: after a pass only
    /// priorities, the wake-up and the count of deadlines kept may change.
    #[error(
        "answered 'passed' with starts, preemptions, resizes, drops or ends: only priority, wakeup and deadline_admitted may follow a pass"
    )]
    StartAfterPass,
    /// An answer asks to be woken at a time not after now; holds the time,
    /// trace seconds.
    #[error("asked to wake up at {0}, not after now")]
    WakeupPast(i64),
    /// An answer asks to be woken beyond a quarter of the clock's range,
    /// where times would overflow; holds the time, trace seconds.
    #[error("asked to wake up at {0}, beyond any trace's time")]
    WakeupFar(i64),
    /// A list of an answer names more jobs than the trace has (so one twice).
    #[error("{0} names {1} jobs; the trace has {2}")]
    TooMany(&'static str, usize, usize),
    /// `deadline_admitted: [on_time, of]` that is no share of the trace's
    /// jobs: more on time than counted, or more counted than there are jobs.
    #[error("deadline_admitted [{0}, {1}]: on time must be at most the jobs counted, and those at most the trace's {2} jobs")]
    OwnCount(u64, u64, u64),
    /// A message to the program could not be serialised; holds serde's reason.
    #[error("could not write the message: {0}")]
    Message(String),
    /// An answer the engine refuses as it stands now.
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
