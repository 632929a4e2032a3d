//! `tracetui inflate`: FGD's arrival-only experiment on openb pod lists —
//! each trace × placement × seed on every core, its curves written in the
//! peer's own layout (`analysis_allo_discrete.csv`,
//! `analysis_frag_discrete.csv`) and summed up beside the peer's results.

mod peer;
mod table;

use super::error::CliError;
use crate::sim::sharing::{discrete, inflate, Discrete, Setup, SharingRule};
use crate::trace::{Format, LoadOptions};
use clap::Args;
use color_eyre::eyre::{bail, eyre, Result};
use std::path::PathBuf;

/// FGD's arrival-only experiment ("Beware of Fragmentation", ATC '23) on
/// openb pod lists: every pod in a seeded shuffle, clones drawn until the
/// arrived GPU request is TUNE × the cluster's GPUs, placed one by one and
/// never leaving; the GPU allocation and fragmentation at each percent of
/// arrived workload.
#[derive(Debug, Args)]
pub struct InflateArgs {
    /// openb pod lists (openb_pod_list_*.csv), each with its node list
    /// beside it (openb_node_list_gpu_node.csv) unless --nodes names one.
    #[arg(required = true, value_name = "PODS")]
    pub pods: Vec<PathBuf>,
    /// The node list for every pod list.
    #[arg(long, value_name = "FILE")]
    pub nodes: Option<PathBuf>,
    /// Placements, comma-separated: random, dot-product, gpu-clustering,
    /// gpu-packing, best-fit, fgd (default: all six).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = super::choices::sharing())]
    pub placement: Vec<SharingRule>,
    /// Seeds: a range (42-51) or a list (42,43).
    #[arg(long, default_value = "42-51", value_parser = seeds)]
    pub seeds: Seeds,
    /// Arrived GPU request to reach, × the cluster's GPUs.
    #[arg(long, default_value_t = 1.3, value_parser = tune)]
    pub tune: f64,
    /// Write analysis_allo_discrete.csv and analysis_frag_discrete.csv here
    /// (FGD's layout: workload, sc_policy, tune, seed, total_gpus, 0…130).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// FGD's published results (its experiments/analysis/expected_results,
    /// with analysis_allo_discrete.csv and analysis_frag_discrete.csv):
    /// print its mean and spread over seeds beside ours, and whether ours
    /// is within it.
    #[arg(long, value_name = "DIR")]
    pub against: Option<PathBuf>,
    /// Stop at the first bad row instead of skipping it.
    #[arg(long)]
    pub strict: bool,
}

/// Seeds to run, in order.
#[derive(Debug, Clone)]
pub struct Seeds(pub Vec<u64>);

fn seeds(s: &str) -> Result<Seeds, CliError> {
    let bad = || CliError::NotSeeds(s.into());
    let num = |t: &str| t.trim().parse::<u64>().map_err(|_| bad());
    let list: Vec<u64> = match s.split_once('-') {
        Some((a, b)) => {
            let (a, b) = (num(a)?, num(b)?);
            if b < a || b - a >= 10_000 {
                return Err(bad());
            }
            (a..=b).collect()
        }
        None => s.split(',').map(num).collect::<Result<_, _>>()?,
    };
    Ok(Seeds(list))
}

fn tune(s: &str) -> Result<f64, CliError> {
    match s.trim().parse::<f64>() {
        Ok(t) if t > 0.0 && t <= 10.0 => Ok(t),
        _ => Err(CliError::TuneRange(s.into())),
    }
}

/// One trace, ready to run.
struct Loaded {
    workload: String,
    setup: Setup,
    pods: usize,
}

/// One run's result.
pub(super) struct Run {
    workload: usize,
    rule: SharingRule,
    seed: u64,
    curves: Discrete,
    failed: u64,
    attempts: usize,
}

fn load(a: &InflateArgs, path: &std::path::Path) -> Result<Loaded> {
    let format = Format::find("openb").ok_or_else(|| eyre!("no openb format"))?;
    let opts = LoadOptions {
        strict: a.strict,
        nodes: a.nodes.clone(),
        ..LoadOptions::default()
    };
    let (trace, report) = crate::trace::load(format, path, &opts)?;
    super::headless::announce(&report);
    let pods = trace
        .native
        .as_ref()
        .and_then(|n| n.pods())
        .ok_or_else(|| {
            eyre!(
                "{}: no pods",
                crate::text::sanitize(&path.display().to_string())
            )
        })?;
    let workload = path
        .file_name()
        .map(|n| n.to_string_lossy().trim_end_matches(".csv").to_string())
        .unwrap_or_default();
    Ok(Loaded {
        workload,
        setup: Setup::new(&trace.cluster, pods),
        pods: pods.len(),
    })
}

/// Refuses outputs that are inputs, before anything runs.
fn check_outputs(a: &InflateArgs) -> Result<Vec<PathBuf>> {
    let Some(dir) = &a.out else {
        return Ok(Vec::new());
    };
    let files = vec![dir.join(peer::ALLOC_FILE), dir.join(peer::FRAG_FILE)];
    let format = Format::find("openb").ok_or_else(|| eyre!("no openb format"))?;
    let mut inputs: Vec<PathBuf> = a.pods.iter().flat_map(|p| format.reads(p)).collect();
    inputs.extend(a.nodes.clone());
    inputs.extend(
        a.against
            .iter()
            .flat_map(|d| [d.join(peer::ALLOC_FILE), d.join(peer::FRAG_FILE)]),
    );
    let inputs: Vec<&std::path::Path> = inputs.iter().map(PathBuf::as_path).collect();
    let given: Vec<(&str, &std::path::Path)> =
        files.iter().map(|f| ("--out", f.as_path())).collect();
    crate::outfile::check(&inputs, &given)?;
    Ok(files)
}

/// The provenance of a run of `a` with `rules`: its traces hashed.
fn meta_of(a: &InflateArgs, rules: &[SharingRule]) -> Result<peer::InflateMeta> {
    let format = Format::find("openb").ok_or_else(|| eyre!("no openb format"))?;
    let hashes = super::meta::Hashes::default();
    let traces = a
        .pods
        .iter()
        .map(|p| super::meta::trace_meta(&hashes, format, p))
        .collect::<std::io::Result<Vec<_>>>()
        .map_err(|e| eyre!("hashing a trace: {e}"))?;
    let argv: Vec<String> = std::env::args().collect();
    Ok(peer::InflateMeta {
        tracetui: env!("CARGO_PKG_VERSION"),
        build: super::meta::Build::this(),
        command: super::meta::shell_line(&argv),
        traces,
        placements: rules.iter().map(|r| r.name()).collect(),
        seeds: a.seeds.0.clone(),
        tune: a.tune,
        generator: "xoshiro256** seeded by SplitMix64 (tracetui's own; not Go's math/rand)",
    })
}

/// `tracetui inflate`.
pub(super) fn run(a: &InflateArgs) -> Result<()> {
    let files = check_outputs(a)?;
    let against = a.against.as_deref().map(peer::read).transpose()?;
    let rules = if a.placement.is_empty() {
        SharingRule::ALL.to_vec()
    } else {
        a.placement.clone()
    };
    let traces: Vec<Loaded> = a.pods.iter().map(|p| load(a, p)).collect::<Result<_>>()?;
    let mut items = Vec::new();
    for (w, _) in traces.iter().enumerate() {
        for &rule in &rules {
            for &seed in &a.seeds.0 {
                items.push((w, rule, seed));
            }
        }
    }
    let started = std::time::Instant::now();
    let runs = crate::trace::pool(&items, crate::trace::cores(), |&(w, rule, seed)| {
        let t = &traces[w];
        let r = inflate(&t.setup, rule, seed, a.tune);
        Run {
            workload: w,
            rule,
            seed,
            curves: discrete(&r.attempts, r.gpus),
            failed: r.failed,
            attempts: r.attempts.len(),
        }
    });
    let runs: Vec<Run> = runs
        .into_iter()
        .collect::<Result<_, _>>()
        .map_err(|_| eyre!("a run panicked"))?;
    let took = started.elapsed().as_secs_f64();
    let names: Vec<&str> = traces.iter().map(|t| t.workload.as_str()).collect();
    if let [alloc, frag] = &files[..] {
        let meta = meta_of(a, &rules)?;
        peer::write(
            alloc,
            frag,
            &names,
            &runs,
            a.tune,
            &traces.iter().map(|t| t.setup.gpus).collect::<Vec<_>>(),
            &meta,
        )?;
    }
    let pods: Vec<usize> = traces.iter().map(|t| t.pods).collect();
    super::print_out(&table::text(&names, &pods, &rules, &runs, against.as_ref()));
    super::print_err(&format!(
        "tracetui: {} runs in {took:.1} s on {} cores{}",
        runs.len(),
        crate::trace::cores(),
        if files.is_empty() {
            String::new()
        } else {
            format!(
                "; wrote {}",
                files
                    .iter()
                    .map(|f| crate::text::sanitize(&f.display().to_string()))
                    .collect::<Vec<_>>()
                    .join(" and ")
            )
        }
    ));
    if runs.is_empty() {
        bail!("nothing to run");
    }
    Ok(())
}
