//! Printing reports as a table for people, or JSON and CSV for scripts.

use super::meta::Meta;
use super::OutputFormat;
use crate::sim::{Report, Summary};
use std::fmt::Write as _;

/// What every table names, so a number is never shown without its rules.
pub(super) const RULES: &str = "JCT = finish − submit; wait = first start − submit; slowdown = JCT / run time; \
bsld (bounded slowdown) = max(1, JCT / max(run time, 10 s)); \
makespan = last finish − first submit; util = busy GPU-seconds / (GPUs × makespan); \
offered load = GPU-seconds submitted / (last − first submit); percentiles interpolate linearly (numpy default)";

pub(super) use crate::trace::human_secs;

fn num(v: Option<f64>) -> String {
    v.map_or("-".into(), |x| format!("{x:.1}"))
}

fn summary_row(out: &mut String, label: &str, s: &Summary, human: bool) {
    let f = |v: Option<f64>| {
        if human {
            v.map_or("-".into(), human_secs)
        } else {
            num(v)
        }
    };
    let _ = writeln!(
        out,
        "{label:<10}{:>11}{:>11}{:>11}{:>11}",
        f(s.mean),
        f(s.p50),
        f(s.p95),
        f(s.p99)
    );
}

fn util(r: &Report) -> String {
    r.gpu_util
        .map_or("-".into(), |u| format!("{:.1} %", u * 100.0))
}

/// One run, for people.
pub(super) fn table_one(r: &Report, describe: &str) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "policy    {} — {describe}", r.policy);
    if let Some(c) = &r.command {
        let _ = writeln!(o, "command   {c}");
    }
    let host = match r.cpu_mem {
        true => " — each job on machines with the CPU and memory it asks free",
        false => "",
    };
    let _ = writeln!(o, "placement {}{host}", r.placement);
    let per = r
        .gpus_per_node
        .map(|g| format!(", {g} per node"))
        .unwrap_or_default();
    let _ = writeln!(o, "cluster   {} GPUs{per}", r.gpus);
    if let Some(l) = offered(r) {
        let _ = writeln!(o, "load      {l}");
    }
    jobs_lines(&mut o, r);
    let _ = writeln!(
        o,
        "makespan  {}",
        r.makespan_s
            .map_or("-".into(), |m| format!("{m} s ({})", human_secs(m as f64)))
    );
    let _ = writeln!(o, "GPU util  {}", util(r));
    if let Some(f) = r.fragmentation {
        let _ = writeln!(
            o,
            "frag      {:.2} % of GPUs on average, {:.2} % at most; {:.1} GPUs unallocated on average",
            f.mean_pct, f.max_pct, f.unallocated_gpus_mean
        );
    }
    let _ = writeln!(o, "peak queue {} jobs", r.peak_queue);
    if r.preemptions > 0 {
        let _ = writeln!(o, "preempted {} times", r.preemptions);
    }
    if r.resizes > 0 {
        let _ = writeln!(o, "resized   {} times", r.resizes);
    }
    if let Some(d) = r.deadline_met {
        let _ = writeln!(o, "deadlines {:.1} % met", d * 100.0);
    }
    if let Some(a) = r.deadline_admitted {
        let _ = writeln!(o, "          {}", admitted_note(&r.policy, a));
    }
    if let (Some(e), Some(w)) = (r.energy_kwh, r.avg_power_w) {
        let _ = writeln!(o, "energy    {e:.1} kWh (mean {w:.0} W over the makespan)");
    }
    if r.overflow_segments > 0 {
        let _ = writeln!(
            o,
            "overflow  {} recorded holds did not fit their machine and were replayed anyway",
            r.overflow_segments
        );
    }
    let _ = writeln!(
        o,
        "{:<10}{:>11}{:>11}{:>11}{:>11}",
        "", "mean", "p50", "p95", "p99"
    );
    summary_row(&mut o, "JCT", &r.jct_s, true);
    summary_row(&mut o, "wait", &r.wait_s, true);
    summary_row(&mut o, "slowdown", &r.slowdown, false);
    summary_row(&mut o, "bsld", &r.bounded_slowdown, false);
    let _ = writeln!(
        o,
        "rules: {}",
        with_frag(
            rules(
                r.speed_model,
                r.estimate.as_deref(),
                r.jobs_across_types.unwrap_or(0)
            ),
            r.fragmentation.is_some()
        ) + &rounds_rule(&[r])
    );
    o
}

/// What `--rounds` did, where a run's policy decides in ElasticFlow's rounds.
fn rounds_rule(rs: &[&Report]) -> String {
    let inside: Vec<&str> = rs
        .iter()
        .filter(|r| r.rounds_s.is_some())
        .map(|r| r.policy.as_str())
        .collect();
    let Some(s) = rs.iter().find_map(|r| r.rounds_s) else {
        return String::new();
    };
    let (who, verb) = match inside.as_slice() {
        [one] => (tracetui_model::text::sanitize(one), "decides"),
        many => (tracetui_model::text::sanitize(&many.join(", ")), "decide"),
    };
    // Policies without rounds of their own, held in them by --rounds.
    let own: Vec<&str> = crate::sim::Policy::built_in()
        .iter()
        .filter(|p| p.in_rounds())
        .map(|p| p.name())
        .collect();
    let held: Vec<&str> = inside
        .iter()
        .copied()
        .filter(|p| !own.contains(p))
        .collect();
    let cost = match held.is_empty() {
        true => String::new(),
        false => format!(
            "; {} only at those rounds, each start paying ElasticFlow's overhead (2 s + 2 s × (log2 GPUs + 1), 7 s base on 256+ GPUs) and every running job 27 s (47 s) more in every {s}th round",
            tracetui_model::text::sanitize(&held.join(", "))
        ),
    };
    format!("; {who} {verb} in ElasticFlow's rounds, at least {s} s apart (--rounds){cost}")
}

/// The jobs' counts, and the jobs done at an end their policy held before
/// their work was done, where there were any.
fn jobs_lines(o: &mut String, r: &Report) {
    let dropped = format!(", dropped {}", r.jobs_dropped);
    let across = match r.jobs_across_types {
        None | Some(0) => String::new(),
        Some(n) => format!("; {n} ran across GPU types, at the slower's rate"),
    };
    let _ = writeln!(
        o,
        "jobs      {} (done {}, rejected {}{dropped}, unfinished {}{across})",
        r.jobs, r.jobs_done, r.jobs_rejected, r.jobs_unfinished
    );
    if r.jobs_cut_short > 0 {
        let _ = writeln!(
            o,
            "cut short {} job{} done at an end the policy held, with work left by tracetui's count",
            r.jobs_cut_short,
            if r.jobs_cut_short == 1 { "" } else { "s" }
        );
    }
}

/// `rules`, with what fragmentation means where a run measured it.
fn with_frag(rules: String, frag: bool) -> String {
    if !frag {
        return rules;
    }
    rules
        + "; frag = FGD's fragmentation: free GPU milli the trace's typical pods (its commonest requests, 95 % of its pods) cannot use, % of the cluster's GPUs, time-weighted from the first instant; unallocated GPUs likewise"
}

/// The rules: what run times the policies that order by them are told
/// (`--estimate`), and with a speed model what a run time is there (and
/// at what speed a job across GPU types ran, where `across` did).
fn rules(speed_model: bool, estimate: Option<&str>, across: u64) -> String {
    let told = match estimate {
        None => "sjf, srtf, sgf, fifo-backfill and external policies are told the true run times (oracle)".to_string(),
        Some(e) => format!("sjf, srtf, sgf, fifo-backfill and external policies are told run times as --estimate {e} gives them; jobs run their true run times"),
    };
    if !speed_model {
        return format!("{RULES}; {told}");
    }
    let across = match across {
        0 => String::new(),
        n => format!("; a job on GPUs of two types runs at the slower type's rate for its whole GPU count ({n} jobs did)"),
    };
    format!(
        "{RULES}; {told}{across}; with a speed model a job's run time is its work ÷ its rate on the GPUs it holds — with --throughputs its iterations ÷ the table's rate, with --gpu-speed its recorded run time × the factor of the type it ran on ÷ that of the type it runs on (the oracle's run time, runtime_s, and a preempted job's in slowdown: on the GPUs it asks for, fastest type it may use)"
    )
}

/// Several runs, one row each, for people.
pub(super) fn table_many(rs: &[Report]) -> String {
    let mut o = String::new();
    let w = rs
        .iter()
        .map(|r| crate::text::width(&r.policy) + 1)
        .max()
        .unwrap_or(0)
        .max(14);
    let extra = Extra::of(rs);
    o.push_str(&many_header(w, &extra));
    for r in rs {
        o.push_str(&many_row(r, w, &extra));
    }
    many_footer(&mut o, rs);
    o
}

/// The columns a table of several runs has only when some run needs them.
struct Extra {
    deadlines: bool,
    energy: bool,
    unfinished: bool,
    dropped: bool,
    cut_short: bool,
    frag: bool,
}

impl Extra {
    fn of(rs: &[Report]) -> Extra {
        Extra {
            deadlines: rs.iter().any(|r| r.deadline_met.is_some()),
            energy: rs.iter().any(|r| r.energy_kwh.is_some()),
            unfinished: rs.iter().any(|r| r.jobs_unfinished > 0),
            dropped: rs.iter().any(|r| r.jobs_dropped > 0),
            cut_short: rs.iter().any(|r| r.jobs_cut_short > 0),
            frag: rs.iter().any(|r| r.fragmentation.is_some()),
        }
    }
}

/// `text` right-aligned in `width` where `on`, else nothing.
fn extra(on: bool, width: usize, text: impl std::fmt::Display) -> String {
    if on {
        format!("{text:>width$}")
    } else {
        String::new()
    }
}

fn many_header(w: usize, x: &Extra) -> String {
    format!(
        "{:<w$}{:>8}{:>5}{:>10}{:>8}{:>10}{:>10}{:>10}{:>10}{:>10}{:>9}{:>7}{:>7}{:>8}{}{}{}{}{}{}\n",
        "policy",
        "done",
        "rej",
        "makespan",
        "util",
        "JCT mean",
        "JCT p50",
        "JCT p99",
        "wait mean",
        "wait p99",
        "slowdown",
        "bsld",
        "peakQ",
        "preempt",
        extra(x.deadlines, 9, "dl met"),
        extra(x.energy, 10, "kWh"),
        extra(x.unfinished, 7, "unfin"),
        extra(x.dropped, 7, "drop"),
        extra(x.cut_short, 7, "cut"),
        extra(x.frag, 8, "frag %"),
    )
}

fn many_row(r: &Report, w: usize, x: &Extra) -> String {
    let h = |v: Option<f64>| v.map_or("-".into(), human_secs);
    let deadline = match (x.deadlines, r.deadline_met) {
        (false, _) => String::new(),
        (true, None) => format!("{:>9}", "-"),
        (true, Some(d)) => format!("{:>7.1} %", d * 100.0),
    };
    format!(
        "{}{:>8}{:>5}{:>10}{:>8}{:>10}{:>10}{:>10}{:>10}{:>10}{:>9}{:>7}{:>7}{:>8}{}{}{}{}{}{}\n",
        // Padded by the columns it takes (a wide character takes two).
        crate::text::fit_padded(&r.policy, w),
        r.jobs_done,
        r.jobs_rejected,
        r.makespan_s.map_or("-".into(), |m| human_secs(m as f64)),
        util(r),
        h(r.jct_s.mean),
        h(r.jct_s.p50),
        h(r.jct_s.p99),
        h(r.wait_s.mean),
        h(r.wait_s.p99),
        num(r.slowdown.mean),
        num(r.bounded_slowdown.mean),
        r.peak_queue,
        r.preemptions,
        deadline,
        r.energy_kwh.map_or(String::new(), |e| format!("{e:>10.1}")),
        extra(x.unfinished, 7, r.jobs_unfinished),
        extra(x.dropped, 7, r.jobs_dropped),
        extra(x.cut_short, 7, r.jobs_cut_short),
        extra(
            x.frag,
            8,
            r.fragmentation
                .map_or("-".into(), |f| format!("{:.2}", f.mean_pct))
        ),
    )
}

/// The cluster, the load, each external program, each policy's own
/// deadline ratio and the rules.
fn many_footer(o: &mut String, rs: &[Report]) {
    if let Some(r) = rs.first() {
        let per = r
            .gpus_per_node
            .map(|g| format!(", {g} per node"))
            .unwrap_or_default();
        let _ = writeln!(
            o,
            "cluster {} GPUs{per}, placement {}, {} jobs",
            r.gpus, r.placement, r.jobs
        );
        if let Some(l) = offered(r) {
            let _ = writeln!(o, "load {l}");
        }
    }
    for r in rs {
        if let Some(c) = &r.command {
            let _ = writeln!(o, "{} runs: {c}", r.policy);
        }
        if let Some(a) = r.deadline_admitted {
            let _ = writeln!(o, "{}: {}", r.policy, admitted_note(&r.policy, a));
        }
    }
    if rs.iter().any(|r| r.jobs_cut_short > 0) {
        let _ = writeln!(
            o,
            "cut: jobs done at an end their policy held, with work left by tracetui's count"
        );
    }
    let _ = writeln!(
        o,
        "rules: {}",
        with_frag(
            rules(
                rs.iter().any(|r| r.speed_model),
                rs.iter().find_map(|r| r.estimate.as_deref()),
                rs.iter().filter_map(|r| r.jobs_across_types).sum()
            ),
            rs.iter().any(|r| r.fragmentation.is_some())
        ) + &rounds_rule(&rs.iter().collect::<Vec<_>>())
    );
}

/// The policy's own deadline ratio, said for what it is: `ef` judges a
/// job by its end on the slot grid with its overheads, `edf-accessctrl`
/// by its end, `elasticflow` by its planned finish.
fn admitted_note(policy: &str, a: f64) -> String {
    match policy {
        "ef" => format!(
            "{:.1} % on time by ElasticFlow's ef (its own ratio: a job counts if its end on the \
             --rounds grid, overheads added, is by its deadline)",
            a * 100.0
        ),
        "edf-accessctrl" => format!(
            "{:.1} % admitted and on time by ElasticFlow's edf-accessctrl (its own ratio: a job \
             counts if it was admitted and its end, overheads added, is by its deadline)",
            a * 100.0
        ),
        _ => format!(
            "{:.1} % admitted and on time by plan (ElasticFlow's own ratio: \
             a job ended after its deadline counts if its planned finish was not; \
             \"met\" counts ends)",
            a * 100.0
        ),
    }
}

/// On standard error: a run that left jobs unfinished says so (its JCT,
/// wait and slowdown cover the finished jobs only).
pub(super) fn warn_unfinished(rs: &[Report]) {
    for r in rs.iter().filter(|r| r.jobs_unfinished > 0) {
        super::print_err(&format!(
            "tracetui: warning: {}: {} of {} jobs never finished (JCT, wait and slowdown cover the {} that did; a deadline not met by the end is missed)",
            r.policy, r.jobs_unfinished, r.jobs, r.jobs_done
        ));
    }
}

/// `110.1 GPUs offered on average (76.5 % of the cluster)`.
fn offered(r: &Report) -> Option<String> {
    let l = r.offered_load_gpus?;
    let share = if r.gpus > 0 {
        format!(" ({:.1} % of the cluster)", l / r.gpus as f64 * 100.0)
    } else {
        String::new()
    };
    Some(format!("{l:.1} GPUs offered on average{share}"))
}

/// A report with where it came from, as the JSON summary has it.
#[derive(serde::Serialize)]
struct WithMeta<'a> {
    #[serde(flatten)]
    report: &'a Report,
    meta: &'a Meta,
}

fn json<T: serde::Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string_pretty(v).expect("reports serialise") + "\n"
}

/// Prints reports in the chosen format: JSON is one object for one run and
/// an array for several, each with `meta` where given; CSV has `meta` as
/// its last column (compact JSON).
pub(super) fn render(
    reports: &[Report],
    fmt: OutputFormat,
    single: bool,
    describe: &str,
    meta: Option<&Meta>,
) -> String {
    match (fmt, meta) {
        (OutputFormat::Table, _) if single => table_one(&reports[0], describe),
        (OutputFormat::Table, _) => table_many(reports),
        (OutputFormat::Json, None) if single => json(&reports[0]),
        (OutputFormat::Json, None) => json(reports),
        (OutputFormat::Json, Some(meta)) => {
            let with: Vec<WithMeta> = reports
                .iter()
                .map(|report| WithMeta { report, meta })
                .collect();
            if single {
                json(&with[0])
            } else {
                json(&with)
            }
        }
        (OutputFormat::Csv, _) => super::columns::csv(reports, meta.map(Meta::compact).as_deref()),
    }
}
