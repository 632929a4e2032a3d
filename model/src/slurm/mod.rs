//! A Slurm cluster's own history: `sacct --parsable2` output as a trace.
//!
//! - fields by the header's names, in any order, with the delimiter it
//!   uses (`--parsable2`'s `|`, or `--delimiter`'s);
//! - GPUs from `AllocTRES` once a job ran, else `ReqTRES`: the untyped
//!   `gres/gpu=N`, never added to its typed twin (`fold.rs`, `values.rs`);
//! - a job's steps folded into it, a heterogeneous job's components into
//!   one job, a requeued job's earlier runs (`sacct -D`) into its last;
//!   array tasks are jobs of their own;
//! - user = `User`, group = `Account`; `Partition` and `QOS` kept for the
//!   drill-down; times read in `--tz` (the site's zone);
//! - left out, counted: jobs still pending, jobs that never started
//!   (cancelled while pending, refused at submission) and CPU jobs (unless
//!   `--include-cpu-jobs`);
//! - the machines from `--nodes FILE` (`scontrol show node -o` or `sinfo`
//!   output), else inferred from the jobs' node lists (GPUs: the most in
//!   use at once on each), and said so; `recorded` puts each run on the
//!   nodes Slurm gave it (sacct does not record GPU indices).

mod fold;
mod hostlist;
pub(crate) mod live;
mod native;
mod nodes;
mod sacct;
mod values;

use crate::input::{InputError, LoadReport, Location, RowPolicy};
use crate::model::{Cluster, Demand, Excluded, Job, MaybeSecs, Segment, Symbols, Trace, Zone};
use crate::LoadOptions;
pub(crate) use native::SlurmTables;
use rustc_hash::FxHashMap;
use sacct::{Header, Record};
use std::io::BufRead;
use std::path::Path;

/// `slurm` on the command line.
pub(crate) const FORMAT: super::Format = super::Format::new(&super::FormatSpec {
    name: "slurm",
    aliases: &["sacct"],
    help: "Slurm: sacct --parsable2 output with its header (machines from --nodes FILE, else the jobs' node lists)",
    path_help: "sacct --parsable2 output, with its header line (docs/slurm.md says which fields)",
    replay_about: "Replay your Slurm cluster's history (sacct output) full screen",
    load,
    load_text: Some(load_text),
    energy_beside: None,
    reads: super::format::the_file,
    slot: "GPU",
});

/// Why a job is left out, in the order the report lists them.
const LEFT_OUT: [(&str, bool); 4] = [
    ("still pending when sacct ran", true),
    ("never started (cancelled while pending, or refused)", true),
    ("CPU jobs (no gres/gpu)", false),
    ("steps without their job's line", false),
];

/// What the file held: its header, its records and their lines as written.
struct Read {
    header: Header,
    records: Vec<Record>,
    rows: Vec<Box<str>>,
    skips: crate::input::Skips,
}

/// Reads sacct output from `r` (named `file`), times in `zone`.
fn read(r: impl BufRead, file: &str, opts: &LoadOptions) -> Result<Read, InputError> {
    let zone = opts.tz.unwrap_or(chrono_tz::UTC);
    let mut lines = crate::lines::Lines::new(r, file.to_string());
    let mut buf = Vec::new();
    if lines.next_raw(&mut buf)?.is_none() {
        return Err(InputError::file(
            file,
            "empty: expected sacct --parsable2 output with its header",
        ));
    }
    let header = Header::read(&String::from_utf8_lossy(&buf), file)?;
    let mut policy = RowPolicy::new(file, opts.strict);
    let (mut records, mut rows) = (Vec::new(), Vec::new());
    while lines.next_raw(&mut buf)?.is_some() {
        let line = lines.line();
        let text = String::from_utf8_lossy(&buf);
        let got = header
            .split(&text)
            .map_err(|m| InputError::on_line(file, line, m.0))
            .and_then(|f| {
                sacct::record(&header, &f, line, zone).map_err(|(column, m)| {
                    let loc = Location {
                        file: file.to_string(),
                        line,
                        column: Some(column),
                        byte: false,
                    };
                    InputError::at(loc, m.0)
                })
            });
        match got {
            Ok(rec) => {
                records.push(rec);
                rows.push(crate::text::sanitize(text.trim_end()).into());
            }
            Err(e) => policy.bad_row(e)?,
        }
    }
    Ok(Read {
        header,
        records,
        rows,
        skips: policy.skips,
    })
}

/// One run of a job: the GPUs it held on each node, from when to when.
struct Run {
    on: Vec<(String, u32)>,
    start: i64,
    end: Option<i64>,
    /// The GPU type Slurm gave (AllocTRES), where one.
    ty: Option<String>,
}

/// `gpus` spread over `nodes` as Slurm spreads a job's GPUs (evenly, the
/// first nodes one more where they do not divide).
fn spread(nodes: &[String], gpus: u32) -> Vec<(String, u32)> {
    let n = nodes.len() as u32;
    nodes
        .iter()
        .enumerate()
        .map(|(i, name)| (name.clone(), gpus / n + u32::from((i as u32) < gpus % n)))
        .collect()
}

/// A job's runs: each started record (earlier runs and components).
fn runs(records: &[Record], f: &fold::Folded) -> Vec<Run> {
    f.earlier
        .iter()
        .chain(f.parts.iter().map(|(_, r)| r))
        .map(|&r| &records[r])
        .filter(|r| r.allocated)
        .filter_map(|r| {
            Some(Run {
                on: if r.nodes.is_empty() {
                    Vec::new()
                } else {
                    spread(&r.nodes, r.gpus)
                },
                start: r.start?,
                end: r.end,
                ty: r.gpu_type.clone(),
            })
        })
        .collect()
}

/// The jobs built, and what was left out.
#[derive(Default)]
struct Built {
    symbols: Symbols,
    jobs: Vec<Job>,
    runs: Vec<Vec<Run>>,
    asked_types: Vec<Option<String>>,
    left_out: [u64; 4],
    requeued: u64,
}

/// Folds the records into jobs (segments are placed once the cluster is known).
fn jobs(read: &Read, folded: &[fold::Folded], opts: &LoadOptions) -> Built {
    let mut b = Built::default();
    for (k, f) in folded.iter().enumerate() {
        let Some(main) = f.main() else {
            b.left_out[3] += f.steps.len() as u64;
            continue;
        };
        let m = &read.records[main];
        let gpus: u32 = f.parts.iter().map(|&(_, r)| read.records[r].gpus).sum();
        let started = m.start.filter(|_| m.allocated);
        let why = match (started, m.status) {
            (None, crate::model::JobStatus::Unfinished) => Some(0),
            (None, _) => Some(1),
            _ if gpus == 0 && !opts.include_cpu_jobs => Some(2),
            _ => None,
        };
        if let Some(w) = why {
            b.left_out[w] += 1;
            continue;
        }
        let all = || {
            f.earlier
                .iter()
                .chain(f.parts.iter().map(|(_, r)| r))
                .map(|&r| &read.records[r])
        };
        let submit = all()
            .filter_map(|r| r.submit.or(r.start))
            .min()
            .unwrap_or(0);
        b.requeued += f.earlier.len() as u64;
        let mut sym = |s: &str| (!s.is_empty()).then(|| b.symbols.intern(s));
        let (user, group) = (sym(&m.user), sym(&m.account));
        b.runs.push(runs(&read.records, f));
        b.asked_types.push(m.asked_type.clone());
        b.jobs.push(Job {
            id: f.key.clone().into(),
            user,
            group,
            submit,
            runtime: m.start.zip(m.end).map(|(s, e)| e - s).into(),
            demand: Demand::Gang { gpus },
            gpu_type: None,
            status: m.status,
            requested: m.timelimit.into(),
            deadline: MaybeSecs::NONE,
            model: None,
            segments: 0..0,
            native_row: k as u32,
            cpu_milli: 0,
            mem_mib: 0,
            any_of_types: 0,
        });
    }
    b
}

/// Each run's holds as segments on the cluster's machines; the job's
/// requested GPU type as its constraint.
fn place(b: &mut Built, cluster: &mut Cluster) -> Vec<Segment> {
    let index: FxHashMap<String, u32> = cluster
        .machines
        .iter()
        .enumerate()
        .map(|(i, m)| (m.name.clone(), i as u32))
        .collect();
    let mut segments = Vec::new();
    for ((job, runs), asked) in b.jobs.iter_mut().zip(&b.runs).zip(&b.asked_types) {
        let first = segments.len() as u32;
        for run in runs {
            let on = if run.on.is_empty() {
                vec![(String::new(), job.demand.total_milli() as u32 / 1000)]
            } else {
                run.on.clone()
            };
            for (node, g) in on {
                segments.push(Segment {
                    start: run.start,
                    end: run.end.into(),
                    machine: index.get(&node).copied().into(),
                    milli: g.saturating_mul(1000),
                    gpus: 0,
                });
            }
        }
        job.segments = first..segments.len() as u32;
        job.gpu_type = asked.as_deref().map(|t| cluster.type_id(t));
    }
    segments
}

/// Loads sacct output from a file.
pub fn load(path: &Path, opts: &LoadOptions) -> Result<(Trace, LoadReport), InputError> {
    let file = path.display().to_string();
    let f = super::reader::open_file(path)?;
    let r = std::io::BufReader::with_capacity(1 << 20, f);
    finish(read(r, &file, opts)?, &file, opts)
}

/// Loads sacct output held in memory, named `name` in messages.
fn load_text(
    text: &[u8],
    name: &str,
    opts: &LoadOptions,
) -> Result<(Trace, LoadReport), InputError> {
    finish(read(text, name, opts)?, name, opts)
}

/// The trace from the records read.
fn finish(read: Read, file: &str, opts: &LoadOptions) -> Result<(Trace, LoadReport), InputError> {
    let folded = fold::fold(&read.records);
    let mut b = jobs(&read, &folded, opts);
    let mut report = LoadReport::default();
    report.skips.push(read.skips.clone());
    if b.jobs.is_empty() {
        return Err(InputError::file(
            file,
            "no jobs to replay: none started, or every one asked for no GPU",
        ));
    }
    let mut cluster = nodes_cluster(&b, opts, file)?;
    let segments = place(&mut b, &mut cluster);
    let excluded = Excluded::counted(&LEFT_OUT, &b.left_out);
    report.note(format!(
        "{file}: Slurm accounting (sacct), {} jobs replayed{}{}; times in {}",
        b.jobs.len(),
        Excluded::words(&excluded),
        if b.requeued > 0 {
            format!(
                "; {} earlier runs of requeued jobs kept as recorded holds",
                b.requeued
            )
        } else {
            String::new()
        },
        opts.tz.unwrap_or(chrono_tz::UTC)
    ));
    report.note(cluster.origin.clone());
    let tables = SlurmTables::new(read, folded);
    Ok((
        Trace {
            format: "slurm",
            source: file.to_string(),
            cluster,
            jobs: b.jobs,
            segments,
            symbols: b.symbols,
            zone: Zone::Tz(opts.tz.unwrap_or(chrono_tz::UTC)),
            excluded,
            native: Some(std::sync::Arc::new(tables)),
            speeds: None,
        },
        report,
    ))
}

mod cluster;
use cluster::nodes_cluster;

#[cfg(test)]
mod tests;
