//! Reading a trace as the command line says: the format's loader, then
//! `--cluster`'s machines, `--throughputs`' tables (a type's derived from
//! another's) and `--gpu-speed`'s factors.

use super::choices;
use crate::trace::{Format, LoadOptions};
use clap::Args;
use std::path::PathBuf;

/// How to read a trace and build its cluster (every command that loads one).
#[derive(Debug, Args, Clone)]
pub struct ReadArgs {
    /// Cluster size in GPUs, for traces without a machine list.
    #[arg(long, conflicts_with = "cluster_spec", value_parser = choices::gpus())]
    pub gpus: Option<u32>,
    /// GPUs per machine when the cluster is built from --gpus.
    #[arg(long, default_value_t = 8, value_parser = choices::gpus_per_node())]
    pub gpus_per_node: u32,
    /// Stop at the first bad row instead of skipping it.
    #[arg(long)]
    pub strict: bool,
    /// Keep jobs that ask for no GPU (left out of the GPU replay by default).
    #[arg(long)]
    pub include_cpu_jobs: bool,
    /// PAI: each instance asks its task's plan_cpu and plan_mem of its
    /// machine (placement never over-commits cap_cpu or cap_mem; instances
    /// without GPUs hold a machine too). Off: GPUs alone.
    #[arg(long)]
    pub cpu_mem: bool,
    /// Jobs submitted at the same second arrive in file order, or by job id
    /// as the Alibaba PAI simulator orders them (to reproduce its figures).
    #[arg(long, value_parser = choices::ties(), default_value = "file")]
    pub ties: crate::trace::Ties,
    /// Run jobs from throughput tables (ElasticFlow's layout: a directory
    /// of MODEL.csv, rows by global batch size, columns by GPU count): a
    /// job of N iterations runs N ÷ (iterations/s on its GPUs) seconds.
    /// TYPE=DIR for the tables of one GPU type; repeat for several.
    /// TYPE=OTHER*F makes a type's tables from another's, every rate × F
    /// (a type profiled nowhere: T4=A100*0.32).
    #[arg(long, value_name = "[TYPE=]DIR|TYPE=OTHER*F")]
    pub throughputs: Vec<String>,
    /// GPU types' relative speeds, for traces without throughput tables
    /// (PAI: V100=1,T4=0.5,MISC=0.4; types not named: 1). A job that may
    /// run on any type takes its recorded run time × the factor of the
    /// type it ran on ÷ the factor of the type it runs on.
    #[arg(long, value_name = "TYPE=FACTOR,…", conflicts_with = "throughputs")]
    pub gpu_speed: Vec<String>,
    /// The machines, for traces without a machine list: ElasticFlow's
    /// cluster spec (num_switch,num_node_p_switch,num_gpu_p_node,…) or
    /// machines per GPU type (gpu_type,machines,gpus_per_machine rows).
    #[arg(long = "cluster", id = "cluster_spec", value_name = "FILE")]
    pub cluster: Option<PathBuf>,
    /// Read the trace's tables even where a cache of their last load is
    /// kept (PAI, 64 MiB or more: in $XDG_CACHE_HOME/tracetui/loads), and
    /// keep none.
    #[arg(long)]
    pub no_cache: bool,
    /// The zone a trace's local times are in (Slurm's sacct prints the
    /// site's local time without a zone): an IANA name (Europe/Berlin, UTC);
    /// by default this machine's zone.
    #[arg(long, value_name = "ZONE", value_parser = choices::zone())]
    pub tz: Option<chrono_tz::Tz>,
    /// The machines: a Slurm trace's from what `scontrol show node -o` (or
    /// `sinfo -N -o '%N %G %c %m'`) printed, by default inferred from the
    /// jobs' node lists; an openb trace's node list, by default beside it.
    #[arg(long, value_name = "FILE")]
    pub nodes: Option<PathBuf>,
}

impl ReadArgs {
    /// Loads a trace as these options say, its jobs given their speeds
    /// from `--throughputs` (said in the report's notes).
    pub(crate) fn load(
        &self,
        format: Format,
        path: &std::path::Path,
    ) -> Result<(crate::trace::Trace, crate::trace::LoadReport), crate::trace::InputError> {
        if format.name() != "slurm" {
            // A flag the format has no use for is said, never dropped silently.
            if let Some(z) = self.tz {
                log::warn!(
                    "--tz {z} is ignored: {} traces say their own zone",
                    format.name()
                );
            }
            if let Some(n) = self.nodes.as_ref().filter(|_| format.name() != "openb") {
                log::warn!(
                    "--nodes {} is ignored: it gives a Slurm or openb trace's machines",
                    n.display()
                );
            }
        } else if self.tz.is_none() {
            let (z, from) = local_zone();
            log::info!("times in {z}, this machine's zone ({from}); --tz ZONE to choose");
        }
        if self.cpu_mem && format.name() != "pai" {
            log::warn!(
                "--cpu-mem is ignored: it reads PAI's plan_cpu and plan_mem ({} traces say no CPU per instance; openb's pods ask theirs always)",
                format.name()
            );
        }
        let (mut trace, mut report) = crate::trace::load(format, path, &self.options())?;
        // The load cache for next time is written beside what runs now.
        if let Some(w) = report.cache_write.take() {
            tracetui_driver::cache_writes::start(w);
        }
        if let Some(g) = self.gpus.filter(|_| trace.cluster.sized_by.is_empty()) {
            // A flag the format has no use for is said, never dropped silently.
            log::warn!(
                "--gpus {g} is ignored: this {} trace lists its machines ({})",
                format.name(),
                trace.cluster.origin.trim_start_matches("cluster: ")
            );
        }
        if let Some(spec) = &self.cluster {
            let names_machines = trace
                .jobs
                .iter()
                .any(|j| j.gpu_type.is_some() || !j.segments.is_empty());
            if trace.cluster.sized_by.is_empty() || names_machines {
                return Err(crate::trace::InputError::file(
                    &spec.display().to_string(),
                    "--cluster is for traces without a machine list; this trace lists its machines (or its jobs name GPU types or machines)",
                ));
            }
            let before =
                std::mem::replace(&mut trace.cluster, crate::trace::load_cluster_spec(spec)?);
            report.notes.retain(|n| *n != before.origin);
            report.note(trace.cluster.origin.clone());
        }
        if !self.throughputs.is_empty() {
            let tables = self.tables(&trace.source)?;
            for line in crate::trace::attach_speeds(&mut trace, tables)? {
                report.note(line);
            }
        }
        if !self.gpu_speed.is_empty() {
            use crate::trace::{attach_factors, parse_factors};
            let factors = parse_factors(&self.gpu_speed)?;
            for line in attach_factors(&mut trace, factors)? {
                report.note(line);
            }
        }
        Ok((trace, report))
    }

    /// `--throughputs`: each directory's tables, then each type derived
    /// from another's (`T4=A100*0.32`).
    fn tables(
        &self,
        source: &str,
    ) -> Result<Vec<crate::trace::ThroughputTables>, crate::trace::InputError> {
        use crate::trace::{derived_throughput_spec, parse_throughput_spec, ThroughputTables};
        let mut tables = Vec::new();
        for s in self
            .throughputs
            .iter()
            .filter(|s| derived_throughput_spec(s).is_none())
        {
            let (ty, dir) = parse_throughput_spec(s);
            tables.push(ThroughputTables::load(&dir, ty)?);
        }
        for (ty, from, f) in self
            .throughputs
            .iter()
            .filter_map(|s| derived_throughput_spec(s))
        {
            let base = tables.iter().find(|t| {
                t.derived.is_none()
                    && t.gpu_type
                        .as_ref()
                        .is_some_and(|n| n.eq_ignore_ascii_case(&from))
            });
            let Some(base) = base else {
                return Err(crate::trace::InputError::file(
                    source,
                    format!(
                        "--throughputs {}={}*{f}: no --throughputs {}=DIR to derive it from",
                        crate::text::sanitize(&ty),
                        crate::text::sanitize(&from),
                        crate::text::sanitize(&from)
                    ),
                ));
            };
            tables.push(base.derive(&ty, f));
        }
        Ok(tables)
    }

    pub(crate) fn options(&self) -> LoadOptions {
        LoadOptions {
            strict: self.strict,
            gpus: self.gpus,
            gpus_per_node: self.gpus_per_node,
            include_cpu_jobs: self.include_cpu_jobs,
            cpu_mem: self.cpu_mem,
            ties: self.ties,
            cache: super::load_cache::spec(self.no_cache),
            tz: Some(self.tz.unwrap_or_else(|| local_zone().0)),
            nodes: self.nodes.clone(),
        }
    }
}

/// This machine's time zone and where it was found: `$TZ` (an IANA name),
/// else the zone `/etc/localtime` links to, else `/etc/timezone`, else UTC.
pub(crate) fn local_zone() -> (chrono_tz::Tz, &'static str) {
    let parse = |s: &str| {
        s.trim()
            .trim_start_matches(':')
            .parse::<chrono_tz::Tz>()
            .ok()
    };
    if let Some(z) = std::env::var("TZ").ok().as_deref().and_then(parse) {
        return (z, "$TZ");
    }
    let linked = std::fs::read_link("/etc/localtime").ok().and_then(|p| {
        let p = p.to_string_lossy().into_owned();
        p.split_once("zoneinfo/").and_then(|(_, name)| parse(name))
    });
    if let Some(z) = linked {
        return (z, "/etc/localtime");
    }
    let file = std::fs::read_to_string("/etc/timezone").ok();
    if let Some(z) = file.as_deref().and_then(parse) {
        return (z, "/etc/timezone");
    }
    (chrono_tz::UTC, "none found: UTC")
}
