//! The seven released PAI tables: their columns, and compact in-memory rows
//! for the five that the replay and the drill-down index at load.

pub(crate) use super::recent::{Recent, Syms};
use crate::fields::Row;
use crate::input::InputError;
use crate::lines::Record;
use crate::model::{Secs, Sym, Symbols};
use crate::texts::{TextId, Texts};

/// `pai_job_table`: its name and columns, in file order. One row per job;
/// `start_time` is its submission.
pub(crate) const JOB: (&str, &[&str]) = (
    "pai_job_table",
    &[
        "job_name",
        "inst_id",
        "user",
        "status",
        "start_time",
        "end_time",
    ],
);
/// `pai_task_table`: one row per task of a job, with what each of its instances
/// asks for.
pub(crate) const TASK: (&str, &[&str]) = (
    "pai_task_table",
    &[
        "job_name",
        "task_name",
        "inst_num",
        "status",
        "start_time",
        "end_time",
        "plan_cpu",
        "plan_mem",
        "plan_gpu",
        "gpu_type",
    ],
);
/// `pai_instance_table`: one row per instance (one of a task's workers), with
/// when and on which machine it ran.
pub(crate) const INSTANCE: (&str, &[&str]) = (
    "pai_instance_table",
    &[
        "job_name",
        "task_name",
        "inst_name",
        "worker_name",
        "inst_id",
        "status",
        "start_time",
        "end_time",
        "machine",
    ],
);
/// `pai_sensor_table`: per instance, its measured CPU, GPU, memory and I/O use.
pub(crate) const SENSOR: (&str, &[&str]) = (
    "pai_sensor_table",
    &[
        "job_name",
        "task_name",
        "worker_name",
        "inst_id",
        "machine",
        "gpu_name",
        "cpu_usage",
        "gpu_wrk_util",
        "avg_mem",
        "max_mem",
        "avg_gpu_wrk_mem",
        "max_gpu_wrk_mem",
        "read",
        "write",
        "read_count",
        "write_count",
    ],
);
/// `pai_group_tag_table`: per job instance (`inst_id`), its user, required GPU
/// type, recurrence group and workload.
pub(crate) const GROUP_TAG: (&str, &[&str]) = (
    "pai_group_tag_table",
    &["inst_id", "user", "gpu_type_spec", "group", "workload"],
);
/// `pai_machine_spec`: per machine, its GPU type and capacities.
pub(crate) const MACHINE_SPEC: (&str, &[&str]) = (
    "pai_machine_spec",
    &["machine", "gpu_type", "cap_cpu", "cap_mem", "cap_gpu"],
);
/// `pai_machine_metric`: per worker, its machine's CPU, GPU, load and network
/// while it ran.
pub(crate) const MACHINE_METRIC: (&str, &[&str]) = (
    "pai_machine_metric",
    &[
        "worker_name",
        "machine",
        "start_time",
        "end_time",
        "machine_cpu_iowait",
        "machine_cpu_kernel",
        "machine_cpu_usr",
        "machine_gpu",
        "machine_load_1",
        "machine_net_receive",
        "machine_num_worker",
        "machine_cpu",
    ],
);

/// The seven released tables, in the order they are looked for and noted.
pub const ALL: [(&str, &[&str]); 7] = [
    JOB,
    TASK,
    INSTANCE,
    SENSOR,
    GROUP_TAG,
    MACHINE_SPEC,
    MACHINE_METRIC,
];

/// A table's columns by its name (empty for a name not in `ALL`).
pub(crate) fn columns_of(table: &str) -> &'static [&'static str] {
    ALL.iter().find(|(n, _)| *n == table).map_or(&[], |t| t.1)
}

/// A `pai_job_table` row.
#[derive(Debug, Clone)]
pub struct JobRow {
    /// Line of the row in its file, for the message on a duplicate job.
    pub line: u64,
    /// `job_name`: the job's id, in `PaiTables::texts`.
    pub job_name: TextId,
    /// `inst_id`, which the group-tag table joins on, in `PaiTables::texts`.
    pub inst_id: TextId,
    /// `user`, in the trace's symbols; `None` when empty.
    pub user: Option<Sym>,
    /// `status` as written (`Terminated`, `Failed`, `Running`, `Waiting`), in
    /// the trace's symbols; `None` when empty.
    pub status: Option<Sym>,
    /// `start_time`: the submission, in trace seconds.
    pub start_time: Secs,
    /// `end_time`, in trace seconds; `None` when the job had not ended when the
    /// trace was cut.
    pub end_time: Option<Secs>,
}

/// A `pai_task_table` row.
#[derive(Debug, Clone)]
pub struct TaskRow {
    /// Row of its job in `PaiTables::jobs` (joined by `job_name`).
    pub job: u32,
    /// `task_name` (`worker`, `ps` …), in the trace's symbols; `None` when
    /// empty.
    pub task_name: Option<Sym>,
    /// `inst_num`: how many instances the task runs (as written; rounded where
    /// counted).
    pub inst_num: f64,
    /// `status` as written, in the trace's symbols; `None` when empty.
    pub status: Option<Sym>,
    /// `start_time`, in trace seconds; `None` when empty.
    pub start_time: Option<Secs>,
    /// `end_time`, in trace seconds; `None` when empty.
    pub end_time: Option<Secs>,
    /// `plan_cpu`: CPU asked for, in percent of one core (600 = 6 cores);
    /// `None` when empty.
    pub plan_cpu: Option<f64>,
    /// `plan_mem`: memory asked for, in GB; `None` when empty.
    pub plan_mem: Option<f64>,
    /// Percent of one GPU (50 = half); `None` when empty (a CPU task).
    pub plan_gpu: Option<f64>,
    /// `gpu_type` as written (`V100`, `P100`, `T4`, `MISC` …), in the trace's
    /// symbols; `None` when empty.
    pub gpu_type: Option<Sym>,
}

/// Marks a missing time or index in the compact rows.
pub(crate) const NONE_TIME: Secs = Secs::MIN;
/// Marks a missing index in the compact rows (no task, machine, symbol or group
/// tag).
pub(crate) const NONE_IDX: u32 = u32::MAX;

pub(crate) fn opt_time(t: Secs) -> Option<Secs> {
    (t != NONE_TIME).then_some(t)
}

pub(crate) fn opt_idx(i: u32) -> Option<u32> {
    (i != NONE_IDX).then_some(i)
}

/// One instance, compact: there are millions.
#[derive(Debug, Clone)]
pub struct InstanceRow {
    /// Row of its job in `PaiTables::jobs` (joined by `job_name`).
    pub job: u32,
    /// Index into the task rows (`NONE_IDX` when the job has no such task).
    pub task: u32,
    /// Symbol in the instance table's own symbols.
    pub task_name: u32,
    /// `status` as written: a symbol in the instance table's own symbols
    /// (`NONE_IDX` when empty).
    pub status: u32,
    /// Index into the trace's machines (`NONE_IDX` when the row names none).
    pub machine: u32,
    /// `start_time`, in trace seconds; `NONE_TIME` when the instance never
    /// started.
    pub start_time: Secs,
    /// `end_time`, in trace seconds; `NONE_TIME` while it runs, or when it
    /// never started.
    pub end_time: Secs,
    /// The 64-bit join key of its `worker_name` (the sensor and
    /// machine-metric tables join on it); its texts are in
    /// `PaiTables::inst_texts`.
    pub worker: u64,
}

// Millions of instances at released scale: keep them at 48 bytes.
const _: () = assert!(std::mem::size_of::<InstanceRow>() == 48);

/// A `pai_machine_spec` row: one machine of the cluster.
#[derive(Debug, Clone)]
pub struct SpecRow {
    /// `machine`: its name, which the instance table joins on.
    pub machine: String,
    /// `gpu_type` of its GPUs, as written.
    pub gpu_type: String,
    /// `cap_cpu`: CPU cores; `None` when empty.
    pub cap_cpu: Option<f64>,
    /// `cap_mem`: memory in GB; `None` when empty.
    pub cap_mem: Option<f64>,
    /// `cap_gpu`: whole GPUs (0 for a CPU-only machine).
    pub cap_gpu: u32,
}

/// A group-tag row; its `inst_id` is the job's (the join), so not kept again.
#[derive(Debug, Clone)]
pub struct GroupTagRow {
    /// `user` as the tag writes it, in the trace's symbols; `None` when empty.
    pub user: Option<Sym>,
    /// `gpu_type_spec`: the GPU type the job requires, in the trace's symbols;
    /// `None` when it requires none.
    pub gpu_type_spec: Option<Sym>,
    /// `group`: a tag shared by recurring instances (the same scripts and
    /// inputs), in `PaiTables::texts`.
    pub group: TextId,
    /// `workload` (`bert`, `graphlearn` …) where the release names one, in the
    /// trace's symbols; `None` when empty.
    pub workload: Option<Sym>,
}

/// Interns a field as a symbol, `None` when empty.
pub(crate) fn sym(symbols: &mut Symbols, b: &[u8]) -> Option<Sym> {
    if b.is_empty() {
        return None;
    }
    let s = String::from_utf8_lossy(b);
    if let Some(found) = symbols.lookup(&s) {
        return Some(found);
    }
    Some(symbols.intern(&s))
}

fn check_span(row: &Row<Record>, start: Option<Secs>, end: Option<Secs>) -> Result<(), InputError> {
    if let (Some(s), Some(e)) = (start, end) {
        if e < s {
            return Err(row.error("end_time", format!("end {e} is before start {s}")));
        }
    }
    Ok(())
}

pub(crate) fn parse_job(
    row: &Row<Record>,
    texts: &mut Texts,
    symbols: &mut Syms,
) -> Result<JobRow, InputError> {
    row.expect_width(JOB.1.len())?;
    let name = row.bytes(0, "job_name")?;
    if name.is_empty() {
        return Err(row.error("job_name", "empty"));
    }
    let start = row
        .opt_time(4, "start_time")?
        .ok_or_else(|| row.error("start_time", "empty"))?;
    let end = row.opt_time(5, "end_time")?;
    check_span(row, Some(start), end)?;
    Ok(JobRow {
        line: row.line,
        job_name: texts.add(name),
        inst_id: texts.add(row.bytes(1, "inst_id")?),
        // Users are many: looked up, not remembered.
        user: sym(symbols.symbols, row.bytes(2, "user")?),
        status: symbols.col(1, row.bytes(3, "status")?),
        start_time: start,
        end_time: end,
    })
}

pub(crate) fn parse_task(
    row: &Row<Record>,
    job: u32,
    symbols: &mut Syms,
) -> Result<TaskRow, InputError> {
    row.expect_width(TASK.1.len())?;
    let start = row.opt_time(4, "start_time")?;
    let end = row.opt_time(5, "end_time")?;
    check_span(row, start, end)?;
    use crate::limits::{MAX_INSTANCES, MAX_MACHINE_GPUS};
    let inst_num = row.num(2, "inst_num", 0.0)?;
    if inst_num > MAX_INSTANCES as f64 {
        let m = format!("{inst_num} instances is more than the {MAX_INSTANCES} a task may have");
        return Err(row.error("inst_num", m));
    }
    let plan_gpu = row.opt_num(8, "plan_gpu", 0.0)?;
    if plan_gpu.is_some_and(|p| p > 100.0 * MAX_MACHINE_GPUS as f64) {
        let m = format!("more than the {MAX_MACHINE_GPUS} GPUs a machine may have");
        return Err(row.error("plan_gpu", m));
    }
    Ok(TaskRow {
        job,
        task_name: symbols.col(0, row.bytes(1, "task_name")?),
        inst_num,
        status: symbols.col(1, row.bytes(3, "status")?),
        start_time: start,
        end_time: end,
        plan_cpu: row.opt_num(6, "plan_cpu", 0.0)?,
        plan_mem: row.opt_num(7, "plan_mem", 0.0)?,
        plan_gpu,
        gpu_type: symbols.col(2, row.bytes(9, "gpu_type")?),
    })
}

/// The fields of an instance row, checked; the caller resolves the joins.
pub(crate) struct InstanceFields<'a> {
    /// `job_name`: the job it belongs to (never empty).
    pub job_name: &'a [u8],
    /// `task_name`: its task within the job.
    pub task_name: &'a [u8],
    /// `inst_name`: the instance's own name.
    pub inst_name: &'a [u8],
    /// `worker_name`: its worker, the key the sensor and machine-metric tables
    /// join on.
    pub worker_name: &'a [u8],
    /// `inst_id`: the job instance it belongs to (as a rule the job's own).
    pub inst_id: &'a [u8],
    /// `status` as written.
    pub status: &'a [u8],
    /// `start_time`, in trace seconds; `None` when it never started.
    pub start_time: Option<Secs>,
    /// `end_time`, in trace seconds; `None` while it runs, or when it never
    /// started.
    pub end_time: Option<Secs>,
    /// `machine`: the machine it ran on (empty when none).
    pub machine: &'a [u8],
}

pub(crate) fn parse_instance<'a>(row: &Row<'a, Record>) -> Result<InstanceFields<'a>, InputError> {
    row.expect_width(INSTANCE.1.len())?;
    let job_name = row.bytes(0, "job_name")?;
    if job_name.is_empty() {
        return Err(row.error("job_name", "empty"));
    }
    let start = row.opt_time(6, "start_time")?;
    let end = row.opt_time(7, "end_time")?;
    check_span(row, start, end)?;
    if start.is_none() && end.is_some() {
        return Err(row.error("start_time", "empty, but the instance has an end_time"));
    }
    Ok(InstanceFields {
        job_name,
        task_name: row.bytes(1, "task_name")?,
        inst_name: row.bytes(2, "inst_name")?,
        worker_name: row.bytes(3, "worker_name")?,
        inst_id: row.bytes(4, "inst_id")?,
        status: row.bytes(5, "status")?,
        start_time: start,
        end_time: end,
        machine: row.bytes(8, "machine")?,
    })
}

pub(crate) fn parse_spec(row: &Row<Record>) -> Result<SpecRow, InputError> {
    row.expect_width(MACHINE_SPEC.1.len())?;
    let machine = row.required(0, "machine")?;
    let gpus = row.num(4, "cap_gpu", 0.0)?;
    if gpus.fract() != 0.0 || gpus > 1024.0 {
        return Err(row.error("cap_gpu", format!("{gpus} is not a whole number of GPUs")));
    }
    Ok(SpecRow {
        machine: machine.to_string(),
        gpu_type: row.text(1, "gpu_type")?.to_string(),
        cap_cpu: row.opt_num(2, "cap_cpu", 0.0)?,
        cap_mem: row.opt_num(3, "cap_mem", 0.0)?,
        cap_gpu: gpus as u32,
    })
}

pub(crate) fn parse_group_tag(
    row: &Row<Record>,
    texts: &mut Texts,
    symbols: &mut Syms,
) -> Result<GroupTagRow, InputError> {
    row.expect_width(GROUP_TAG.1.len())?;
    if row.bytes(0, "inst_id")?.is_empty() {
        return Err(row.error("inst_id", "empty"));
    }
    Ok(GroupTagRow {
        user: sym(symbols.symbols, row.bytes(1, "user")?),
        gpu_type_spec: symbols.col(1, row.bytes(2, "gpu_type_spec")?),
        group: texts.add(row.bytes(3, "group")?),
        workload: symbols.col(2, row.bytes(4, "workload")?),
    })
}

/// Rows grouped by an owner index: (order, ranges per owner). A counting
/// sort: rows keep file order within an owner, in two passes over millions
/// of rows rather than a comparison sort.
pub(crate) fn group_by(
    owners: impl Iterator<Item = u32>,
    n_owners: usize,
) -> (Vec<u32>, Vec<(u32, u32)>) {
    let owners: Vec<u32> = owners.collect();
    let mut ranges = vec![(0u32, 0u32); n_owners];
    for &o in &owners {
        ranges[o as usize].1 += 1;
    }
    let mut at = 0u32;
    for r in &mut ranges {
        let n = r.1;
        *r = (at, at);
        at += n;
    }
    let mut order = vec![0u32; owners.len()];
    for (i, &o) in owners.iter().enumerate() {
        let r = &mut ranges[o as usize];
        order[r.1 as usize] = i as u32;
        r.1 += 1;
    }
    // Owners with no rows keep (0, 0), as before.
    for r in &mut ranges {
        if r.0 == r.1 {
            *r = (0, 0);
        }
    }
    (order, ranges)
}
