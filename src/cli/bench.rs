//! `tracetui bench`: timing the load, the replay and the drill-down on a
//! trace, with peak memory, as BENCHMARKS.md records them.

use super::LoadArgs;
use crate::sim::{self, Placement};
use crate::trace::BenchProbe;
use clap::Args;
use color_eyre::eyre::Result;
use std::sync::Arc;
use std::time::Instant;

#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(flatten)]
    pub load: LoadArgs,
    /// Policies to run to the end, comma-separated.
    #[arg(long, default_value = "recorded")]
    pub policies: String,
    /// How many jobs to drill into (PAI), spread evenly over the trace.
    #[arg(long, default_value_t = 200)]
    pub drill: usize,
}

/// Peak resident memory so far, in MiB (Linux; `None` elsewhere).
pub(super) fn peak_rss_mb() -> Option<f64> {
    status_mb("VmHWM:")
}

/// A memory figure of this process from /proc, in MiB.
fn status_mb(field: &str) -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(field))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn rss() -> String {
    peak_rss_mb().map_or("n/a".into(), |m| format!("{m:.0} MiB"))
}

/// Bytes of the input: the file, or the files in the directory (a
/// format's tables; not below it, so a symlink loop cannot recurse).
fn input_bytes(path: &std::path::Path) -> f64 {
    let size = |p: &std::path::Path| {
        std::fs::metadata(p)
            .ok()
            .filter(|m| m.is_file())
            .map_or(0.0, |m| m.len() as f64)
    };
    if !path.is_dir() {
        return size(path);
    }
    std::fs::read_dir(path)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| size(&e.path()))
        .sum()
}

/// `println!` made safe for a terminal (the trace's path is printed).
macro_rules! say {
    ($($t:tt)*) => {
        super::print_out(&(format!($($t)*) + "\n"))
    };
}

/// `tracetui bench`: the load, each policy to the end, the probes, peak RSS.
pub(super) fn run(a: &BenchArgs) -> Result<()> {
    let t0 = Instant::now();
    let (trace, report) = a.load.read.load(a.load.format, &a.load.path)?;
    let load_s = t0.elapsed().as_secs_f64();
    say_load(a, &trace, &report, load_s);
    let trace = Arc::new(trace);
    // What the replay shows first: its app built and a frame drawn, as
    // `tracetui FORMAT PATH` does once the load is done.
    let policy = match trace.has_recorded() {
        true => sim::Policy::Recorded,
        false => sim::Policy::Fifo,
    };
    let frame_s = first_frame(&trace, policy);
    say!(
        "first frame    at {:.2} s (the load, the replay's app, a 120x40 frame: {:.0} ms); RSS {}",
        t0.elapsed().as_secs_f64(),
        frame_s * 1000.0,
        rss()
    );
    say_held(&trace);
    let policies = bench_policies(a, &trace)?;
    let tuning = Arc::new(super::logger::logged_tuning());
    for &p in &policies {
        time_to_end(&trace, p, &tuning);
    }
    if let Some(&p) = policies.first() {
        replay_probe(&trace, p);
        ui_probe(&trace, p);
    }
    if let Some(n) = &trace.native {
        let mut print = |line: String| say!("{line}");
        let mut probe = BenchProbe {
            samples: a.drill,
            rss: &rss,
            out: &mut print,
        };
        n.bench(&trace, &mut probe)?;
    }
    say!("peak RSS       {}", rss());
    Ok(())
}

/// The trace loaded in `load_s` seconds: what it is, how fast, each phase.
fn say_load(
    a: &BenchArgs,
    trace: &crate::trace::Trace,
    report: &crate::trace::LoadReport,
    load_s: f64,
) {
    say!(
        "trace          {} {} ({} jobs, {} GPUs)",
        trace.format,
        trace.source,
        trace.jobs.len(),
        trace.cluster.total_gpus()
    );
    if let Some(file) = &report.cache {
        let bytes = std::fs::metadata(file).map_or(0.0, |m| m.len() as f64);
        say!(
            "load           {load_s:.2} s to ready-to-replay (from the load cache, {:.0} MB); peak RSS {}",
            bytes / 1e6,
            rss()
        );
    } else {
        let bytes = input_bytes(&a.load.path);
        say!(
            "load           {load_s:.2} s to ready-to-replay ({:.0} MB read, {:.0} MB/s); peak RSS {}",
            bytes / 1e6,
            bytes / 1e6 / load_s.max(1e-9),
            rss()
        );
    }
    for (phase, at) in &report.timings {
        say!("  {phase:<22} done at {at:.2} s");
    }
}

/// The bytes the loaded trace holds, by table, and the RSS now.
fn say_held(trace: &crate::trace::Trace) {
    let mut held = trace.held_bytes();
    held.extend(trace.native.iter().flat_map(|n| n.held_bytes()));
    let parts: Vec<String> = held
        .iter()
        .map(|(what, b)| format!("{what} {:.0} MB", *b as f64 / 1e6))
        .collect();
    say!(
        "held           {:.0} MB in use: {}; RSS now {}",
        held.iter().map(|p| p.1).sum::<usize>() as f64 / 1e6,
        parts.join(", "),
        status_mb("VmRSS:").map_or("n/a".into(), |m| format!("{m:.0} MiB"))
    );
}

/// The `--policies` asked for that can run on `trace`.
fn bench_policies(a: &BenchArgs, trace: &crate::trace::Trace) -> Result<Vec<sim::Policy>> {
    let mut registry = sim::Policies::new();
    let policies: Vec<sim::Policy> = crate::sim::parse_policy_list(&a.policies, &mut |n| {
        crate::driver::resolve(n, &mut registry)
    })
    .map_err(color_eyre::eyre::Report::msg)?
    .into_iter()
    .filter(|p| p.available(trace).is_ok())
    .collect();
    Ok(policies)
}

/// Policy `p` run to the end on `trace`, timed: set-up, run and report.
fn time_to_end(trace: &Arc<crate::trace::Trace>, p: sim::Policy, tuning: &Arc<sim::Tuning>) {
    // `sim::run`, timed in its three parts.
    let t = Instant::now();
    let mut e = sim::engine(trace.clone(), p, Placement::Consolidate, None, tuning);
    let set_up = t.elapsed();
    crate::driver::run_to_end(&mut e);
    let ran = t.elapsed();
    let r = e.final_report();
    let ms = |d: std::time::Duration| {
        // Whole milliseconds, or hundredths on a small trace.
        let ms = d.as_secs_f64() * 1e3;
        format!("{:.*}", if ms < 10.0 { 2 } else { 0 }, ms)
    };
    say!(
        "{:<14} {:.3} s to the end ({} jobs done; set-up {} ms, run {} ms, report {} ms)",
        p.name(),
        t.elapsed().as_secs_f64(),
        r.jobs_done,
        ms(set_up),
        ms(ran - set_up),
        ms(t.elapsed() - ran)
    );
}

/// The replay's jumps and steps back as the TUI makes them, engine only
/// (no drawing): `g` a month on from the start, then a `b` (a minute
/// back); `g` to days 10, 20, 35 and 50 each followed by a `b`; three more
/// `b` in a row; and what the checkpoints hold, measured.
fn replay_probe(trace: &Arc<crate::trace::Trace>, policy: sim::Policy) {
    use crate::sim::Replay;
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1000.0;
    let day = 86_400;
    let first = trace.first_submit().unwrap_or(0);
    let mut r = Replay::new(
        sim::Engine::new(trace.clone(), policy, Placement::Consolidate)
            .with_tuning(Arc::new(super::logger::logged_tuning())),
    );
    let t = Instant::now();
    r.seek(first + 30 * day);
    say!(
        "g a month      {:.0} ms ({}, from the start)",
        ms(t),
        policy.name()
    );
    let mut backs = Vec::new();
    for d in [30, 10, 20, 35, 50] {
        if d != 30 {
            r.seek(first + d * day);
        }
        let t = Instant::now();
        r.seek(r.now() - 60);
        backs.push(format!("day {d} {:.1}", ms(t)));
    }
    for _ in 0..3 {
        let t = Instant::now();
        r.seek(r.now() - 60);
        backs.push(format!("again {:.1}", ms(t)));
    }
    say!("b after a g    {} ms", backs.join(", "));
    say!(
        "checkpoints    {} held, {:.1} MB measured (after the start)",
        r.checkpoint_count(),
        r.checkpoint_bytes() as f64 / 1e6
    );
}

/// The replay's first frame after the load: the app built under `policy`
/// and a 120×40 frame drawn; its seconds.
fn first_frame(trace: &Arc<crate::trace::Trace>, policy: sim::Policy) -> f64 {
    use crate::ui::app::{Action, App};
    use crate::ui::keymap::Keymap;
    use crate::ui::theme::{Depth, Theme};
    use ratatui::{buffer::Buffer, layout::Rect};
    let t = Instant::now();
    let themes = Theme::embedded("dark", Depth::TrueColor)
        .into_iter()
        .collect();
    let mut app = App::new(
        trace.clone(),
        policy,
        Placement::Consolidate,
        "bench".into(),
        themes,
        Keymap::defaults(),
    );
    let area = Rect::new(0, 0, 120, 40);
    app.update(Action::Resize(area.width, area.height));
    let mut buf = Buffer::empty(area);
    crate::ui::draw::render(&app, area, &mut buf);
    t.elapsed().as_secs_f64()
}

/// The same jumps as a key press makes them in the TUI: the action through
/// the app's `update` (the timeline sampled on the way, the log line, the
/// panels refreshed) and then a 120×40 frame drawn. Effects the update asks
/// for (background reads) are not waited for: the frame does not wait for
/// them either.
fn ui_probe(trace: &Arc<crate::trace::Trace>, policy: sim::Policy) {
    use crate::ui::app::{Action, App};
    use crate::ui::keymap::{Command, Keymap};
    use crate::ui::theme::{Depth, Theme};
    use ratatui::{buffer::Buffer, layout::Rect};
    let Some(theme) = Theme::embedded("dark", Depth::TrueColor) else {
        return say!("drawn          skipped: no embedded theme");
    };
    let (area, day) = (Rect::new(0, 0, 120, 40), 86_400);
    let first = trace.first_submit().unwrap_or(0);
    let mut app = App::new(
        trace.clone(),
        policy,
        Placement::Consolidate,
        "bench".into(),
        vec![theme],
        Keymap::defaults(),
    );
    app.update(Action::Resize(area.width, area.height));
    let key = |app: &mut App, action: Action| {
        let t = Instant::now();
        app.update(action);
        let mut buf = Buffer::empty(area);
        crate::ui::draw::render(app, area, &mut buf);
        t.elapsed().as_secs_f64() * 1000.0
    };
    let g = key(&mut app, Action::GoTo(first + 30 * day));
    say!("g a month, drawn {g:.0} ms (update and a 120x40 frame)");
    let mut backs = Vec::new();
    for d in [30, 10, 20, 35, 50] {
        if d != 30 {
            app.update(Action::GoTo(first + d * day));
        }
        let ms = key(&mut app, Action::Command(Command::StepBack));
        backs.push(format!("day {d} {ms:.1}"));
    }
    for _ in 0..3 {
        let ms = key(&mut app, Action::Command(Command::StepBack));
        backs.push(format!("again {ms:.1}"));
    }
    say!("b after g, drawn {} ms", backs.join(", "));
}
