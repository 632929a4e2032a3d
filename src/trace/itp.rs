//! Microsoft ITP job traces as released with ElasticFlow: one CSV per cluster,
//! raw schema or ElasticFlow schema, detected from the header.

use super::fields::Row;
use super::input::{InputError, LoadReport, Location, RowPolicy};
use super::model::{Demand, Job, JobStatus, Symbols, Trace, Zone};
use super::LoadOptions;
use rustc_hash::FxHashMap;

/// `itp` on the command line.
pub const FORMAT: super::Format = super::Format::new(&super::FormatSpec {
    name: "itp",
    aliases: &["elasticflow"],
    help: "Microsoft ITP, raw or ElasticFlow schema (alias: elasticflow)",
    path_help: "One ITP cluster's CSV (raw or ElasticFlow schema), e.g. cluster04.csv",
    replay_about: "Replay a Microsoft ITP / ElasticFlow trace (one CSV) full screen",
    load,
    energy_beside: None,
});

pub const RAW_HEADER: [&str; 4] = ["job_id", "submission_time", "duration", "num_gpu"];
pub const ELASTICFLOW_HEADER: [&str; 8] = [
    "job_id",
    "submission_time",
    "num_iteration",
    "model_name",
    "deadline",
    "batch_size",
    "num_gpu",
    "duration",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schema {
    Raw,
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
    /// ElasticFlow's generated whole-number columns, checked but not used.
    checked: Vec<(usize, &'static str)>,
}

fn detect(header: &[String], file: &str) -> Result<Columns, InputError> {
    let pos = |name: &str| header.iter().position(|h| h == name);
    let has_all =
        |names: &[&str]| header.len() == names.len() && names.iter().all(|n| pos(n).is_some());
    let schema = if has_all(&ELASTICFLOW_HEADER) {
        Schema::ElasticFlow
    } else if has_all(&RAW_HEADER) {
        Schema::Raw
    } else {
        return Err(InputError::on_line(
            file,
            1,
            format!(
                "unknown header '{}': expected ITP raw ({}) or ElasticFlow ({})",
                super::input::sanitize(&header.join(",")),
                RAW_HEADER.join(","),
                ELASTICFLOW_HEADER.join(",")
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
        checked: ["num_iteration", "batch_size"]
            .into_iter()
            .filter_map(|n| pos(n).map(|i| (i, n)))
            .collect(),
    })
}

/// Reads one ITP CSV file.
pub fn load(path: &std::path::Path, opts: &LoadOptions) -> Result<(Trace, LoadReport), InputError> {
    let file = path.display().to_string();
    let f = std::fs::File::open(path)
        .map_err(|e| InputError::file(&file, format!("cannot open: {e}")))?;
    load_from(std::io::BufReader::with_capacity(1 << 20, f), &file, opts)
}

pub fn load_from<R: std::io::Read>(
    reader: R,
    file: &str,
    opts: &LoadOptions,
) -> Result<(Trace, LoadReport), InputError> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(reader);
    let mut record = csv::ByteRecord::new();
    let read = |rdr: &mut csv::Reader<R>, rec: &mut csv::ByteRecord| {
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
    let mut seen: FxHashMap<String, u64> = FxHashMap::default();
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
        match parse_row(&row, &cols, &mut symbols, &seen, jobs.len() as u32) {
            Ok(job) => {
                seen.insert(job.id.clone(), line);
                jobs.push(job);
            }
            Err(e) => policy.bad_row(e)?,
        }
    }
    if jobs.is_empty() {
        return Err(InputError::file(
            file,
            if policy.skips.count > 0 {
                format!("no usable jobs: all {} rows were bad", policy.skips.count)
            } else {
                "no jobs: the file has a header and nothing else".to_string()
            },
        ));
    }
    let mut report = LoadReport::default();
    report.note(format!(
        "{file}: ITP {} schema, {} jobs",
        match cols.schema {
            Schema::Raw => "raw",
            Schema::ElasticFlow => "ElasticFlow",
        },
        jobs.len()
    ));
    report.skips.push(policy.skips);
    let cluster = super::sizing::size_cluster(&jobs, opts)?;
    report.note(cluster.origin.clone());
    let trace = Trace {
        format: "itp",
        source: file.to_string(),
        cluster,
        jobs,
        segments: Vec::new(),
        symbols,
        zone: Zone::Relative,
        excluded: Vec::new(),
        native: Default::default(),
    };
    Ok((trace, report))
}

fn parse_row(
    row: &Row,
    cols: &Columns,
    symbols: &mut Symbols,
    seen: &FxHashMap<String, u64>,
    index: u32,
) -> Result<Job, InputError> {
    if row.record.len() != cols.width {
        return Err(InputError::at(
            Location {
                file: row.file.into(),
                line: row.line,
                column: None,
                byte: false,
            },
            format!("{} columns, expected {}", row.record.len(), cols.width),
        ));
    }
    let id = row.required(cols.job_id, "job_id")?;
    if let Some(first) = seen.get(id) {
        return Err(row.error(
            "job_id",
            format!(
                "duplicate job id '{}' (first on line {first})",
                super::input::sanitize(id)
            ),
        ));
    }
    let submit = row.int(cols.submit, "submission_time", 0)?;
    let duration = row.int(cols.duration, "duration", 0)?;
    let gpus = row.int(cols.num_gpu, "num_gpu", 0)?;
    if gpus == 0 {
        return Err(row.error("num_gpu", "zero GPUs: an ITP job needs at least one"));
    }
    let gpus = u32::try_from(gpus).map_err(|_| row.error("num_gpu", "too large"))?;
    let model = match cols.model {
        Some(i) => Some(symbols.intern(&super::input::sanitize(row.required(i, "model_name")?))),
        None => None,
    };
    let deadline = match cols.deadline {
        Some(i) => Some(row.int(i, "deadline", 0)?),
        None => None,
    };
    for &(i, name) in &cols.checked {
        row.int(i, name, 0)?;
    }
    Ok(Job {
        id: super::input::sanitize(id),
        user: None,
        group: None,
        submit,
        runtime: Some(duration),
        demand: Demand::Gang { gpus },
        gpu_type: None,
        status: JobStatus::Unknown,
        deadline,
        model,
        segments: 0..0,
        native_row: index,
    })
}

/// All an ITP trace records about one job, under its released column names.
pub fn job_detail(trace: &Trace, job: &Job) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    m.insert("job_id".into(), job.id.clone().into());
    m.insert("submission_time".into(), job.submit.into());
    m.insert(
        "submission_time_local".into(),
        super::clock::clock(trace.zone, 0, job.submit).into(),
    );
    if let Some(model) = job.model {
        m.insert("model_name".into(), trace.symbols.get(model).into());
    }
    if let Some(d) = job.deadline {
        m.insert("deadline".into(), d.into());
        m.insert(
            "deadline_local".into(),
            super::clock::clock(trace.zone, 0, d).into(),
        );
    }
    m.insert("num_gpu".into(), (job.demand.total_milli() / 1000).into());
    m.insert("duration".into(), job.runtime.into());
    serde_json::json!({ "job": m, "wait_s": null, "runtime_s": job.runtime })
}
