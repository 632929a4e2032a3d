//! Moving the cursor, selecting jobs, finding, going to a time, the mouse,
//! and the drill-down's text.

use super::app::{App, Effect, Focus, Popup, PromptKind, Zoom};
use super::keymap::Command;
use super::layout::inner;
use super::{grid, queue};
use crate::trace::model::Secs;
use crate::trace::native::MachineSample;
use ratatui::layout::Rect;
use serde_json::{json, Value};

impl App {
    fn grid_inner(&self) -> Rect {
        inner(self.areas().grid)
    }

    /// Chooses one cell per machine when one per GPU would not fit (at the first size known).
    pub(super) fn fit_zoom(&mut self) {
        let inner = self.grid_inner();
        let saved = self.view.zoom;
        self.view.zoom = Zoom::Gpus;
        let fits = grid::layout(self, inner).fits(inner.height);
        self.view.zoom = if fits { Zoom::Gpus } else { Zoom::Machines };
        if saved != self.view.zoom {
            self.view.grid_scroll = 0;
        }
    }

    pub(super) fn navigate(&mut self, c: Command) {
        match self.view.focus {
            Focus::Grid => self.move_cursor(c),
            Focus::Queue => {
                let n = self.listed_len();
                if n == 0 {
                    return;
                }
                self.view.queue_pos = match c {
                    Command::Up => self.view.queue_pos.saturating_sub(1),
                    Command::Down => (self.view.queue_pos + 1).min(n - 1),
                    Command::PageUp => self.view.queue_pos.saturating_sub(10),
                    Command::PageDown => (self.view.queue_pos + 10).min(n - 1),
                    _ => self.view.queue_pos,
                };
                self.view.selected = self.listed_at(self.view.queue_pos);
            }
            Focus::Log => {}
        }
    }

    /// How many jobs the side pane lists (queue, then running): every one
    /// is reachable with the cursor.
    pub(super) fn listed_len(&self) -> usize {
        let l = super::filter::lists(self, 0);
        l.queued_n + l.running_n
    }

    /// The job at list position `pos` (queue, then running).
    pub(super) fn listed_at(&self, pos: usize) -> Option<u32> {
        let l = super::filter::lists(self, usize::MAX);
        if pos < l.queued_n {
            l.queued.get(pos).copied()
        } else {
            l.running.get(pos - l.queued_n).copied()
        }
    }

    /// `f`: only the jobs that match (of the lists; the grid dims the rest).
    fn set_filter(&mut self, text: &str) {
        match super::filter::Filter::parse(text) {
            Ok(f) => {
                let l = {
                    self.view.filter = Some(f);
                    super::filter::lists(self, 0)
                };
                self.view.queue_pos = 0;
                self.view.flash = Some(format!(
                    "filter '{}': {} waiting, {} running",
                    crate::trace::input::sanitize(text),
                    l.queued_n,
                    l.running_n
                ));
            }
            Err(e) => {
                self.warn(e.clone());
                self.view.flash = Some(e);
            }
        }
    }

    fn move_cursor(&mut self, c: Command) {
        let n = self.sim.machines.len();
        if n == 0 {
            return;
        }
        let inner = self.grid_inner();
        let lay = grid::layout(self, inner);
        let cur = lay.cells[self.view.cursor.min(n - 1)];
        let target = match c {
            Command::Left => self.view.cursor.saturating_sub(1),
            Command::Right => (self.view.cursor + 1).min(n - 1),
            Command::Up | Command::Down | Command::PageUp | Command::PageDown => {
                let rows = match c {
                    Command::Up => -1,
                    Command::Down => 1,
                    Command::PageUp => -(inner.height as i64).max(1),
                    _ => (inner.height as i64).max(1),
                };
                let want = (cur.row as i64 + rows).clamp(0, lay.rows as i64) as usize;
                // The machine nearest in column on the wanted row (or the nearest row with machines).
                lay.cells
                    .iter()
                    .min_by_key(|p| {
                        (
                            (p.row as i64 - want as i64).abs(),
                            (p.x as i64 - cur.x as i64).abs(),
                        )
                    })
                    .map_or(self.view.cursor, |p| p.pos)
            }
            _ => self.view.cursor,
        };
        self.view.cursor = target;
        self.scroll_to_cursor();
        self.follow_cursor_job();
    }

    pub(super) fn scroll_to_cursor(&mut self) {
        let inner = self.grid_inner();
        let lay = grid::layout(self, inner);
        if let Some(row) = lay.row_of(self.view.cursor) {
            let h = inner.height.max(1) as usize;
            if row < self.view.grid_scroll + 1 {
                self.view.grid_scroll = row.saturating_sub(1);
            } else if row >= self.view.grid_scroll + h {
                self.view.grid_scroll = row + 1 - h;
            }
        }
    }

    /// On the grid, the selected job is the largest holder on the cursor's machine.
    pub(super) fn follow_cursor_job(&mut self) {
        if self.view.focus != Focus::Grid {
            return;
        }
        let Some(&m) = self.sim.machines.get(self.view.cursor) else {
            return;
        };
        let c = self.engine().cluster();
        let base = c.first_gpu(m);
        let mut best: Option<(u32, u32)> = None;
        for k in 0..c.cap(m) as usize {
            for &(j, mi) in c.holders(base + k) {
                let e = best.get_or_insert((j, 0));
                if e.0 == j {
                    e.1 += mi as u32;
                } else if mi as u32 > e.1 {
                    *e = (j, mi as u32);
                }
            }
        }
        if let Some((j, _)) = best {
            self.view.selected = Some(j);
        }
    }

    /// Asks the runner for the selected job's records (`job_detail_read` opens its drill-down).
    pub(super) fn open_detail(&mut self) {
        let Some(job) = self.view.selected else {
            self.view.flash =
                Some("no job here: a busy machine has one, or Tab to the lists".into());
            return;
        };
        let at = self.sim.replay.now();
        self.emit(Effect::ReadJobDetail { job, at });
    }

    /// Asks the runner for the cursor machine's measurements (`machine_read` opens its drill-down).
    pub(super) fn open_machine(&mut self) {
        let Some(&machine) = self.sim.machines.get(self.view.cursor) else {
            return;
        };
        let at = self.sim.replay.now();
        self.emit(Effect::ReadMachine { machine, at });
    }

    /// Whether an answer asked for at `at` is still wanted: the replay has
    /// not moved and no popup opened meanwhile.
    fn fresh(&self, at: Secs) -> bool {
        at == self.sim.replay.now() && self.view.popup.is_none()
    }

    /// The job's records read: its drill-down opens.
    pub(super) fn job_detail_read(&mut self, job: u32, at: Secs, record: Value) -> bool {
        if !self.fresh(at) {
            return false;
        }
        let lines = self.detail_lines(job, record);
        let id = crate::trace::input::sanitize(&self.trace().jobs[job as usize].id);
        self.view.popup = Some(Popup::Detail {
            title: format!("job {id}"),
            lines,
            scroll: 0,
        });
        true
    }

    /// The machine's measurements read: its drill-down opens.
    pub(super) fn machine_read(
        &mut self,
        m: u32,
        at: Secs,
        samples: Vec<(&'static str, MachineSample)>,
    ) -> bool {
        if !self.fresh(at) {
            return false;
        }
        let lines = self.machine_lines(m, samples);
        let name = crate::trace::input::sanitize(&self.trace().cluster.machines[m as usize].name);
        self.view.popup = Some(Popup::Detail {
            title: format!("machine {name}"),
            lines,
            scroll: 0,
        });
        true
    }

    /// The machine drill-down: what it is, who holds each GPU now, and what
    /// the trace measured on it (Philly's utilisation files, PAI's spec;
    /// `samples` as `NativeTables::machine_samples` read them).
    pub fn machine_lines(
        &self,
        m: u32,
        samples: Vec<(&'static str, MachineSample)>,
    ) -> Vec<String> {
        let trace = self.trace();
        let mach = &trace.cluster.machines[m as usize];
        let c = self.engine().cluster();
        let base = c.first_gpu(m);
        let now = self.sim.replay.now();
        let mut gpus = Vec::new();
        for k in 0..mach.gpus as usize {
            let holders: Vec<String> = c
                .holders(base + k)
                .iter()
                .map(|&(j, mi)| {
                    format!(
                        "{} ({:.2})",
                        crate::trace::input::sanitize(&trace.jobs[j as usize].id),
                        mi as f64 / 1000.0
                    )
                })
                .collect();
            let util = self
                .sim
                .gpu_util
                .as_ref()
                .and_then(|(_, u)| u.get(base + k).copied())
                .filter(|x| x.is_finite());
            let measured = util.map_or(String::new(), |u| format!(" · measured {u:.1} %"));
            gpus.push(format!(
                "gpu{k}: {}{measured}",
                if holders.is_empty() {
                    "free".into()
                } else {
                    holders.join(", ")
                }
            ));
        }
        let mut v = json!({
            "machine": crate::trace::input::sanitize(&mach.name),
            "gpu_type": crate::trace::input::sanitize(&trace.cluster.gpu_types[mach.gpu_type as usize]),
            "gpus": mach.gpus,
            "at": self.clock(now),
            "gpus_now": gpus,
        });
        if mach.cpus > 0 {
            v["cpus"] = json!(mach.cpus);
        }
        if mach.mem_gb > 0 {
            v["mem_gb"] = json!(mach.mem_gb);
        }
        if mach.recorded_only {
            v["note"] =
                json!("named by the record but not in the machine list: replayed as recorded only");
        }
        for (name, sample) in samples {
            v[name] = match sample {
                MachineSample::Indexing(p) => json!(format!("indexing… {:.0} %", p * 100.0)),
                MachineSample::At { when, values } => {
                    let mut o = serde_json::Map::new();
                    o.insert("time".into(), json!(self.clock(when)));
                    for (c, x) in values {
                        o.insert(c, x.map_or(Value::Null, |x| json!(x)));
                    }
                    Value::Object(o)
                }
                MachineSample::Missing => json!("no row within two minutes"),
            };
        }
        crate::fmt::json_text(&v)
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// The drill-down: what the replay knows now, then all the trace
    /// records (`record`, as `trace::detail::of_job` read it).
    pub fn detail_lines(&self, job: u32, record: Value) -> Vec<String> {
        let trace = self.trace();
        let e = self.engine();
        let st = e.job_state(job);
        let j = &trace.jobs[job as usize];
        // GPUs held now, per machine: `n0003: gpu 0, 1, 2 (0.50)`.
        let mut held: Vec<String> = Vec::new();
        if let Some(grants) = e.running().get(&job) {
            let mut i = 0;
            while i < grants.len() {
                let m = grants[i].machine;
                let name = crate::trace::input::sanitize(&trace.cluster.machines[m as usize].name);
                let mut gpus = Vec::new();
                while i < grants.len() && grants[i].machine == m {
                    let g = grants[i];
                    gpus.push(if g.milli >= 1000 {
                        g.gpu.to_string()
                    } else {
                        format!("{} ({:.2})", g.gpu, g.milli as f64 / 1000.0)
                    });
                    i += 1;
                }
                held.push(format!("{name}: gpu {}", gpus.join(", ")));
            }
        }
        let phase = format!("{:?}", st.phase).to_lowercase();
        let when = |t: i64| self.clock(t);
        // Durations as the lists say them, with the exact seconds.
        let dur = |s: i64| match s {
            0..60 => format!("{s}s"),
            _ => format!("{} ({s} s)", crate::fmt::human_secs(s as f64)),
        };
        let mut replay = json!({
            "phase": phase,
            "submitted": when(j.submit),
            "gpus": super::queue::fmt_gpus(j.gpus_display()),
            "run_time": j.runtime.map(dur),
        });
        if matches!(
            st.phase,
            crate::sim::Phase::Running | crate::sim::Phase::Done
        ) {
            replay["started"] = json!(when(st.start));
            replay["waited"] = json!(dur(st.start - j.submit));
        }
        if st.phase == crate::sim::Phase::Done {
            replay["finished"] = json!(when(st.end));
        }
        if !held.is_empty() {
            replay["holds"] = json!(held);
            if record.to_string().contains("gpu_name") {
                // The trace's sensor rows name devices (`/dev/nvidia1`).
                replay["holds_note"] =
                    json!("gpu N: this replay's placement; the trace's devices: gpu_name below");
            }
        }
        if e.power_policy().is_some() {
            let (w, how) = crate::sim::energy::workload_of(trace, j);
            let (d, n) = crate::sim::energy::WORKLOADS[w];
            let how = match how {
                crate::sim::energy::Mapped::ByName => "by model name",
                crate::sim::energy::Mapped::ByGpuTime => "by GPU-hours",
            };
            replay["zeus_workload"] = json!(format!("{d}/{n} ({how})"));
            let ran = match st.phase {
                crate::sim::Phase::Running | crate::sim::Phase::Done => Some(st.end - st.start),
                _ => None,
            };
            if let (Some(ran), Some(rt)) = (ran, j.runtime) {
                if ran != rt && e.policy() != crate::sim::Policy::Recorded {
                    replay["run_time_under_power_limit"] = json!(dur(ran));
                }
            }
        }
        if let Some(p) = e.job_power(job) {
            replay["power_limit_w"] = json!(p.limit);
            if p.watts > 0.0 {
                replay["power_now_w"] = json!((p.watts * 10.0).round() / 10.0);
            }
            replay["energy_kwh"] =
                json!((crate::sim::energy::kwh(p.joules) * 1000.0).round() / 1000.0);
        } else if let Some(d) = e.draw_of(job) {
            // Not started yet: what it would get under the current power policy.
            replay["power_limit_w"] = json!(d.limit);
        }
        let all = json!({ "in this replay": replay, "as recorded": record });
        crate::fmt::json_text(&all)
            .lines()
            .map(str::to_string)
            .collect()
    }

    pub(super) fn submit_prompt(&mut self) {
        let Some(Popup::Prompt { kind, input }) = self.view.popup.take() else {
            return;
        };
        let input = input.trim().to_string();
        if input.is_empty() {
            if kind == PromptKind::Filter && self.view.filter.take().is_some() {
                self.view.flash = Some("filter cleared".into());
            }
            return;
        }
        match kind {
            PromptKind::Goto => {
                let tr = self.trace().clone();
                match crate::trace::clock::parse_when(
                    tr.zone,
                    self.sim.first,
                    self.sim.replay.now(),
                    &input,
                ) {
                    Ok(t) => {
                        let start = self.sim.first - 1;
                        self.move_to(t.max(start));
                        self.view.flash = Some(format!("at {}", self.clock(self.sim.replay.now())));
                    }
                    Err(e) => {
                        self.warn(format!("go to: {e}"));
                        self.view.flash = Some(e);
                    }
                }
            }
            PromptKind::Find => self.find(&input),
            PromptKind::Filter => self.set_filter(&input),
        }
    }

    /// A click: on the grid, the machine under it; on the lists, the job.
    pub(super) fn click(&mut self, column: u16, row: u16) -> bool {
        if !self.view.mouse || self.view.popup.is_some() {
            return false;
        }
        let inner = self.grid_inner();
        let lay = grid::layout(self, inner);
        if let Some(pos) = lay.machine_at(self, inner, self.view.grid_scroll, column, row) {
            self.view.cursor = pos;
            self.view.focus = Focus::Grid;
            self.follow_cursor_job();
            return true;
        }
        let side = super::layout::inner(self.areas().side);
        if side.contains(ratatui::layout::Position::new(column, row)) {
            if let Some(pos) = queue::Side::of(self, side).pos_at(row) {
                self.view.focus = Focus::Queue;
                self.view.queue_pos = pos;
                self.view.selected = self.listed_at(pos);
                return true;
            }
        }
        false
    }

    /// The wheel scrolls the pane under the pointer: the lists move their
    /// cursor, the grid its rows (never past its last screenful).
    pub(super) fn scroll(&mut self, column: u16, row: u16, d: i32) -> bool {
        if !self.view.mouse || self.view.popup.is_some() {
            return false;
        }
        let at = ratatui::layout::Position::new(column, row);
        if self.areas().side.contains(at) {
            let n = self.listed_len().max(1);
            self.view.focus = Focus::Queue;
            self.view.queue_pos =
                (self.view.queue_pos as i64 + d as i64).clamp(0, n as i64 - 1) as usize;
            self.view.selected = self.listed_at(self.view.queue_pos);
            return true;
        }
        if self.areas().grid.contains(at) {
            let inner = self.grid_inner();
            let rows = grid::layout(self, inner).rows;
            let last = rows.saturating_sub(inner.height as usize);
            self.view.grid_scroll =
                (self.view.grid_scroll as i64 + d as i64).clamp(0, last as i64) as usize;
            return true;
        }
        false
    }
}
