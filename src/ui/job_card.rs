//! The drill-down's summary card: the answer first — the job's state, when
//! it came, how long it waited and ran, where it runs and how busy its GPUs
//! were measured, and for a waiting job its place in the queue and what
//! keeps it from starting — every duration human-readable. The raw join
//! follows it (`job_detail.rs`).

use super::app::App;
use crate::sim::{Blocked, Phase, QueuePlace};
use crate::text::sanitize;
use crate::trace::human_secs;

/// Seconds as the lists say them.
fn human(s: i64) -> String {
    human_secs(s.max(0) as f64)
}

impl App {
    /// The card's lines (label, then what it says).
    pub fn job_card(&self, job: u32) -> Vec<String> {
        let trace = self.trace();
        let e = self.engine();
        let (j, st, now) = (&trace.jobs[job as usize], e.job_state(job), e.now());
        let who = j
            .user
            .map(|u| format!(" · user {}", sanitize(trace.symbols.get(u))))
            .unwrap_or_default();
        let gpus = super::queue::fmt_gpus(j.gpus_display());
        let mut out = vec![];
        let mut line = |label: &str, text: String| out.push(format!("{label:<10} {text}"));
        let state = match st.phase {
            Phase::Future => "not submitted yet".to_string(),
            Phase::Queued => format!("waiting {}", human(now - j.submit)),
            Phase::Running => format!("running {}", human(now - st.start)),
            Phase::Done => "done".to_string(),
            Phase::Rejected => "rejected: it needs more than the cluster can ever give".into(),
            Phase::Dropped => format!("dropped by {}: it never ran", e.policy().label()),
        };
        line("state", format!("{state} · {gpus} GPU{who}"));
        let ago = match now - j.submit {
            d if d >= 0 => format!(" ({} ago)", human(d)),
            d => format!(" (in {})", human(-d)),
        };
        line("submitted", format!("{}{ago}", self.clock(j.submit)));
        if matches!(st.phase, Phase::Running | Phase::Done) {
            line("waited", human(st.start - j.submit));
            let ran = match st.phase {
                Phase::Done => format!(
                    "{} · finished {}",
                    human(st.end - st.start),
                    self.clock(st.end)
                ),
                _ => match j.runtime.get() {
                    Some(_) => format!(
                        "{} so far · ends in {}",
                        human(now - st.start),
                        human(st.end - now)
                    ),
                    // The trace never saw it end: it holds its GPUs to the end.
                    None => format!(
                        "{} so far · its end is not in the trace",
                        human(now - st.start)
                    ),
                },
            };
            line("ran", ran);
        }
        if let Some(m) = self.machines_text(job) {
            line("machines", m);
        }
        if let Some(w) = self.why_here(job) {
            line("why here", w);
        }
        if let Some(u) = self.measured_util(job) {
            line("GPU util", u);
        } else if let Some(i) = self.trace().native.as_ref().and_then(|n| n.indexing()) {
            let done = i
                .progress
                .map_or(String::new(), |p| format!(" {:.0} %", p * 100.0));
            line(
                "measured",
                format!(
                    "indexing {}…{done}: this drill-down refreshes when it is done",
                    i.what
                ),
            );
        }
        if let Some(place) = e.queue_place(job) {
            let explicit = e.policy().walk() == crate::sim::Walk::Explicit;
            line("queue", order_text(e.policy().title(), place, explicit));
        }
        if let Some((label, text)) = self.waiting_line(job) {
            line(label, text);
        }
        out
    }

    /// Why a sharing placement put `job` where it did: its score there
    /// against the next best machines', of how many it fitted.
    fn why_here(&self, job: u32) -> Option<String> {
        let r = self.engine().ranking(job)?;
        let name = |m: u32| {
            self.trace()
                .cluster
                .machines
                .get(m as usize)
                .map_or_else(|| format!("#{m}"), |x| sanitize(&x.name))
        };
        let (&(m0, s0), rest) = r.best.split_first()?;
        let next: Vec<String> = rest
            .iter()
            .map(|&(m, s)| format!("{} {s}", name(m)))
            .collect();
        let tie = rest.first().is_some_and(|&(_, s)| s == s0);
        Some(format!(
            "{} scored {} {s0}{}{}; {} fitted{}",
            r.rule,
            name(m0),
            if next.is_empty() { "" } else { ", then " },
            next.join(", "),
            crate::trace::count(r.fit, "machine"),
            if tie {
                " (equal scores: the first machine)"
            } else {
                ""
            }
        ))
    }

    /// What a waiting job waits for; in a live view, why the cluster
    /// itself says it waits, in place of the record's start it never had.
    fn waiting_line(&self, job: u32) -> Option<(&'static str, String)> {
        let (e, trace) = (self.engine(), self.trace());
        let b = e.blocked(job)?;
        let said = trace
            .native
            .as_ref()
            .and_then(|n| n.waiting_reason(&trace.jobs[job as usize]))
            .filter(|_| matches!(b, Blocked::Record { start: None }));
        Some(match said {
            Some(r) => (
                "Slurm says",
                format!("{} (its pending reason)", sanitize(&r)),
            ),
            None => ("waits for", self.blocked_text(b)),
        })
    }

    /// Where it runs: the machines it holds GPUs on.
    fn machines_text(&self, job: u32) -> Option<String> {
        let grants = self.engine().running().get(&job)?;
        let trace = self.trace();
        let mut names: Vec<String> = Vec::new();
        for g in grants {
            let n = sanitize(&trace.cluster.machines[g.machine as usize].name);
            if names.last() != Some(&n) {
                names.push(n);
            }
        }
        let n = names.len();
        let shown = names.iter().take(4).cloned().collect::<Vec<_>>().join(", ");
        let more = if n > 4 {
            format!(", … {} more", n - 4)
        } else {
            String::new()
        };
        Some(format!("{n} ({shown}{more})"))
    }

    /// The job's measured GPU utilisation, where the trace has one.
    /// Per GPU, 0–100 % of a GPU, with the share the job holds stated (the
    /// sensor's `gpu_wrk_util` is per instance: 342 over 4 GPUs, 14 for a
    /// quarter of one).
    fn measured_util(&self, job: u32) -> Option<String> {
        let (u, per) = self
            .sim
            .measured
            .job_util_of(&self.trace().jobs[job as usize])?;
        Some(if per >= 1.0 {
            format!(
                "{:.0} % per GPU ({u:.0} % over the {} GPUs of each instance; mean of its sensor rows)",
                u / per,
                super::queue::fmt_gpus(per)
            )
        } else {
            format!(
                "{u:.0} % of a GPU, of the {:.0} % it holds (mean of its sensor rows)",
                per * 100.0
            )
        })
    }

    /// What keeps a waiting job from starting, in words.
    fn blocked_text(&self, b: Blocked) -> String {
        let e = self.engine();
        let name = |j: u32| {
            let job = &self.trace().jobs[j as usize];
            let id = sanitize(&job.id);
            let short: String = id.chars().take(12).collect();
            let cut = if short.len() < id.len() { "…" } else { "" };
            format!(
                "{short}{cut} ({} GPU)",
                super::queue::fmt_gpus(job.gpus_display())
            )
        };
        match b {
            Blocked::Room { needs, free } if free >= needs => {
                format!("{needs} GPUs as whole machines; {free} are free, but not so")
            }
            Blocked::Room { needs, free } => format!("{needs} GPUs; {free} are free"),
            Blocked::Locality { block, largest } => {
                format!("{block} GPUs on one machine; the largest free block is {largest}")
            }
            Blocked::Host => {
                "CPU and memory: its GPUs are free, but not on machines with the CPU and memory it asks"
                    .into()
            }
            Blocked::Turn { head } => format!(
                "its turn: it fits now, but {} starts jobs in order and the head, {}, does not fit",
                e.policy().label(),
                name(head)
            ),
            Blocked::Reservation { head, shadow } => {
                let until = shadow.map_or("an end no one knows".to_string(), |s| self.clock(s));
                format!(
                    "the head's reservation: it fits now, but would delay {}, due to start {until}",
                    name(head)
                )
            }
            Blocked::Record { start } => match start {
                Some(s) => format!(
                    "its recorded start, {}: in a recorded replay the wait is the record",
                    self.clock(s)
                ),
                None => "a start the trace never saw: in a recorded replay the wait is the record"
                    .into(),
            },
            Blocked::Policy => format!("{} to start it (it fits now)", e.policy().label()),
            Blocked::Round { next } => format!(
                "the next round: it fits now, but --rounds lets {} decide only in ElasticFlow's rounds{}",
                e.policy().label(),
                next.map_or(String::new(), |t| format!("; the next is {}", self.clock(t)))
            ),
        }
    }
}

/// 1st, 2nd, 3rd, 4th, 11th, 21st.
pub(crate) fn ordinal(n: usize) -> String {
    let th = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{th}")
}

/// `3rd of 57 waiting under sjf: 2 jobs ahead`; under a policy that
/// picks its starts itself each round (`Walk::Explicit`: elasticflow,
/// gandiva, themis …) the queue's order says nothing of who starts next.
pub(super) fn order_text(policy: &str, p: QueuePlace, explicit: bool) -> String {
    if explicit {
        return format!(
            "{} of {} waiting under {}, which picks its starts each round",
            ordinal(p.ahead + 1),
            p.waiting,
            crate::text::sanitize(policy)
        );
    }
    let ahead = match p.ahead {
        0 => "next to start".to_string(),
        1 => "1 job ahead".to_string(),
        a => format!("{a} jobs ahead"),
    };
    format!(
        "{} of {} waiting under {}: {ahead}",
        ordinal(p.ahead + 1),
        p.waiting,
        crate::text::sanitize(policy)
    )
}
