//! A job's drill-down: what the replay knows of it now, then everything
//! the trace records about it.

use super::app::App;
use serde_json::{json, Value};

impl App {
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
                let name = crate::text::sanitize(&trace.cluster.machines[m as usize].name);
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
            "run_time": j.runtime.get().map(dur),
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
            if let (Some(ran), Some(rt)) = (ran, j.runtime.get()) {
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
}
