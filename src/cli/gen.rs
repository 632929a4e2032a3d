//! `tracetui gen FORMAT`: synthetic traces in native schemas.

use crate::gen::itp::{self, GenOptions, Schema};
use clap::{Args, ValueEnum};
use color_eyre::eyre::{bail, Result, WrapErr};
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GenFormat {
    Itp,
    Pai,
    Philly,
    Acme,
}

#[derive(Debug, Args)]
pub struct GenArgs {
    /// The format to write.
    #[arg(value_enum)]
    pub format: GenFormat,
    /// How many jobs (itp and acme: up to 50 M, streamed; pai: 12.6 M; philly: 1.2 M).
    #[arg(long)]
    pub jobs: u64,
    /// Random seed: the same seed writes the same bytes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output: a file (itp) or a directory (pai).
    #[arg(long)]
    pub out: PathBuf,
    /// Write the release's archives: each PAI table as NAME.tar.gz (pai),
    /// trace-data.tar.gz holding the three files (philly).
    #[arg(long)]
    pub tar_gz: bool,
    /// Minutes of cluster_gpu_util to write from the first submission (philly).
    #[arg(long, default_value_t = 60)]
    pub util_minutes: u64,
    /// Which AcmeTrace cluster to imitate (acme).
    #[arg(long, value_enum, default_value_t = crate::gen::acme::AcmeCluster::Seren)]
    pub cluster: crate::gen::acme::AcmeCluster,
    /// Column schema (itp).
    #[arg(long, value_enum, default_value_t = Schema::Raw)]
    pub schema: Schema,
    /// itp, with --load: scale arrivals for this many GPUs; pai: a cluster
    /// of about this many GPUs, each machine type scaled alike.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=crate::trace::MAX_GPUS as i64))]
    pub gpus: Option<u32>,
    /// pai: spread the submissions over about this many days (the day's
    /// rhythm kept; default: the released rate).
    #[arg(long)]
    pub days: Option<f64>,
    /// With --gpus: the offered load to aim for (0.9 = 90 % of the GPUs busy on average).
    #[arg(long, requires = "gpus")]
    pub load: Option<f64>,
    /// pai: generate for these machines — a `pai_machine_spec` (the
    /// release's, .csv or .tar.gz, or your own cluster in its layout:
    /// machine,gpu_type,cap_cpu,cap_mem,cap_gpu), written out as given and
    /// every instance placed on its machines by name.
    #[arg(long, value_name = "FILE", conflicts_with = "gpus")]
    pub machine_spec: Option<PathBuf>,
}

/// The most jobs `gen` makes, and why. itp and acme stream their rows
/// (memory does not grow with `--jobs`): their bound is ten times the
/// largest released trace (PAI, 1.26 M jobs), a file of about 2.6 GB.
/// pai and philly join their tables in memory (jobs, tasks, instances and
/// their placement; attempts and their GPUs), measured at about 270 and 480
/// bytes a job: ten times their releases, a few GB at most.
fn most_jobs(format: GenFormat) -> (u64, &'static str) {
    match format {
        GenFormat::Itp | GenFormat::Acme => (50_000_000, "ten times the largest released trace"),
        GenFormat::Pai => (
            12_600_000,
            "ten times the release; its tables are joined in memory, about 270 bytes a job",
        ),
        GenFormat::Philly => (
            1_200_000,
            "ten times the release; its attempts are placed in memory, about 480 bytes a job",
        ),
    }
}

/// `eprintln!` made safe for a terminal (paths are printed).
macro_rules! tell {
    ($($t:tt)*) => {
        super::print_err(&format!($($t)*))
    };
}

pub(super) fn run(a: &GenArgs) -> Result<()> {
    check(a)?;
    match a.format {
        GenFormat::Itp => itp_trace(a),
        GenFormat::Acme => acme_trace(a),
        GenFormat::Philly => philly_trace(a),
        GenFormat::Pai => pai_trace(a),
    }
}

/// Refuses options that do not go together, or with the format, before
/// anything is written.
fn check(a: &GenArgs) -> Result<()> {
    if a.jobs == 0 {
        bail!("--jobs must be at least 1");
    }
    let (most, why) = most_jobs(a.format);
    if a.jobs > most {
        bail!(
            "--jobs {} is more than gen {} makes (at most {most}: {why})",
            a.jobs,
            format!("{:?}", a.format).to_lowercase()
        );
    }
    let to_dir = matches!(a.format, GenFormat::Pai | GenFormat::Philly);
    if to_dir && a.out.as_os_str() == "-" {
        bail!(
            "--out - (standard output) is for itp and acme: a {:?} trace is a directory of tables",
            a.format
        );
    }
    if let Some(l) = a.load {
        if !(l > 0.0 && l.is_finite()) {
            bail!("--load must be a positive number, not {l}");
        }
    }
    if a.machine_spec.is_some() && a.format != GenFormat::Pai {
        bail!("--machine-spec is for pai (a pai_machine_spec file)");
    }
    if a.gpus == Some(0) {
        bail!("--gpus must be at least 1");
    }
    let paced = matches!(a.format, GenFormat::Pai | GenFormat::Acme);
    if !paced && a.gpus.is_some() != a.load.is_some() {
        bail!("--gpus and --load go together (pai and acme take --gpus alone)");
    }
    if paced && a.load.is_some() {
        bail!("--load is for itp; for pai and acme, --gpus sizes the cluster and --days paces the submissions");
    }
    if let Some(d) = a.days {
        if !(paced && d > 0.0 && d.is_finite() && d <= 3650.0) {
            bail!("--days is for pai and acme, a number of days above 0 (up to 3650), not {d}");
        }
    }
    Ok(())
}

fn itp_trace(a: &GenArgs) -> Result<()> {
    let opts = GenOptions {
        jobs: a.jobs,
        seed: a.seed,
        schema: a.schema,
        target: a.gpus.zip(a.load),
    };
    crate::outfile::write_atomic(&a.out, |w| itp::write(&opts, w))
        .wrap_err_with(|| format!("cannot write {}", a.out.display()))?;
    tell!("tracetui: wrote {} ITP jobs to {}", a.jobs, a.out.display());
    Ok(())
}

fn acme_trace(a: &GenArgs) -> Result<()> {
    let opts = crate::gen::acme::GenOptions {
        jobs: a.jobs,
        seed: a.seed,
        cluster: a.cluster,
        gpus: a.gpus,
        days: a.days,
    };
    crate::outfile::write_atomic(&a.out, |w| crate::gen::acme::write(&opts, w))
        .wrap_err_with(|| format!("cannot write {}", a.out.display()))?;
    tell!(
        "tracetui: wrote {} AcmeTrace jobs ({:?}) to {}",
        a.jobs,
        a.cluster,
        a.out.display()
    );
    Ok(())
}

fn philly_trace(a: &GenArgs) -> Result<()> {
    let opts = crate::gen::philly::GenOptions {
        jobs: a.jobs,
        seed: a.seed,
        util_minutes: a.util_minutes,
        tar_gz: a.tar_gz,
    };
    let (jobs, attempts, overflow) = crate::gen::philly::write(&opts, &a.out)
        .wrap_err_with(|| format!("cannot write {}", a.out.display()))?;
    tell!("tracetui: wrote {jobs} Philly jobs ({attempts} attempts, {} minutes of GPU utilisation) to {}", a.util_minutes, a.out.display());
    if overflow > 0 {
        tell!("tracetui: note: {overflow} attempts found no free GPUs at their start and were left unplaced");
    }
    Ok(())
}

/// `--machine-spec`'s machines, read and checked before anything is written.
fn machine_spec(a: &GenArgs) -> Result<Option<Vec<crate::trace::PaiSpecRow>>> {
    let Some(path) = &a.machine_spec else {
        return Ok(None);
    };
    let shown = crate::text::sanitize(&path.display().to_string());
    // The reader's error names the file, its line and field.
    let rows = crate::trace::read_pai_machine_spec(path).wrap_err("--machine-spec")?;
    crate::gen::pai::GenCluster::of_spec(rows.clone())
        .wrap_err_with(|| format!("--machine-spec {shown}"))?;
    Ok(Some(rows))
}

fn pai_trace(a: &GenArgs) -> Result<()> {
    let opts = crate::gen::pai::GenOptions {
        jobs: a.jobs,
        seed: a.seed,
        tar_gz: a.tar_gz,
        gpus: a.gpus,
        days: a.days,
        spec: machine_spec(a)?,
    };
    let g = crate::gen::pai::write(&opts, &a.out)
        .wrap_err_with(|| format!("cannot write {}", a.out.display()))?;
    tell!(
        "tracetui: wrote {} PAI jobs ({} tasks, {} instances, {} machines) to {}",
        g.jobs.len(),
        g.tasks.len(),
        g.insts.len(),
        g.cluster.machines.len(),
        a.out.display()
    );
    if g.overflow > 0 {
        tell!("tracetui: note: {} GPU instances found no free room at their start and were recorded over capacity", g.overflow);
    }
    Ok(())
}
