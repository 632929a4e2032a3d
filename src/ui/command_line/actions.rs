//! What a `:` command does to the app, and where its words come from.

use super::{parse, Arg, Words};
use crate::sim::{MachineUse, Placement};
use crate::text::sanitize;
use crate::ui::action::Quit;
use crate::ui::app::{App, Effect, Popup};
use crate::ui::rankings::RankBy;

impl Words for App {
    fn words(&self, arg: Arg, prefix: &str, most: usize) -> Vec<String> {
        let starts = |w: &&str| w.starts_with(prefix);
        let mut out: Vec<String> = match arg {
            Arg::User | Arg::Group => {
                let all = self.sim.facts.owners(self.trace(), arg == Arg::Group);
                // Sorted: the names from the first that starts so.
                let from = all.partition_point(|w| w.as_str() < prefix);
                let names = all[from..].iter().take_while(|w| w.starts_with(prefix));
                return names.take(most).cloned().collect();
            }
            Arg::Job => self
                .trace()
                .jobs_with_id_prefix(prefix)
                .take(most)
                .map(|j| self.trace().jobs[j as usize].id.to_string())
                .collect(),
            Arg::Machine => {
                let trace = self.trace();
                let named = self.sim.facts.machines().iter();
                let names = named.map(|&m| trace.cluster.machines[m as usize].name.as_str());
                names.filter(starts).take(most).map(String::from).collect()
            }
            Arg::Policy => {
                let all = self.sim.policies.all();
                let names = all.iter().map(|p| p.name());
                names.filter(starts).take(most).map(String::from).collect()
            }
            Arg::Placement => {
                let names = Placement::ALL.into_iter().map(Placement::name);
                names.filter(starts).map(String::from).collect()
            }
            Arg::Lesson => crate::lesson::names()
                .into_iter()
                .filter(starts)
                .map(String::from)
                .collect(),
            Arg::None | Arg::Time | Arg::Text => Vec::new(),
        };
        out.sort();
        out
    }
}

impl App {
    /// Tab in the `:` prompt: its line completed as far as the candidates agree.
    pub(in crate::ui) fn complete_command_line(&mut self) -> bool {
        let Some(Popup::Prompt { input, .. }) = &self.view.popup else {
            return false;
        };
        let (line, _) = super::complete(input, self);
        if let Some(Popup::Prompt { input, cursor, .. }) = &mut self.view.popup {
            *cursor = line.chars().count();
            *input = line;
        }
        true
    }

    /// Runs a `:` command; what went wrong is said in the flash.
    pub(in crate::ui) fn run_command_line(&mut self, line: &str) {
        let (verb, arg) = match parse(line) {
            Ok(x) => x,
            Err(e) => {
                self.view.flash = Some(e.to_string());
                return;
            }
        };
        match verb.name {
            "idle" => self.machines_in(MachineUse::Idle),
            "partly" => self.machines_in(MachineUse::Partly),
            "full" => self.machines_in(MachineUse::Full),
            "machines" => self.rankings(RankBy::Machines, 1),
            "users" => self.rankings(RankBy::Users, 0),
            "groups" => self.rankings(RankBy::Groups, 0),
            "user" => self.owner(false, &arg),
            "group" => self.owner(true, &arg),
            "job" => self.job_by_id(&arg),
            "machine" => self.machine_by_name(&arg),
            "goto" => self.go_to_text(&arg),
            "policy" => self.policy_by_name(&arg),
            "placement" => self.placement_by_name(&arg),
            "lesson" => self.lesson_by_name(&arg),
            "filter" if arg.is_empty() => {
                self.view.filter = None;
                self.view.flash = Some("filter cleared".into());
            }
            "filter" => self.set_filter(&arg),
            "find" => self.find(&arg),
            "export" => self.emit(Effect::Export),
            "help" => self.view.popup = Some(Popup::Help { scroll: 0 }),
            "quit" => self.emit(Effect::Quit(Quit::Clear)),
            _ => {}
        }
    }

    fn rankings(&mut self, by: RankBy, sort: usize) {
        self.view.popup = Some(Popup::Rankings { by, sort, at: 0 });
    }

    /// `:idle`, `:partly`, `:full`: those machines in the rankings, counted.
    fn machines_in(&mut self, u: MachineUse) {
        let n = self.engine().cluster().machine_uses();
        let word = match u {
            MachineUse::Partly => "partly used",
            _ => u.word(),
        };
        self.view.flash = Some(format!(
            "{} of {} machines {word} at {}",
            n.of(u),
            n.total(),
            self.clock(self.sim.replay.now())
        ));
        self.rankings(RankBy::MachinesIn(u), 0);
    }

    /// `:user NAME`, `:group NAME`: the lists filtered to them.
    fn owner(&mut self, group: bool, name: &str) {
        let field = if group { "group" } else { "user" };
        if self
            .sim
            .facts
            .owners(self.trace(), group)
            .binary_search_by(|w| w.as_str().cmp(name))
            .is_err()
        {
            self.view.flash = Some(format!(
                "no {field} '{}' in this trace (tab completes)",
                sanitize(name)
            ));
            return;
        }
        self.set_filter(&format!("{field}={name}"));
    }

    /// `:job ID`: the job by exact id, or the one its id begins; its drill-down.
    fn job_by_id(&mut self, id: &str) {
        let trace = self.trace();
        let exact = trace.jobs.iter().position(|j| j.id == id).map(|j| j as u32);
        let by_prefix: Vec<u32> = trace.jobs_with_id_prefix(id).take(2).collect();
        let job = match (exact, by_prefix.as_slice()) {
            (Some(j), _) | (None, &[j]) => j,
            (None, []) => {
                self.view.flash = Some(format!("no job '{}' (tab completes)", sanitize(id)));
                return;
            }
            (None, _) => {
                let n = trace.jobs_with_id_prefix(id).count();
                self.view.flash = Some(format!(
                    "{n} jobs' ids begin '{}': tab completes",
                    sanitize(id)
                ));
                return;
            }
        };
        self.view.selection.select(job);
        let at = self.sim.replay.now();
        self.emit(Effect::ReadJobDetail { job, at });
    }

    /// `:machine NAME`: the cursor on it (exact name, or the one it begins).
    fn machine_by_name(&mut self, name: &str) {
        let machines = &self.trace().cluster.machines;
        let exact = machines.iter().position(|m| m.name == name);
        let starting: Vec<usize> = (machines.iter().enumerate())
            .filter(|(_, m)| m.name.starts_with(name))
            .map(|(i, _)| i)
            .take(2)
            .collect();
        match (exact, starting.as_slice()) {
            (Some(m), _) | (None, &[m]) => {
                let said = self.show_machine(m);
                self.view.flash = Some(said);
            }
            (None, []) => {
                self.view.flash = Some(format!("no machine '{}' (tab completes)", sanitize(name)))
            }
            (None, _) => {
                self.view.flash = Some(format!(
                    "several machines' names begin '{}': tab completes",
                    sanitize(name)
                ))
            }
        }
    }

    fn policy_by_name(&mut self, name: &str) {
        match self.sim.policies.find(name) {
            Some(p) => self.switch_policy(p),
            None => {
                self.view.flash = Some(format!(
                    "no policy '{}' here (tab completes; p lists them)",
                    sanitize(name)
                ))
            }
        }
    }

    /// `:lesson NAME`: the runner opens it in place of the replay.
    fn lesson_by_name(&mut self, name: &str) {
        if crate::lesson::names().contains(&name) {
            self.emit(Effect::OpenLesson(name.to_string()));
            self.view.flash = Some(format!("lesson {name}"));
        } else {
            self.view.flash = Some(format!(
                "no lesson '{}' (tab completes; {})",
                sanitize(name),
                crate::lesson::names().join(", ")
            ));
        }
    }

    fn placement_by_name(&mut self, name: &str) {
        match Placement::from_name(name) {
            Some(p) => self.set_placement(p),
            None => {
                let all: Vec<&str> = Placement::ALL.iter().map(|p| p.name()).collect();
                self.view.flash = Some(format!(
                    "no placement '{}': one of {}",
                    sanitize(name),
                    all.join(", ")
                ))
            }
        }
    }
}
