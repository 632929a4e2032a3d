//! AcmeTrace (InternLM, NSDI '24): `trace_seren.csv` or `trace_kalos.csv`,
//! told apart by their headers; ISO-8601 times with an offset.

mod build;
mod fast;
mod native;
mod time;

pub(crate) use time::parse_time;

use super::fields::Row;
use super::input::{InputError, LoadReport, RowPolicy};
use super::model::{Cluster, Excluded, Job, JobStatus, Secs, Segment, Trace, Zone};
use super::LoadOptions;
use crate::text::sanitize;
use build::Build;
use std::path::{Path, PathBuf};

/// `acme` on the command line.
pub(crate) const FORMAT: super::Format = super::Format::new(&super::FormatSpec {
    name: "acme",
    aliases: &[],
    help: "AcmeTrace: trace_seren.csv or trace_kalos.csv",
    path_help: "An AcmeTrace job file: trace_seren.csv or trace_kalos.csv",
    replay_about: "Replay an AcmeTrace file (trace_seren.csv, trace_kalos.csv) full screen",
    load,
    load_text: None,
    energy_beside: None,
    reads: super::format::the_file,
    slot: "GPU",
});

/// `trace_seren.csv`'s header: the Seren cluster's jobs.
pub const SEREN: [&str; 13] = [
    "job_id",
    "user",
    "node_num",
    "gpu_num",
    "cpu_num",
    "type",
    "state",
    "submit_time",
    "start_time",
    "end_time",
    "duration",
    "queue",
    "gpu_time",
];
/// `trace_kalos.csv`'s header: the Kalos cluster's jobs, with Seren's columns
/// plus memory per pod and the fail and stop times.
pub const KALOS: [&str; 17] = [
    "job_id",
    "user",
    "node_num",
    "gpu_num",
    "cpu_num",
    "mem_per_pod_GB",
    "shared_mem_per_pod",
    "type",
    "state",
    "submit_time",
    "start_time",
    "end_time",
    "fail_time",
    "stop_time",
    "duration",
    "queue",
    "gpu_time",
];

/// Where each job's row is, for drill-down (the file is read again there).
#[derive(Debug, Default)]
pub(crate) struct AcmeTables {
    /// The file loaded.
    pub path: PathBuf,
    /// Which cluster the file is from: `seren` or `kalos` (told by its header).
    pub cluster_name: &'static str,
    /// The header row as read.
    pub header: Vec<String>,
    /// Row → byte offset of its line.
    pub offsets: Vec<u64>,
    /// Row → its job id (CPU jobs too).
    pub ids: Vec<crate::job_id::JobId>,
    /// Every row's `state`, counted (CPU jobs too).
    pub states: std::collections::BTreeMap<String, u64>,
}

/// The columns read per row, resolved once from the header.
const USED: [&str; 10] = [
    "job_id",
    "gpu_num",
    "submit_time",
    "start_time",
    "end_time",
    "duration",
    "queue",
    "state",
    "user",
    "type",
];

struct Cols {
    idx: [usize; USED.len()],
    width: usize,
}

impl Cols {
    fn new(names: &[&str]) -> Cols {
        let idx = USED.map(|u| names.iter().position(|n| *n == u).unwrap_or(usize::MAX));
        Cols {
            idx,
            width: names.len(),
        }
    }

    fn get(&self, name: &str) -> usize {
        // A handful of short names: a scan beats hashing here.
        USED.iter()
            .position(|u| *u == name)
            .map_or(usize::MAX, |k| self.idx[k])
    }
}

fn time<F: super::fields::Fields + ?Sized>(
    row: &Row<F>,
    cols: &Cols,
    name: &str,
) -> Result<Option<(Secs, i32)>, InputError> {
    let t = row.text(cols.get(name), name)?;
    if t.is_empty() {
        return Ok(None);
    }
    let (at, offset) = parse_time(t).ok_or_else(|| {
        row.error(
            name,
            format!(
                "'{}' is not a time like 2023-03-01 00:18:22+08:00",
                sanitize(t)
            ),
        )
    })?;
    crate::limits::dated(at).map_err(|m| row.error(name, format!("'{}' {m}", sanitize(t))))?;
    Ok(Some((at, offset)))
}

fn status(s: &str) -> JobStatus {
    match s {
        "COMPLETED" => JobStatus::Completed,
        "FAILED" | "NODE_FAIL" | "TIMEOUT" => JobStatus::Failed,
        "CANCELLED" => JobStatus::Killed,
        _ => JobStatus::Unknown,
    }
}

/// Peak concurrent GPU demand over the recorded start/end times (an end
/// before a start at the same second). Starts and ends are sorted apart,
/// on two threads, then walked together.
pub(super) fn peak_demand(jobs: &[Job], segments: &[Segment]) -> u64 {
    let held = || {
        jobs.iter()
            .flat_map(|j| &segments[j.segments.start as usize..j.segments.end as usize])
    };
    let sorted = |mut v: Vec<(Secs, u32)>| {
        v.sort_unstable();
        v
    };
    let sort_ends = || {
        sorted(
            held()
                .filter_map(|s| Some((s.end.get()?, s.milli)))
                .collect(),
        )
    };
    let (got_ends, starts) = crate::par::both(sort_ends, || {
        sorted(held().map(|s| (s.start, s.milli)).collect())
    });
    // Sorted here if the other thread panicked (a bug: it panics again,
    // to the caller, rather than the peak counting no ends).
    let ends = got_ends.unwrap_or_else(|_| sort_ends());
    let (mut cur, mut peak, mut e) = (0i64, 0i64, 0usize);
    for &(t, milli) in &starts {
        while e < ends.len() && ends[e].0 <= t {
            cur -= ends[e].1 as i64;
            e += 1;
        }
        cur += milli as i64;
        peak = peak.max(cur);
    }
    (peak.max(0) as u64).div_ceil(1000)
}

/// The header row: which cluster's schema (name, columns), and the header as read.
fn schema(
    file: &str,
    header: Vec<String>,
) -> Result<(&'static str, &'static [&'static str], Vec<String>), InputError> {
    if header == SEREN {
        Ok(("seren", &SEREN, header))
    } else if header == KALOS {
        Ok(("kalos", &KALOS, header))
    } else {
        Err(InputError::on_line(
            file,
            1,
            format!(
                "unknown header '{}': expected AcmeTrace Seren ({}) or Kalos ({})",
                sanitize(&header.join(",")),
                SEREN.join(","),
                KALOS.join(",")
            ),
        ))
    }
}

/// `--gpus` sizes the cluster; else the peak recorded demand, in whole nodes.
fn cluster(
    jobs: &[Job],
    segments: &[Segment],
    opts: &LoadOptions,
    file: &str,
) -> Result<Cluster, InputError> {
    if opts.gpus.is_some() {
        return super::sizing::size_cluster(jobs, opts, file);
    }
    let peak = peak_demand(jobs, segments);
    let (n, g) = super::sizing::whole_nodes(peak, opts, file, "the peak recorded demand")?;
    Ok(Cluster::uniform(
        n,
        g,
        format!(
            "cluster: {n} GPUs = {} nodes × {g} (the peak concurrent GPU demand of the recorded start and end times, {peak} GPUs, in whole nodes; set --gpus to choose)",
            n / g
        ),
    )
    .sized_by("peak recorded demand"))
}

/// Reads an AcmeTrace file: in parallel parts for a plain file, else (pipes,
/// quoted fields) through the CSV reader.
pub fn load(path: &Path, opts: &LoadOptions) -> Result<(Trace, LoadReport), InputError> {
    let file = path.display().to_string();
    match fast::load_by(path, &file, opts, &super::parts::workers)? {
        Some((b, policy)) => finish(b, policy, &file, opts),
        None => load_csv(path, &file, opts),
    }
}

/// The CSV reader's way, for pipes and files with quotes.
fn load_csv(
    path: &Path,
    file: &str,
    opts: &LoadOptions,
) -> Result<(Trace, LoadReport), InputError> {
    let mut rdr = super::fields::open_csv(path)?;
    let mut rec = csv::ByteRecord::new();
    let read = |rdr: &mut csv::Reader<super::fields::CsvFile>, rec: &mut csv::ByteRecord| {
        rdr.read_byte_record(rec)
            .map_err(|e| InputError::csv(file, &e))
    };
    if !read(&mut rdr, &mut rec)? {
        return Err(InputError::file(
            file,
            "empty file: expected an AcmeTrace header row",
        ));
    }
    let (name, names, header) = schema(file, super::fields::header_names(&rec))?;
    let cols = Cols::new(names);
    let mut policy = RowPolicy::new(file, opts.strict);
    let mut b = Build::new(tables(path, name, header), true);
    while read(&mut rdr, &mut rec)? {
        let pos = rec.position().cloned().unwrap_or_else(csv::Position::new);
        let row = Row {
            file,
            line: pos.line(),
            record: &rec,
        };
        match b.check(&row, &cols) {
            Ok(f) => b.add(&row, &cols, f, pos.byte(), opts),
            Err(e) => policy.bad_row(e)?,
        }
    }
    finish(b, policy, file, opts)
}

/// The tables of a file, before any row.
fn tables(path: &Path, cluster_name: &'static str, header: Vec<String>) -> AcmeTables {
    AcmeTables {
        path: path.to_path_buf(),
        cluster_name,
        header,
        ..Default::default()
    }
}

/// The trace and its report from every row filed.
fn finish(
    mut b: Build,
    policy: RowPolicy,
    file: &str,
    opts: &LoadOptions,
) -> Result<(Trace, LoadReport), InputError> {
    b.close_states();
    let name = b.tables.cluster_name;
    let mut report = LoadReport::default();
    report.note(format!(
        "{file}: AcmeTrace {name}, {} ({} with GPUs, {} replayed)",
        crate::fmt::count(b.tables.offsets.len() as u64, "job"),
        b.tally.gpu_rows,
        b.jobs.len()
    ));
    report.skips.push(policy.skips);
    if b.jobs.is_empty() {
        return Err(InputError::file(
            file,
            format!(
                "no GPU jobs ({} CPU jobs; --include-cpu-jobs replays them)",
                b.tally.cpu_jobs
            ),
        ));
    }
    b.tally.notes(&mut report);
    let cluster = cluster(&b.jobs, &b.segments, opts, file)?;
    report.note(cluster.origin.clone());
    let mut excluded = Excluded::new("CPU jobs (gpu_num 0)", b.tally.cpu_jobs, false);
    excluded.extend(Excluded::new(
        "GPU jobs that never started (cancelled while queued)",
        b.tally.never_started,
        true,
    ));
    Ok((
        Trace {
            format: "acme",
            source: file.to_string(),
            cluster,
            jobs: b.jobs,
            segments: b.segments,
            symbols: b.symbols,
            zone: Zone::Fixed(b.zone.unwrap_or(0)),
            excluded,
            native: Some(std::sync::Arc::new(b.tables)),
            speeds: None,
        },
        report,
    ))
}
