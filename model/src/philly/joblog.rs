//! `cluster_job_log`, one JSON array of jobs, read element by element so
//! the raw text and the whole parsed tree are never held at once. A syntax
//! error stops the read (naming the byte); an element with wrong types, an
//! unknown machine or a GPU id out of range is a bad row (skipped, or an
//! error with `--strict`), named by the byte where the element starts.

use super::{parse_local_after, Attempt, PhillyJob};
use crate::input::{InputError, Location, RowPolicy, Skips};
use crate::model::Cluster;
use crate::text::sanitize;
use rustc_hash::FxHashMap;
use serde::de::{DeserializeSeed, SeqAccess, Visitor};
use serde::Deserialize;
use std::cell::{Cell, RefCell};
use std::io::Read;
use std::rc::Rc;

/// GPUs a Philly machine may have: a GPU set is a 64-bit mask.
const MAX_MACHINE_GPUS: u32 = 64;

#[derive(Deserialize)]
struct RawJob {
    status: String,
    vc: String,
    jobid: String,
    submitted_time: String,
    user: String,
    #[serde(default)]
    attempts: Vec<RawAttempt>,
}

#[derive(Deserialize)]
struct RawAttempt {
    #[serde(default)]
    start_time: Option<String>,
    #[serde(default)]
    end_time: Option<String>,
    #[serde(default)]
    detail: Vec<RawDetail>,
}

#[derive(Deserialize)]
struct RawDetail {
    ip: String,
    gpus: Vec<String>,
}

/// The longest one job's record may be: a real one is a few KB; a string
/// that never ends (a pipe of garbage) stops here instead of growing memory.
const MAX_RECORD: u64 = 16 << 20;

/// Counts the bytes handed to the parser, to name where a problem is, and
/// refuses a record (from `began`) longer than `MAX_RECORD`.
struct Counting<R> {
    inner: R,
    at: Rc<Cell<u64>>,
    began: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.at.set(self.at.get() + n as u64);
        if self.at.get() - self.began.get() > MAX_RECORD {
            return Err(std::io::Error::other(format!(
                "a job record longer than {MAX_RECORD} bytes from byte {}: not a Philly job log",
                self.began.get()
            )));
        }
        Ok(n)
    }
}

struct Ctx<'a> {
    file: String,
    cluster: &'a Cluster,
    names: &'a FxHashMap<&'a str, u32>,
    policy: RowPolicy,
    jobs: Vec<PhillyJob>,
    seen: FxHashMap<String, u64>,
    at: Rc<Cell<u64>>,
    /// Where the element being read began (the record-length guard).
    began: Rc<Cell<u64>>,
    /// A strict-mode error that stopped the read.
    stop: Option<InputError>,
    evidence: Evidence,
}

/// What the job log shows of the machines beyond `cluster_machine_list`.
#[derive(Debug, Default)]
pub(crate) struct Evidence {
    /// Per machine: the GPUs its attempts use past the listed count (0: none).
    pub gpus: Vec<u32>,
    /// Jobs that ran on such GPUs (skipped before the correction).
    pub jobs_saved: u64,
}

impl Ctx<'_> {
    fn loc(&self, byte: u64) -> Location {
        Location {
            file: self.file.clone(),
            line: byte,
            column: None,
            byte: true,
        }
    }

    /// "None" (Python's), null or empty mean no time. `after` is the time
    /// the record puts before this one (for the hour DST repeats).
    fn time(
        &self,
        s: &Option<String>,
        what: &str,
        byte: u64,
        after: Option<i64>,
    ) -> Result<Option<i64>, InputError> {
        match s.as_deref().map(str::trim) {
            None | Some("") | Some("None") => Ok(None),
            Some(t) => {
                let at = parse_local_after(t, after).ok_or_else(|| {
                    InputError::at(
                        self.loc(byte),
                        format!(
                            "{what}: '{}' is not a time like 2017-10-07 01:11:39",
                            sanitize(t)
                        ),
                    )
                })?;
                crate::limits::dated(at).map_err(|m| {
                    InputError::at(self.loc(byte), format!("{what}: '{}' {m}", sanitize(t)))
                })?;
                Ok(Some(at))
            }
        }
    }

    fn convert(&self, raw: RawJob, byte: u64) -> Result<PhillyJob, InputError> {
        let err = |m: String| InputError::at(self.loc(byte), m);
        if raw.jobid.trim().is_empty() {
            return Err(err("jobid: empty".into()));
        }
        if let Some(first) = self.seen.get(&raw.jobid) {
            return Err(err(format!(
                "jobid: duplicate '{}' (first at byte {first})",
                sanitize(&raw.jobid)
            )));
        }
        let submitted = self
            .time(
                &Some(raw.submitted_time.clone()),
                "submitted_time",
                byte,
                None,
            )?
            .ok_or_else(|| err("submitted_time: empty".into()))?;
        let mut attempts = Vec::with_capacity(raw.attempts.len());
        let mut last = Some(submitted);
        for a in raw.attempts {
            let start = self.time(&a.start_time, "attempts.start_time", byte, last)?;
            last = start.or(last);
            let end = self.time(&a.end_time, "attempts.end_time", byte, last)?;
            last = end.or(last);
            if let (Some(s), Some(e)) = (start, end) {
                if e < s {
                    return Err(err(format!(
                        "attempts.end_time {} is before start_time {}",
                        super::format_local(e),
                        super::format_local(s)
                    )));
                }
            }
            let mut detail = Vec::with_capacity(a.detail.len());
            for d in a.detail {
                let m = *self.names.get(d.ip.as_str()).ok_or_else(|| {
                    err(format!(
                        "attempts.detail.ip: machine '{}' is not in cluster_machine_list",
                        sanitize(&d.ip)
                    ))
                })?;
                let mut mask = 0u64;
                for g in &d.gpus {
                    let k: u32 = g
                        .strip_prefix("gpu")
                        .and_then(|n| n.parse().ok())
                        .ok_or_else(|| {
                            err(format!(
                                "attempts.detail.gpus: '{}' is not a GPU id like gpu3",
                                sanitize(g)
                            ))
                        })?;
                    // Past the listed count is evidence (the release's list
                    // is wrong for some machines); past 64 is no machine.
                    if k >= MAX_MACHINE_GPUS {
                        return Err(err(format!(
                            "attempts.detail.gpus: {} on {} is past the {MAX_MACHINE_GPUS} GPUs a machine may have",
                            sanitize(g),
                            sanitize(&d.ip)
                        )));
                    }
                    mask |= 1 << k;
                }
                detail.push((m, mask));
            }
            attempts.push(Attempt { start, end, detail });
        }
        Ok(PhillyJob {
            jobid: raw.jobid.clone(),
            status: raw.status.clone(),
            vc: raw.vc.clone(),
            user: raw.user.clone(),
            submitted,
            attempts,
        })
    }

    /// The GPUs a kept job used past its machines' listed counts: each
    /// machine's highest GPU index seen, and the job counted as saved.
    fn weigh_evidence(&mut self, j: &PhillyJob) {
        let mut over = false;
        for &(m, mask) in j.attempts.iter().flat_map(|a| &a.detail) {
            let used = 64 - mask.leading_zeros();
            if used > self.cluster.machines[m as usize].gpus {
                over = true;
                let e = &mut self.evidence.gpus[m as usize];
                *e = (*e).max(used);
            }
        }
        self.evidence.jobs_saved += over as u64;
    }

    fn element(&mut self, v: serde_json::Value, byte: u64) -> bool {
        let r = serde_json::from_value::<RawJob>(v)
            .map_err(|e| InputError::at(self.loc(byte), format!("not a Philly job: {e}")))
            .and_then(|raw| self.convert(raw, byte));
        match r {
            Ok(j) => {
                self.weigh_evidence(&j);
                self.seen.insert(j.jobid.clone(), byte);
                self.jobs.push(j);
                true
            }
            Err(e) => match self.policy.bad_row(e) {
                Ok(()) => true,
                Err(e) => {
                    self.stop = Some(e);
                    false
                }
            },
        }
    }
}

struct Elements<'a, 'b>(&'a RefCell<Ctx<'b>>);

impl<'de> Visitor<'de> for Elements<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON array of Philly jobs")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        loop {
            let byte = self.0.borrow().at.get();
            self.0.borrow().began.set(byte);
            let Some(v) = seq.next_element::<serde_json::Value>()? else {
                return Ok(());
            };
            if !self.0.borrow_mut().element(v, byte) {
                return Err(serde::de::Error::custom("stopped"));
            }
        }
    }
}

impl<'de> DeserializeSeed<'de> for Elements<'_, '_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

/// Reads the job log from `f`, named `file` in errors.
pub(crate) fn read(
    f: impl Read,
    file: String,
    cluster: &Cluster,
    names: &FxHashMap<&str, u32>,
    strict: bool,
) -> Result<(Vec<PhillyJob>, Skips, Evidence), InputError> {
    let at = Rc::new(Cell::new(0u64));
    let began = Rc::new(Cell::new(0u64));
    let reader = Counting {
        inner: std::io::BufReader::with_capacity(1 << 20, f),
        at: at.clone(),
        began: began.clone(),
    };
    let ctx = RefCell::new(Ctx {
        file: file.clone(),
        cluster,
        names,
        policy: RowPolicy::new(&file, strict),
        jobs: Vec::new(),
        seen: FxHashMap::default(),
        at: at.clone(),
        began,
        stop: None,
        evidence: Evidence {
            gpus: vec![0; cluster.machines.len()],
            jobs_saved: 0,
        },
    });
    let mut de = serde_json::Deserializer::from_reader(reader);
    let result = Elements(&ctx).deserialize(&mut de).and_then(|()| de.end());
    let ctx = ctx.into_inner();
    if let Some(e) = ctx.stop {
        return Err(e);
    }
    if let Err(e) = result {
        let loc = Location {
            file,
            line: at.get(),
            column: None,
            byte: true,
        };
        return Err(InputError::at(loc, format!("malformed JSON: {e}")));
    }
    Ok((ctx.jobs, ctx.policy.skips, ctx.evidence))
}
