//! `stats` and `job`: looking at a trace rather than simulating it.

use super::headless::load;
use super::output::human_secs;
use super::{JobArgs, StatsArgs, TextFormat};
use crate::sim::{EnergyModel, WorkloadRow};
use crate::stats::{stats as compute, Deadlines, MeanMedian, Stats};
use color_eyre::eyre::{bail, Result};
use std::fmt::Write as _;

pub(super) fn stats(a: &StatsArgs) -> Result<()> {
    let energy = a.energy.model_for(Some((a.load.format, &a.load.path)))?;
    let trace = load(&a.load)?;
    let s = compute(&trace);
    let table = energy
        .as_ref()
        .map(|(m, _)| crate::sim::workload_table(&trace, m));
    let at = match &a.at {
        Some(w) => Some(super::stats_at::machines_at(
            trace.clone(),
            w,
            a.policy.as_deref(),
        )?),
        None => None,
    };
    if a.output == TextFormat::Json {
        let mut v = serde_json::to_value(&s)?;
        if let (Some(t), Some(o)) = (&table, v.as_object_mut()) {
            o.insert("energy_workloads".into(), serde_json::to_value(t)?);
        }
        if let (Some(m), Some(o)) = (&at, v.as_object_mut()) {
            o.insert("machines_at".into(), serde_json::to_value(m)?);
        }
        super::print_json(&(serde_json::to_string_pretty(&v)? + "\n"));
        return Ok(());
    }
    let mut o = stats_text(&s);
    if let (Some(t), Some((m, _))) = (&table, &energy) {
        workloads_text(&mut o, m, t);
    }
    if let Some(m) = &at {
        o.push_str(&super::stats_at::text(m));
    }
    super::print_out(&o);
    Ok(())
}

/// `stats` as text: jobs, machines, run time, queueing, size, diurnal rhythm.
fn stats_text(s: &Stats) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{} {}", s.format, s.source);
    jobs_text(&mut o, s);
    machines_text(&mut o, s);
    times_text(&mut o, s);
    if let Some(d) = &s.deadlines {
        deadlines_text(&mut o, d);
    }
    holders_text(&mut o, "user", &s.gpu_hours_by_user);
    holders_text(&mut o, "group", &s.gpu_hours_by_group);
    hours_text(&mut o, s);
    o
}

/// The most GPU time held, by user or group: the first ten, and how many more.
fn holders_text(o: &mut String, what: &str, hs: &[crate::stats::Holder]) {
    if hs.is_empty() {
        return;
    }
    let _ = writeln!(o, "GPU-hours by {what} (recorded):");
    for h in hs.iter().take(10) {
        let name = crate::text::fit(&crate::text::sanitize(&h.name), 24);
        let _ = writeln!(o, "  {name:<24} {:>12.2}  {} jobs", h.gpu_hours, h.jobs);
    }
    if hs.len() > 10 {
        let _ = writeln!(o, "  … {} more", hs.len() - 10);
    }
}

/// The jobs: how many, by status, and those not replayed.
fn jobs_text(o: &mut String, s: &Stats) {
    let _ = writeln!(o, "jobs       {} ({} GPU jobs)", s.jobs.all, s.jobs.gpu);
    for (k, v) in &s.jobs.by_status {
        let _ = writeln!(o, "  {k:<12} {v}");
    }
    if s.jobs.by_status.is_empty() {
        let _ = writeln!(o, "  (the trace records no job status)");
    }
    for (why, n) in &s.jobs.left_out {
        let _ = writeln!(o, "  not replayed, {why}: {n}");
    }
}

/// The machines by GPU type, and the load offered them.
fn machines_text(o: &mut String, s: &Stats) {
    let note = if s.cluster_note.is_empty() {
        String::new()
    } else {
        format!(" ({})", s.cluster_note)
    };
    let _ = writeln!(
        o,
        "machines   {}{note}",
        s.machines.iter().map(|m| m.machines).sum::<u64>()
    );
    for m in &s.machines {
        let _ = writeln!(
            o,
            "  {:<12} {:>6} {:<8} {:>7} GPU{}",
            m.gpu_type,
            m.machines,
            if m.machines == 1 {
                "machine"
            } else {
                "machines"
            },
            m.gpus,
            if m.gpus == 1 { "" } else { "s" }
        );
    }
    if let Some(l) = s.offered_load_gpus {
        let gpus: u64 = s.machines.iter().map(|m| m.gpus).sum();
        let share = if gpus > 0 {
            format!(" ({:.1} % of {gpus})", l / gpus as f64 * 100.0)
        } else {
            String::new()
        };
        let _ = writeln!(o, "load       {l:.1} GPUs offered on average{share}");
    }
}

/// Run time, queueing and GPUs per job: mean and median each.
fn times_text(o: &mut String, s: &Stats) {
    let mm = |m: &MeanMedian, f: &dyn Fn(f64) -> String| {
        format!(
            "mean {}  median {}",
            m.mean.map_or("-".into(), f),
            m.median.map_or("-".into(), f)
        )
    };
    let secs = |x: f64| format!("{} ({x:.0} s)", human_secs(x));
    let _ = writeln!(o, "run time   {}", mm(&s.runtime_s, &secs));
    let _ = writeln!(
        o,
        "queueing   {}   (first recorded start − submit)",
        mm(&s.queue_s, &secs)
    );
    let _ = writeln!(
        o,
        "GPUs/job   {}",
        mm(&s.gpus_per_job, &|x| format!("{x:.2}"))
    );
}

/// The deadlines no policy can meet, at the recorded speed and at full scale-out.
fn deadlines_text(o: &mut String, d: &Deadlines) {
    let pct = |n: u64| n as f64 / d.jobs.max(1) as f64 * 100.0;
    let r = d.infeasible_at_recorded_speed;
    let _ = writeln!(
        o,
        "deadlines  {} jobs; {r} ({:.1} %) infeasible at the recorded speed (deadline < submit + run time)",
        d.jobs,
        pct(r)
    );
    let _ = match d.infeasible_at_full_scale_out {
        Some(f) => writeln!(
            o,
            "           {f} ({:.1} %) infeasible even started on arrival at full scale-out (the tables' best rate on up to the cluster's GPUs)",
            pct(f)
        ),
        None => writeln!(o, "           (--throughputs DIR says how many are infeasible at full scale-out)"),
    };
}

/// GPU job submissions by hour of day, a bar each.
fn hours_text(o: &mut String, s: &Stats) {
    let max = s
        .submissions_by_hour
        .iter()
        .copied()
        .max()
        .unwrap_or(1)
        .max(1);
    let _ = writeln!(o, "submissions by hour of day ({}):", s.zone);
    for (h, n) in s.submissions_by_hour.iter().enumerate() {
        let bar = "█".repeat((n * 40).div_ceil(max) as usize);
        let _ = writeln!(o, "  {h:02}h {n:>8} {bar}");
    }
}

/// `stats --energy` as text: how jobs map to the Zeus workloads, and what
/// each power policy gives each workload.
fn workloads_text(o: &mut String, m: &EnergyModel, t: &[WorkloadRow]) {
    let _ = writeln!(
        o,
        "Zeus workloads ({} power trace, η = {}): jobs by model name / by GPU-hours",
        m.gpu, m.eta
    );
    let _ = writeln!(
        o,
        "  {:<36} {:>8} {:>8} {:>6} {:>7} {:>7} {:>7} {:>8} {:>8}",
        "workload",
        "by name",
        "by GPUh",
        "batch",
        "max W",
        "zeus W",
        "time ×",
        "max avg",
        "zeus avg"
    );
    for r in t {
        let _ = writeln!(
            o,
            "  {:<36} {:>8} {:>8} {:>6} {:>7} {:>7} {:>7.3} {:>7.0}W {:>7.0}W",
            r.workload,
            r.jobs_by_name,
            r.jobs_by_gpu_time,
            r.batch_size,
            r.max_limit_w,
            r.zeus_limit_w,
            r.zeus_time_factor,
            r.max_watts,
            r.zeus_watts
        );
    }
    let _ = writeln!(
        o,
        "  GPU-hours rule: <1 cifar100, <4 movielens-1m, <16 sentiment140, <64 squad, <256 librispeech, else imagenet"
    );
}

pub(super) fn job(a: &JobArgs) -> Result<()> {
    let trace = load(&a.load)?;
    let found = match crate::trace::detail_by_id(&trace, &a.job)? {
        Some(found) => Some(found),
        None => match unique_prefix(&trace, &a.job, &a.load.path)? {
            Some(id) => crate::trace::detail_by_id(&trace, &id)?,
            None => None,
        },
    };
    let Some((value, warnings)) = found else {
        bail!(
            "job '{}' is not in {}",
            crate::text::sanitize(&a.job),
            crate::text::sanitize(&a.load.path.display().to_string())
        );
    };
    for w in warnings {
        super::print_err(&format!("tracetui: warning: {w}"));
    }
    match a.output {
        TextFormat::Json => super::print_json(&(serde_json::to_string_pretty(&value)? + "\n")),
        TextFormat::Text => super::print_out(&crate::trace::json_text(&value)),
    }
    Ok(())
}

/// The one id of the replay's jobs that starts with `prefix` (as the
/// replay's `/` finds them); an error listing a few when several do.
fn unique_prefix(
    trace: &crate::trace::Trace,
    prefix: &str,
    path: &std::path::Path,
) -> Result<Option<String>> {
    if prefix.is_empty() {
        return Ok(None);
    }
    let mut ids = trace
        .jobs_with_id_prefix(prefix)
        .map(|i| &*trace.jobs[i as usize].id);
    let Some(first) = ids.next() else {
        return Ok(None);
    };
    let more: Vec<&str> = ids.take(5).collect();
    if more.is_empty() {
        return Ok(Some(first.to_string()));
    }
    let n = 1 + more.len();
    let shown: Vec<String> = std::iter::once(first)
        .chain(more.iter().copied().take(4))
        .map(crate::text::sanitize)
        .collect();
    bail!(
        "job '{}' is not an id in {}, and {} ids begin with it: {}{} (give more of it)",
        crate::text::sanitize(prefix),
        crate::text::sanitize(&path.display().to_string()),
        if n > 5 {
            "6 or more".to_string()
        } else {
            n.to_string()
        },
        shown.join(", "),
        if n > 5 { ", …" } else { "" }
    )
}
