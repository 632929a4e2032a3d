//! The one trace model every format loads into.
//!
//! GPU amounts are integer milli-GPUs so that PAI's fractional `plan_gpu`
//! (50 = half a GPU) is exact. Times are integer seconds in the trace's own
//! clock; `Trace::zone` says how to show them.

pub use crate::symbols::{Sym, Symbols};
use std::ops::Range;

/// Seconds in the trace's clock.
pub type Secs = i64;
/// Thousandths of one GPU.
pub type Milli = u32;

/// Milli-GPUs in one whole GPU.
pub const MILLI_PER_GPU: Milli = 1000;

/// Index of a GPU type in `Cluster::gpu_types`.
pub type TypeId = u16;

/// One machine of the cluster: its GPUs, their type, and what else the trace
/// says of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    /// As released (PAI `machine`, Philly `machineId`), or `n0000` … for a
    /// cluster tracetui sizes.
    pub name: String,
    /// Type of its GPUs: an index into `Cluster::gpu_types`.
    pub gpu_type: TypeId,
    /// Its GPUs (PAI `cap_gpu`, Philly `number of GPUs`); 0 for a CPU-only
    /// machine.
    pub gpus: u32,
    /// CPU in milli-cores (1000 a core; 0 where the trace does not say).
    pub cpu_milli: u32,
    /// Memory in MiB (0 where the trace does not say).
    pub mem_mib: u32,
    /// Known only from the record (a PAI instance on a machine the spec does
    /// not list): replayed as recorded, never offered to simulated policies.
    pub recorded_only: bool,
}

/// The machines a trace runs on, and how that set was chosen.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cluster {
    /// Every machine, in order: `Segment::machine` indexes them.
    pub machines: Vec<Machine>,
    /// GPU type names, indexed by `TypeId` (`GPU` alone for a cluster of one
    /// anonymous type).
    pub gpu_types: Vec<String>,
    /// One line saying where the cluster came from (file, or the rule that sized it).
    pub origin: String,
    /// GPUs per machine when every machine was made alike (`--gpus-per-node`).
    pub per_node: Option<u32>,
    /// The switches its machines hang from, in equal groups of consecutive
    /// machines (ElasticFlow's spec, `num_switch`); 0 where not known.
    pub switches: u32,
    /// For a cluster the trace does not list, the rule that sized it, in a
    /// few words for the header (`peak recorded demand`); empty otherwise.
    pub sized_by: String,
}

impl Cluster {
    /// `nodes` machines of `per_node` GPUs each, of one anonymous type.
    pub fn uniform(total_gpus: u32, per_node: u32, origin: String) -> Cluster {
        let per_node = per_node.max(1);
        let mut machines = Vec::new();
        let mut left = total_gpus;
        let mut i = 0;
        while left > 0 {
            let gpus = left.min(per_node);
            machines.push(Machine {
                name: format!("n{i:04}"),
                gpu_type: 0,
                gpus,
                cpu_milli: 0,
                mem_mib: 0,
                recorded_only: false,
            });
            left -= gpus;
            i += 1;
        }
        Cluster {
            machines,
            gpu_types: vec!["GPU".to_string()],
            origin,
            per_node: Some(per_node),
            switches: 0,
            sized_by: String::new(),
        }
    }

    /// The same cluster, marked as sized by `rule` (shown in the header).
    pub fn sized_by(mut self, rule: &str) -> Cluster {
        self.sized_by = rule.to_string();
        self
    }

    /// GPUs over every machine (recorded-only ones included).
    pub fn total_gpus(&self) -> u64 {
        self.machines.iter().map(|m| m.gpus as u64).sum()
    }

    /// The id of GPU type `name`, adding it if new.
    pub fn type_id(&mut self, name: &str) -> TypeId {
        if let Some(i) = self.gpu_types.iter().position(|t| t == name) {
            return i as TypeId;
        }
        self.gpu_types.push(name.to_string());
        (self.gpu_types.len() - 1) as TypeId
    }
}

/// What a job asks for.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Demand {
    /// `gpus` whole GPUs, started together, placed by the placement rule
    /// (one machine when it fits in one, else whole machines plus a remainder).
    Gang {
        /// Whole GPUs asked for (ITP `num_gpu`, Acme `gpu_num`, Philly the
        /// GPUs of its first attempt with any); 0 for a CPU job kept by
        /// `--include-cpu-jobs`.
        gpus: u32,
    },
    /// Instances that each live on one machine (PAI): `count` instances of
    /// `milli` milli-GPUs each, per unit. All instances start together.
    Instances(Box<[Unit]>),
}

/// One PAI task's part of a demand: `count` instances of `milli` milli-GPUs
/// each, and (with `--cpu-mem`) the CPU and memory each asks of its machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Unit {
    /// Instances (the task's `inst_num`, rounded).
    pub count: u32,
    /// Milli-GPUs each instance asks for (`plan_gpu` × 10); 0 for an
    /// instance that asks only CPU and memory (a parameter server).
    pub milli: Milli,
    /// CPU each instance asks, milli-cores (`plan_cpu` × 10); 0: none.
    pub cpu_milli: u32,
    /// Memory each instance asks, MiB (`plan_mem` × 1024); 0: none.
    pub mem_mib: u32,
}

impl Unit {
    /// `count` instances of `milli` milli-GPUs each, asking nothing else.
    pub fn gpus(count: u32, milli: Milli) -> Unit {
        Unit {
            count,
            milli,
            ..Unit::default()
        }
    }

    /// Whether its instances ask CPU or memory of their machines.
    pub fn asks_host(&self) -> bool {
        self.cpu_milli > 0 || self.mem_mib > 0
    }
}

impl Demand {
    /// GPUs each instance asks for, on average (PAI: a sensor row's
    /// `gpu_wrk_util` is per instance, 100 = one whole GPU); none for a gang.
    pub fn gpus_per_instance(&self) -> Option<f64> {
        let Demand::Instances(units) = self else {
            return None;
        };
        let n: u64 = units.iter().map(|u| u.count as u64).sum();
        (n > 0).then(|| self.total_milli() as f64 / n as f64 / MILLI_PER_GPU as f64)
    }

    /// Milli-GPUs asked for in all.
    pub fn total_milli(&self) -> u64 {
        match self {
            Demand::Gang { gpus } => *gpus as u64 * MILLI_PER_GPU as u64,
            Demand::Instances(units) => units.iter().map(|u| u.count as u64 * u.milli as u64).sum(),
        }
    }

    /// Whole GPUs this demand would block if every fraction took a GPU of its own.
    pub fn gpus_ceil(&self) -> u64 {
        match self {
            Demand::Gang { gpus } => *gpus as u64,
            Demand::Instances(units) => units
                .iter()
                .map(|u| u.count as u64 * u.milli.div_ceil(MILLI_PER_GPU) as u64)
                .sum(),
        }
    }

    /// Whether it asks for no GPU at all (a CPU job).
    pub fn is_zero(&self) -> bool {
        self.total_milli() == 0
    }
}

/// How a job ended, as the trace records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JobStatus {
    /// The trace records success.
    Completed,
    /// The trace records a failure (PAI and Philly `Failed`; Acme `FAILED`,
    /// `NODE_FAIL`, `TIMEOUT`).
    Failed,
    /// Stopped before it ended (Philly `Killed`, Acme `CANCELLED`).
    Killed,
    /// Still running or waiting when the trace was cut.
    Unfinished,
    /// The trace has no status (ITP).
    Unknown,
}

impl JobStatus {
    /// The status in lowercase, as JSON and the screen write it.
    pub fn label(self) -> &'static str {
        match self {
            JobStatus::Completed => "completed",
            JobStatus::Failed => "failed",
            JobStatus::Killed => "killed",
            JobStatus::Unfinished => "unfinished",
            JobStatus::Unknown => "unknown",
        }
    }
}

/// One recorded hold of GPUs: an instance (PAI), an attempt on one machine
/// (Philly) or a whole job's run (Acme).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// When the hold began, in trace seconds.
    pub start: Secs,
    /// None: still running when the trace was cut.
    pub end: MaybeSecs,
    /// Index into `Cluster::machines`; none where the trace names no machine.
    pub machine: MaybeIndex,
    /// Milli-GPUs held on the machine (PAI: its task's `plan_gpu` × 10;
    /// elsewhere 1000 a GPU).
    pub milli: Milli,
    /// The exact GPUs of the machine, as a bit set (Philly records them);
    /// 0 lets the replay choose (lowest index with room).
    pub gpus: u64,
}

// Millions of segments at released scale: keep them at 32 bytes.
const _: () = assert!(std::mem::size_of::<Segment>() == 32);

/// A job as the engine sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// The native id (ITP `job_id`, PAI `job_name`, Philly `jobid`).
    pub id: super::job_id::JobId,
    /// Who submitted it (PAI, Philly, Acme `user`); none where the trace does
    /// not say (ITP, Zeus).
    pub user: Option<Sym>,
    /// Its group, for fair share by group and the rankings (Philly's
    /// virtual cluster, `vc`; PAI's group tag, the jobs that recur with the
    /// same scripts and inputs); none elsewhere.
    pub group: Option<Sym>,
    /// Submission time, in trace seconds.
    pub submit: Secs,
    /// Run time used by simulated policies; none when the trace never saw it end.
    pub runtime: MaybeSecs,
    /// The GPUs it asks for.
    pub demand: Demand,
    /// The GPU type it must run on (PAI's `gpu_type_spec`), an index into
    /// `Cluster::gpu_types`; none: any type (or those of `any_of_types`).
    pub gpu_type: Option<TypeId>,
    /// Several GPU types it may run on (openb's `gpu_spec`): bit t, type t
    /// (past 63 not held); 0: `gpu_type` says.
    pub any_of_types: u64,
    /// How it ended, as the trace records it.
    pub status: JobStatus,
    /// The run time its submitter asked for (a batch system's time limit),
    /// where the trace records one: what `--estimate requested` tells
    /// policies instead of the true run time.
    pub requested: MaybeSecs,
    /// The time it should end by, in trace seconds (ElasticFlow's `deadline`);
    /// none where the trace has none, and for best-effort jobs.
    pub deadline: MaybeSecs,
    /// What it runs, for speed and energy models: ElasticFlow's `model_name`,
    /// PAI's group-tag `workload`, Acme's `type`, Zeus's `dataset`.
    pub model: Option<Sym>,
    /// Recorded holds, as a range into `Trace::segments` (empty when none).
    pub segments: Range<u32>,
    /// Row of this job in its native table, for drill-down.
    pub native_row: u32,
    /// CPU it asks for, in milli-cores (openb's `cpu_milli`); 0: none.
    pub cpu_milli: u32,
    /// Memory it asks for, in MiB (openb's `memory_mib`); 0: none asked.
    pub mem_mib: u32,
}

impl Job {
    /// GPUs asked for, fractions included (PAI's half GPU as 0.5), for display.
    pub fn gpus_display(&self) -> f64 {
        self.demand.total_milli() as f64 / MILLI_PER_GPU as f64
    }
}

/// An index that may be missing, in 4 bytes where `Option<u32>` takes 8
/// (millions of recorded segments); `u32::MAX` marks none.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MaybeIndex(u32);

impl MaybeIndex {
    /// No index.
    pub const NONE: MaybeIndex = MaybeIndex(u32::MAX);

    /// The index, or `None`.
    pub fn get(self) -> Option<u32> {
        (self.0 != u32::MAX).then_some(self.0)
    }
}

impl From<Option<u32>> for MaybeIndex {
    /// `Some(u32::MAX)` cannot be held: no trace has 4 billion machines
    /// (`limits` caps them far below), so it is read as none.
    fn from(v: Option<u32>) -> MaybeIndex {
        MaybeIndex(v.unwrap_or(u32::MAX))
    }
}

impl std::fmt::Debug for MaybeIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

/// Seconds that may be unknown, in 8 bytes where `Option<Secs>` takes 16
/// (two in every job). Times are bounded far from `i64::MIN`, which marks none.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MaybeSecs(i64);

impl MaybeSecs {
    /// Unknown.
    pub const NONE: MaybeSecs = MaybeSecs(i64::MIN);

    /// The seconds, or `None` when unknown.
    pub fn get(self) -> Option<Secs> {
        (self.0 != i64::MIN).then_some(self.0)
    }

    /// Whether the seconds are known.
    pub fn is_some(self) -> bool {
        self.0 != i64::MIN
    }

    /// Whether the seconds are unknown.
    pub fn is_none(self) -> bool {
        self.0 == i64::MIN
    }
}

impl From<Option<Secs>> for MaybeSecs {
    fn from(v: Option<Secs>) -> MaybeSecs {
        MaybeSecs(v.map_or(i64::MIN, |s| s.max(i64::MIN + 1)))
    }
}

impl PartialEq<Option<Secs>> for MaybeSecs {
    fn eq(&self, other: &Option<Secs>) -> bool {
        self.get() == *other
    }
}

impl std::fmt::Debug for MaybeSecs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.get(), f)
    }
}

/// How trace seconds map to wall-clock time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Zone {
    /// Seconds since the trace's start, with no calendar (ITP).
    Relative,
    /// Unix seconds read in this zone (PAI: Asia/Shanghai).
    Tz(chrono_tz::Tz),
    /// Unix seconds at a fixed offset from UTC, in seconds (Acme).
    Fixed(i32),
}

pub use super::excluded::Excluded;

/// A loaded trace: the cluster, the jobs in trace order, and where it came
/// from.
#[derive(Debug, Clone)]
pub struct Trace {
    /// The format's name on the command line (`itp`, `pai`, `philly`, `acme`,
    /// `zeus`).
    pub format: &'static str,
    /// Where it was loaded from (the path, or the name of a trace held in
    /// memory), as shown.
    pub source: String,
    /// The machines it runs on.
    pub cluster: Cluster,
    /// The jobs replayed, in file order (by submission, ties by id, under
    /// `--ties id`); `Job::native_row` leads back to the file.
    pub jobs: Vec<Job>,
    /// Every job's recorded holds, each job's together (`Job::segments` is
    /// its range); empty where the trace records none (ITP).
    pub segments: Vec<Segment>,
    /// The strings jobs refer to by `Sym` (users, groups, models), and the
    /// PAI tables' symbols.
    pub symbols: Symbols,
    /// How its seconds are shown as clock time.
    pub zone: Zone,
    /// Jobs left out of the GPU replay on purpose (CPU-only jobs, GPU jobs
    /// that never started), by reason.
    pub excluded: Vec<Excluded>,
    /// The format's own tables, for drill-down (`None`: the model is all
    /// the trace has, as for ITP).
    pub native: Option<std::sync::Arc<dyn super::native::NativeTables>>,
    /// The jobs' speeds, when they run from throughput tables
    /// (`--throughputs`); none: every job keeps its recorded duration.
    pub speeds: Option<std::sync::Arc<super::speed::Speeds>>,
}

impl Trace {
    /// The jobs whose id begins with `prefix`, in trace order (the replay's
    /// `/` and `tracetui job` take ids by prefix).
    pub fn jobs_with_id_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = u32> + 'a {
        self.jobs
            .iter()
            .enumerate()
            .filter(move |(_, j)| j.id.starts_with(prefix))
            .map(|(i, _)| i as u32)
    }

    /// The format's own tables as their concrete type, when they are `T`.
    pub fn native_as<T: 'static>(&self) -> Option<&T> {
        self.native.as_deref()?.as_any().downcast_ref()
    }

    /// The bytes the model holds in use, by part (lengths, not spare capacity).
    pub fn held_bytes(&self) -> Vec<(&'static str, usize)> {
        use std::mem::size_of;
        let units: usize = self
            .jobs
            .iter()
            .map(|j| match &j.demand {
                Demand::Instances(u) => u.len() * size_of::<Unit>(),
                Demand::Gang { .. } => 0,
            })
            .sum();
        vec![
            ("jobs", self.jobs.len() * size_of::<Job>() + units),
            ("segments", self.segments.len() * size_of::<Segment>()),
        ]
    }

    /// The earliest submission, in trace seconds; `None` without jobs.
    pub fn first_submit(&self) -> Option<Secs> {
        self.jobs.iter().map(|j| j.submit).min()
    }

    /// The latest submission, in trace seconds; `None` without jobs.
    pub fn last_submit(&self) -> Option<Secs> {
        self.jobs.iter().map(|j| j.submit).max()
    }

    /// The string of a job's symbol (user, group, model); empty for none.
    pub fn sym(&self, sym: Option<Sym>) -> &str {
        sym.map(|s| self.symbols.get(s)).unwrap_or("")
    }

    /// `job`'s recorded holds (empty when none).
    pub fn job_segments(&self, job: &Job) -> &[Segment] {
        &self.segments[job.segments.start as usize..job.segments.end as usize]
    }

    /// What one of its "GPUs" is: `GPU`, or `processor` for a trace that
    /// schedules processors (SWF).
    pub fn slot(&self) -> &'static str {
        crate::Format::find(self.format).map_or("GPU", crate::Format::slot)
    }

    /// Whether any job carries a recorded start, so `recorded` can replay it.
    pub fn has_recorded(&self) -> bool {
        !self.segments.is_empty()
    }
}
