//! Opening the full-screen replay from the command line.

use super::{TuiArgs, ViewArgs};
use crate::sim::Policy;
use crate::trace::{self, Format, LoadOptions};
use crate::ui::run::{run, ViewOptions};
use color_eyre::eyre::Result;
use std::sync::Arc;

fn view(
    v: &ViewArgs,
    policy: Policy,
    placement: crate::sim::Placement,
    energy: crate::sim::Energy,
) -> ViewOptions {
    ViewOptions {
        energy,
        theme: v.theme.clone(),
        ascii: v.ascii,
        fps: v.fps,
        policy,
        placement,
        tuning: Arc::new(crate::sim::Tuning::default()),
        schedule: None,
        captions: Vec::new(),
    }
}

/// `tracetui lesson [NAME]`: the list, or one lesson full screen.
pub fn lesson(a: &super::LessonArgs, v: &ViewArgs) -> Result<()> {
    use crate::lesson;
    let Some(name) = &a.name else {
        print!("{}", lesson::listing());
        return Ok(());
    };
    let Some(l) = lesson::find(name) else {
        color_eyre::eyre::bail!(
            "no lesson '{}'; there are: {}",
            crate::trace::input::sanitize(name),
            lesson::LESSONS
                .iter()
                .map(|l| l.name)
                .collect::<Vec<_>>()
                .join(", ")
        );
    };
    let (trace, report) = l.trace();
    let schedule = crate::sim::schedule::Schedule::parse(&trace, l.schedule)
        .map_err(color_eyre::eyre::Report::msg)?;
    let policy = schedule.start.unwrap_or(Policy::Fifo);
    let placement = a.placement.unwrap_or(l.placement);
    let mut opts = view(v, policy, placement, None);
    opts.schedule = Some(schedule);
    opts.captions = l
        .captions
        .iter()
        .map(|&(t, c)| (t, c.to_string()))
        .collect();
    let label = format!("lesson {} · {} · {}", l.name, placement.name(), l.title);
    run(Arc::new(trace), label, &report, &opts)
}

/// `tracetui itp FILE`, `tracetui pai DIR`.
pub fn open(format: Format, a: &TuiArgs, v: &ViewArgs) -> Result<()> {
    let opts = LoadOptions {
        strict: a.strict,
        gpus: a.gpus,
        gpus_per_node: a.gpus_per_node,
        include_cpu_jobs: a.include_cpu_jobs,
    };
    let energy = a.energy.model_for(Some((format, &a.path)))?;
    eprintln!("tracetui: loading {} {} …", format.name(), a.path.display());
    let (trace, report) = trace::load(format, &a.path, &opts)?;
    let schedule = a.policies.schedule(&trace)?;
    let policy = schedule
        .as_ref()
        .and_then(|s| s.start)
        .or(a.policy)
        .unwrap_or(if trace.has_recorded() {
            Policy::Recorded
        } else {
            Policy::Fifo
        });
    super::headless::check_policy(&trace, policy)?;
    if let Some(s) = &schedule {
        super::headless::check_schedule(&trace, s)?;
    }
    let energy = energy.map(|(m, p)| {
        let p = schedule.as_ref().and_then(|s| s.start_power).unwrap_or(p);
        (m, p)
    });
    let label = label_for(format, &a.path, &trace);
    let mut opts = view(v, policy, a.placement, energy);
    opts.tuning = a.policies.tuning()?;
    opts.schedule = schedule;
    run(Arc::new(trace), label, &report, &opts)
}

/// `tracetui` alone: the embedded sample.
pub fn demo(v: &ViewArgs) -> Result<()> {
    let (trace, report) = crate::sample::itp()?;
    let label = format!("sample itp ({} jobs)", trace.jobs.len());
    run(
        Arc::new(trace),
        label,
        &report,
        &view(v, Policy::Fifo, crate::sim::Placement::Consolidate, None),
    )
}

/// The header's trace label: format and path, and for a cluster the trace
/// does not list, its size and the rule that chose it (before the path,
/// which is what gives way on a narrow screen).
pub fn label_for(format: Format, path: &std::path::Path, trace: &crate::trace::Trace) -> String {
    let c = &trace.cluster;
    if c.sized_by.is_empty() {
        format!("{} {}", format.name(), path.display())
    } else {
        format!(
            "{} · {} GPUs ({}) · {}",
            format.name(),
            c.total_gpus(),
            c.sized_by,
            path.display()
        )
    }
}
