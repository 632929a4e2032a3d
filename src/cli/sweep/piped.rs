//! A trace a sweep reads from a pipe (`itp:/dev/stdin`, `<(…)`): a sweep
//! reads a trace once for each way its runs read it, so the pipe is copied
//! once into `DIR/piped/` and every run reads the copy; its bytes are
//! hashed as any trace's, so a sweep resumed on other bytes runs those
//! rows again. A Slurm array's tasks cannot read the pipe: refused there.

use color_eyre::eyre::{bail, eyre, Result};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Copies each trace of `traces` (plan value, path) that is a pipe into
/// `out`; the copies by plan value.
pub(super) fn spool<'a>(
    traces: impl Iterator<Item = (&'a String, &'a Path)>,
    out: &Path,
    slurm: bool,
) -> Result<HashMap<String, PathBuf>> {
    let mut copies = HashMap::new();
    for (value, path) in traces {
        let piped = std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir());
        if !piped {
            continue;
        }
        let shown = crate::text::sanitize(value);
        if slurm {
            bail!(
                "trace {shown}: a pipe, which a Slurm array's tasks cannot read; save it to a file"
            );
        }
        let id: String = Sha256::digest(value.as_bytes())
            .iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect();
        let dir = out.join("piped").join(id);
        std::fs::create_dir_all(&dir).map_err(|e| eyre!("{}: {e}", dir.display()))?;
        let name = path
            .file_name()
            .map_or("trace".into(), |n| n.to_os_string());
        let copy = dir.join(name);
        let mut from = std::fs::File::open(path).map_err(|e| eyre!("trace {shown}: {e}"))?;
        crate::outfile::write_atomic(&copy, |w| std::io::copy(&mut from, w).map(drop))
            .map_err(|e| eyre!("trace {shown}: copying it to {}: {e}", copy.display()))?;
        crate::cli::print_err(&format!(
            "tracetui: trace {shown} is a pipe: read once into {}",
            crate::text::sanitize(&copy.display().to_string())
        ));
        copies.insert(value.clone(), copy);
    }
    Ok(copies)
}
