//! The Parallel Workloads Archive's Standard Workload Format (SWF): one job
//! a line, 18 whitespace-separated numbers, `;` header comments.
//!
//! - processors are the scheduled resource: a job of N processors is a gang
//!   of N slots, and every "GPU" figure counts processors (`docs/swf.md`);
//! - processors = field 5 (allocated), or field 8 (requested) where 5 is
//!   unknown; run time = field 4; the run-time estimate (`--estimate
//!   requested`) = field 9, requested time;
//! - any negative value is unknown (the format writes −1); time fields may
//!   be decimals and are rounded to whole seconds;
//! - the recorded start = submit + wait (field 3) where the wait is known,
//!   on no machine in particular (the log names none);
//! - status 1 completed, 0 failed, 5 cancelled, −1 unknown; a job's partial
//!   executions (status 2, 3, 4, on lines repeating its number after its
//!   summary line) are kept for the drill-down, not replayed twice;
//! - left out, counted: jobs whose run time or processors are unknown, and
//!   cancelled jobs that never ran (status 5, run time 0);
//! - the cluster: `MaxNodes` machines sharing `MaxProcs` processors (one
//!   each without `MaxProcs`, as RLScheduler reads the Lublin models), or
//!   `--gpus`, or sized to the load where the header says neither.

mod header;
mod native;

use crate::fields::{Fields, Row};
use crate::input::{InputError, LoadReport, RowPolicy};
use crate::model::{
    Cluster, Demand, Excluded, Job, JobStatus, Machine, MaybeIndex, MaybeSecs, Segment, Symbols,
    Trace,
};
use crate::LoadOptions;
use header::Header;
pub(crate) use native::SwfTables;
use rustc_hash::FxHashMap;
use std::io::BufRead;
use std::path::Path;

/// `swf` on the command line.
pub(crate) const FORMAT: super::Format = super::Format::new(&super::FormatSpec {
    name: "swf",
    aliases: &[],
    help: "SWF: the Parallel Workloads Archive's Standard Workload Format (.swf, or .swf.gz / .swf.xz)",
    path_help: "A workload log in the Standard Workload Format (.swf, .swf.gz or .swf.xz)",
    replay_about: "Replay a Standard Workload Format log (the HPC archive's) full screen",
    load,
    load_text: Some(load_text),
    energy_beside: None,
    reads: super::format::the_file,
    slot: "processor",
});

/// The 18 fields of a data line, by the names the format's definition gives them.
pub(crate) const FIELDS: [&str; 18] = [
    "job_number",
    "submit_time",
    "wait_time",
    "run_time",
    "allocated_processors",
    "average_cpu_time",
    "used_memory",
    "requested_processors",
    "requested_time",
    "requested_memory",
    "status",
    "user_id",
    "group_id",
    "executable_number",
    "queue_number",
    "partition_number",
    "preceding_job_number",
    "think_time",
];

/// One data line: its bytes and where each whitespace-separated field is.
#[derive(Default)]
struct Words {
    line: Vec<u8>,
    spans: Vec<(usize, usize)>,
}

impl Words {
    fn split(&mut self) {
        self.spans.clear();
        let mut start = None;
        for (i, b) in self.line.iter().enumerate() {
            match (b.is_ascii_whitespace(), start) {
                (false, None) => start = Some(i),
                (true, Some(s)) => {
                    self.spans.push((s, i));
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(s) = start {
            self.spans.push((s, self.line.len()));
        }
    }
}

impl Fields for Words {
    fn field(&self, i: usize) -> &[u8] {
        self.spans.get(i).map_or(b"", |&(s, e)| &self.line[s..e])
    }

    fn width(&self) -> usize {
        self.spans.len()
    }
}

/// A field as a whole number: decimals rounded, any negative unknown (−1).
fn value(row: &Row<Words>, i: usize) -> Result<i64, InputError> {
    let t = row.text(i, FIELDS[i])?;
    let v = match t.parse::<i64>() {
        Ok(v) => v,
        Err(_) => match t.parse::<f64>() {
            Ok(x) if x.is_finite() && x.abs() < 1e15 => x.round() as i64,
            _ => {
                return Err(row.error(
                    FIELDS[i],
                    format!("not a number: '{}'", crate::text::sanitize(t)),
                ))
            }
        },
    };
    Ok(v.max(-1))
}

/// A line's 18 values, checked: times within `limits::MAX_SECS`,
/// processors within `limits::MAX_GPUS`.
fn values(row: &Row<Words>) -> Result<[i64; 18], InputError> {
    if row.record.width() != FIELDS.len() {
        return Err(row.row_error(format!(
            "{} fields, expected the 18 of the Standard Workload Format",
            row.record.width()
        )));
    }
    let mut v = [0i64; 18];
    for (i, slot) in v.iter_mut().enumerate() {
        *slot = value(row, i)?;
    }
    for i in [1, 2, 3, 8] {
        crate::limits::secs(v[i].max(0)).map_err(|m| row.error(FIELDS[i], m.to_string()))?;
    }
    for i in [4, 7] {
        crate::limits::gpus(v[i], -1).map_err(|m| row.error(FIELDS[i], m.to_string()))?;
    }
    if v[0] < 0 {
        return Err(row.error(FIELDS[0], "unknown (-1): every job needs its number"));
    }
    if v[1] < 0 {
        return Err(row.error(FIELDS[1], "unknown (-1): every job needs its submit time"));
    }
    if !(-1..=5).contains(&v[10]) {
        return Err(row.error(
            FIELDS[10],
            format!("{} is not an SWF status (-1, 0, 1, 2, 3, 4 or 5)", v[10]),
        ));
    }
    Ok(v)
}

/// How the format's status reads as the model's.
fn status(code: i64) -> JobStatus {
    match code {
        1 | 3 => JobStatus::Completed,
        0 | 4 => JobStatus::Failed,
        5 => JobStatus::Killed,
        2 => JobStatus::Unfinished,
        _ => JobStatus::Unknown,
    }
}

/// Why a job is left out of the replay, in the order the report lists them.
const LEFT_OUT: [(&str, bool); 3] = [
    ("run time unknown (-1)", true),
    ("processors unknown (-1) or 0", false),
    ("cancelled before it ran (status 5, run time 0)", true),
];

/// The jobs as the lines are read.
#[derive(Default)]
struct Build {
    symbols: Symbols,
    jobs: Vec<Job>,
    segments: Vec<Segment>,
    tables: SwfTables,
    /// Job number → the row of its summary line.
    seen: FxHashMap<i64, u32>,
    left_out: [u64; 3],
    partials: u64,
    /// Lines skipped (lenient mode).
    skips: crate::input::Skips,
}

impl Build {
    /// Files one checked line (`text` as written) of the log starting at
    /// Unix time `start` (0 for a relative clock).
    fn add(&mut self, row: &Row<Words>, v: [i64; 18], start: i64) -> Result<(), InputError> {
        if let Some(&first) = self.seen.get(&v[0]) {
            if !(2..=4).contains(&v[10]) {
                return Err(row.error(
                    FIELDS[0],
                    format!(
                        "job {} again (first on line {}); only partial executions (status 2, 3, 4) repeat a job",
                        v[0], self.tables.lines[first as usize]
                    ),
                ));
            }
            self.partials += 1;
            self.tables.push_row(row, v[0]);
            return Ok(());
        }
        let r = self.tables.push_row(row, v[0]);
        self.seen.insert(v[0], r);
        *self
            .tables
            .statuses
            .entry(status(v[10]).label())
            .or_insert(0) += 1;
        let procs = if v[4] > 0 { v[4] } else { v[7] };
        let why = if v[3] < 0 {
            Some(0)
        } else if procs <= 0 {
            Some(1)
        } else if v[10] == 5 && v[3] == 0 {
            Some(2)
        } else {
            None
        };
        if let Some(k) = why {
            self.left_out[k] += 1;
            return Ok(());
        }
        let submit = crate::limits::secs(start + v[1])
            .map_err(|m| row.error(FIELDS[1], format!("with UnixStartTime: {m}")))?;
        self.job(&v, submit, procs as u32, r);
        Ok(())
    }

    fn job(&mut self, v: &[i64; 18], submit: i64, procs: u32, row: u32) {
        let seg = self.segments.len() as u32;
        if v[2] >= 0 {
            let start = submit + v[2];
            self.segments.push(Segment {
                start,
                end: Some(start + v[3]).into(),
                machine: MaybeIndex::NONE,
                milli: procs.saturating_mul(1000),
                gpus: 0,
            });
        }
        let mut sym = |i: usize| (v[i] >= 0).then(|| self.symbols.intern(&v[i].to_string()));
        let (user, group) = (sym(11), sym(12));
        self.jobs.push(Job {
            id: v[0].to_string().into(),
            user,
            group,
            submit,
            runtime: Some(v[3]).into(),
            demand: Demand::Gang { gpus: procs },
            gpu_type: None,
            status: status(v[10]),
            requested: (v[8] > 0).then_some(v[8]).into(),
            deadline: MaybeSecs::NONE,
            model: None,
            segments: seg..self.segments.len() as u32,
            native_row: row,
            cpu_milli: 0,
            mem_mib: 0,
            any_of_types: 0,
        });
    }
}

/// Reads the log from `r` (named `file` in messages).
fn read(r: impl BufRead, file: &str, opts: &LoadOptions) -> Result<(Build, Header), InputError> {
    let mut lines = crate::lines::Lines::new(r, file.to_string());
    let mut words = Words::default();
    let mut header = Header::default();
    let mut policy = RowPolicy::new(file, opts.strict);
    let mut b = Build::default();
    while lines.next_raw(&mut words.line)?.is_some() {
        let line = lines.line();
        let text = words.line.trim_ascii();
        if let Some(c) = text.strip_prefix(b";") {
            header.comment(&String::from_utf8_lossy(c), file, line)?;
            continue;
        }
        if text.is_empty() {
            continue;
        }
        words.split();
        let row = Row {
            file,
            line,
            record: &words,
        };
        let start = header.unix_start.unwrap_or(0);
        if let Err(e) = values(&row).and_then(|v| b.add(&row, v, start)) {
            policy.bad_row(e)?;
        }
    }
    b.skips = policy.skips;
    b.tables.header = header.fields.clone();
    Ok((b, header))
}

/// The cluster the header gives (or `--gpus`, or one sized to the load),
/// and the line that says which.
fn cluster(
    h: &Header,
    jobs: &[Job],
    opts: &LoadOptions,
    file: &str,
) -> Result<Cluster, InputError> {
    if opts.gpus.is_some() {
        return super::sizing::size_cluster(jobs, opts, file);
    }
    let (nodes, procs) = match (h.max_nodes, h.max_procs) {
        (None, None) => return super::sizing::size_cluster(jobs, opts, file),
        (Some(n), None) => (n, n),
        (None, Some(p)) => (p, p),
        (Some(n), Some(p)) => (n, p),
    };
    if procs < nodes || procs.div_ceil(nodes) > crate::limits::MAX_MACHINE_GPUS as u64 {
        return Err(InputError::file(
            file,
            format!(
                "the header's MaxProcs {procs} over MaxNodes {nodes} is not 1 to {} processors a node; set --gpus to choose a size",
                crate::limits::MAX_MACHINE_GPUS
            ),
        ));
    }
    let machines = (0..nodes)
        .map(|i| Machine {
            name: format!("node{i:0w$}", w = (nodes - 1).to_string().len()),
            gpu_type: 0,
            gpus: (procs / nodes + u64::from(i < procs % nodes)) as u32,
            cpu_milli: 0,
            mem_mib: 0,
            recorded_only: false,
        })
        .collect();
    let per = (procs % nodes == 0).then_some((procs / nodes) as u32);
    Ok(Cluster {
        machines,
        gpu_types: vec!["proc".to_string()],
        origin: format!(
            "cluster: {procs} processors on {nodes} nodes (the header's {}; every GPU figure counts processors)",
            if h.max_procs.is_some() && h.max_nodes.is_some() { "MaxNodes and MaxProcs" } else if h.max_procs.is_some() { "MaxProcs" } else { "MaxNodes" }
        ),
        per_node: per,
        switches: 0,
        sized_by: String::new(),
    })
}

/// Loads an SWF log: plain, or compressed with gzip (`.gz`) or xz (`.xz`).
pub fn load(path: &Path, opts: &LoadOptions) -> Result<(Trace, LoadReport), InputError> {
    let file = path.display().to_string();
    let f = super::reader::open_file(path)?;
    let source: Box<dyn std::io::Read> = if super::xz::is_xz(path) {
        Box::new(super::xz::open(path)?)
    } else if path.extension().is_some_and(|e| e == "gz") {
        Box::new(flate2::read::MultiGzDecoder::new(std::io::BufReader::new(
            f,
        )))
    } else {
        Box::new(f)
    };
    let r = std::io::BufReader::with_capacity(1 << 20, source);
    finish(read(r, &file, opts)?, &file, opts)
}

/// Loads an SWF log held in memory, named `name` in messages.
fn load_text(
    text: &[u8],
    name: &str,
    opts: &LoadOptions,
) -> Result<(Trace, LoadReport), InputError> {
    finish(read(text, name, opts)?, name, opts)
}

/// The trace and its report from the lines read.
fn finish(
    (b, h): (Build, Header),
    file: &str,
    opts: &LoadOptions,
) -> Result<(Trace, LoadReport), InputError> {
    let mut report = LoadReport::default();
    report.skips.push(b.skips);
    if b.jobs.is_empty() {
        return Err(InputError::file(
            file,
            "no jobs to replay (no data line, or every job left out)",
        ));
    }
    let excluded = Excluded::counted(&LEFT_OUT, &b.left_out);
    report.note(format!(
        "{file}: Standard Workload Format, {} jobs replayed{}{}",
        b.jobs.len(),
        Excluded::words(&excluded),
        if b.partials > 0 {
            format!(
                "; {} partial-execution lines kept for the drill-down only",
                b.partials
            )
        } else {
            String::new()
        }
    ));
    let cluster = cluster(&h, &b.jobs, opts, file)?;
    report.note(cluster.origin.clone());
    Ok((
        Trace {
            format: "swf",
            source: file.to_string(),
            cluster,
            jobs: b.jobs,
            segments: b.segments,
            symbols: b.symbols,
            zone: h.zone(),
            excluded,
            native: Some(std::sync::Arc::new(b.tables)),
            speeds: None,
        },
        report,
    ))
}

#[cfg(test)]
mod tests;
