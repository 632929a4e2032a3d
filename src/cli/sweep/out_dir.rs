//! A sweep's `--out`: a directory the sweep made (or found empty) and
//! marked as its own, where it may rewrite `results.csv` and `runs/`. One
//! holding files tracetui did not write is refused, never cleaned.

use color_eyre::eyre::{bail, eyre, Result};
use std::path::Path;

/// The mark of a sweep's directory.
const MARK: &str = ".tracetui-sweep";

/// Makes `out` the sweep's (creating it and `runs/`), or refuses it.
pub(super) fn claim(out: &Path) -> Result<()> {
    let shown = crate::text::sanitize(&out.display().to_string());
    match std::fs::read_dir(out) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => bail!("--out {shown}: {e}"),
        // A sweep's from before the mark has its records in `runs/`.
        Ok(_) if out.join(MARK).is_file() || out.join("runs").is_dir() => {}
        Ok(entries) => {
            let mut names: Vec<String> = entries
                .filter_map(|e| e.ok())
                .map(|e| crate::text::sanitize(&e.file_name().to_string_lossy()))
                .collect();
            if !names.is_empty() {
                names.sort();
                let more = names.len().saturating_sub(3);
                names.truncate(3);
                let listed = match more {
                    0 => names.join(", "),
                    n => format!("{} and {n} more", names.join(", ")),
                };
                bail!(
                    "--out {shown} holds files tracetui did not write ({listed}): give a new or empty directory, or one a sweep wrote"
                );
            }
        }
    }
    std::fs::create_dir_all(super::record::runs_dir(out)).map_err(|e| eyre!("{shown}: {e}"))?;
    if !out.join(MARK).is_file() {
        let text = "A tracetui sweep's directory: its run records (runs/) and results.csv,\nwhich the sweep rewrites.\n";
        std::fs::write(out.join(MARK), text).map_err(|e| eyre!("{shown}/{MARK}: {e}"))?;
    }
    Ok(())
}

/// Refuses a trace (plan value, path) inside `out`, and a figure in the
/// sweep's own folders there: the sweep rewrites its files (`results.csv`,
/// `runs/`), so a trace there would be replaced and a figure there
/// overwrite a record.
pub(super) fn refuse_inside<'a>(
    out: &Path,
    traces: impl Iterator<Item = (&'a str, &'a Path)>,
    plot: Option<&Path>,
) -> Result<()> {
    let Ok(out) = std::fs::canonicalize(out) else {
        return Ok(());
    };
    let shown = crate::text::sanitize(&out.display().to_string());
    for (value, path) in traces {
        if std::fs::canonicalize(path).is_ok_and(|p| p.starts_with(&out)) {
            bail!(
                "trace {}: inside the sweep's --out {shown}, whose files the sweep rewrites; keep traces elsewhere",
                crate::text::sanitize(value)
            );
        }
    }
    // A figure may sit beside results.csv, not among the sweep's own
    // folders (a run's jobs file is no figure's place).
    if let Some(p) = plot {
        let dir = p
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let own = ["runs", "piped", "slurm"].map(|d| out.join(d));
        let lands = std::fs::canonicalize(dir).ok();
        if lands.is_some_and(|d| own.iter().any(|o| d.starts_with(o))) {
            bail!(
                "--plot {}: inside the sweep's own folders under --out {shown} (runs/, piped/, slurm/), whose files the sweep writes; put the figure elsewhere",
                crate::text::sanitize(&p.display().to_string())
            );
        }
    }
    Ok(())
}
