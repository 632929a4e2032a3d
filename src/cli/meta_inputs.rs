//! The model inputs a run reads besides its trace — throughput tables
//! (`--throughputs`) and a cluster spec (`--cluster`) — hashed for its
//! provenance like the trace's files.

use super::meta::{hash_file, FileMeta};
use super::ReadArgs;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One input: what it is to the run, its path, and its files.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct InputMeta {
    /// `throughputs`, `throughputs A100`, `cluster`.
    pub what: String,
    /// Absolute.
    pub path: String,
    pub files: Vec<FileMeta>,
}

/// The inputs `read` names, hashed (a file that cannot be read now is
/// listed without a hash rather than failing a run that read it).
pub(crate) fn inputs_of(read: &ReadArgs) -> Vec<InputMeta> {
    let mut out = Vec::new();
    for spec in &read.throughputs {
        let (ty, dir) = crate::trace::throughput::parse_spec(spec);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|d| {
                d.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "csv"))
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        let what = ty.map_or("throughputs".to_string(), |t| format!("throughputs {t}"));
        out.push(input(what, &dir, &files));
    }
    if let Some(spec) = &read.cluster {
        out.push(input("cluster".into(), spec, std::slice::from_ref(spec)));
    }
    out
}

fn input(what: String, path: &Path, files: &[PathBuf]) -> InputMeta {
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let base = if path.is_dir() {
        path
    } else {
        path.parent().unwrap_or(path)
    };
    InputMeta {
        what,
        path: abs.to_string_lossy().into_owned(),
        files: files
            .iter()
            .map(|f| {
                let (bytes, sha256) = hash_file(f).unwrap_or((0, String::new()));
                FileMeta {
                    name: f
                        .strip_prefix(base)
                        .unwrap_or(f)
                        .to_string_lossy()
                        .into_owned(),
                    bytes,
                    sha256,
                }
            })
            .collect(),
    }
}
