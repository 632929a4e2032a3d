//! A lesson file: TOML a lecturer can write. The cluster (`gpus`,
//! `gpus_per_machine`), the `placement`, the policy `schedule` (as
//! `--policy-schedule` takes it), timed `[[captions]]` (and
//! `[[placements.NAME]]` for a run under another placement), and the jobs:
//! `[[jobs]]` groups of one shape (`count` of them from `at`, `every`
//! seconds apart, the group again `repeat` times `period` apart), or
//! `[elastic]` jobs from a throughput table, or `trace = "itp:FILE"` (from
//! the lesson file's folder), or `[gen]` (`gen itp`'s jobs for a seed at an
//! offered `load`), or `[inflate]` (FGD's arrival-only run of an openb
//! trace, in time: `inflated.rs`). Times are seconds or durations (`40m`, `2h`). Unknown
//! keys are refused, by name and line.

use super::{Captions, Elastic, Jobs, Lesson};
use crate::sim::Placement;
use crate::trace::{parse_duration, Format, Secs};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// What is wrong with a lesson file, naming it.
#[derive(Debug, thiserror::Error)]
pub enum LessonError {
    #[error("{}: {source}", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {why}", .path.display())]
    Bad { path: PathBuf, why: String },
}

/// What is wrong inside a lesson file (the file is named around it).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(super) struct Bad(String);

impl From<String> for Bad {
    fn from(s: String) -> Bad {
        Bad(s)
    }
}

impl From<&str> for Bad {
    fn from(s: &str) -> Bad {
        Bad(s.to_string())
    }
}

/// A time: seconds, or a duration (`40m`), within a century either way
/// (`MAX_SECS`). Read and checked as the file is, so a bad one is named
/// by its line and column (`at = "1 m"` named none).
#[derive(Debug, Clone, Copy)]
struct Time(Secs);

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Time, D::Error> {
        use serde::de::Error;
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Secs(i64),
            Text(String),
        }
        let s = match Raw::deserialize(d)? {
            Raw::Secs(s) => s,
            Raw::Text(t) => parse_duration(t.trim()).ok_or_else(|| {
                D::Error::custom(format!(
                    "'{}' is not seconds or a duration such as 40m",
                    crate::text::sanitize(&t)
                ))
            })?,
        };
        if !(-MAX_SECS..=MAX_SECS).contains(&s) {
            return Err(D::Error::custom(format!(
                "{s} s is past the largest time a lesson takes ({MAX_SECS} s)"
            )));
        }
        Ok(Time(s))
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LessonFile {
    name: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    about: String,
    gpus: Spanned<u32>,
    gpus_per_machine: Spanned<u32>,
    #[serde(default = "consolidate")]
    placement: Spanned<String>,
    /// Required; said so by name when missing (toml pointed at line 1).
    #[serde(default)]
    schedule: Option<String>,
    #[serde(default)]
    captions: Vec<Caption>,
    #[serde(default)]
    placements: BTreeMap<Spanned<String>, Vec<Caption>>,
    #[serde(default)]
    jobs: Vec<Spanned<Group>>,
    elastic: Option<ElasticFile>,
    trace: Option<Spanned<String>>,
    gen: Option<Spanned<GenFile>>,
    inflate: Option<Spanned<InflateFile>>,
}

/// FGD's arrival-only run of a trace of pods, in time: `trace` (openb),
/// the shuffle's `seed`, `tune` × the GPUs to arrive, one pod `every`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct InflateFile {
    trace: String,
    #[serde(default)]
    seed: u64,
    #[serde(default = "one_f")]
    tune: f64,
    every: Option<Time>,
}

fn one_f() -> f64 {
    1.0
}

fn consolidate() -> Spanned<String> {
    Spanned::new(0..0, "consolidate".into())
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Caption {
    at: Spanned<Time>,
    text: String,
}

/// Jobs of one shape.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Group {
    at: Time,
    #[serde(default = "one")]
    count: u32,
    every: Option<Time>,
    runtime: Time,
    gpus: u32,
    #[serde(default = "one")]
    repeat: u32,
    period: Option<Time>,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ElasticFile {
    model: String,
    table: String,
    jobs: Vec<ElasticJob>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ElasticJob {
    id: String,
    submit: Time,
    iterations: u64,
    deadline: Time,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GenFile {
    jobs: Spanned<u64>,
    seed: u64,
    load: Spanned<f64>,
}

/// The most GPUs a lesson's cluster may have, and jobs a `[gen]` may make.
const MAX_GPUS: u32 = 100_000;
const MAX_GEN_JOBS: u64 = 2_000_000;
/// The offered loads a `[gen]` takes.
const MIN_LOAD: f64 = 0.01;
const MAX_LOAD: f64 = 10.0;
/// The most jobs a lesson's `[[jobs]]` groups make together.
const MAX_GROUP_JOBS: u64 = 100_000;
/// The largest time a lesson's job may arrive at, seconds from its start
/// (a century).
const MAX_SECS: i64 = 100 * 366 * 86_400;

/// The lesson in file `path`.
pub(super) fn read(path: &Path) -> Result<Lesson, LessonError> {
    // A regular file of bounded size: not a FIFO, not /dev/zero.
    let text = crate::config::read_bounded(path).map_err(|source| LessonError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    parse(&text, dir).map_err(|why| LessonError::Bad {
        path: path.to_path_buf(),
        why: why.0,
    })
}

/// A lesson from its file's text; paths in it from `dir`.
pub(super) fn parse(text: &str, dir: &Path) -> Result<Lesson, Bad> {
    let f: LessonFile = toml::from_str(text).map_err(|e| Bad(crate::config::toml_error(&e)))?;
    let at = |s: std::ops::Range<usize>, e: Bad| at(text, s, e);
    let placement = placement_of(f.placement.get_ref()).map_err(|e| at(f.placement.span(), e))?;
    let mut others = Vec::new();
    for (name, caps) in &f.placements {
        let p = placement_of(name.get_ref()).map_err(|e| at(name.span(), e))?;
        others.push((p, captions(caps, text)?));
    }
    let sources = [
        !f.jobs.is_empty(),
        f.elastic.is_some(),
        f.trace.is_some(),
        f.gen.is_some(),
        f.inflate.is_some(),
    ];
    if sources.iter().filter(|s| **s).count() != 1 {
        return Err(
            "give the jobs one way: [[jobs]], [elastic], trace = \"itp:FILE\", [gen] or [inflate]"
                .into(),
        );
    }
    // Bounds a lesson stays within (memory grows with each).
    if !(1..=MAX_GPUS).contains(f.gpus.get_ref()) {
        return Err(at(f.gpus.span(), format!("gpus: 1 to {MAX_GPUS}").into()));
    }
    if !(1..=64).contains(f.gpus_per_machine.get_ref()) {
        return Err(at(
            f.gpus_per_machine.span(),
            "gpus_per_machine: 1 to 64".into(),
        ));
    }
    if let Some(g) = f
        .gen
        .as_ref()
        .filter(|g| !(1..=MAX_GEN_JOBS).contains(g.get_ref().jobs.get_ref()))
    {
        let span = g.get_ref().jobs.span();
        return Err(at(span, format!("[gen] jobs: 1 to {MAX_GEN_JOBS}").into()));
    }
    let jobs = if let Some(e) = f.elastic {
        let mut jobs = Vec::new();
        for j in e.jobs {
            jobs.push((j.id, j.submit.0, j.iterations, j.deadline.0));
        }
        Jobs::Elastic(Elastic {
            model: e.model,
            table: e.table,
            jobs,
        })
    } else if let Some(t) = f.trace {
        trace_file(&t, text, dir)?
    } else if let Some(g) = f.gen {
        gen(g.into_inner(), text)?
    } else if let Some(i) = f.inflate {
        inflate(i, text, dir)?
    } else {
        Jobs::Rigid(groups(&f.jobs, text)?)
    };
    let captions = captions(&f.captions, text)?;
    Ok(Lesson {
        name: f.name,
        title: f.title,
        about: f.about,
        gpus: f.gpus.into_inner(),
        per_node: f.gpus_per_machine.into_inner(),
        placement,
        schedule: f.schedule.ok_or(
            "no schedule: a lesson names the policy it runs, as schedule = \"fifo\" \
             (or switches, \"start:fifo,2h:sjf\")",
        )?,
        captions,
        other_placements: others,
        jobs,
    })
}

/// A `[gen]`'s jobs: its load in range (near 0 its arrivals would come
/// past any time a trace takes).
fn gen(g: GenFile, text: &str) -> Result<Jobs, Bad> {
    let load = *g.load.get_ref();
    if !(MIN_LOAD..=MAX_LOAD).contains(&load) {
        let why = format!(
            "[gen] load = {load}: a number from {MIN_LOAD} to {MAX_LOAD} (the share of the GPUs the jobs ask for)"
        );
        return Err(at(text, g.load.span(), why.into()));
    }
    Ok(Jobs::Gen {
        jobs: g.jobs.into_inner(),
        seed: g.seed,
        load,
    })
}

/// A `trace = "FORMAT:FILE"`'s jobs, the file from the lesson's folder.
fn trace_file(t: &Spanned<String>, text: &str, dir: &Path) -> Result<Jobs, Bad> {
    let bad = |e: Bad| at(text, t.span(), e);
    let (format, file) = t
        .get_ref()
        .split_once(':')
        .ok_or_else(|| bad("trace: FORMAT:FILE, e.g. itp:jobs.csv".into()))?;
    let format = Format::find(format).ok_or_else(|| {
        bad(format!("trace: no format '{}'", crate::text::sanitize(format)).into())
    })?;
    Ok(Jobs::Trace(format, dir.join(file)))
}

/// An `[inflate]`'s run: a trace of pods, a tune from above 0 to 2, one
/// pod a second at least.
fn inflate(i: Spanned<InflateFile>, text: &str, dir: &Path) -> Result<Jobs, Bad> {
    let here = |e: String| at(text, i.span(), e.into());
    let f = i.get_ref();
    let (format, file) = f.trace.split_once(':').ok_or_else(|| {
        here("[inflate] trace: FORMAT:FILE, e.g. openb:openb_pod_list_default.csv".into())
    })?;
    let format = Format::find(format).ok_or_else(|| {
        here(format!(
            "[inflate] trace: no format '{}'",
            crate::text::sanitize(format)
        ))
    })?;
    if !(f.tune > 0.0 && f.tune <= 2.0) {
        return Err(here(format!(
            "[inflate] tune = {}: above 0, at most 2",
            f.tune
        )));
    }
    let every = f.every.map_or(1, |t| t.0);
    if !(1..=86_400).contains(&every) {
        return Err(here(format!("[inflate] every = {every} s: 1 s to a day")));
    }
    Ok(Jobs::Inflate {
        format,
        path: dir.join(file),
        seed: f.seed,
        tune: f.tune,
        every,
    })
}

/// Every job of the groups, in the order written.
fn groups(groups: &[Spanned<Group>], text: &str) -> Result<Vec<(Secs, Secs, u32)>, Bad> {
    let mut out = Vec::new();
    for (i, spanned) in groups.iter().enumerate() {
        let g = spanned.get_ref();
        let here = |e: Bad| at(text, spanned.span(), e);
        let (at, runtime) = (g.at.0, g.runtime.0);
        let every = g.every.map_or(0, |t| t.0);
        let period = g.period.map_or(0, |t| t.0);
        // The lesson's jobs together, not each group's, are bounded.
        if out.len() as u64 + (g.count as u64) * (g.repeat as u64) > MAX_GROUP_JOBS {
            return Err(here(format!(
                "[[jobs]] {}: the groups make more than {MAX_GROUP_JOBS} jobs: use trace = or [gen]",
                i + 1
            )
            .into()));
        }
        for r in 0..g.repeat as i64 {
            for k in 0..g.count as i64 {
                let t = r
                    .checked_mul(period)
                    .and_then(|p| k.checked_mul(every).and_then(|e| p.checked_add(e)))
                    .and_then(|d| at.checked_add(d))
                    .filter(|t| (-MAX_SECS..=MAX_SECS).contains(t))
                    .ok_or_else(|| {
                        here(Bad(format!(
                            "[[jobs]] {}: job {} of it would arrive past the largest time a lesson takes ({MAX_SECS} s)",
                            i + 1,
                            r * g.count as i64 + k + 1
                        )))
                    })?;
                out.push((t, runtime, g.gpus));
            }
        }
    }
    Ok(out)
}

/// Captions in time order (one out of order is named where it is).
fn captions(caps: &[Caption], text: &str) -> Result<Captions, Bad> {
    let mut out: Captions = Vec::new();
    for c in caps {
        let t = c.at.get_ref().0;
        if out.last().is_some_and(|last| last.0 >= t) {
            let why =
                "captions: in time order, one at a time (this one is not after the one before)";
            return Err(at(text, c.at.span(), why.into()));
        }
        out.push((t, c.text.clone()));
    }
    Ok(out)
}

/// `why`, at `span` of the file's `text`: its line and column, and the
/// line itself, as toml says its own errors.
fn at(text: &str, span: std::ops::Range<usize>, why: Bad) -> Bad {
    let start = span.start.min(text.len());
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..start].matches('\n').count() + 1;
    let column = text[line_start..start].chars().count() + 1;
    let shown = text[line_start..].lines().next().unwrap_or("");
    Bad(format!(
        "line {line}, column {column}: {}\n  | {}",
        why.0,
        crate::text::sanitize(shown)
    ))
}

fn placement_of(name: &str) -> Result<Placement, Bad> {
    Placement::from_name(&name.to_ascii_lowercase()).ok_or_else(|| {
        Bad(format!(
            "placement '{}': consolidate, pack or spread",
            crate::text::sanitize(name)
        ))
    })
}
