//! `elasticflow`: ElasticFlow's scheduler (`ef-accessctrl` in its
//! simulator, `scheduler.py`), with admission control, minimum
//! satisfactory shares and marginal-gain hand-out, in rounds at least a
//! slot (60 s) apart. Notes on its semantics, with citations:
//! `shared/peers/elasticflow-semantics.md`.
//!
//! The rules (each in its file):
//! - Rounds (`state.rs`): at arrivals, at planned ends and at the first
//!   plan change; everything due within 60 s of a round is taken together
//!   60 s after it, unless it is the only thing left.
//! - Admission (`round.rs`): a round's arrivals are admitted together if
//!   every admitted job and every arrival still meets its deadline when
//!   all are planned in deadline order; else all of them are declined
//!   (dropped), but for best-effort ones (no deadline: ElasticFlow's
//!   `best_effort` column), which stay and are planned after every job
//!   with a deadline, in no count. An admitted job is never dropped; a job
//!   with no throughput row is declined on arrival.
//! - Plans (`plan.rs`): each job its minimum satisfactory share, as late
//!   as possible, against the reservations of earlier deadlines.
//! - Hand-out (`grow.rs`): GPUs free now go one level at a time to the job
//!   that gains most GPU-seconds per GPU (jobs holding none first).
//! - Levels (`admit.rs`): a job holds one of its table's GPU counts, up to
//!   ElasticFlow's cap for its model and batch size.
//! - Ends: a job ends at its planned finish rounded up to the slot grid,
//!   plus the overhead it pays every round it holds GPUs (`nodes.rs`: 2 s
//!   on a GPU set held since the cache was cleared — 7 s past 255 GPUs —
//!   else 2 + 2·(log₂ GPUs + 1) s, +27 s (+47) in every 60th round); its
//!   progress is counted at the GPUs held, less that overhead. A job whose
//!   work runs out before that end ends when it runs out.
//! - The deadline ratio ElasticFlow reports counts a job as on time by its
//!   planned finish (`admitted_on_time`); tracetui's "deadlines met" is by
//!   its end.

mod admit;
mod edf_plan;
mod edf_round;
mod grow;
mod job;
mod maps;
mod nodes;
mod plan;
mod round;
mod state;

use crate::job::Phase;
use crate::rule::{deadline_key, Books, KeyMeaning, Rule, Unavailable, Walk};
use crate::view::{Acts, Answer, Checked, NoAnswer, View};
use state::State;
use tracetui_model::{Secs, Trace};

/// `elasticflow` (ElasticFlow's `ef-accessctrl`), or without admission
/// control its `ef`.
pub(super) struct ElasticFlow {
    admission: bool,
    edf: bool,
}

impl ElasticFlow {
    /// ElasticFlow as its paper runs it: `ef-accessctrl`.
    pub(super) const ACCESS_CTRL: ElasticFlow = ElasticFlow {
        admission: true,
        edf: false,
    };
    /// ElasticFlow without admission control (its simulator's `ef`, in
    /// its Figure 9): every arrival is planned and runs, deadline or not;
    /// a round at each job's next plan change; jobs of a machine or more
    /// placed in the order they started; a job is late by its end on the
    /// slot grid with its overheads.
    pub(super) const EF: ElasticFlow = ElasticFlow {
        admission: false,
        edf: false,
    };
    /// ElasticFlow's EDF baseline with admission control (its simulator's
    /// `edf-accessctrl`, in its Figure 9): each arrival admitted alone if
    /// every deadline still holds when all jobs are planned by EDF; every
    /// job on as many GPUs as it can use, in deadline order; ElasticFlow's
    /// cached overheads (`edf_round.rs`).
    pub(super) const EDF_ACCESS_CTRL: ElasticFlow = ElasticFlow {
        admission: true,
        edf: true,
    };
}

impl Rule for ElasticFlow {
    fn name(&self) -> &str {
        match (self.admission, self.edf) {
            (_, true) => "edf-accessctrl",
            (true, false) => "elasticflow",
            (false, false) => "ef",
        }
    }

    fn describe(&self) -> &str {
        match (self.admission, self.edf) {
            (_, true) => "EDF with per-job admission (ElasticFlow's edf-accessctrl): admits a job only if every deadline still holds by EDF; each job on as many GPUs as it can use",
            (true, false) => "ElasticFlow: admits a job only if every deadline still holds; each job its least GPUs to meet it, spare GPUs where they gain most",
            (false, false) => "ElasticFlow without admission control (its simulator's ef): every job runs, each its least GPUs to meet its deadline, spare GPUs where they gain most",
        }
    }

    fn walk(&self) -> Walk {
        Walk::Explicit
    }

    fn preempts(&self) -> bool {
        true
    }

    /// Its node sets are whole machines, as ElasticFlow's cluster specs.
    fn whole_machines(&self) -> bool {
        true
    }

    fn in_rounds(&self) -> bool {
        true
    }

    fn key_meaning(&self) -> KeyMeaning {
        KeyMeaning::Deadline
    }

    fn available(&self, trace: &Trace) -> Result<(), Unavailable> {
        super::edf_elastic::needs_tables(trace)?;
        super::edf_elastic::needs_alike_machines(
            trace,
            "give an ElasticFlow cluster spec with --cluster",
        )?;
        super::edf_elastic::needs_whole_machines(trace)?;
        needs_power_of_two_machines(trace)?;
        needs_counts_it_packs(trace)
    }

    fn books(&self, v: &dyn View) -> Box<dyn Books> {
        Box::new(EfBooks(State::new(v, self.admission, self.edf)))
    }
}

/// Refuses machines whose GPUs are no power of two: ElasticFlow's node
/// sets hold jobs of 1, 2, 4, 8 … GPUs (`nodes.rs`), and on machines of 3,
/// 5, 6, 12 or 24 a gang its plan counted GPUs for finds no set that holds
/// it (its own simulator asserts; every spec it ships has 1, 2, 4 or 8).
fn needs_power_of_two_machines(trace: &Trace) -> Result<(), Unavailable> {
    let Some(g) = trace.cluster.per_node.filter(|g| !g.is_power_of_two()) else {
        return Ok(());
    };
    let (down, up) = (1u32 << (31 - g.leading_zeros()), g.next_power_of_two());
    Err(Unavailable {
        lacks:
            "machines of a power of two GPUs (1, 2, 4, 8, 16 …), which ElasticFlow's node sets pack"
                .into(),
        short: crate::rule::NODE_SIZE.into(),
        hint: Some(format!(
            "its machines have {g} GPUs: give --gpus-per-node {down} or {up}"
        )),
    })
}

/// Refuses throughput tables profiled on a GPU count ElasticFlow's node
/// sets are not listed under (`nodes::KEYS`: 1, 2, 4, 8, 12, 16, 24, …):
/// a job planned on 3 GPUs finds no list to go in (its simulator exits).
fn needs_counts_it_packs(trace: &Trace) -> Result<(), Unavailable> {
    let Some(speeds) = &trace.speeds else {
        return Ok(());
    };
    let odd = speeds
        .tables()
        .iter()
        .flat_map(|t| t.models.iter())
        .flat_map(|(name, m)| m.rows.values().flatten().map(move |&(n, _)| (name, n)))
        .find(|(_, n)| !nodes::KEYS.contains(n));
    let Some((model, n)) = odd else {
        return Ok(());
    };
    let sizes: Vec<String> = nodes::KEYS.iter().map(u32::to_string).collect();
    Err(Unavailable {
        lacks: format!(
            "throughput tables profiled on GPU counts its node sets hold ({})",
            sizes.join(", ")
        ),
        short: "table counts".into(),
        hint: Some(format!(
            "the table of {} is profiled on {n} GPUs",
            tracetui_model::text::sanitize(model)
        )),
    })
}

#[derive(Debug, Clone)]
struct EfBooks(State);

impl Books for EfBooks {
    fn clone_box(&self) -> Box<dyn Books> {
        Box::new(self.clone())
    }

    fn queued_key(&self, v: &dyn View, job: u32) -> u64 {
        deadline_key(v.trace().jobs[job as usize].deadline.get())
    }

    fn ranks_running(&self) -> bool {
        false
    }

    fn next_wakeup(&self) -> Option<Secs> {
        self.0.next
    }

    fn own_deadline_count(&self) -> Option<(u64, u64)> {
        let on = self.0.accepted.max(0) as u64;
        Some((on, on + self.0.declined))
    }

    fn wake(&mut self, _v: &dyn View, _acts: &mut Acts<'_>, t: Secs) -> bool {
        self.0.next == Some(t)
    }

    fn decide(&mut self, v: &dyn View) -> Result<Option<Checked>, NoAnswer> {
        if self.0.next != Some(v.now()) {
            return Ok(None);
        }
        let name = match (self.0.admission, self.0.edf) {
            (_, true) => "edf-accessctrl",
            (true, false) => "elasticflow",
            (false, false) => "ef",
        };
        let fail = |why: String| NoAnswer::Failed(format!("{name} at {}: {why}", v.now()));
        let out = self.0.round(v).map_err(|e| fail(e.0))?;
        let mut a = Answer {
            drop: out
                .declined
                .into_iter()
                .filter(|&j| v.job(j).phase == Phase::Queued)
                .collect(),
            preempt: out
                .idle
                .into_iter()
                .filter(|&j| v.held(j).is_some() && v.preemptable(j))
                .collect(),
            finish: out
                .finished
                .into_iter()
                .filter(|&(j, _)| v.job(j).phase == Phase::Queued)
                .collect(),
            ..Answer::default()
        };
        for (j, gpus, end) in out.hold {
            a.scale.push((j, gpus));
            a.ends.push((j, end));
        }
        v.check(&a).map(Some).map_err(|why| fail(why.to_string()))
    }
}
