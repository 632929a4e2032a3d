//! Writing the generated tables in the released layout: headerless CSV,
//! times as `4550879.0`, empty fields where the release leaves them empty;
//! with `--tar-gz`, each as the released `NAME.tar.gz` holding `NAME.csv`.

use super::jobs::{generate, Generated};
use super::{hex_id, kind, GenOptions};
use crate::trace::Rng;
use std::io::{self, Write};
use std::path::Path;

fn t(v: Option<i64>) -> String {
    v.map_or(String::new(), |x| format!("{x}.0"))
}

struct Names<'a> {
    g: &'a Generated,
}

impl Names<'_> {
    fn job(&self, j: u32) -> String {
        hex_id(self.g.seed, kind::JOB, j as u64, 24)
    }
    fn inst_id(&self, j: u32) -> String {
        hex_id(self.g.seed, kind::INST_ID, j as u64, 60)
    }
    fn user(&self, u: u32) -> String {
        hex_id(self.g.seed, kind::USER, u as u64, 12)
    }
    /// A spec's own name, else a fresh id.
    fn machine(&self, m: u32) -> String {
        match &self.g.cluster.spec {
            Some(rows) => rows[m as usize].machine.clone(),
            None => hex_id(self.g.seed, kind::MACHINE, m as u64, 24),
        }
    }
    fn worker(&self, i: u32) -> String {
        hex_id(self.g.seed, kind::WORKER, i as u64, 60)
    }
}

fn jobs(g: &Generated, w: &mut dyn Write) -> io::Result<()> {
    let n = Names { g };
    for (j, job) in g.jobs.iter().enumerate() {
        let j = j as u32;
        writeln!(
            w,
            "{},{},{},{},{},{}",
            n.job(j),
            n.inst_id(j),
            n.user(job.user),
            job.status.name(),
            t(Some(job.submit)),
            t(job.end)
        )?;
    }
    Ok(())
}

fn tasks(g: &Generated, w: &mut dyn Write) -> io::Result<()> {
    let n = Names { g };
    for task in &g.tasks {
        let job = &g.jobs[task.job as usize];
        let ty = task
            .gpu_type
            .filter(|_| task.plan_gpu.is_some())
            .map_or("", |t| self_type(g, t));
        writeln!(
            w,
            "{},{},{}.0,{},{},{},{}.0,{},{},{}",
            n.job(task.job),
            task.name,
            task.inst_num,
            job.status.name(),
            t(job.start),
            t(job.end),
            task.plan_cpu,
            task.plan_mem,
            task.plan_gpu.map_or(String::new(), |p| format!("{p}.0")),
            ty
        )?;
    }
    Ok(())
}

fn instances(g: &Generated, w: &mut dyn Write) -> io::Result<()> {
    let n = Names { g };
    for (i, inst) in g.insts.iter().enumerate() {
        let task = &g.tasks[inst.task as usize];
        let job = &g.jobs[task.job as usize];
        writeln!(
            w,
            "{},{},{},{},{},{},{},{},{}",
            n.job(task.job),
            task.name,
            hex_id(g.seed, kind::INST_NAME, i as u64, 60),
            n.worker(i as u32),
            n.inst_id(task.job),
            job.status.name(),
            t(job.start),
            t(job.end),
            inst.machine.map_or(String::new(), |m| n.machine(m))
        )?;
    }
    Ok(())
}

/// One sensor row per started GPU instance and per third CPU instance.
fn sensors(g: &Generated, w: &mut dyn Write) -> io::Result<()> {
    let n = Names { g };
    let mut r = Rng::new(g.seed ^ 0x5E_4507);
    for (i, inst) in g.insts.iter().enumerate() {
        let task = &g.tasks[inst.task as usize];
        let (Some(m), Some(_)) = (inst.machine, g.jobs[task.job as usize].start) else {
            continue;
        };
        if task.plan_gpu.is_none() && i % 3 != 0 {
            continue;
        }
        let plan = task.plan_gpu.unwrap_or(0) as f64;
        let util = plan * r.uniform();
        let mem = task.plan_mem * r.range(0.1, 0.9);
        // A device of its machine (`/dev/nvidia0` … one below `cap_gpu`);
        // none for an instance without GPUs or on a CPU machine.
        let cap = g.cluster.machines[m as usize].3;
        // (Drawn where the device always was: the other columns keep their values.)
        let slot = r.below(8);
        let device = match (task.plan_gpu, cap) {
            (Some(_), 1..) => format!("/dev/nvidia{}", slot % cap as u64),
            _ => String::new(),
        };
        writeln!(
            w,
            "{},{},{},{},{},{},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.1},{:.1},{:.1},{:.1}",
            n.job(task.job),
            task.name,
            n.worker(i as u32),
            n.inst_id(task.job),
            n.machine(m),
            device,
            task.plan_cpu as f64 * r.uniform(),
            util,
            mem,
            mem * r.range(1.0, 1.5),
            plan / 100.0 * r.range(0.5, 8.0),
            plan / 100.0 * r.range(8.0, 16.0),
            r.range(0.0, 5e7),
            r.range(0.0, 5e7),
            r.range(0.0, 1e4),
            r.range(0.0, 1e4)
        )?;
    }
    Ok(())
}

/// One machine-metric row per instance that ran to its end (GPU) or per third (CPU).
fn metrics(g: &Generated, w: &mut dyn Write) -> io::Result<()> {
    let n = Names { g };
    let mut r = Rng::new(g.seed ^ 0x3E_7121);
    for (i, inst) in g.insts.iter().enumerate() {
        let task = &g.tasks[inst.task as usize];
        let job = &g.jobs[task.job as usize];
        let (Some(m), Some(s), Some(e)) = (inst.machine, job.start, job.end) else {
            continue;
        };
        if task.plan_gpu.is_none() && i % 3 != 0 {
            continue;
        }
        writeln!(
            w,
            "{},{},{s},{e},{:.4},{:.4},{:.4},{:.4},{:.4},{:.1},{:.4},{:.4}",
            n.worker(i as u32),
            n.machine(m),
            r.range(0.0, 0.05),
            r.range(0.0, 5.0),
            r.range(0.0, 40.0),
            r.range(0.0, 100.0),
            r.range(0.0, 40.0),
            r.range(0.0, 2e8),
            r.range(1.0, 12.0),
            r.range(0.0, 60.0)
        )?;
    }
    Ok(())
}

fn group_tags(g: &Generated, w: &mut dyn Write) -> io::Result<()> {
    let n = Names { g };
    for (j, job) in g.jobs.iter().enumerate() {
        let spec = job.type_spec.map_or("", |t| self_type(g, t));
        writeln!(
            w,
            "{},{},{},{},{}",
            n.inst_id(j as u32),
            n.user(job.user),
            spec,
            hex_id(g.seed, kind::GROUP, job.group as u64, 32),
            job.workload.unwrap_or("")
        )?;
    }
    Ok(())
}

/// The name of GPU type `t`.
fn self_type(g: &Generated, t: u8) -> &str {
    &g.cluster.types[t as usize]
}

/// The machines: a given spec's rows as it gave them, else the generated ones.
fn spec(g: &Generated, w: &mut dyn Write) -> io::Result<()> {
    if let Some(rows) = &g.cluster.spec {
        let num = |v: Option<f64>| v.map_or(String::new(), |x| x.to_string());
        for r in rows {
            let (cpu, mem) = (num(r.cap_cpu), num(r.cap_mem));
            writeln!(w, "{},{},{cpu},{mem},{}", r.machine, r.gpu_type, r.cap_gpu)?;
        }
        return Ok(());
    }
    let n = Names { g };
    for (m, &(t, cpu, mem, gpus)) in g.cluster.machines.iter().enumerate() {
        writeln!(
            w,
            "{},{},{cpu},{mem},{gpus}",
            n.machine(m as u32),
            self_type(g, t)
        )?;
    }
    Ok(())
}

type Writer = fn(&Generated, &mut dyn Write) -> io::Result<()>;

const TABLES: [(&str, Writer); 7] = [
    ("pai_job_table", jobs),
    ("pai_task_table", tasks),
    ("pai_instance_table", instances),
    ("pai_sensor_table", sensors),
    ("pai_group_tag_table", group_tags),
    ("pai_machine_spec", spec),
    ("pai_machine_metric", metrics),
];

/// Generates and writes the seven tables into `dir` (created if missing).
pub fn write(opts: &GenOptions, dir: &Path) -> io::Result<Generated> {
    std::fs::create_dir_all(dir)?;
    let g = generate(opts).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    for (name, fill) in TABLES {
        let csv = dir.join(format!("{name}.csv"));
        let target = if opts.tar_gz {
            dir.join(format!(".{name}.csv.part"))
        } else {
            csv.clone()
        };
        crate::outfile::write_atomic(&target, |w| fill(&g, w))?;
        if opts.tar_gz {
            let member = format!("{name}.csv");
            let packed =
                crate::gen::pack(&[(&target, &member)], &dir.join(format!("{name}.tar.gz")));
            std::fs::remove_file(&target)?;
            packed?;
        }
    }
    Ok(g)
}
