//! AcmeTrace (InternLM, NSDI '24): `trace_seren.csv` or `trace_kalos.csv`,
//! told apart by their headers; ISO-8601 times with an offset.

use super::fields::Row;
use super::input::{sanitize, InputError, LoadReport, RowPolicy};
use super::model::{Cluster, Demand, Job, JobStatus, Secs, Segment, Symbols, Trace, Zone};
use super::LoadOptions;
use rustc_hash::FxHashMap;
use std::io::{BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// `acme` on the command line.
pub const FORMAT: super::Format = super::Format::new(&super::FormatSpec {
    name: "acme",
    aliases: &[],
    help: "AcmeTrace: trace_seren.csv or trace_kalos.csv",
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

/// `2023-03-01 00:18:22+08:00` as (Unix seconds, offset seconds).
pub fn parse_time(s: &str) -> Option<(Secs, i32)> {
    let s = s.trim();
    fast_time(s.as_bytes()).or_else(|| {
        let d = chrono::DateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%:z").ok()?;
        Some((d.timestamp(), d.offset().local_minus_utc()))
    })
}

/// The released layout exactly (25 bytes), without chrono's format parser;
/// anything else (or an impossible date) is left to chrono.
fn fast_time(b: &[u8]) -> Option<(Secs, i32)> {
    if b.len() != 25
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b' '
        || b[13] != b':'
        || b[16] != b':'
        || b[22] != b':'
        || !matches!(b[19], b'+' | b'-')
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        b[r].iter().try_fold(0i64, |a, &c| {
            c.is_ascii_digit().then(|| a * 10 + (c - b'0') as i64)
        })
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let (oh, om) = (num(20..22)?, num(23..25)?);
    let month_days = [
        31,
        28 + (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)) as i64,
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&mo)
        || d < 1
        || d > month_days[mo as usize - 1]
        || h > 23
        || mi > 59
        || sec > 59
        || oh > 23
        || om > 59
    {
        return None;
    }
    // Days from 1970-01-01 to the civil date (proleptic Gregorian).
    let (yy, m) = if mo <= 2 {
        (y - 1, mo + 9)
    } else {
        (y, mo - 3)
    };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let doy = (153 * m + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let sign = if b[19] == b'-' { -1 } else { 1 };
    let offset = sign * (oh * 3600 + om * 60);
    Some((
        days * 86_400 + h * 3600 + mi * 60 + sec - offset,
        offset as i32,
    ))
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
    parse_time(t).map(Some).ok_or_else(|| {
        row.error(
            name,
            format!(
                "'{}' is not a time like 2023-03-01 00:18:22+08:00",
                sanitize(t)
            ),
        )
    })
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

pub fn load(path: &Path, opts: &LoadOptions) -> Result<(Trace, LoadReport), InputError> {
    let file = path.display().to_string();
    let mut rdr = super::fields::open_csv(path)?;
    let mut rec = csv::ByteRecord::new();
    let read = |rdr: &mut csv::Reader<BufReader<std::fs::File>>, rec: &mut csv::ByteRecord| {
        rdr.read_byte_record(rec)
            .map_err(|e| InputError::csv(&file, &e))
    };
    if !read(&mut rdr, &mut rec)? {
        return Err(InputError::file(
            &file,
            "empty file: expected an AcmeTrace header row",
        ));
    }
    let header = super::fields::header_names(&rec);
    let (name, names): (&'static str, &[&'static str]) = if header == SEREN {
        ("seren", &SEREN)
    } else if header == KALOS {
        ("kalos", &KALOS)
    } else {
        return Err(InputError::on_line(
            &file,
            1,
            format!(
                "unknown header '{}': expected AcmeTrace Seren ({}) or Kalos ({})",
                sanitize(&header.join(",")),
                SEREN.join(","),
                KALOS.join(",")
            ),
        ));
    };
    let cols = Cols::new(names);
    let mut policy = RowPolicy::new(&file, opts.strict);
    let mut symbols = Symbols::default();
    let mut jobs = Vec::new();
    let mut segments = Vec::new();
    let mut tables = AcmeTables {
        path: path.to_path_buf(),
        cluster_name: name,
        header: header.clone(),
        ..Default::default()
    };
    // Each kept row's line, for the duplicate-id message.
    let mut row_lines: Vec<u64> = Vec::new();
    // About 130 bytes a row: size the id map once.
    let guess = std::fs::metadata(path).map_or(0, |m| m.len() / 130) as usize;
    tables.by_id.reserve(guess.min(1 << 24));
    let (mut cpu_jobs, mut mismatched, mut queue_mismatch, mut never_started) =
        (0u64, 0u64, 0u64, 0u64);
    let mut zone: Option<i32> = None;
    loop {
        if !read(&mut rdr, &mut rec)? {
            break;
        }
        let pos = rec.position().cloned().unwrap_or_else(csv::Position::new);
        let line = pos.line();
        let row = Row {
            file: &file,
            line,
            record: &rec,
        };
        let parsed = (|| {
            row.expect_width(cols.width)?;
            let id = row.required(cols.get("job_id"), "job_id")?;
            if let Some(&r) = tables.by_id.get(id) {
                let l = row_lines[r as usize];
                return Err(row.error(
                    "job_id",
                    format!("duplicate job '{}' (first on line {l})", sanitize(id)),
                ));
            }
            let gpus = row.int(cols.get("gpu_num"), "gpu_num", 0)?;
            let submit = time(&row, &cols, "submit_time")?
                .ok_or_else(|| row.error("submit_time", "empty"))?;
            let start = time(&row, &cols, "start_time")?;
            let end = time(&row, &cols, "end_time")?;
            if let (Some(s), Some(e)) = (start, end) {
                if e.0 < s.0 {
                    return Err(row.error("end_time", "before start_time"));
                }
            }
            let duration = row.opt_int(cols.get("duration"), "duration", 0)?;
            let queue = row.opt_int(cols.get("queue"), "queue", i64::MIN)?;
            Ok((sanitize(id), gpus, submit, start, end, duration, queue))
        })();
        let (id, gpus, submit, start, end, duration, queue) = match parsed {
            Ok(v) => v,
            Err(e) => {
                policy.bad_row(e)?;
                continue;
            }
        };
        zone.get_or_insert(submit.1);
        // Durations that disagree with end − start are kept and reported.
        if let (Some(s), Some(e), Some(d)) = (start, end, duration) {
            if e.0 - s.0 != d {
                mismatched += 1;
            }
        }
        if let (Some(s), Some(q)) = (start, queue) {
            if s.0 - submit.0 != q {
                queue_mismatch += 1;
            }
        }
        let row_index = tables.offsets.len() as u32;
        tables.offsets.push(pos.byte());
        tables.by_id.insert(id.clone(), row_index);
        row_lines.push(line);
        let text = |n: &str| {
            row.text(cols.get(n), n)
                .map(crate::trace::input::sanitized)
                .unwrap_or_default()
        };
        let state = text("state");
        let state_key: &str = if state.is_empty() { "(empty)" } else { &state };
        match tables.states.get_mut(state_key) {
            Some(n) => *n += 1,
            None => {
                tables.states.insert(state_key.to_string(), 1);
            }
        }
        if gpus == 0 && !opts.include_cpu_jobs {
            cpu_jobs += 1;
            continue;
        }
        if start.is_none() {
            // Cancelled while queued: it never ran, and the file does not say when it left.
            never_started += 1;
            continue;
        }
        let seg_start = segments.len() as u32;
        if let Some(s) = start {
            segments.push(Segment {
                start: s.0,
                end: end.map(|e| e.0),
                machine: None,
                milli: gpus as u32 * 1000,
                gpus: 0,
            });
        }
        let user = text("user");
        let ty = text("type");
        jobs.push(Job {
            id,
            user: (!user.is_empty()).then(|| symbols.intern(&user)),
            group: None,
            submit: submit.0,
            runtime: match (start, end) {
                (Some(s), Some(e)) => Some(e.0 - s.0),
                _ => None,
            },
            demand: Demand::Gang { gpus: gpus as u32 },
            gpu_type: None,
            status: if end.is_none() && start.is_some() {
                JobStatus::Unfinished
            } else {
                status(&state)
            },
            deadline: None,
            model: (!ty.is_empty()).then(|| symbols.intern(&ty)),
            segments: seg_start..segments.len() as u32,
            native_row: row_index,
        });
    }
    let mut report = LoadReport::default();
    report.note(format!(
        "{file}: AcmeTrace {name}, {} jobs ({} with GPUs)",
        tables.offsets.len(),
        jobs.len()
    ));
    report.skips.push(policy.skips);
    if jobs.is_empty() {
        return Err(InputError::file(
            &file,
            format!("no GPU jobs ({cpu_jobs} CPU jobs; --include-cpu-jobs replays them)"),
        ));
    }
    if cpu_jobs > 0 {
        report.note(format!("{cpu_jobs} CPU jobs (gpu_num 0) left out of the GPU replay; --include-cpu-jobs keeps them"));
    }
    if never_started > 0 {
        report.note(format!("{never_started} GPU jobs never started (no start_time; cancelled while queued): left out of the replay, kept for drill-down"));
    }
    if mismatched > 0 {
        report.note(format!("{mismatched} jobs have a duration that disagrees with end_time − start_time (run time uses the times)"));
    }
    if queue_mismatch > 0 {
        report.note(format!(
            "{queue_mismatch} jobs have a queue that disagrees with start_time − submit_time"
        ));
    }
    let cluster = match opts.gpus {
        Some(_) => super::sizing::size_cluster(&jobs, opts)?,
        None => {
            let peak = peak_demand(&jobs, &segments);
            let g = opts.gpus_per_node.max(1) as u64;
            let n = (peak.div_ceil(g) * g).max(g) as u32;
            Cluster::uniform(
                n,
                g as u32,
                format!(
                    "cluster: {n} GPUs = {} nodes × {g} (the peak concurrent GPU demand of the recorded start and end times, {peak} GPUs, in whole nodes; set --gpus to choose)",
                    n / g as u32
                ),
            )
            .sized_by("peak recorded demand")
        }
    };
    report.note(cluster.origin.clone());
    let excluded = if cpu_jobs > 0 {
        vec![("CPU jobs (gpu_num 0)".to_string(), cpu_jobs)]
    } else {
        Vec::new()
    };
    Ok((
        Trace {
            format: "acme",
            source: file.clone(),
            cluster,
            jobs,
            segments,
            symbols,
            zone: Zone::Fixed(zone.unwrap_or(0)),
            excluded,
            native: Some(std::sync::Arc::new(tables)),
        },
        report,
    ))
}

/// `tracetui job acme FILE JOBID`: the released row, as written.
pub fn job_detail(t: &AcmeTables, row: u32) -> Option<serde_json::Value> {
    let mut f = std::fs::File::open(&t.path).ok()?;
    f.seek(SeekFrom::Start(*t.offsets.get(row as usize)?))
        .ok()?;
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(BufReader::new(f));
    let mut rec = csv::StringRecord::new();
    rdr.read_record(&mut rec).ok()?;
    let mut job = serde_json::Map::new();
    for (h, v) in t.header.iter().zip(rec.iter()) {
        let v = sanitize(v.trim());
        let value = if v.is_empty() {
            serde_json::Value::Null
        } else if let Ok(i) = v.parse::<i64>() {
            i.into()
        } else {
            v.clone().into()
        };
        job.insert(h.clone(), value);
    }
    let get = |k: &str| {
        job.get(k)
            .and_then(|v| v.as_str())
            .and_then(parse_time)
            .map(|x| x.0)
    };
    let (submit, start, end) = (get("submit_time"), get("start_time"), get("end_time"));
    Some(serde_json::json!({
        "job": job,
        "wait_s": start.zip(submit).map(|(s, q)| s - q),
        "runtime_s": end.zip(start).map(|(e, s)| e - s),
    }))
}

impl super::native::NativeTables for AcmeTables {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn job_detail(&self, _trace: &Trace, job: &Job, _side: bool) -> serde_json::Value {
        job_detail(self, job.native_row).unwrap_or(serde_json::Value::Null)
    }

    fn job_by_id(
        &self,
        _trace: &Trace,
        id: &str,
    ) -> Result<Option<(serde_json::Value, Vec<String>)>, InputError> {
        match self.by_id.get(id) {
            Some(&r) => job_detail(self, r)
                .map(|v| Some((v, Vec::new())))
                .ok_or_else(|| {
                    InputError::file(
                        &self.path.display().to_string(),
                        "cannot read the job's row again",
                    )
                }),
            None => Ok(None),
        }
    }

    fn status_counts(&self, _trace: &Trace) -> Option<std::collections::BTreeMap<String, u64>> {
        Some(self.states.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chrono_time(s: &str) -> Option<(Secs, i32)> {
        let d = chrono::DateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%:z").ok()?;
        Some((d.timestamp(), d.offset().local_minus_utc()))
    }

    proptest::proptest! {
        #[test]
        fn the_fast_parser_agrees_with_chrono(
            y in 1900i32..2200, mo in 0u32..14, d in 0u32..33, h in 0u32..25,
            mi in 0u32..61, s in 0u32..61, neg: bool, oh in 0u32..30, om in 0u32..60,
        ) {
            let text = format!(
                "{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}{}{oh:02}:{om:02}",
                if neg { '-' } else { '+' }
            );
            let fast = fast_time(text.as_bytes());
            let slow = chrono_time(&text);
            // Where the fast path answers, chrono agrees; where it declines, parse_time still does.
            if fast.is_some() {
                proptest::prop_assert_eq!(fast, slow);
            }
            proptest::prop_assert_eq!(parse_time(&text), slow);
        }
    }

    #[test]
    fn leap_days_and_offsets() {
        for t in [
            "2024-02-29 23:59:59+08:00",
            "2000-02-29 00:00:00-05:30",
            "1970-01-01 00:00:00+00:00",
            "2023-12-31 23:59:59+14:00",
        ] {
            assert_eq!(fast_time(t.as_bytes()), chrono_time(t), "{t}");
            assert!(fast_time(t.as_bytes()).is_some());
        }
        assert_eq!(fast_time(b"2023-02-29 00:00:00+08:00"), None);
        assert_eq!(parse_time("2023-02-29 00:00:00+08:00"), None);
    }
}
