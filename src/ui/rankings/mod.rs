//! Rankings (`u`), an operator's first questions one key away: who holds
//! the GPUs (users and groups by GPUs held, with their jobs running and
//! queued, as `squeue`/`sshare` habits ask) and which machines are busy
//! (GPUs used, jobs, measured utilisation where the trace has it),
//! sortable by any column; Enter filters the lists to a user or group, or
//! takes the cursor to a machine.
//!
//! The rows here, computed from the replay now; the table in `view.rs`.

pub(crate) mod by;
pub(crate) mod view;

pub use by::RankBy;

use super::app::App;
use super::keymap::Command;
use crate::text::sanitize;
use rustc_hash::FxHashMap;

/// One row: its name, its cells, the numbers it sorts by (per column;
/// NaN where there is none) and what Enter does with it.
#[derive(Debug, Clone, PartialEq)]
pub struct RankRow {
    pub name: String,
    pub cells: Vec<String>,
    keys: Vec<f64>,
    pub target: Target,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// A filter for the lists (`user=…`, `group=…`).
    Filter(String),
    /// A machine's place in the grid's order.
    Machine(usize),
    Nothing,
}

/// GPUs held, jobs running, jobs queued, GPUs asked.
#[derive(Default, Clone, Copy)]
struct Agg {
    held: f64,
    running: u64,
    queued: u64,
    asked: f64,
}

impl App {
    /// The rows of `by`, sorted by column `sort` (largest first; ties by
    /// name); `sort` past the last column sorts column `sort - columns` the
    /// other way (smallest first: the idle machines, the users holding least).
    pub fn rank_rows(&self, by: RankBy, sort: usize) -> Vec<RankRow> {
        let mut rows = match by {
            RankBy::Machines | RankBy::MachinesIn(_) => self.machine_rows(by.only()),
            _ => self.holder_rows(by == RankBy::Users),
        };
        let (col, turned) = by.sort_of(sort);
        // A column of numbers: largest first; of words (a machine's type):
        // in order. Ties by name.
        let words = rows.iter().all(|r| !key(r, col).is_finite());
        rows.sort_by(|a, b| {
            let by_key = if words {
                a.cells.get(col).cmp(&b.cells.get(col))
            } else {
                key(b, col).total_cmp(&key(a, col))
            };
            let by_key = if turned { by_key.reverse() } else { by_key };
            by_key.then_with(|| a.name.cmp(&b.name))
        });
        rows
    }

    /// Users (or groups) by what they hold and ask for now.
    fn holder_rows(&self, users: bool) -> Vec<RankRow> {
        let (trace, e) = (self.trace(), self.engine());
        let who = |j: u32| {
            let job = &trace.jobs[j as usize];
            if users {
                job.user
            } else {
                job.group
            }
        };
        let mut by: FxHashMap<Option<crate::trace::Sym>, Agg> = FxHashMap::default();
        for (&j, grants) in e.running().iter() {
            let a = by.entry(who(j)).or_default();
            a.held += grants.iter().map(|g| g.milli as f64).sum::<f64>() / 1000.0;
            a.running += 1;
        }
        for j in e.queue_in_order(e.queue_len()) {
            let a = by.entry(who(j)).or_default();
            a.queued += 1;
            a.asked += trace.jobs[j as usize].demand.total_milli() as f64 / 1000.0;
        }
        let total = trace.cluster.total_gpus().max(1) as f64;
        let field = if users { "user" } else { "group" };
        by.into_iter()
            .map(|(s, a)| {
                let name = s.map_or("(none)".to_string(), |s| sanitize(trace.symbols.get(s)));
                RankRow {
                    cells: vec![
                        gpus(a.held),
                        format!("{:.0} %", a.held / total * 100.0),
                        a.running.to_string(),
                        a.queued.to_string(),
                        gpus(a.asked),
                    ],
                    keys: vec![a.held, a.held, a.running as f64, a.queued as f64, a.asked],
                    target: match s {
                        Some(s) => Target::Filter(format!("{field}={}", trace.symbols.get(s))),
                        None => Target::Nothing,
                    },
                    name,
                }
            })
            .collect()
    }

    /// Machines with GPUs, by what is used on them now.
    fn machine_rows(&self, only: Option<crate::sim::MachineUse>) -> Vec<RankRow> {
        let (trace, c) = (self.trace(), self.engine().cluster());
        self.sim
            .facts
            .machines()
            .iter()
            .enumerate()
            .filter(|&(_, &m)| only.is_none() || c.machine_use(m) == only)
            .map(|(pos, &m)| {
                let (first, cap) = (c.first_gpu(m), c.cap(m) as usize);
                let mut jobs: Vec<u32> = Vec::new();
                let mut used = 0u64;
                for g in first..first + cap {
                    used += c.used_milli(g) as u64;
                    jobs.extend(c.holders(g).iter().map(|h| h.0));
                }
                jobs.sort_unstable();
                jobs.dedup();
                let util = self.machine_util(first, cap, &jobs);
                let machine = &trace.cluster.machines[m as usize];
                RankRow {
                    name: sanitize(&machine.name),
                    cells: vec![
                        sanitize(&trace.cluster.gpu_types[machine.gpu_type as usize]),
                        gpus(used as f64 / 1000.0),
                        cap.to_string(),
                        jobs.len().to_string(),
                        util.map_or("-".into(), |u| format!("{u:.0}")),
                    ],
                    keys: vec![
                        f64::NAN,
                        used as f64,
                        cap as f64,
                        jobs.len() as f64,
                        util.unwrap_or(f64::NAN),
                    ],
                    target: Target::Machine(pos),
                }
            })
            .collect()
    }

    /// A machine's measured GPU utilisation now, 0–100 % of its GPUs: the
    /// minute's per-GPU readings (Philly), else (PAI) what its jobs'
    /// sensors measured on the GPUs they hold here — each instance's
    /// `gpu_wrk_util` is per instance (100 = one GPU), so a job counts it
    /// once per instance's worth of GPUs it holds on the machine (it was
    /// the mean of the raw readings: 342 % on a machine of 8).
    fn machine_util(&self, first: usize, cap: usize, jobs: &[u32]) -> Option<f64> {
        if self.sim.measured.gpu_util().is_some() {
            return self.sim.measured.gpu_mean(first, cap);
        }
        let c = self.engine().cluster();
        let mut busy = 0.0;
        let mut known = false;
        for &j in jobs {
            let Some((u, per)) = self
                .sim
                .measured
                .job_util_of(&self.trace().jobs[j as usize])
            else {
                continue;
            };
            let held: u64 = (first..first + cap)
                .flat_map(|g| c.holders(g).iter())
                .filter(|h| h.0 == j)
                .map(|h| h.1 as u64)
                .sum();
            busy += u / 100.0 * (held as f64 / 1000.0) / per;
            known = true;
        }
        known.then(|| (busy / cap.max(1) as f64 * 100.0).min(100.0))
    }

    /// A key in the rankings: rows moved over, the table switched or
    /// sorted, a row chosen.
    pub(in crate::ui) fn rank_command(&mut self, by: RankBy, sort: usize, at: usize, c: Command) {
        use Command::*;
        let n = self.rank_rows(by, sort).len().max(1);
        let page = window(self.view.screen.size(), n, at).1;
        let (by, sort, at) = match c {
            // Machines by GPUs used first, users and groups by GPUs held.
            Left | Right => {
                let to = by.next(c == Left);
                (to, usize::from(to == RankBy::Machines), 0)
            }
            // Each column largest first, then each smallest first.
            Sort => (by, (sort + 1) % (2 * by.columns().len()), 0),
            Up | Down | PageUp | PageDown | Home | End => {
                (by, sort, super::popups::scrolled(at, c, page, n - 1))
            }
            Detail => return self.rank_choose(by, sort, at),
            _ => return,
        };
        self.view.popup = Some(super::popups::Popup::Rankings { by, sort, at });
    }

    /// Enter on row `at`: the lists filtered to it, or the cursor on it.
    pub(super) fn rank_choose(&mut self, by: RankBy, sort: usize, at: usize) {
        let Some(row) = self.rank_rows(by, sort).into_iter().nth(at) else {
            return;
        };
        self.view.popup = None;
        match row.target {
            Target::Filter(f) => self.set_filter(&f),
            Target::Machine(pos) => {
                self.view.selection.cursor_to(pos);
                self.view.focus = super::app::Focus::Grid;
                self.view.flash = Some(format!("machine {}", row.name));
            }
            Target::Nothing => {
                self.view.flash = Some(format!("{}: the trace names none to filter by", row.name));
            }
        }
    }
}

/// The rows a box of `area` shows, and the first of them for `at`.
pub(crate) fn window(area: (u16, u16), n: usize, at: usize) -> (usize, usize) {
    // The box: at most the screen less 4 rows; less its borders, head and foot.
    let shown = (area.1 as usize).saturating_sub(4 + 4).clamp(1, n.max(1));
    let first = (at + 1).saturating_sub(shown).min(n.saturating_sub(shown));
    (first, shown)
}

fn key(r: &RankRow, col: usize) -> f64 {
    match r.keys.get(col) {
        Some(k) if k.is_finite() => *k,
        _ => f64::NEG_INFINITY,
    }
}

/// `12`, `0.5`, `1.25` GPUs.
fn gpus(g: f64) -> String {
    if (g - g.round()).abs() < 1e-9 {
        format!("{g:.0}")
    } else {
        format!("{g:.2}")
    }
}
