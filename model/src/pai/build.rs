//! From the PAI tables to the one model: jobs, demands, recorded segments,
//! and the cluster.

use super::tables::{opt_idx, opt_time, JobRow, TaskRow};
use super::PaiTables;
use crate::clock::PAI_ZONE;
use crate::input::{InputError, LoadReport};
use crate::model::{
    Cluster, Demand, Job, JobStatus, Machine, Segment, Symbols, Trace, Unit, MILLI_PER_GPU,
};
use crate::LoadOptions;
use std::sync::Arc;

/// `plan_gpu` (percent of one GPU) as milli-GPUs: 50 → 500.
pub(crate) fn plan_milli(task: &TaskRow) -> u32 {
    task.plan_gpu
        .map_or(0, |p| (p * 10.0).round().clamp(0.0, u32::MAX as f64) as u32)
}

pub(crate) fn status(s: &str) -> JobStatus {
    match s {
        "Terminated" => JobStatus::Completed,
        "Failed" => JobStatus::Failed,
        "Running" | "Waiting" => JobStatus::Unfinished,
        _ => JobStatus::Unknown,
    }
}

fn unknown_machine(name: &str, ty: u16) -> Machine {
    Machine {
        name: name.to_string(),
        gpu_type: ty,
        gpus: 8,
        cpu_milli: 0,
        mem_mib: 0,
        recorded_only: true,
    }
}

/// The machines: the spec's, in order (CPU-only ones with 0 GPUs), then any
/// the instances name that the spec does not, marked as known only from the
/// record. Without a spec, the recorded machines come first (the instance
/// reader numbered them from 0) and a cluster sized as for ITP follows.
fn cluster(
    t: &PaiTables,
    opts: &LoadOptions,
    jobs: &[Job],
    report: &mut LoadReport,
) -> Result<Cluster, InputError> {
    let mut c = Cluster::default();
    if t.spec.is_empty() {
        let sized = crate::sizing::size_cluster(jobs, opts, &t.dir.display().to_string())?;
        if !t.unknown_machines.is_empty() {
            let ty = c.type_id("unknown");
            c.machines
                .extend(t.unknown_machines.iter().map(|n| unknown_machine(n, ty)));
        }
        let ty = c.type_id("GPU");
        c.machines.extend(
            sized
                .machines
                .into_iter()
                .map(|m| Machine { gpu_type: ty, ..m }),
        );
        c.per_node = sized.per_node;
        c.origin = format!("{} (pai_machine_spec not found)", sized.origin);
        c.sized_by = sized.sized_by;
        if !t.unknown_machines.is_empty() {
            report.note(format!(
                "{} machines named by instances, with no spec: shown as 'unknown' (8 GPUs each), replayed only as recorded",
                t.unknown_machines.len()
            ));
        }
        return Ok(c);
    }
    for s in &t.spec {
        let ty = c.type_id(&s.gpu_type);
        c.machines.push(Machine {
            name: s.machine.clone(),
            gpu_type: ty,
            gpus: s.cap_gpu,
            cpu_milli: (s.cap_cpu.unwrap_or(0.0) * 1000.0) as u32,
            mem_mib: (s.cap_mem.unwrap_or(0.0) * 1024.0) as u32,
            recorded_only: false,
        });
    }
    c.origin = format!(
        "cluster: {} machines, {} GPUs from pai_machine_spec",
        c.machines.len(),
        c.total_gpus()
    );
    if !t.unknown_machines.is_empty() {
        let ty = c.type_id("unknown");
        c.machines
            .extend(t.unknown_machines.iter().map(|n| unknown_machine(n, ty)));
        report.note(format!(
            "{} machines named by instances are not in pai_machine_spec: shown as 'unknown' (8 GPUs each), replayed only as recorded",
            t.unknown_machines.len()
        ));
    }
    Ok(c)
}

/// `plan_cpu` (percent of one core) as milli-cores: 600 → 6,000.
fn plan_cpu_milli(task: &TaskRow) -> u32 {
    task.plan_cpu
        .map_or(0, |p| (p * 10.0).round().clamp(0.0, u32::MAX as f64) as u32)
}

/// `plan_mem` (GB) as MiB: 29.3 → 30,003.
fn plan_mem_mib(task: &TaskRow) -> u32 {
    task.plan_mem.map_or(0, |p| {
        (p * 1024.0).round().clamp(0.0, u32::MAX as f64) as u32
    })
}

/// What job `job` asks for: its tasks with GPUs as units — with `cpu_mem`,
/// each instance's CPU and memory too, and the tasks without GPUs that ask
/// either — sorted (none with GPUs: a CPU job).
fn units_of(t: &PaiTables, job: u32, cpu_mem: bool) -> Vec<Unit> {
    // Room for every task: usually each is a unit, so the boxed slice made
    // of it needs no second allocation.
    let (a, b) = t.tasks_of[job as usize];
    let mut units = Vec::with_capacity((b - a) as usize);
    units.extend(t.tasks_of(job).filter_map(|task| {
        let mut u = Unit::gpus(task.inst_num.round() as u32, plan_milli(task));
        if cpu_mem {
            u.cpu_milli = plan_cpu_milli(task);
            u.mem_mib = plan_mem_mib(task);
        }
        (u.count > 0 && (u.milli > 0 || u.asks_host())).then_some(u)
    }));
    units.sort_unstable();
    units
}

/// The recorded holds of job `job`: each instance that started, on its machine.
fn push_segments(t: &PaiTables, job: u32, segments: &mut Vec<Segment>) {
    for inst in t.instances_of(job) {
        let Some(start) = opt_time(inst.start_time) else {
            continue;
        };
        let milli = opt_idx(inst.task).map_or(0, |ti| plan_milli(&t.tasks[ti as usize]));
        segments.push(Segment {
            start,
            end: opt_time(inst.end_time).into(),
            machine: opt_idx(inst.machine).into(),
            milli,
            gpus: 0,
        });
    }
}

/// The job's status: unfinished without an end time, else as the job table says.
fn job_status(row: &JobRow, symbols: &Symbols) -> JobStatus {
    if row.end_time.is_none() {
        return JobStatus::Unfinished;
    }
    row.status
        .map_or(JobStatus::Unknown, |s| status(symbols.get(s)))
}

/// The report's notes on jobs left out and instances too big for a machine.
fn note_jobs(report: &mut LoadReport, cpu_jobs: u64, cluster: &Cluster, jobs: &[Job]) {
    if cpu_jobs > 0 {
        report.note(format!("{cpu_jobs} CPU jobs (no GPU demand) left out of the GPU replay; --include-cpu-jobs keeps them"));
    }
    report.note(cluster.origin.clone());
    let over: u64 = jobs
        .iter()
        .filter(|j| j.demand.total_milli() > 0 && matches!(&j.demand, Demand::Instances(u) if u.iter().any(|u| u.milli > 8 * MILLI_PER_GPU)))
        .count() as u64;
    if over > 0 {
        report.note(format!(
            "{over} jobs have an instance wanting more than 8 GPUs"
        ));
    }
}

/// With `--cpu-mem`: how many instances ask CPU or memory, how many of
/// them hold no GPU, and whether the machines say what they have.
fn note_cpu_mem(report: &mut LoadReport, cluster: &Cluster, jobs: &[Job]) {
    let (mut asking, mut bare) = (0u64, 0u64);
    for j in jobs {
        if let Demand::Instances(units) = &j.demand {
            for u in units.iter().filter(|u| u.asks_host()) {
                asking += u.count as u64;
                bare += if u.milli == 0 { u.count as u64 } else { 0 };
            }
        }
    }
    report.note(format!(
        "--cpu-mem: {asking} instances ask their tasks' plan_cpu and plan_mem ({bare} of them no GPU); no machine is given more than its cap_cpu and cap_mem"
    ));
    let unsaid = cluster
        .machines
        .iter()
        .filter(|m| !m.recorded_only && (m.cpu_milli == 0 || m.mem_mib == 0))
        .count();
    if unsaid > 0 {
        report.note(format!(
            "--cpu-mem: {unsaid} machines do not say their CPU or memory (no pai_machine_spec, or an empty cap_cpu/cap_mem): nothing is refused there for want of it"
        ));
    }
}

/// The GPU jobs as the job, task and group-tag tables give them, built
/// while the instance table is still being read: everything but their
/// recorded segments and run times.
pub(crate) struct Pending {
    jobs: Vec<Job>,
    cpu_jobs: u64,
    /// Jobs that require a GPU type, by name (numbered with the cluster).
    types: Vec<(usize, String)>,
}

/// The jobs of the tables read so far (CPU jobs counted and left out
/// unless `include_cpu_jobs`), in job-table order.
pub(crate) fn jobs_of_tables(t: &PaiTables, symbols: &mut Symbols, opts: &LoadOptions) -> Pending {
    let mut p = Pending {
        jobs: Vec::with_capacity(t.jobs.len()),
        cpu_jobs: 0,
        types: Vec::new(),
    };
    for (i, row) in t.jobs.iter().enumerate() {
        let units = units_of(t, i as u32, opts.cpu_mem);
        let gpus = units.iter().any(|u| u.milli > 0);
        if !gpus && !opts.include_cpu_jobs {
            p.cpu_jobs += 1;
            continue;
        }
        let tag = t.group_tag_of(i as u32);
        if let Some(ty) = tag.and_then(|g| g.gpu_type_spec) {
            p.types.push((p.jobs.len(), symbols.get(ty).to_string()));
        }
        p.jobs.push(Job {
            id: t.texts.with(row.job_name, crate::JobId::new),
            user: row.user,
            // PAI's group tag: the jobs that recur with the same scripts and
            // inputs — the groups of its rankings and `--fair-by group`.
            group: tag.and_then(|g| {
                t.texts
                    .with(g.group, |s| (!s.is_empty()).then(|| symbols.intern(s)))
            }),
            submit: row.start_time,
            runtime: crate::model::MaybeSecs::NONE,
            demand: if units.is_empty() {
                Demand::Gang { gpus: 0 }
            } else {
                Demand::Instances(units.into_boxed_slice())
            },
            gpu_type: None,
            status: job_status(row, symbols),
            deadline: crate::model::MaybeSecs::NONE,
            model: tag.and_then(|g| g.workload),
            segments: 0..0,
            requested: crate::model::MaybeSecs::NONE,
            native_row: i as u32,
            cpu_milli: 0,
            mem_mib: 0,
            any_of_types: 0,
        });
    }
    p
}

/// Builds the trace: the pending jobs given their recorded segments and run
/// times from the instances, and the cluster.
pub(crate) fn trace(
    t: Arc<PaiTables>,
    symbols: Symbols,
    pending: Pending,
    opts: &LoadOptions,
    report: &mut LoadReport,
) -> Result<Trace, InputError> {
    let Pending {
        mut jobs,
        cpu_jobs,
        types,
    } = pending;
    let mut segments: Vec<Segment> = Vec::with_capacity(t.instances.len());
    for job in &mut jobs {
        let i = job.native_row;
        let seg_start = segments.len() as u32;
        push_segments(&t, i, &mut segments);
        job.segments = seg_start..segments.len() as u32;
        job.runtime = match t.run_span(i) {
            (Some(f), Some(l), false) => Some(l - f),
            _ => None,
        }
        .into();
    }
    if jobs.is_empty() {
        return Err(InputError::file(
            &t.dir.display().to_string(),
            format!("no GPU jobs ({cpu_jobs} CPU jobs; --include-cpu-jobs replays them)"),
        ));
    }
    let mut cluster = cluster(&t, opts, &jobs, report)?;
    for (j, ty) in types {
        jobs[j].gpu_type = Some(cluster.type_id(&ty));
    }
    note_jobs(report, cpu_jobs, &cluster, &jobs);
    if opts.cpu_mem {
        note_cpu_mem(report, &cluster, &jobs);
    }
    Ok(Trace {
        format: "pai",
        source: t.dir.display().to_string(),
        cluster,
        jobs,
        segments,
        symbols,
        zone: PAI_ZONE,
        excluded: crate::model::Excluded::new("CPU jobs (no GPU demand)", cpu_jobs, false),
        native: Some(t),
        speeds: None,
    })
}
