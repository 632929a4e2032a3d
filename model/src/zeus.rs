//! Zeus's Alibaba group trace (`alibaba_groups.csv`) as a job source: each
//! row one single-GPU job of one of the six Zeus workloads.
//!
//! - submit = `start_time` (the trace has no queueing), run time =
//!   `end_time − start_time`, the recorded hold = that interval;
//! - model = `dataset`, so the energy model maps the job by name;
//! - times are seconds from the trace's start (relative clock);
//! - the cluster: the peak number of jobs running at once, in whole nodes.

use super::fields::Row;
use super::input::{InputError, LoadReport, RowPolicy};
use super::model::{Cluster, Demand, Job, JobStatus, MaybeIndex, Segment, Symbols, Trace};
use super::LoadOptions;
use crate::text::sanitize;
use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};

/// `zeus` on the command line.
pub(crate) const FORMAT: super::Format = super::Format::new(&super::FormatSpec {
    name: "zeus",
    aliases: &[],
    help: "Zeus: alibaba_groups.csv or the released .csv.xz (or its directory, with the power traces)",
    path_help: "A Zeus trace directory (alibaba_groups.csv or .csv.xz, summary_train.csv beside the power files)",
    replay_about:
        "Replay Zeus's alibaba_groups.csv full screen, with energy from the same directory",
    load,
    load_text: None,
    energy_beside: Some(power_traces_beside),
    reads: |path| vec![path.to_path_buf(), path.join(FILE), path.join(FILE_XZ)],
    slot: "GPU",
});

/// `alibaba_groups.csv`'s header: recurrence group, start and end (trace
/// seconds), Zeus workload (`dataset`), `runtime_ratio`.
pub(crate) const HEADER: [&str; 5] = [
    "group",
    "start_time",
    "end_time",
    "dataset",
    "runtime_ratio",
];
/// The job file's name in a Zeus directory.
pub(crate) const FILE: &str = "alibaba_groups.csv";
/// The file as Zeus's repository ships it.
pub(crate) const FILE_XZ: &str = "alibaba_groups.csv.xz";

/// The rows as released, for drill-down.
#[derive(Debug, Default)]
pub(crate) struct ZeusTables {
    /// Per job: group, start, end, dataset, runtime_ratio (sanitised).
    pub rows: Vec<[Box<str>; 5]>,
    /// Row by job id: `group`, then `group#2`, `group#3` … as a group recurs.
    pub by_id: FxHashMap<String, u32>,
}

/// The directory of a job file (or the directory given) when it also holds
/// Zeus's power traces: the energy model a Zeus replay uses by default.
pub(crate) fn power_traces_beside(path: &Path) -> Option<PathBuf> {
    let dir = if path.is_dir() {
        path
    } else {
        path.parent().unwrap_or(path)
    };
    Some(dir.to_path_buf()).filter(|d| d.join("summary_train.csv").is_file())
}

/// `DIR` (holding alibaba_groups.csv, or the released .csv.xz) or the file itself.
pub(crate) fn file_of(path: &Path) -> PathBuf {
    if !path.is_dir() {
        return path.to_path_buf();
    }
    let xz = path.join(FILE_XZ);
    if !super::reader::present(&path.join(FILE)) && super::reader::present(&xz) {
        return xz;
    }
    path.join(FILE)
}

/// Checks the header row against `HEADER`.
fn check_header(file: &str, rec: &csv::ByteRecord) -> Result<(), InputError> {
    let header = super::fields::header_names(rec);
    if header != HEADER {
        return Err(InputError::on_line(
            file,
            1,
            format!(
                "unknown header '{}': expected {}",
                sanitize(&header.join(",")),
                HEADER.join(",")
            ),
        ));
    }
    Ok(())
}

/// One row's checked fields: group, start, end, dataset, runtime_ratio.
type Fields = (String, i64, i64, String, String);

fn parse_row(row: &Row) -> Result<Fields, InputError> {
    row.expect_width(HEADER.len())?;
    let group = row.required(0, "group")?.to_string();
    let start = row
        .opt_time(1, "start_time")?
        .ok_or_else(|| row.error("start_time", "empty"))?;
    let end = row
        .opt_time(2, "end_time")?
        .ok_or_else(|| row.error("end_time", "empty"))?;
    if end < start {
        return Err(row.error("end_time", "before start_time"));
    }
    let dataset = row.required(3, "dataset")?.to_string();
    if !super::energy::WORKLOADS.iter().any(|w| w.0 == dataset) {
        return Err(row.error(
            "dataset",
            format!(
                "'{}' is not a Zeus workload ({})",
                sanitize(&dataset),
                super::energy::WORKLOADS.map(|w| w.0).join(", ")
            ),
        ));
    }
    let ratio = row.text(4, "runtime_ratio")?.to_string();
    Ok((group, start, end, dataset, ratio))
}

/// The jobs and released rows as the file is read.
#[derive(Default)]
struct Build {
    symbols: Symbols,
    jobs: Vec<Job>,
    segments: Vec<Segment>,
    tables: ZeusTables,
    /// How often each group has recurred so far.
    repeats: FxHashMap<String, u32>,
}

impl Build {
    /// One row as one single-GPU job; a group that recurs is group, group#2, group#3, …
    fn add(&mut self, (group, start, end, dataset, ratio): Fields) {
        let n = self.repeats.entry(group.clone()).or_insert(0);
        *n += 1;
        let id = if *n == 1 {
            group.clone()
        } else {
            format!("{group}#{n}")
        };
        let index = self.jobs.len() as u32;
        self.tables.by_id.insert(id.clone(), index);
        self.tables.rows.push([
            group.into(),
            start.to_string().into(),
            end.to_string().into(),
            dataset.clone().into(),
            ratio.into(),
        ]);
        self.segments.push(Segment {
            start,
            end: Some(end).into(),
            machine: MaybeIndex::NONE,
            milli: 1000,
            gpus: 0,
        });
        self.jobs.push(Job {
            id: id.into(),
            user: None,
            group: None,
            submit: start,
            runtime: Some(end - start).into(),
            demand: Demand::Gang { gpus: 1 },
            gpu_type: None,
            status: JobStatus::Completed,
            deadline: crate::model::MaybeSecs::NONE,
            model: Some(self.symbols.intern(&dataset)),
            segments: index..index + 1,
            requested: crate::model::MaybeSecs::NONE,
            native_row: index,
            cpu_milli: 0,
            mem_mib: 0,
            any_of_types: 0,
        });
    }
}

/// `--gpus` sizes the cluster; else the peak number of jobs running at once, in whole nodes.
fn cluster(
    jobs: &[Job],
    segments: &[Segment],
    opts: &LoadOptions,
    file: &str,
) -> Result<Cluster, InputError> {
    if opts.gpus.is_some() {
        return super::sizing::size_cluster(jobs, opts, file);
    }
    let peak = super::acme::peak_demand(jobs, segments);
    let (n, g) =
        super::sizing::whole_nodes(peak, opts, file, "the peak number of jobs running at once")?;
    Ok(Cluster::uniform(
        n,
        g,
        format!(
            "cluster: {n} GPUs = {} nodes × {g} (the peak number of jobs running at once, {peak}, in whole nodes; set --gpus to choose)",
            n / g
        ),
    )
    .sized_by("peak jobs running at once"))
}

/// Loads Zeus's job file: `alibaba_groups.csv`, the released `.csv.xz`, or a
/// directory holding either.
pub fn load(path: &Path, opts: &LoadOptions) -> Result<(Trace, LoadReport), InputError> {
    let path = file_of(path);
    let file = path.display().to_string();
    let source: Box<dyn std::io::Read> = if super::xz::is_xz(&path) {
        Box::new(super::xz::open(&path)?)
    } else {
        let f = super::reader::open_file(&path)?;
        Box::new(std::io::BufReader::with_capacity(1 << 20, f))
    };
    let mut rdr = super::fields::csv_over(source);
    let mut rec = csv::ByteRecord::new();
    let mut read = |rec: &mut csv::ByteRecord| {
        rdr.read_byte_record(rec)
            .map_err(|e| InputError::csv(&file, &e))
    };
    if !read(&mut rec)? {
        return Err(InputError::file(
            &file,
            format!("empty file: expected the header {}", HEADER.join(",")),
        ));
    }
    check_header(&file, &rec)?;
    let mut policy = RowPolicy::new(&file, opts.strict);
    let mut b = Build::default();
    while read(&mut rec)? {
        let line = rec.position().map_or(0, |p| p.line());
        let row = Row {
            file: &file,
            line,
            record: &rec,
        };
        match parse_row(&row) {
            Ok(f) => b.add(f),
            Err(e) => policy.bad_row(e)?,
        }
    }
    let mut report = LoadReport::default();
    report.skips.push(policy.skips);
    if b.jobs.is_empty() {
        return Err(InputError::file(&file, "no jobs"));
    }
    report.note(format!(
        "{file}: Zeus Alibaba groups, {} single-GPU jobs",
        b.jobs.len()
    ));
    let cluster = cluster(&b.jobs, &b.segments, opts, &file)?;
    report.note(cluster.origin.clone());
    Ok((
        Trace {
            format: "zeus",
            source: file.clone(),
            cluster,
            jobs: b.jobs,
            segments: b.segments,
            symbols: b.symbols,
            // The groups' times are PAI's: Unix seconds read in UTC+8.
            zone: super::clock::PAI_ZONE,
            excluded: Vec::new(),
            native: Some(std::sync::Arc::new(b.tables)),
            speeds: None,
        },
        report,
    ))
}

/// The released row of a job, with its times in PAI's local time (days
/// counted from the trace's first start, `first`).
pub(crate) fn job_detail(t: &ZeusTables, row: u32, first: i64) -> serde_json::Value {
    let Some(r) = t.rows.get(row as usize) else {
        return serde_json::Value::Null;
    };
    let mut job = serde_json::Map::new();
    for (h, v) in HEADER.iter().zip(r.iter()) {
        let value = match v.parse::<i64>() {
            Ok(i) => i.into(),
            Err(_) => match v.parse::<f64>() {
                Ok(x) if x.is_finite() => x.into(),
                _ => v.to_string().into(),
            },
        };
        job.insert(h.to_string(), value);
    }
    let local = |i: usize| {
        r[i].parse::<f64>()
            .ok()
            .map(|t| super::clock::clock(super::clock::PAI_ZONE, first, t.round() as i64))
    };
    serde_json::json!({
        "job": job,
        "start_time_local": local(1),
        "end_time_local": local(2),
    })
}

impl super::native::NativeTables for ZeusTables {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn job_detail(&self, trace: &Trace, job: &Job, _side: bool) -> serde_json::Value {
        job_detail(self, job.native_row, trace.first_submit().unwrap_or(0))
    }

    fn job_by_id(
        &self,
        trace: &Trace,
        id: &str,
    ) -> Result<Option<(serde_json::Value, Vec<String>)>, InputError> {
        let first = trace.first_submit().unwrap_or(0);
        Ok(self
            .by_id
            .get(id)
            .map(|&r| (job_detail(self, r, first), Vec::new())))
    }
}
