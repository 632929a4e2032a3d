//! A job's drill-down: what the replay knows of it now, then everything
//! the trace records about it.

use super::app::App;
use crate::sim::KeyMeaning;
use serde_json::{json, Value};

impl App {
    /// The drill-down: what the replay knows now, then all the trace
    /// records (`record`, as `trace::detail_of_job` read it).
    pub fn detail_lines(&self, job: u32, record: Value) -> Vec<String> {
        let trace = self.trace();
        let e = self.engine();
        let st = e.job_state(job);
        let j = &trace.jobs[job as usize];
        let held = self.held_gpus(job);
        let phase = format!("{:?}", st.phase).to_lowercase();
        let when = |t: i64| self.clock(t);
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
        if st.phase == crate::sim::Phase::Queued {
            replay["waiting_for"] = json!(dur(e.now() - j.submit));
        }
        if let Some(place) = e.queue_place(job) {
            let policy = e.policy();
            replay["policy_key"] = json!(self.key_text(policy.key_meaning(), place.key));
            replay["order"] = json!(super::job_card::order_text(
                policy.title(),
                place,
                policy.walk() == crate::sim::Walk::Explicit,
            ));
        }
        if !held.is_empty() {
            replay["holds"] = json!(held);
            if record.to_string().contains("gpu_name") {
                // The trace's sensor rows name devices (`/dev/nvidia1`).
                replay["holds_note"] =
                    json!("gpu N: this replay's placement; the trace's devices: gpu_name below");
            }
        }
        self.speed_detail(job, &mut replay);
        self.power_detail(job, &mut replay);
        let all = json!({ "in this replay": replay, "as recorded": record });
        let mut lines = self.job_card(job);
        lines.push(String::new());
        lines.push("── the replay's and the trace's records ──".into());
        lines.extend(crate::trace::json_text(&all).lines().map(str::to_string));
        lines
    }

    /// The GPUs `job` holds now, a line per machine: `n0003: gpu 0, 1, 2
    /// (0.50)`, with the CPU and memory it holds there where it asks them
    /// (`ps1: no GPU · 6 cores, 30 GiB`).
    fn held_gpus(&self, job: u32) -> Vec<String> {
        let trace = self.trace();
        let mut held: Vec<String> = Vec::new();
        if let Some(grants) = self.engine().running().get(&job) {
            let mut i = 0;
            while i < grants.len() {
                let m = grants[i].machine;
                let name = crate::text::sanitize(&trace.cluster.machines[m as usize].name);
                let (mut gpus, mut cpu, mut mem) = (Vec::new(), 0u64, 0u64);
                while i < grants.len() && grants[i].machine == m {
                    let g = grants[i];
                    (cpu, mem) = (cpu + g.cpu_milli as u64, mem + g.mem_mib as u64);
                    match g.milli {
                        _ if !g.has_gpu() => {}
                        1000.. => gpus.push(g.gpu.to_string()),
                        _ => gpus.push(format!("{} ({:.2})", g.gpu, g.milli as f64 / 1000.0)),
                    }
                    i += 1;
                }
                let mut line = match gpus.is_empty() {
                    true => format!("{name}: no GPU"),
                    false => format!("{name}: gpu {}", gpus.join(", ")),
                };
                if cpu > 0 || mem > 0 {
                    line.push_str(&format!(" · {}", host_text(cpu, mem)));
                }
                held.push(line);
            }
        }
        held
    }

    /// Under a power model: the job's workload, its run time under the
    /// power limit, its limit, power and energy (or, not started, the
    /// limit it would get).
    fn power_detail(&self, job: u32, replay: &mut Value) {
        let trace = self.trace();
        let e = self.engine();
        let st = e.job_state(job);
        let j = &trace.jobs[job as usize];
        if e.power_policy().is_some() {
            let (w, how) = crate::sim::workload_of(trace, j);
            let (d, n) = crate::trace::WORKLOADS[w];
            let how = match how {
                crate::sim::Mapped::ByName => "by model name",
                crate::sim::Mapped::ByGpuTime => "by GPU-hours",
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
            replay["energy_kwh"] = json!((crate::sim::kwh(p.joules) * 1000.0).round() / 1000.0);
        } else if let Some(d) = e.draw_of(job) {
            // Not started yet: what it would get under the current power policy.
            replay["power_limit_w"] = json!(d.limit);
        }
    }

    /// Under a speed model: the work done and left, the speed now, the
    /// deadline and the slack to it.
    fn speed_detail(&self, job: u32, replay: &mut Value) {
        let e = self.engine();
        let j = &self.trace().jobs[job as usize];
        let p = e.progress(job);
        let signed = |s: i64| {
            let sign = if s < 0 { "-" } else { "+" };
            format!(
                "{sign}{} ({s} s)",
                crate::trace::human_secs(s.unsigned_abs() as f64)
            )
        };
        if let Some(p) = p {
            let done = p.work - p.left;
            if p.iterations {
                replay["iterations"] = json!(format!(
                    "{} done of {} ({} left)",
                    done.floor(),
                    p.work.floor(),
                    p.left.ceil()
                ));
            } else {
                replay["recorded_run_done"] = json!(format!(
                    "{} s of {} s ({} s left)",
                    done.floor(),
                    p.work,
                    p.left.ceil()
                ));
            }
            if let Some(r) = p.rate {
                replay["speed_now"] = json!(match p.iterations {
                    true => format!("{r:.3} iterations/s on {} GPUs", p.gpus),
                    false => format!("{r:.3} × its recorded speed"),
                });
            }
        }
        let Some(d) = j.deadline.get() else { return };
        replay["deadline"] = json!(self.clock(d));
        let st = e.job_state(job);
        match st.phase {
            crate::sim::Phase::Done => {
                let how = if st.end <= d { "met" } else { "missed" };
                replay["deadline_kept"] = json!(format!("{how}: {}", signed(d - st.end)));
            }
            crate::sim::Phase::Dropped => {
                replay["deadline_kept"] = json!("missed: dropped");
            }
            _ => {
                let left = e.secs_to_end(job);
                if let Some(left) = left {
                    let how = match st.phase {
                        crate::sim::Phase::Running => "at its speed now",
                        _ => "if it started now on the GPUs it asks for",
                    };
                    replay["slack"] = json!(format!("{} {how}", signed(d - e.now() - left)));
                }
            }
        }
    }

    /// A waiting job's key as its policy means it (lower goes first).
    fn key_text(&self, meaning: KeyMeaning, key: u64) -> String {
        let signed = (key ^ (1 << 63)) as i64;
        let secs = |s: u64| format!("{} ({s} s)", crate::trace::human_secs(s as f64));
        match (meaning, key) {
            (KeyMeaning::Arrival, _) => "none: arrival order".into(),
            (KeyMeaning::Seconds(what), u64::MAX) => format!("{what} unknown: last"),
            (KeyMeaning::Seconds(what), k) => format!("{what} {}", secs(k)),
            (KeyMeaning::Deadline, u64::MAX) => "no deadline: last".into(),
            (KeyMeaning::Deadline, _) => format!("deadline {}", self.clock(signed)),
            (KeyMeaning::GpuTime, u64::MAX) => "GPU time unknown: last".into(),
            (KeyMeaning::GpuTime, k) => {
                format!("GPU time {}", crate::trace::human_secs(k as f64 / 1000.0))
            }
            (KeyMeaning::Level, k) => format!("queue {k} (0 goes first)"),
            (KeyMeaning::OwnerShare, k) => {
                format!("its owner holds {:.2} GPUs", k as f64 / 1000.0)
            }
            (KeyMeaning::Signed, _) => format!("{signed} (lower goes first)"),
            (KeyMeaning::Number, k) => format!("{k} (lower goes first)"),
        }
    }
}

/// Durations as the lists say them, with the exact seconds.
fn dur(s: i64) -> String {
    match s {
        0..60 => format!("{s}s"),
        _ => format!("{} ({s} s)", crate::trace::human_secs(s as f64)),
    }
}

/// CPU (milli-cores) and memory (MiB) as a person reads them: `6 cores,
/// 30 GiB`, `0.5 cores, 512 MiB`.
pub(crate) fn host_text(cpu_milli: u64, mem_mib: u64) -> String {
    let cores = cpu_milli as f64 / 1000.0;
    let cores = match cpu_milli % 1000 {
        0 => format!("{cores:.0} cores"),
        _ => format!("{cores:.1} cores"),
    };
    let mem = match mem_mib {
        m if m >= 1024 && m % 1024 == 0 => format!("{} GiB", m / 1024),
        m if m >= 1024 => format!("{:.1} GiB", m as f64 / 1024.0),
        m => format!("{m} MiB"),
    };
    format!("{cores}, {mem}")
}
