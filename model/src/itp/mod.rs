//! Microsoft ITP job traces as released with ElasticFlow: one CSV per cluster,
//! raw schema or ElasticFlow schema, detected from the header.

mod fast;

use super::fields::{Fields, Row};
use super::input::{InputError, LoadReport, Location, RowPolicy};
use super::model::{Demand, Job, JobStatus, Symbols, Trace, Zone};
use super::seen;
use super::LoadOptions;

/// `itp` on the command line.
pub(crate) const FORMAT: super::Format = super::Format::new(&super::FormatSpec {
    name: "itp",
    aliases: &["elasticflow"],
    help: "Microsoft ITP, raw or ElasticFlow schema (alias: elasticflow)",
    path_help: "One ITP cluster's CSV (raw or ElasticFlow schema), e.g. cluster04.csv",
    replay_about: "Replay a Microsoft ITP / ElasticFlow trace (one CSV) full screen",
    load,
    load_text: Some(load_text),
    energy_beside: None,
    reads: super::format::the_file,
    slot: "GPU",
});

/// The raw ITP header: id, submission (seconds from the trace's start), run
/// time in seconds, GPUs.
pub(crate) const RAW_HEADER: [&str; 4] = ["job_id", "submission_time", "duration", "num_gpu"];
/// ElasticFlow's header: the raw columns plus the work (`num_iteration`,
/// `batch_size`), the model and the deadline (trace seconds).
pub(crate) const ELASTICFLOW_HEADER: [&str; 8] = [
    "job_id",
    "submission_time",
    "num_iteration",
    "model_name",
    "deadline",
    "batch_size",
    "num_gpu",
    "duration",
];

/// The ElasticFlow artifact's own variant of the schema (its
/// `elasticVpollux_e.csv`): the same columns under other names.
pub(crate) const ARTIFACT_HEADER: [&str; 8] = [
    "job_id",
    "submit_time",
    "iteration",
    "model_name",
    "ddl",
    "batch_size",
    "num_gpu",
    "duration",
];

/// The artifact's name → the schema's.
const ARTIFACT_NAMES: [(&str, &str); 3] = [
    ("submit_time", "submission_time"),
    ("iteration", "num_iteration"),
    ("ddl", "deadline"),
];

/// Which ITP schema a file is in, from its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Schema {
    /// `RAW_HEADER`.
    Raw,
    /// `ELASTICFLOW_HEADER`, or the artifact's names for it
    /// (`ARTIFACT_HEADER`); either may add `best_effort`.
    ElasticFlow,
}

/// Column positions, found by name so either column order loads.
struct Columns {
    schema: Schema,
    width: usize,
    job_id: usize,
    submit: usize,
    duration: usize,
    num_gpu: usize,
    model: Option<usize>,
    deadline: Option<usize>,
    /// ElasticFlow's optional `best_effort` column: 1 makes a job one
    /// without a deadline (its simulator sets the deadline to `maxsize`).
    best_effort: Option<usize>,
    /// ElasticFlow's generated whole-number columns: not used by the
    /// replay, kept for `job` (`ItpTables`).
    checked: Vec<(usize, &'static str)>,
    /// The file's own names of the columns it names in the artifact's way
    /// (schema name → file name), for errors.
    renamed: &'static [(&'static str, &'static str)],
}

impl Columns {
    /// The file's own name of the schema's column `name`.
    fn label(&self, name: &'static str) -> &'static str {
        self.renamed
            .iter()
            .find(|(_, schema)| *schema == name)
            .map_or(name, |(file, _)| file)
    }
}

fn detect(header: &[String], file: &str) -> Result<Columns, InputError> {
    // ElasticFlow's optional last column, beside either of its schemas;
    // and the copies its Philly trace adds (`philly_103959.csv`:
    // `real_iteration`, `real_duration`), which its simulator never reads.
    let extra = usize::from(header.iter().any(|h| h == "best_effort"))
        + header
            .iter()
            .filter(|h| matches!(h.as_str(), "real_iteration" | "real_duration"))
            .count();
    let artifact = header.len() - extra == ARTIFACT_HEADER.len()
        && ARTIFACT_HEADER
            .iter()
            .all(|n| header.iter().any(|h| h == n));
    let renamed: &'static [(&str, &str)] = if artifact { &ARTIFACT_NAMES } else { &[] };
    let header: Vec<String> = header
        .iter()
        .map(|h| {
            renamed
                .iter()
                .find(|(file, _)| file == h)
                .map_or(h.clone(), |(_, schema)| schema.to_string())
        })
        .collect();
    let pos = |name: &str| header.iter().position(|h| h == name);
    let has_all = |names: &[&str], extra: usize| {
        header.len() - extra == names.len() && names.iter().all(|n| pos(n).is_some())
    };
    let schema = if has_all(&ELASTICFLOW_HEADER, extra) {
        Schema::ElasticFlow
    } else if has_all(&RAW_HEADER, 0) {
        Schema::Raw
    } else {
        return Err(InputError::on_line(
            file,
            1,
            format!(
                "unknown header '{}': expected ITP raw ({}), ElasticFlow ({}) or the ElasticFlow artifact's ({}); either ElasticFlow one may add best_effort (and real_iteration, real_duration, which are not read)",
                crate::text::sanitize(&header.join(",")),
                RAW_HEADER.join(","),
                ELASTICFLOW_HEADER.join(","),
                ARTIFACT_HEADER.join(",")
            ),
        ));
    };
    let p = |n: &str| pos(n).expect("checked above");
    Ok(Columns {
        schema,
        width: header.len(),
        job_id: p("job_id"),
        submit: p("submission_time"),
        duration: p("duration"),
        num_gpu: p("num_gpu"),
        model: pos("model_name"),
        deadline: pos("deadline"),
        best_effort: pos("best_effort"),
        checked: ["num_iteration", "batch_size"]
            .into_iter()
            .filter_map(|n| pos(n).map(|i| (i, n)))
            .collect(),
        renamed,
    })
}

/// Reads one ITP CSV file.
pub fn load(path: &std::path::Path, opts: &LoadOptions) -> Result<(Trace, LoadReport), InputError> {
    let file = path.display().to_string();
    if let Some(done) = fast::load(path, &file, opts)? {
        return Ok(done);
    }
    let f = super::reader::open_file(path)?;
    load_from(std::io::BufReader::with_capacity(1 << 20, f), &file, opts)
}

/// One ITP CSV held in memory.
fn load_text(
    text: &[u8],
    file: &str,
    opts: &LoadOptions,
) -> Result<(Trace, LoadReport), InputError> {
    load_from(text, file, opts)
}

/// Reads one ITP CSV from `reader` (named `file` in messages) through the CSV
/// reader: memory, pipes and any quoting.
pub fn load_from<R: std::io::Read>(
    reader: R,
    file: &str,
    opts: &LoadOptions,
) -> Result<(Trace, LoadReport), InputError> {
    let mut rdr = super::fields::csv_over(reader);
    let mut record = csv::ByteRecord::new();
    let read = |rdr: &mut csv::Reader<super::reader::Capped<R>>, rec: &mut csv::ByteRecord| {
        rdr.read_byte_record(rec)
            .map_err(|e| InputError::csv(file, &e))
    };
    if !read(&mut rdr, &mut record)? {
        return Err(InputError::file(
            file,
            "empty file: expected an ITP header row",
        ));
    }
    let header = super::fields::header_names(&record);
    let cols = detect(&header, file)?;

    let mut policy = RowPolicy::new(file, opts.strict);
    let mut jobs = Vec::new();
    let mut symbols = Symbols::default();
    let mut seen = seen::Seen::default();
    let mut values = Vec::new();
    loop {
        match read(&mut rdr, &mut record) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                // A broken quote or similar: the reader cannot resynchronise reliably.
                policy.bad_row(e.clone())?;
                return Err(e);
            }
        }
        let line = record.position().map(|p| p.line()).unwrap_or(0);
        let row = Row {
            file,
            line,
            record: &record,
        };
        if record.len() == 1
            && record
                .get(0)
                .is_some_and(|f| f.iter().all(u8::is_ascii_whitespace))
        {
            continue; // a blank line
        }
        match parse_row(&row, &cols, &mut symbols, jobs.len() as u32) {
            Ok((job, v)) => {
                jobs.push(job);
                if let Err(first) = seen.keep(
                    |k| jobs[k as usize].id.as_bytes(),
                    jobs.len() as u32 - 1,
                    line,
                ) {
                    let job = jobs.pop().expect("just pushed");
                    policy.bad_row(seen::duplicate(
                        file,
                        line,
                        "duplicate job id",
                        &job.id,
                        first,
                    ))?;
                } else {
                    values.extend_from_slice(&v[..cols.checked.len()]);
                }
            }
            Err(e) => policy.bad_row(e)?,
        }
    }
    finish(file, &cols, opts, (jobs, symbols, values), policy)
}

/// The trace from its parsed jobs (either path), sized and noted.
fn finish(
    file: &str,
    cols: &Columns,
    opts: &LoadOptions,
    (jobs, symbols, values): (Vec<Job>, Symbols, Vec<i64>),
    policy: RowPolicy,
) -> Result<(Trace, LoadReport), InputError> {
    if jobs.is_empty() {
        return Err(no_jobs(file, &policy));
    }
    let mut report = LoadReport::default();
    report.note(format!(
        "{file}: ITP {} schema, {} jobs",
        match cols.schema {
            Schema::Raw => "raw",
            Schema::ElasticFlow if !cols.renamed.is_empty() =>
                "ElasticFlow (the artifact's column names)",
            Schema::ElasticFlow => "ElasticFlow",
        },
        jobs.len()
    ));
    report.skips.push(policy.skips);
    let cluster = super::sizing::size_cluster(&jobs, opts, file)?;
    report.note(cluster.origin.clone());
    let extra = ItpTables {
        columns: cols.checked.iter().map(|c| c.1).collect(),
        values,
    };
    let trace = Trace {
        format: "itp",
        source: file.to_string(),
        cluster,
        jobs,
        segments: Vec::new(),
        symbols,
        zone: Zone::Relative,
        excluded: Vec::new(),
        native: (!extra.columns.is_empty())
            .then(|| std::sync::Arc::new(extra) as std::sync::Arc<dyn super::native::NativeTables>),
        speeds: None,
    };
    Ok((trace, report))
}

/// The error for a file without one usable job, naming the first reason.
fn no_jobs(file: &str, policy: &RowPolicy) -> InputError {
    InputError::file(
        file,
        if policy.skips.count > 0 {
            format!(
                "no usable jobs: all {} rows were bad; the first: {}",
                policy.skips.count,
                policy.skips.first.first().map_or("", String::as_str)
            )
        } else {
            "no jobs: the file has a header and nothing else".to_string()
        },
    )
}

/// One row as a job (the caller checks its id is new), and its
/// ElasticFlow extra values.
fn parse_row<F: Fields>(
    row: &Row<F>,
    cols: &Columns,
    symbols: &mut Symbols,
    index: u32,
) -> Result<(Job, [i64; 2]), InputError> {
    if row.record.width() != cols.width {
        return Err(InputError::at(
            Location {
                file: row.file.into(),
                line: row.line,
                column: None,
                byte: false,
            },
            format!("{} columns, expected {}", row.record.width(), cols.width),
        ));
    }
    // Exact: `" a"`, `"a "` and `a` are three jobs.
    let id = row.exact(cols.job_id, "job_id")?;
    let submit = row.secs(cols.submit, cols.label("submission_time"))?;
    let duration = row.secs(cols.duration, "duration")?;
    if row.int(cols.num_gpu, "num_gpu", 0)? == 0 {
        return Err(row.error("num_gpu", "zero GPUs: an ITP job needs at least one"));
    }
    let gpus = row.gpus(cols.num_gpu, "num_gpu", 1)?;
    let model = match cols.model {
        Some(i) => Some(symbols.intern(row.required(i, "model_name")?)),
        None => None,
    };
    let best_effort = match cols.best_effort {
        Some(i) => row.int(i, "best_effort", 0)? == 1,
        None => false,
    };
    let deadline = match cols.deadline {
        Some(i) if !best_effort => Some(row.int(i, cols.label("deadline"), 0)?),
        _ => None,
    };
    let mut values = [0i64; 2];
    for (k, &(i, name)) in cols.checked.iter().enumerate() {
        values[k] = row.int(i, cols.label(name), 0)?;
    }
    let job = Job {
        id: id.into(),
        user: None,
        group: None,
        submit,
        runtime: Some(duration).into(),
        demand: Demand::Gang { gpus },
        gpu_type: None,
        status: JobStatus::Unknown,
        deadline: deadline.into(),
        model,
        segments: 0..0,
        requested: crate::model::MaybeSecs::NONE,
        native_row: index,
        cpu_milli: 0,
        mem_mib: 0,
        any_of_types: 0,
    };
    Ok((job, values))
}

/// What an ElasticFlow trace records beyond the model (`num_iteration`,
/// `batch_size`), per job, for `job` and the drill-down.
#[derive(Debug)]
pub(crate) struct ItpTables {
    columns: Vec<&'static str>,
    /// `columns.len()` values per job, in job order.
    values: Vec<i64>,
}

impl ItpTables {
    fn of(&self, job: &Job) -> Vec<(&'static str, i64)> {
        let n = self.columns.len();
        let at = job.native_row as usize * n;
        self.columns
            .iter()
            .zip(self.values.get(at..at + n).unwrap_or_default())
            .map(|(c, v)| (*c, *v))
            .collect()
    }
}

impl super::native::NativeTables for ItpTables {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn job_detail(&self, trace: &Trace, job: &Job, _side: bool) -> serde_json::Value {
        job_detail_with(trace, job, &self.of(job))
    }

    fn work(&self, job: &Job) -> Option<(u64, u32)> {
        let v = self.of(job);
        let get = |name: &str| v.iter().find(|(c, _)| *c == name).map(|(_, v)| *v);
        let iters = u64::try_from(get("num_iteration")?).ok()?;
        let batch = u32::try_from(get("batch_size")?).ok().filter(|&b| b > 0)?;
        Some((iters, batch))
    }

    fn job_by_id(
        &self,
        trace: &Trace,
        id: &str,
    ) -> Result<Option<(serde_json::Value, Vec<String>)>, InputError> {
        Ok(trace
            .jobs
            .iter()
            .find(|j| j.id == id)
            .map(|j| (self.job_detail(trace, j, false), Vec::new())))
    }
}

/// All an ITP trace records about one job, under its released column names.
pub(crate) fn job_detail(trace: &Trace, job: &Job) -> serde_json::Value {
    job_detail_with(trace, job, &[])
}

/// The same with the columns the model does not hold, in the ElasticFlow
/// schema's order: `num_iteration` after the submission, `batch_size`
/// after the deadline.
fn job_detail_with(trace: &Trace, job: &Job, extra: &[(&str, i64)]) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    let put_extra = |m: &mut serde_json::Map<String, serde_json::Value>, name: &str| {
        if let Some((_, v)) = extra.iter().find(|(c, _)| *c == name) {
            m.insert(name.into(), (*v).into());
        }
    };
    m.insert("job_id".into(), job.id.clone().into());
    m.insert("submission_time".into(), job.submit.into());
    m.insert(
        "submission_time_local".into(),
        super::clock::clock(trace.zone, 0, job.submit).into(),
    );
    put_extra(&mut m, "num_iteration");
    if let Some(model) = job.model {
        m.insert("model_name".into(), trace.symbols.get(model).into());
    }
    if let Some(d) = job.deadline.get() {
        m.insert("deadline".into(), d.into());
        m.insert(
            "deadline_local".into(),
            super::clock::clock(trace.zone, 0, d).into(),
        );
    }
    put_extra(&mut m, "batch_size");
    m.insert("num_gpu".into(), (job.demand.total_milli() / 1000).into());
    m.insert("duration".into(), job.runtime.get().into());
    serde_json::json!({ "job": m, "wait_s": null, "runtime_s": job.runtime.get() })
}
