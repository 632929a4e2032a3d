//! `/`: a job by id (exact, else by prefix), a machine by name, or a user
//! or group (their waiting and running jobs). The same text again goes to
//! the next match.

use super::app::{App, Focus};
use crate::sim::Phase;
use crate::text::sanitize;

/// Matches listed at most (the count said is exact up to it).
const MAX_MATCHES: usize = 10_000;

/// What a query can match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Match {
    Job(u32),
    Machine(usize),
}

impl App {
    pub(super) fn find(&mut self, q: &str) {
        let matches = self.matches(q);
        if matches.is_empty() {
            let msg = format!("no job, machine, user or group matches '{}'", sanitize(q));
            self.warn(format!("find: {msg}"));
            self.view.flash = Some(msg);
            self.view.found = None;
            return;
        }
        let i = match &self.view.found {
            Some((last, i)) if last == q => (i + 1) % matches.len(),
            _ => 0,
        };
        self.view.found = Some((q.to_string(), i));
        let of = if matches.len() > 1 {
            let more = if matches.len() >= MAX_MATCHES {
                "+"
            } else {
                ""
            };
            format!(" ({} of {}{more}; / again: next)", i + 1, matches.len())
        } else {
            String::new()
        };
        let what = match matches[i] {
            Match::Job(j) => self.show_job(j),
            Match::Machine(m) => self.show_machine(m),
        };
        self.view.flash = Some(format!("{what}{of}"));
    }

    /// Jobs by exact id, then by prefix; machines by name or prefix; then
    /// the waiting and running jobs of a user or group of that name.
    fn matches(&self, q: &str) -> Vec<Match> {
        let trace = self.trace();
        let mut out: Vec<Match> = Vec::new();
        if let Some(j) = trace.jobs.iter().position(|j| j.id == q) {
            out.push(Match::Job(j as u32));
        }
        let by_prefix = trace
            .jobs
            .iter()
            .enumerate()
            .filter(|(_, j)| j.id != q && j.id.starts_with(q))
            .map(|(i, _)| Match::Job(i as u32));
        out.extend(by_prefix.take(MAX_MATCHES));
        let machines = trace
            .cluster
            .machines
            .iter()
            .enumerate()
            .filter(|(_, m)| m.name.starts_with(q))
            .map(|(i, _)| Match::Machine(i));
        out.extend(machines.take(MAX_MATCHES));
        let e = self.engine();
        let owned = trace
            .jobs
            .iter()
            .enumerate()
            .filter(|(_, j)| trace.sym(j.user) == q || trace.sym(j.group) == q)
            .filter(|&(i, _)| matches!(e.job_state(i as u32).phase, Phase::Queued | Phase::Running))
            .map(|(i, _)| Match::Job(i as u32));
        out.extend(owned.take(MAX_MATCHES));
        out.dedup();
        out.truncate(MAX_MATCHES);
        out
    }

    /// Selects `j` (the grid's cursor goes to its machine): what to say.
    fn show_job(&mut self, j: u32) -> String {
        self.view.selected = Some(j);
        let st = self.engine().job_state(j);
        if let Some(g) = self.engine().running().get(&j).and_then(|g| g.first()) {
            if let Some(pos) = self.sim.machines.iter().position(|&m| m == g.machine) {
                self.view.cursor = pos;
                self.view.focus = Focus::Grid;
                self.scroll_to_cursor();
            }
        }
        let trace = self.trace();
        let job = &trace.jobs[j as usize];
        let who = match trace.sym(job.user) {
            "" => String::new(),
            u => format!(" of {}", sanitize(u)),
        };
        let phase = format!("{:?}", st.phase).to_lowercase();
        format!("job {}{who}: {phase}", sanitize(&job.id))
    }

    /// Puts the grid's cursor on machine `m`: what to say.
    fn show_machine(&mut self, m: usize) -> String {
        let name = sanitize(&self.trace().cluster.machines[m].name);
        match self.sim.machines.iter().position(|&x| x == m as u32) {
            Some(pos) => {
                self.view.cursor = pos;
                self.view.focus = Focus::Grid;
                self.scroll_to_cursor();
                self.follow_cursor_job();
                format!("machine {name}")
            }
            None => format!("machine {name} has no GPUs, so it is not in the grid"),
        }
    }
}
