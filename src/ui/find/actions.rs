//! What `/` does to the app: the match shown, the cursor moved to it.

use super::{matches, Match, MAX_MATCHES};
use crate::text::sanitize;
use crate::ui::app::{App, Focus};

impl App {
    pub(in crate::ui) fn find(&mut self, q: &str) {
        let matches = matches((self.trace(), self.engine()), q);
        if matches.is_empty() {
            let msg = format!("no job, machine, user or group matches '{}'", sanitize(q));
            self.warn(format!("find: {msg}"));
            self.view.flash = Some(msg);
            self.view.found.forget();
            return;
        }
        let i = self.view.found.next(q, matches.len());
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

    /// Selects `j` (the grid's cursor goes to its machine): what to say.
    fn show_job(&mut self, j: u32) -> String {
        self.view.selection.select(j);
        let st = self.engine().job_state(j);
        if let Some(g) = self.engine().running().get(&j).and_then(|g| g.first()) {
            if let Some(pos) = self.sim.facts.place_of(g.machine) {
                self.view.selection.cursor_to(pos);
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
    pub(in crate::ui) fn show_machine(&mut self, m: usize) -> String {
        let name = sanitize(&self.trace().cluster.machines[m].name);
        match self.sim.facts.place_of(m as u32) {
            Some(pos) => {
                self.view.selection.cursor_to(pos);
                self.view.focus = Focus::Grid;
                self.scroll_to_cursor();
                self.follow_cursor_job();
                format!("machine {name}")
            }
            None => format!("machine {name} has no GPUs, so it is not in the grid"),
        }
    }
}
