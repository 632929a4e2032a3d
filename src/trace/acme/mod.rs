//! AcmeTrace (InternLM, NSDI '24): `trace_seren.csv` or `trace_kalos.csv`,
//! told apart by their headers; ISO-8601 times with an offset.

mod native;
mod time;

pub use native::job_detail;
pub use time::parse_time;

use super::fields::Row;
use super::input::{sanitize, InputError, LoadReport, RowPolicy};
use super::model::{
    Cluster, Demand, Excluded, Job, JobStatus, Secs, Segment, Symbols, Trace, Zone,
};
use super::LoadOptions;
use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};

/// `acme` on the command line.
pub const FORMAT: super::Format = super::Format::new(&super::FormatSpec {
    name: "acme",
    aliases: &[],
    help: "AcmeTrace: trace_seren.csv or trace_kalos.csv",
    path_help: "An AcmeTrace job file: trace_seren.csv or trace_kalos.csv",
    replay_about: "Replay an AcmeTrace file (trace_seren.csv, trace_kalos.csv) full screen",
    load,
    energy_beside: None,
});

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
pub struct AcmeTables {
    pub path: PathBuf,
    pub cluster_name: &'static str,
    pub header: Vec<String>,
    /// job row → byte offset of its line.
    pub offsets: Vec<u64>,
    pub by_id: FxHashMap<String, u32>,
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

fn time(row: &Row, cols: &Cols, name: &str) -> Result<Option<(Secs, i32)>, InputError> {
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
    crate::trace::limits::dated(at)
        .map_err(|m| row.error(name, format!("'{}' {m}", sanitize(t))))?;
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

/// Peak concurrent GPU demand over the recorded start/end times.
pub(super) fn peak_demand(jobs: &[Job], segments: &[Segment]) -> u64 {
    let mut ev: Vec<(Secs, i64)> = Vec::new();
    for j in jobs {
        for s in &segments[j.segments.start as usize..j.segments.end as usize] {
            ev.push((s.start, s.milli as i64));
            if let Some(e) = s.end {
                ev.push((e, -(s.milli as i64)));
            }
        }
    }
    ev.sort_unstable(); // ends (negative) before starts at the same second
    let (mut cur, mut peak) = (0i64, 0i64);
    for (_, d) in ev {
        cur += d;
        peak = peak.max(cur);
    }
    (peak.max(0) as u64).div_ceil(1000)
}

/// The header row: which cluster's schema (name, columns), and the header as read.
fn schema(
    file: &str,
    rec: &csv::ByteRecord,
) -> Result<(&'static str, &'static [&'static str], Vec<String>), InputError> {
    let header = super::fields::header_names(rec);
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

/// One row's checked fields (times as Unix seconds and offset).
struct Fields {
    id: String,
    gpus: i64,
    submit: (Secs, i32),
    start: Option<(Secs, i32)>,
    end: Option<(Secs, i32)>,
    duration: Option<i64>,
    queue: Option<i64>,
}

/// Rows kept out of the replay or disagreeing with themselves, for the report.
#[derive(Default)]
struct Tally {
    cpu_jobs: u64,
    mismatched: u64,
    queue_mismatch: u64,
    never_started: u64,
    /// Rows with `gpu_num` > 0, replayed or not (the published `gpu_job_num`).
    gpu_rows: u64,
}

/// The jobs and tables as the rows are read.
struct Build {
    symbols: Symbols,
    jobs: Vec<Job>,
    segments: Vec<Segment>,
    tables: AcmeTables,
    /// Each kept row's line, for the duplicate-id message.
    row_lines: Vec<u64>,
    tally: Tally,
    zone: Option<i32>,
}

impl Build {
    /// Checks a row's fields; an id seen before is an error.
    fn parse(&self, row: &Row, cols: &Cols) -> Result<Fields, InputError> {
        row.expect_width(cols.width)?;
        let id = row.required(cols.get("job_id"), "job_id")?;
        if let Some(&r) = self.tables.by_id.get(id) {
            let l = self.row_lines[r as usize];
            return Err(row.error(
                "job_id",
                format!("duplicate job '{}' (first on line {l})", sanitize(id)),
            ));
        }
        let gpus = row.gpus(cols.get("gpu_num"), "gpu_num", 0)? as i64;
        let submit =
            time(row, cols, "submit_time")?.ok_or_else(|| row.error("submit_time", "empty"))?;
        let start = time(row, cols, "start_time")?;
        let end = time(row, cols, "end_time")?;
        if let (Some(s), Some(e)) = (start, end) {
            if e.0 < s.0 {
                return Err(row.error("end_time", "before start_time"));
            }
        }
        let duration = row.opt_int(cols.get("duration"), "duration", 0)?;
        let queue = row.opt_int(cols.get("queue"), "queue", i64::MIN)?;
        Ok(Fields {
            id: id.to_string(),
            gpus,
            submit,
            start,
            end,
            duration,
            queue,
        })
    }

    /// Files a checked row: its offset and state always, its job when it
    /// asks for GPUs and started.
    fn add(&mut self, row: &Row, cols: &Cols, f: Fields, byte: u64, opts: &LoadOptions) {
        let Fields {
            id,
            gpus,
            submit,
            start,
            end,
            duration,
            queue,
        } = f;
        self.zone.get_or_insert(submit.1);
        // Durations that disagree with end − start are kept and reported.
        if let (Some(s), Some(e), Some(d)) = (start, end, duration) {
            if e.0 - s.0 != d {
                self.tally.mismatched += 1;
            }
        }
        if let (Some(s), Some(q)) = (start, queue) {
            if s.0 - submit.0 != q {
                self.tally.queue_mismatch += 1;
            }
        }
        let row_index = self.tables.offsets.len() as u32;
        self.tables.offsets.push(byte);
        self.tables.by_id.insert(id.clone(), row_index);
        self.row_lines.push(row.line);
        let text = |n: &str| {
            row.text(cols.get(n), n)
                .map(crate::trace::input::sanitized)
                .unwrap_or_default()
        };
        let state = text("state");
        let state_key: &str = if state.is_empty() { "(empty)" } else { &state };
        match self.tables.states.get_mut(state_key) {
            Some(n) => *n += 1,
            None => {
                self.tables.states.insert(state_key.to_string(), 1);
            }
        }
        self.tally.gpu_rows += (gpus > 0) as u64;
        if gpus == 0 && !opts.include_cpu_jobs {
            self.tally.cpu_jobs += 1;
            return;
        }
        let Some(s) = start else {
            // Cancelled while queued: it never ran, and the file does not say when it left.
            self.tally.never_started += 1;
            return;
        };
        let seg_start = self.segments.len() as u32;
        self.segments.push(Segment {
            start: s.0,
            end: end.map(|e| e.0),
            machine: None,
            milli: gpus as u32 * 1000,
            gpus: 0,
        });
        let user = text("user");
        let ty = text("type");
        self.jobs.push(Job {
            id: id.into(),
            user: (!user.is_empty()).then(|| self.symbols.intern(&user)),
            group: None,
            submit: submit.0,
            runtime: end.map(|e| e.0 - s.0).into(),
            demand: Demand::Gang { gpus: gpus as u32 },
            gpu_type: None,
            status: if end.is_none() {
                JobStatus::Unfinished
            } else {
                status(&state)
            },
            deadline: crate::trace::model::MaybeSecs::NONE,
            model: (!ty.is_empty()).then(|| self.symbols.intern(&ty)),
            segments: seg_start..self.segments.len() as u32,
            native_row: row_index,
        });
    }
}

impl Tally {
    fn notes(&self, report: &mut LoadReport) {
        let Tally {
            cpu_jobs,
            mismatched,
            queue_mismatch,
            never_started,
            ..
        } = *self;
        if cpu_jobs > 0 {
            report.note(format!(
                "{} (gpu_num 0) left out of the GPU replay; --include-cpu-jobs keeps them",
                crate::fmt::count(cpu_jobs, "CPU job")
            ));
        }
        if never_started > 0 {
            report.note(format!(
                "{} never started (no start_time; cancelled while queued): counted among the GPU jobs, left out of the replay, kept for drill-down",
                crate::fmt::count(never_started, "GPU job")
            ));
        }
        if mismatched > 0 {
            report.note(format!(
                "{mismatched} {} a duration that disagrees with end_time − start_time: the replay, stats and the per-job files use end_time − start_time; the drill-down shows both",
                if mismatched == 1 { "job has" } else { "jobs have" }
            ));
        }
        if queue_mismatch > 0 {
            report.note(format!(
                "{queue_mismatch} {} a queue that disagrees with start_time − submit_time: waits use start_time − submit_time",
                if queue_mismatch == 1 { "job has" } else { "jobs have" }
            ));
        }
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

pub fn load(path: &Path, opts: &LoadOptions) -> Result<(Trace, LoadReport), InputError> {
    let file = path.display().to_string();
    let mut rdr = super::fields::open_csv(path)?;
    let mut rec = csv::ByteRecord::new();
    let read = |rdr: &mut csv::Reader<super::fields::CsvFile>, rec: &mut csv::ByteRecord| {
        rdr.read_byte_record(rec)
            .map_err(|e| InputError::csv(&file, &e))
    };
    if !read(&mut rdr, &mut rec)? {
        return Err(InputError::file(
            &file,
            "empty file: expected an AcmeTrace header row",
        ));
    }
    let (name, names, header) = schema(&file, &rec)?;
    let cols = Cols::new(names);
    let mut policy = RowPolicy::new(&file, opts.strict);
    let mut b = Build {
        symbols: Symbols::default(),
        jobs: Vec::new(),
        segments: Vec::new(),
        tables: AcmeTables {
            path: path.to_path_buf(),
            cluster_name: name,
            header,
            ..Default::default()
        },
        row_lines: Vec::new(),
        tally: Tally::default(),
        zone: None,
    };
    // About 130 bytes a row: size the id map once.
    let guess = std::fs::metadata(path).map_or(0, |m| m.len() / 130) as usize;
    b.tables.by_id.reserve(guess.min(1 << 24));
    while read(&mut rdr, &mut rec)? {
        let pos = rec.position().cloned().unwrap_or_else(csv::Position::new);
        let row = Row {
            file: &file,
            line: pos.line(),
            record: &rec,
        };
        match b.parse(&row, &cols) {
            Ok(f) => b.add(&row, &cols, f, pos.byte(), opts),
            Err(e) => policy.bad_row(e)?,
        }
    }
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
            &file,
            format!(
                "no GPU jobs ({} CPU jobs; --include-cpu-jobs replays them)",
                b.tally.cpu_jobs
            ),
        ));
    }
    b.tally.notes(&mut report);
    let cluster = cluster(&b.jobs, &b.segments, opts, &file)?;
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
            source: file.clone(),
            cluster,
            jobs: b.jobs,
            segments: b.segments,
            symbols: b.symbols,
            zone: Zone::Fixed(b.zone.unwrap_or(0)),
            excluded,
            native: Some(std::sync::Arc::new(b.tables)),
        },
        report,
    ))
}
