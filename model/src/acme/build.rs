//! AcmeTrace rows filed one at a time: each row's fields checked, then its
//! offset, id and state kept always, its job when it asks for GPUs and
//! started. The CSV reader files the whole file into one `Build`; the fast
//! path files each part of the file into its own and joins them (`join.rs`).

use super::{time, AcmeTables, Cols};
use crate::fields::{Fields, Row};
use crate::input::{InputError, LoadReport};
use crate::job_id::JobId;
use crate::model::{Demand, Job, JobStatus, MaybeIndex, MaybeSecs, Secs, Segment, Symbols};
use crate::seen::Seen;
use crate::text::sanitized;
use crate::LoadOptions;
use rustc_hash::FxHashMap;
use std::borrow::Cow;

/// One row's checked fields (times as Unix seconds and offset).
pub(super) struct Checked {
    id: JobId,
    gpus: i64,
    submit: (Secs, i32),
    start: Option<(Secs, i32)>,
    end: Option<(Secs, i32)>,
    duration: Option<i64>,
    queue: Option<i64>,
}

/// Rows kept out of the replay or disagreeing with themselves, for the report.
#[derive(Default, Clone, Copy)]
pub(super) struct Tally {
    pub cpu_jobs: u64,
    pub mismatched: u64,
    pub queue_mismatch: u64,
    pub never_started: u64,
    /// Rows with `gpu_num` > 0, replayed or not (the published `gpu_job_num`).
    pub gpu_rows: u64,
}

/// What one row added to the tally, a bit a counter (to take a repeated
/// row back out when parts are joined).
pub(super) const CPU_JOB: u8 = 1;
pub(super) const MISMATCHED: u8 = 2;
pub(super) const QUEUE_MISMATCH: u8 = 4;
pub(super) const NEVER_STARTED: u8 = 8;
pub(super) const GPU_ROW: u8 = 16;

impl Tally {
    /// Adds (or, with `sign` -1, takes back) a row's `effect` bits.
    pub(super) fn count(&mut self, effect: u8, sign: i64) {
        let bump = |n: &mut u64, bit: u8| {
            if effect & bit != 0 {
                *n = n.wrapping_add_signed(sign);
            }
        };
        bump(&mut self.cpu_jobs, CPU_JOB);
        bump(&mut self.mismatched, MISMATCHED);
        bump(&mut self.queue_mismatch, QUEUE_MISMATCH);
        bump(&mut self.never_started, NEVER_STARTED);
        bump(&mut self.gpu_rows, GPU_ROW);
    }

    pub(super) fn add(&mut self, o: &Tally) {
        self.cpu_jobs += o.cpu_jobs;
        self.mismatched += o.mismatched;
        self.queue_mismatch += o.queue_mismatch;
        self.never_started += o.never_started;
        self.gpu_rows += o.gpu_rows;
    }
}

/// The jobs and tables as the rows are filed.
pub(super) struct Build {
    pub symbols: Symbols,
    pub jobs: Vec<Job>,
    pub segments: Vec<Segment>,
    /// Offsets and ids, a row each (`states` is filled at the end).
    pub tables: AcmeTables,
    /// Each row's line (within its part, for a part).
    pub row_lines: Vec<u64>,
    pub tally: Tally,
    pub zone: Option<i32>,
    /// State texts (sanitized) in the order first seen, with their rows.
    pub state_counts: Vec<(String, u64)>,
    state_index: FxHashMap<String, u32>,
    /// For a part: each row's state and tally bits.
    pub state_of: Vec<u32>,
    pub effects: Vec<u8>,
    /// The ids filed so far, for a whole file read as a stream; a part has
    /// none (its repeats are found when the parts are joined).
    seen: Option<Seen>,
}

impl Build {
    pub(super) fn new(tables: AcmeTables, whole_file: bool) -> Build {
        Build {
            symbols: Symbols::default(),
            jobs: Vec::new(),
            segments: Vec::new(),
            tables,
            row_lines: Vec::new(),
            tally: Tally::default(),
            zone: None,
            state_counts: Vec::new(),
            state_index: FxHashMap::default(),
            state_of: Vec::new(),
            effects: Vec::new(),
            seen: whole_file.then(Seen::default),
        }
    }

    /// Checks a row's fields; for a whole file, an id filed before is an
    /// error (checked last, so a row with another fault reports that one,
    /// as a part does).
    pub(super) fn check<F: Fields + ?Sized>(
        &mut self,
        row: &Row<F>,
        cols: &Cols,
    ) -> Result<Checked, InputError> {
        row.expect_width(cols.width)?;
        let id = row.required(cols.get("job_id"), "job_id")?;
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
        if let Some(seen) = &mut self.seen {
            let ids = &self.tables.ids;
            let n = ids.len() as u32;
            let id_of = |k: u32| {
                if k == n {
                    id.as_bytes()
                } else {
                    ids[k as usize].as_bytes()
                }
            };
            if let Err(l) = seen.keep(id_of, n, row.line) {
                return Err(row.error(
                    "job_id",
                    format!("duplicate job '{}' (first on line {l})", sanitized(id)),
                ));
            }
        }
        Ok(Checked {
            id: JobId::new(id),
            gpus,
            submit,
            start,
            end,
            duration,
            queue,
        })
    }

    /// Files a checked row: its offset, id and state always, its job when
    /// it asks for GPUs and started.
    pub(super) fn add<F: Fields + ?Sized>(
        &mut self,
        row: &Row<F>,
        cols: &Cols,
        f: Checked,
        byte: u64,
        opts: &LoadOptions,
    ) {
        self.zone.get_or_insert(f.submit.1);
        let mut effect = disagreements(&f);
        let row_index = self.tables.offsets.len() as u32;
        self.tables.offsets.push(byte);
        self.row_lines.push(row.line);
        let state = column_text(row, cols, "state");
        self.count_state(if state.is_empty() { "(empty)" } else { &state });
        effect |= GPU_ROW * (f.gpus > 0) as u8;
        let job = if f.gpus == 0 && !opts.include_cpu_jobs {
            effect |= CPU_JOB;
            None
        } else if let Some(s) = f.start {
            Some(s)
        } else {
            // Cancelled while queued: it never ran, and the file does not say when it left.
            effect |= NEVER_STARTED;
            None
        };
        self.tally.count(effect, 1);
        if self.seen.is_none() {
            self.effects.push(effect);
        }
        if let Some(s) = job {
            self.add_job(row, cols, &f, s.0, &state, row_index);
        }
        self.tables.ids.push(f.id);
    }

    /// Files the job of a row that asks for GPUs and started: segment, then job.
    #[inline]
    fn add_job<F: Fields + ?Sized>(
        &mut self,
        row: &Row<F>,
        cols: &Cols,
        f: &Checked,
        start: Secs,
        state: &str,
        row_index: u32,
    ) {
        let seg_start = self.segments.len() as u32;
        self.segments.push(Segment {
            start,
            end: f.end.map(|e| e.0).into(),
            machine: MaybeIndex::NONE,
            milli: f.gpus as u32 * 1000,
            gpus: 0,
        });
        let user = column_text(row, cols, "user");
        let ty = column_text(row, cols, "type");
        self.jobs.push(Job {
            id: f.id.clone(),
            user: (!user.is_empty()).then(|| self.symbols.intern(&user)),
            group: None,
            submit: f.submit.0,
            runtime: f.end.map(|e| e.0 - start).into(),
            demand: Demand::Gang {
                gpus: f.gpus as u32,
            },
            gpu_type: None,
            status: if f.end.is_none() {
                JobStatus::Unfinished
            } else {
                super::status(state)
            },
            deadline: MaybeSecs::NONE,
            model: (!ty.is_empty()).then(|| self.symbols.intern(&ty)),
            segments: seg_start..self.segments.len() as u32,
            requested: crate::model::MaybeSecs::NONE,
            native_row: row_index,
            cpu_milli: 0,
            mem_mib: 0,
            any_of_types: 0,
        });
    }

    fn count_state(&mut self, key: &str) {
        let k = match self.state_index.get(key) {
            Some(&k) => k,
            None => {
                let k = self.state_counts.len() as u32;
                self.state_index.insert(key.to_string(), k);
                self.state_counts.push((key.to_string(), 0));
                k
            }
        };
        self.state_counts[k as usize].1 += 1;
        if self.seen.is_none() {
            self.state_of.push(k);
        }
    }

    /// The states counted, into the tables.
    pub(super) fn close_states(&mut self) {
        for (k, n) in self.state_counts.drain(..) {
            if n > 0 {
                *self.tables.states.entry(k).or_default() += n;
            }
        }
    }
}

/// Column `n` of `row`, sanitized (empty when absent or not text).
#[inline]
fn column_text<'a, F: Fields + ?Sized>(row: &Row<'a, F>, cols: &Cols, n: &str) -> Cow<'a, str> {
    row.text(cols.get(n), n).map(sanitized).unwrap_or_default()
}

/// The tally bits of a row whose duration or queue disagrees with its times.
#[inline]
fn disagreements(f: &Checked) -> u8 {
    let mut effect = 0u8;
    // Durations that disagree with end − start are kept and reported.
    if let (Some(s), Some(e), Some(d)) = (f.start, f.end, f.duration) {
        effect |= MISMATCHED * (e.0 - s.0 != d) as u8;
    }
    if let (Some(s), Some(q)) = (f.start, f.queue) {
        effect |= QUEUE_MISMATCH * (s.0 - f.submit.0 != q) as u8;
    }
    effect
}

impl Tally {
    pub(super) fn notes(&self, report: &mut LoadReport) {
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
