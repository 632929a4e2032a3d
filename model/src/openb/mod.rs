//! Alibaba's cluster-trace-gpu-v2023 ("openb"): the pod lists and GPU node
//! list of FGD ("Beware of Fragmentation", ATC '23), `docs/openb.md`.
//!
//! - a pod asks one node for CPU (`cpu_milli`), memory (`memory_mib`) and
//!   `num_gpu` GPUs of `gpu_milli` each: a share of one GPU (< 1000), or
//!   whole GPUs; `gpu_spec` names the GPU models it may run on (`A|B`,
//!   empty: any);
//! - the nodes come from `openb_node_list_gpu_node.csv` beside the pod list,
//!   or `--nodes FILE`;
//! - in the replay a pod is a job: submit = `creation_time`, its recorded
//!   run `scheduled_time` → `deletion_time` (Running pods too: they were
//!   still running when the trace was cut, and are `unfinished`);
//! - left out of the replay, counted: Pending pods (never scheduled) and CPU
//!   pods (unless `--include-cpu-jobs`); every row stays in the tables, and
//!   the arrival-only experiment (`tracetui inflate`) places them all, as FGD's
//!   simulator does;
//! - the `multigpu*` lists have only the first five columns: no phase, no
//!   times, so only the experiment runs them.

mod native;
mod rows;
#[cfg(test)]
mod tests;

use crate::fields::Row;
use crate::input::{InputError, LoadReport, RowPolicy};
use crate::model::{
    Cluster, Demand, Excluded, Job, JobStatus, Machine, MaybeIndex, MaybeSecs, Segment, Symbols,
    Trace, Unit, Zone,
};
use crate::pod::Pod;
use crate::LoadOptions;
pub(crate) use native::OpenbTables;
use rows::{Phase, PodHeader, PodRow};
use std::path::{Path, PathBuf};

/// `openb` on the command line.
pub(crate) const FORMAT: super::Format = super::Format::new(&super::FormatSpec {
    name: "openb",
    aliases: &["gpu-v2023"],
    help: "openb: Alibaba's 2023 GPU-sharing trace, a pod list (nodes from openb_node_list_gpu_node.csv beside it, or --nodes)",
    path_help: "An openb pod list (openb_pod_list_*.csv), the node list beside it or given by --nodes",
    replay_about: "Replay an openb pod list (Alibaba's GPU-sharing trace of 2023) full screen",
    load,
    load_text: None,
    energy_beside: None,
    reads: |path| vec![path.to_path_buf(), nodes_beside(path)],
    slot: "GPU",
});

/// The node list's name as released, looked for beside a pod list.
pub(crate) const NODE_FILE: &str = "openb_node_list_gpu_node.csv";

/// Why a pod is left out of the replay, in the order the report lists them.
const LEFT_OUT: [(&str, bool); 2] = [
    ("Pending pods (never scheduled)", true),
    ("CPU pods (num_gpu 0)", false),
];

fn nodes_beside(path: &Path) -> PathBuf {
    path.parent().unwrap_or(Path::new(".")).join(NODE_FILE)
}

/// Every record of a CSV file after its header, with the header's names.
fn each_row(
    path: &Path,
    file: &str,
    opts: &LoadOptions,
    header: &mut dyn FnMut(&[String]) -> Result<(), InputError>,
    row: &mut dyn FnMut(&Row) -> Result<(), InputError>,
) -> Result<crate::input::Skips, InputError> {
    let f = super::reader::open_file(path)?;
    let source: Box<dyn std::io::Read> = if super::xz::is_xz(path) {
        Box::new(super::xz::open(path)?)
    } else {
        Box::new(std::io::BufReader::with_capacity(1 << 20, f))
    };
    let mut rdr = super::fields::csv_over(source);
    let mut rec = csv::ByteRecord::new();
    let mut next = |rec: &mut csv::ByteRecord| {
        rdr.read_byte_record(rec)
            .map_err(|e| InputError::csv(file, &e))
    };
    if !next(&mut rec)? {
        return Err(InputError::file(file, "empty: expected a header line"));
    }
    header(&super::fields::header_names(&rec))?;
    let mut policy = RowPolicy::new(file, opts.strict);
    while next(&mut rec)? {
        let line = rec.position().map_or(0, |p| p.line());
        let r = Row {
            file,
            line,
            record: &rec,
        };
        if let Err(e) = row(&r) {
            policy.bad_row(e)?;
        }
    }
    Ok(policy.skips)
}

/// The node list at `path`: its machines, types in order of first use.
fn read_nodes(path: &Path, opts: &LoadOptions) -> Result<Cluster, InputError> {
    let file = path.display().to_string();
    let mut c = Cluster {
        origin: String::new(),
        ..Cluster::default()
    };
    let mut seen = std::collections::HashSet::new();
    each_row(
        path,
        &file,
        opts,
        &mut |names| rows::node_header(names, &file),
        &mut |row| {
            let n = rows::node(row)?;
            if !seen.insert(n.name.clone()) {
                return Err(row.error("sn", "a node listed twice"));
            }
            let gpu_type = c.type_id(if n.gpus == 0 { "CPU" } else { &n.model });
            c.machines.push(Machine {
                name: n.name,
                gpu_type,
                gpus: n.gpus,
                cpu_milli: n.cpu_milli,
                mem_mib: n.mem_mib,
                recorded_only: false,
            });
            Ok(())
        },
    )?;
    if c.machines.is_empty() {
        return Err(InputError::file(&file, "no nodes"));
    }
    c.origin = format!(
        "cluster: {} nodes, {} GPUs from {}",
        c.machines.len(),
        c.total_gpus(),
        crate::text::sanitize(&file)
    );
    Ok(c)
}

/// The pods of the list at `path`, and whether it has times.
fn read_pods(
    path: &Path,
    file: &str,
    opts: &LoadOptions,
) -> Result<(Vec<PodRow>, bool, crate::input::Skips), InputError> {
    let header = std::cell::OnceCell::<PodHeader>::new();
    let mut pods = Vec::new();
    let skips = each_row(
        path,
        file,
        opts,
        &mut |names| {
            let _ = header.set(PodHeader::read(names, file)?);
            Ok(())
        },
        &mut |row| {
            let h = header.get().expect("the header is read first");
            pods.push(rows::pod(row, h)?);
            Ok(())
        },
    )?;
    let timed = header.get().is_some_and(|h| h.has_times());
    Ok((pods, timed, skips))
}

/// Each row as a pod for the experiments, its models as the cluster's
/// types (a model no node has is added, and matches none).
fn pods(rows: &[PodRow], cluster: &mut Cluster) -> Vec<Pod> {
    rows.iter()
        .map(|r| Pod {
            name: r.name.clone(),
            cpu_milli: r.cpu_milli,
            mem_mib: r.mem_mib,
            gpus: r.gpus,
            milli: r.milli,
            spec: r.spec.clone(),
            models: r
                .spec
                .split('|')
                .filter(|t| !t.is_empty())
                .map(|t| cluster.type_id(t))
                .collect(),
        })
        .collect()
}

/// The jobs a replay runs, and how many of each reason were left out.
fn jobs(rows: &[PodRow], pods: &[Pod], opts: &LoadOptions) -> (Vec<Job>, Vec<Segment>, [u64; 2]) {
    let (mut jobs, mut segments, mut left) = (Vec::new(), Vec::new(), [0u64; 2]);
    for (i, (r, p)) in rows.iter().zip(pods).enumerate() {
        if r.phase == Phase::Pending {
            left[0] += 1;
            continue;
        }
        if p.is_cpu() && !opts.include_cpu_jobs {
            left[1] += 1;
            continue;
        }
        let first = segments.len() as u32;
        if let (Some(s), Some(e)) = (r.scheduled, r.deletion) {
            segments.push(Segment {
                start: s,
                end: Some(e.max(s)).into(),
                machine: MaybeIndex::NONE,
                milli: p.total_milli().min(u32::MAX as u64) as u32,
                gpus: 0,
            });
        }
        let demand = if p.is_cpu() {
            Demand::Gang { gpus: 0 }
        } else {
            Demand::Instances(Box::new([Unit::gpus(
                1,
                p.total_milli().min(u32::MAX as u64) as u32,
            )]))
        };
        jobs.push(Job {
            id: r.name.to_string().into(),
            user: None,
            group: None,
            submit: r.creation.unwrap_or(0),
            runtime: r
                .scheduled
                .zip(r.deletion)
                .map(|(s, e)| (e - s).max(0))
                .into(),
            demand,
            gpu_type: p.one_type(),
            status: match r.phase {
                Phase::Succeeded => JobStatus::Completed,
                Phase::Failed => JobStatus::Failed,
                Phase::Running => JobStatus::Unfinished,
                Phase::Pending | Phase::Unsaid => JobStatus::Unknown,
            },
            requested: MaybeSecs::NONE,
            deadline: MaybeSecs::NONE,
            model: None,
            segments: first..segments.len() as u32,
            native_row: i as u32,
            cpu_milli: p.cpu_milli,
            mem_mib: p.mem_mib,
            any_of_types: p.type_bits(),
        });
    }
    (jobs, segments, left)
}

/// Loads an openb pod list, the nodes from `--nodes` or beside it.
pub fn load(path: &Path, opts: &LoadOptions) -> Result<(Trace, LoadReport), InputError> {
    let file = path.display().to_string();
    let nodes = opts.nodes.clone().unwrap_or_else(|| nodes_beside(path));
    if !super::reader::present(&nodes) {
        return Err(InputError::file(
            &file,
            format!(
                "no node list: put {NODE_FILE} beside it, or name one with --nodes FILE ({} is absent)",
                crate::text::sanitize(&nodes.display().to_string())
            ),
        ));
    }
    let (rows, timed, skips) = read_pods(path, &file, opts)?;
    let mut cluster = read_nodes(&nodes, opts)?;
    let pods = pods(&rows, &mut cluster);
    let (jobs, segments, left) = jobs(&rows, &pods, opts);
    let mut report = LoadReport::default();
    report.skips.push(skips);
    if pods.is_empty() {
        return Err(InputError::file(&file, "no pods"));
    }
    let excluded = Excluded::counted(&LEFT_OUT, &left);
    report.note(format!(
        "{file}: openb pod list, {} pods, {} replayed{}{}",
        pods.len(),
        jobs.len(),
        Excluded::words(&excluded),
        if timed {
            ""
        } else {
            "; no times or phases in this list (a multigpu file): only `tracetui inflate` runs it"
        }
    ));
    report.note(cluster.origin.clone());
    let tables = OpenbTables::new(rows, pods, timed, nodes);
    Ok((
        Trace {
            format: "openb",
            source: file,
            cluster,
            jobs,
            segments,
            symbols: Symbols::default(),
            zone: Zone::Relative,
            excluded,
            native: Some(std::sync::Arc::new(tables)),
            speeds: None,
        },
        report,
    ))
}
