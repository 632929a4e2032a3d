//! The machine drill-down (`i`): its lines (who holds each GPU now, what
//! the trace measured there), its GPU rows to pick, and Enter on one.

use super::app::{App, Effect, Popup};
use crate::trace::{MachineSample, Secs};
use serde_json::{json, Value};

impl App {
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
        let picks = self.gpu_picks(m, &lines);
        let name = crate::text::sanitize(&self.trace().cluster.machines[m as usize].name);
        self.view.popup = Some(Popup::Detail {
            title: format!("machine {name}"),
            lines,
            scroll: 0,
            job: None,
            picks,
            pick: 0,
        });
        true
    }

    /// A machine drill-down's GPU rows (`- gpu3: …`) and the job holding
    /// most of each GPU.
    fn gpu_picks(&self, m: u32, lines: &[String]) -> Vec<(usize, Option<u32>)> {
        let c = self.engine().cluster();
        let base = c.first_gpu(m);
        (0..c.cap(m) as usize)
            .filter_map(|k| {
                let tag = format!("- gpu{k}: ");
                let line = lines
                    .iter()
                    .position(|l| l.trim_start().starts_with(&tag))?;
                let top = c
                    .holders(base + k)
                    .iter()
                    .max_by_key(|h| (h.1, std::cmp::Reverse(h.0)));
                Some((line, top.map(|h| h.0)))
            })
            .collect()
    }

    /// Enter on a machine's GPU row: its job's drill-down.
    pub(super) fn open_picked(&mut self, job: Option<u32>, gpu: usize) {
        match job {
            Some(job) => {
                self.view.selection.select(job);
                self.view.popup = None;
                let at = self.sim.replay.now();
                self.emit(Effect::ReadJobDetail { job, at });
            }
            None => self.view.flash = Some(format!("gpu{gpu} is free")),
        }
    }

    /// The machine drill-down: what it is, who holds each GPU now, and what
    /// the trace measured on it (Philly's utilisation files, PAI's spec;
    /// `samples` as `NativeTables::machine_samples` read them).
    pub(crate) fn machine_lines(
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
                        crate::text::sanitize(&trace.jobs[j as usize].id),
                        mi as f64 / 1000.0
                    )
                })
                .collect();
            let util = self
                .sim
                .measured
                .gpu_util()
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
            "machine": crate::text::sanitize(&mach.name),
            "gpu_type": crate::text::sanitize(&trace.cluster.gpu_types[mach.gpu_type as usize]),
            "gpus": mach.gpus,
            "at": self.clock(now),
            "gpus_now": gpus,
        });
        if mach.cpu_milli > 0 {
            v["cpus"] = json!(mach.cpu_milli as f64 / 1000.0);
        }
        if mach.mem_mib > 0 {
            v["mem_gib"] = json!(mach.mem_mib as f64 / 1024.0);
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
                        o.insert(c, x.map_or(Value::Null, measured_json));
                    }
                    Value::Object(o)
                }
                MachineSample::Missing => json!("no row for this minute"),
            };
        }
        crate::trace::json_text(&v)
            .lines()
            .map(str::to_string)
            .collect()
    }
}

/// A measured value as the file wrote it: a whole number as one, else the
/// shortest decimal that reads back as the same `f32` (not its `f64`
/// expansion, `10.936579704284668`).
fn measured_json(x: f32) -> Value {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        return json!(x as i64);
    }
    x.to_string()
        .parse::<f64>()
        .map_or(Value::Null, |v| json!(v))
}
