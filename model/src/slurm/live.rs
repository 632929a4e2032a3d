//! A Slurm cluster now, as a trace to replay from this second: the nodes
//! `scontrol show node -o` prints, the jobs `squeue --json` holds.
//!
//! - a running job holds the nodes and GPUs Slurm gave it (`nodes`, and
//!   `gres_detail`'s `IDX` lists) from its start; it is modelled to run to
//!   its time limit (Slurm's own planned end), or on without one;
//! - a pending job waits from its submission, asking what `tres_req_str`
//!   (`tres_alloc_str`) asks, for as long as its time limit;
//! - jobs squeue still holds that have ended (it keeps them `MinJobAge`)
//!   are left out; the reason Slurm gives a waiting job is kept.
//!
//! Reads the openapi v0.0.38 shapes (Slurm 22.05: plain numbers) and the
//! later ones (`{"set", "infinite", "number"}`, states as lists).

use super::hostlist::expand;
use super::values::Unreadable;
use crate::input::{InputError, LoadReport};
use crate::model::{Cluster, Demand, Job, JobStatus, MaybeSecs, Segment, Symbols, Trace, Zone};
use serde_json::Value;

/// A number squeue gives: a plain one, or `{"set": true, "number": N}`;
/// none when not set, infinite or absurd (a time limit of years).
fn number(v: &Value) -> Option<i64> {
    let n = match v {
        Value::Object(o) => {
            let set = o.get("set").and_then(Value::as_bool).unwrap_or(true);
            let inf = o.get("infinite").and_then(Value::as_bool).unwrap_or(false);
            if !set || inf {
                return None;
            }
            o.get("number")?.as_i64()?
        }
        _ => v.as_i64()?,
    };
    (0..=crate::limits::MAX_SECS).contains(&n).then_some(n)
}

/// A text squeue gives: a string, or the first of a list (later states).
fn text(v: &Value) -> &str {
    match v {
        Value::Array(a) => a.first().and_then(Value::as_str).unwrap_or(""),
        _ => v.as_str().unwrap_or(""),
    }
}

/// GPU indices on one node from a `gres_detail` entry
/// (`gpu:a100:2(IDX:1-2)`), as a bit set; 0 where none are named.
fn gpu_bits(detail: &str) -> u64 {
    let Some(idx) = detail.split("IDX:").nth(1) else {
        return 0;
    };
    let idx = idx.trim_end_matches(')');
    let mut bits = 0u64;
    for part in idx.split(',') {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        if let (Ok(a), Ok(b)) = (a.parse::<u32>(), b.parse::<u32>()) {
            for g in a..=b.min(63) {
                bits |= 1 << g;
            }
        }
    }
    bits
}

/// One job squeue holds, as the live trace keeps it.
#[derive(Debug, Clone)]
pub(crate) struct LiveJob {
    pub id: String,
    pub name: String,
    pub state: String,
    pub reason: String,
    pub partition: String,
    pub nodes: String,
}

/// The jobs of the live view, beside the model: their states and reasons.
#[derive(Debug, Default)]
pub(crate) struct LiveTables {
    pub jobs: Vec<LiveJob>,
}

/// The job's id as squeue shows it: `56_3` for an array task, the
/// pending array's `56_[0-3]`, else the number.
fn job_id(j: &Value) -> String {
    let id = number(&j["job_id"]).unwrap_or(0);
    let array = number(&j["array_job_id"]).unwrap_or(0);
    let task = number(&j["array_task_id"]);
    let tasks = j["array_task_string"].as_str().unwrap_or("");
    match (array, task) {
        (0, _) => id.to_string(),
        (a, Some(t)) => format!("{a}_{t}"),
        (a, None) if !tasks.is_empty() => format!("{a}_[{tasks}]"),
        (a, None) => a.to_string(),
    }
}

/// The jobs held, into `b`: running and pending ones (`Err`: a field
/// squeue printed that cannot be read).
fn jobs(doc: &Value, b: &mut Build) -> Result<(), Unreadable> {
    let list = doc["jobs"]
        .as_array()
        .ok_or_else(|| Unreadable("no \"jobs\" list: not squeue --json output".into()))?;
    for j in list {
        let state = text(&j["job_state"]).to_string();
        let running = matches!(state.as_str(), "RUNNING" | "COMPLETING" | "SUSPENDED");
        if !running && state != "PENDING" {
            b.ended += 1;
            continue;
        }
        let tres = j["tres_alloc_str"]
            .as_str()
            .filter(|s| !s.is_empty())
            .or(j["tres_req_str"].as_str())
            .unwrap_or("");
        let Some((gpus, _)) = super::values::gpus(tres)? else {
            b.cpu += 1;
            continue;
        };
        let limit = number(&j["time_limit"]).map(|m| m * 60);
        let submit = number(&j["submit_time"]).unwrap_or(b.now);
        let start = number(&j["start_time"]).filter(|_| running);
        let nodes = if running {
            expand(j["nodes"].as_str().unwrap_or(""))?
        } else {
            Vec::new()
        };
        let details: Vec<&str> = j["gres_detail"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        b.add(j, gpus, (submit, start, limit), &nodes, &details);
        b.tables.jobs.push(LiveJob {
            id: job_id(j),
            name: crate::text::sanitize(j["name"].as_str().unwrap_or("")),
            state,
            reason: crate::text::sanitize(text(&j["state_reason"])),
            partition: crate::text::sanitize(j["partition"].as_str().unwrap_or("")),
            nodes: crate::text::sanitize(j["nodes"].as_str().unwrap_or("")),
        });
    }
    Ok(())
}

/// The live trace as it is built.
struct Build {
    now: i64,
    symbols: Symbols,
    jobs: Vec<Job>,
    segments: Vec<Segment>,
    tables: LiveTables,
    index: rustc_hash::FxHashMap<String, u32>,
    ended: u64,
    cpu: u64,
}

impl Build {
    /// One job of `gpus` GPUs, submitted, started (if running) and limited
    /// as `times` say, on `nodes` with their `gres_detail` entries.
    fn add(
        &mut self,
        j: &Value,
        gpus: u32,
        times: (i64, Option<i64>, Option<i64>),
        nodes: &[String],
        details: &[&str],
    ) {
        let (submit, start, limit) = times;
        let first = self.segments.len() as u32;
        if let Some(s) = start {
            let each = super::spread(nodes, gpus);
            for (k, (node, g)) in each.into_iter().enumerate() {
                let bits = details.get(k).map_or(0, |d| gpu_bits(d));
                let bits = if bits.count_ones() == g { bits } else { 0 };
                self.segments.push(Segment {
                    start: s,
                    end: limit.map(|l| s + l).into(),
                    machine: self.index.get(&node).copied().into(),
                    milli: g.saturating_mul(1000),
                    gpus: bits,
                });
            }
        }
        let mut sym = |k: &str| {
            j[k].as_str()
                .filter(|s| !s.is_empty())
                .map(|s| self.symbols.intern(&crate::text::sanitize(s)))
        };
        let (user, group) = (sym("user_name"), sym("account"));
        let row = self.jobs.len() as u32;
        self.jobs.push(Job {
            id: job_id(j).into(),
            user,
            group,
            submit: submit.min(start.unwrap_or(submit)),
            runtime: limit.into(),
            demand: Demand::Gang { gpus },
            gpu_type: None,
            status: JobStatus::Unfinished,
            requested: limit.into(),
            deadline: MaybeSecs::NONE,
            model: None,
            segments: first..self.segments.len() as u32,
            native_row: row,
            cpu_milli: 0,
            mem_mib: 0,
            any_of_types: 0,
        });
    }
}

/// The cluster now: `nodes` (`scontrol show node -o`), `squeue` (`squeue
/// --json`), read at Unix second `now`, shown in `zone`. `source` names
/// them in messages.
pub fn live(
    nodes: &str,
    squeue: &[u8],
    now: i64,
    zone: chrono_tz::Tz,
    source: &str,
) -> Result<(Trace, LoadReport), InputError> {
    let listed = super::nodes::parse(nodes, "scontrol show node -o")?;
    let mut cluster = Cluster {
        origin: format!("cluster: {} nodes from scontrol show node -o", listed.len()),
        ..Cluster::default()
    };
    for n in &listed {
        let ty = cluster.type_id(n.gpu_type.as_deref().unwrap_or("GPU"));
        cluster.machines.push(crate::model::Machine {
            name: n.name.clone(),
            gpu_type: ty,
            gpus: n.gpus,
            cpu_milli: n.cpus.saturating_mul(1000),
            mem_mib: n.mem_mb.min(u32::MAX as u64) as u32,
            recorded_only: false,
        });
    }
    let doc: Value = serde_json::from_slice(squeue)
        .map_err(|e| InputError::file("squeue --json", format!("not JSON: {e}")))?;
    let mut b = Build {
        now,
        symbols: Symbols::default(),
        jobs: Vec::new(),
        segments: Vec::new(),
        tables: LiveTables::default(),
        index: cluster
            .machines
            .iter()
            .enumerate()
            .map(|(i, m)| (m.name.clone(), i as u32))
            .collect(),
        ended: 0,
        cpu: 0,
    };
    jobs(&doc, &mut b).map_err(|m| InputError::file("squeue --json", m.0))?;
    let mut report = LoadReport::default();
    report.note(format!(
        "{source}: {} jobs running or waiting ({} that ended and {} CPU jobs left out)",
        b.jobs.len(),
        b.ended,
        b.cpu
    ));
    Ok((
        Trace {
            format: "slurm",
            source: source.to_string(),
            cluster,
            jobs: b.jobs,
            segments: b.segments,
            symbols: b.symbols,
            zone: Zone::Tz(zone),
            excluded: Vec::new(),
            native: Some(std::sync::Arc::new(b.tables)),
            speeds: None,
        },
        report,
    ))
}

impl crate::native::NativeTables for LiveTables {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn job_detail(&self, _trace: &Trace, job: &Job, _side: bool) -> Value {
        let Some(j) = self.jobs.get(job.native_row as usize) else {
            return Value::Null;
        };
        serde_json::json!({
            "JobID": j.id,
            "JobName": j.name,
            "State": j.state,
            "Reason": j.reason,
            "Partition": j.partition,
            "NodeList": j.nodes,
        })
    }

    fn job_by_id(
        &self,
        trace: &Trace,
        id: &str,
    ) -> Result<Option<(Value, Vec<String>)>, InputError> {
        Ok(trace
            .jobs
            .iter()
            .find(|j| &*j.id == id)
            .map(|j| (self.job_detail(trace, j, false), Vec::new())))
    }

    fn waiting_reason(&self, job: &Job) -> Option<String> {
        let j = self.jobs.get(job.native_row as usize)?;
        let given = !j.reason.is_empty() && j.reason != "None";
        (j.state == "PENDING").then(|| {
            if given {
                j.reason.clone()
            } else {
                "none given yet (just submitted)".to_string()
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NODES: &str = "NodeName=vm CPUTot=32 RealMemory=23081 Gres=gpu:a100:8 CfgTRES=cpu=32,mem=23081M,billing=32,gres/gpu=8,gres/gpu:a100=8\n";

    #[test]
    fn running_jobs_hold_their_gpus_and_waiting_ones_keep_slurm_s_reason() {
        let squeue = br#"{"jobs": [
          {"job_id": 51, "array_job_id": 0, "array_task_id": null, "name": "ft-2", "user_name": "bob", "account": "nlp",
           "partition": "gpu", "job_state": "RUNNING", "state_reason": "None", "submit_time": 1795866428,
           "start_time": 1795866443, "time_limit": 60, "nodes": "vm", "gres_detail": ["gpu:a100:2(IDX:1-2)"],
           "tres_alloc_str": "cpu=1,mem=512M,node=1,billing=1,gres/gpu=2,gres/gpu:a100=2"},
          {"job_id": 56, "array_job_id": 56, "array_task_id": null, "array_task_string": "0-3", "name": "sweep",
           "user_name": "alice", "account": "vision", "partition": "debug", "job_state": "PENDING",
           "state_reason": "Priority", "submit_time": 1795866428, "start_time": 0, "time_limit": 5, "nodes": "",
           "tres_alloc_str": "cpu=1,mem=512M,node=1,billing=1,gres/gpu=1"},
          {"job_id": 49, "array_job_id": 0, "job_state": "COMPLETED", "tres_alloc_str": "gres/gpu=8"},
          {"job_id": 57, "array_job_id": 0, "job_state": "PENDING", "tres_alloc_str": "cpu=4"},
          {"job_id": 60, "array_job_id": 0, "name": "new", "user_name": "bob", "account": "nlp",
           "job_state": ["RUNNING"], "state_reason": "None", "submit_time": {"set": true, "number": 1795866500},
           "start_time": {"set": true, "number": 1795866510}, "time_limit": {"set": false, "infinite": true},
           "nodes": "vm", "gres_detail": [], "tres_alloc_str": "gres/gpu=1"}
        ]}"#;
        let (t, report) = live(NODES, squeue, 1795866600, chrono_tz::UTC, "slurm now").unwrap();
        let ids: Vec<&str> = t.jobs.iter().map(|j| &*j.id).collect();
        assert_eq!(ids, ["51", "56_[0-3]", "60"]);
        let s = &t.job_segments(&t.jobs[0])[0];
        assert_eq!(
            (s.start, s.end.get(), s.machine.get(), s.gpus),
            (1795866443, Some(1795866443 + 3600), Some(0), 0b110)
        );
        assert_eq!(t.jobs[1].runtime, Some(300));
        assert!(t.job_segments(&t.jobs[1]).is_empty());
        let n = t.native.as_ref().unwrap();
        assert_eq!(n.waiting_reason(&t.jobs[1]).as_deref(), Some("Priority"));
        assert_eq!(n.waiting_reason(&t.jobs[0]), None);
        assert_eq!(
            t.job_segments(&t.jobs[2])[0].end,
            MaybeSecs::NONE,
            "no limit: runs on"
        );
        assert_eq!(t.cluster.total_gpus(), 8);
        assert!(
            report.notes[0].contains("1 that ended and 1 CPU jobs left out"),
            "{:?}",
            report.notes
        );
    }

    #[test]
    fn what_is_not_squeue_json_says_so() {
        let e = live(NODES, b"oops", 0, chrono_tz::UTC, "s").unwrap_err();
        assert!(e.to_string().contains("not JSON"), "{e}");
        let e = live(NODES, b"{}", 0, chrono_tz::UTC, "s").unwrap_err();
        assert!(e.to_string().contains("not squeue --json output"), "{e}");
        let e = live("hello\n", b"{}", 0, chrono_tz::UTC, "s").unwrap_err();
        assert!(e.to_string().contains("NodeName="), "{e}");
    }
}
