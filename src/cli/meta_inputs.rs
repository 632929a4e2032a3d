//! The model inputs a run reads besides its trace — throughput tables
//! (`--throughputs`), a cluster spec (`--cluster`) and power traces
//! (`--energy`, or Zeus's beside its trace) — hashed for its provenance
//! like the trace's files.

use super::meta::{hash_file, FileMeta, Hashes};
use super::TraceArgs;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One input: what it is to the run, its path, and its files.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct InputMeta {
    /// `throughputs`, `throughputs A100`, `cluster`, `energy`.
    pub what: String,
    /// Absolute.
    pub path: String,
    pub files: Vec<FileMeta>,
}

/// An input before hashing: what it is, its path, its files.
type Listed = (String, PathBuf, Vec<PathBuf>);

/// What the inputs were when hashed: each file's path, length and
/// modification time.
type Stamp = Vec<(PathBuf, u64, Option<std::time::SystemTime>)>;

/// The inputs hashed so far, by what they were then.
pub(super) type Hashed = Vec<(Stamp, Vec<InputMeta>)>;

/// The scripts hashed so far: path, length, modification time, and hash.
pub(super) type Seen = Vec<(PathBuf, u64, Option<std::time::SystemTime>, PolicyFile)>;

/// The inputs `t` names, hashed (a file that cannot be read now is
/// listed without a hash rather than failing a run that read it); once in
/// `hashes` while the files are unchanged (a sweep's runs share them).
pub(crate) fn inputs_of(hashes: &Hashes, t: &TraceArgs) -> Vec<InputMeta> {
    let listed = listed(t);
    if listed.is_empty() {
        return Vec::new();
    }
    let stamp: Stamp = listed
        .iter()
        .flat_map(|(_, _, files)| files)
        .map(|p| {
            let m = std::fs::metadata(p).ok();
            let len = m.as_ref().map_or(0, |m| m.len());
            (p.clone(), len, m.and_then(|m| m.modified().ok()))
        })
        .collect();
    // Held while hashing: runs wait for the one hash.
    let mut seen = hashes.inputs.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, m)) = seen.iter().find(|(s, _)| *s == stamp) {
        return m.clone();
    }
    let hashed: Vec<InputMeta> = listed.into_iter().map(input).collect();
    seen.push((stamp, hashed.clone()));
    hashed
}

/// The inputs `t` names and their files.
fn listed(t: &TraceArgs) -> Vec<Listed> {
    let read = &t.load.read;
    let mut out = Vec::new();
    // A derived type's tables are its base's (hashed there) times a
    // factor the knobs hold.
    let dirs = read
        .throughputs
        .iter()
        .filter(|s| crate::trace::derived_throughput_spec(s).is_none());
    for spec in dirs {
        let (ty, dir) = crate::trace::parse_throughput_spec(spec);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|d| {
                d.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "csv"))
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        let what = ty.map_or("throughputs".to_string(), |t| format!("throughputs {t}"));
        out.push((what, dir, files));
    }
    if let Some(spec) = &read.cluster {
        out.push(("cluster".into(), spec.clone(), vec![spec.clone()]));
    }
    // A Slurm trace's machines (`--nodes`): a changed file runs again.
    if let Some(nodes) = &read.nodes {
        out.push(("nodes".into(), nodes.clone(), vec![nodes.clone()]));
    }
    let energy = (t.energy.energy.clone()).or_else(|| t.load.format.energy_beside(&t.load.path));
    if let Some(dir) = energy {
        let files = [
            "summary_train.csv".to_string(),
            format!("summary_power_{}.csv", t.energy.gpu),
        ]
        .map(|f| dir.join(f));
        out.push(("energy".into(), dir, files.to_vec()));
    }
    out
}

fn input((what, path, files): Listed) -> InputMeta {
    let abs = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
    let base: &Path = if path.is_dir() {
        &path
    } else {
        path.parent().unwrap_or(&path)
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

/// A file an external policy's command names (its script), hashed: a
/// sweep runs a policy again when its file changed.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct PolicyFile {
    /// Absolute.
    pub path: String,
    pub bytes: u64,
    pub sha256: String,
}

/// The files `cmd` names: each of its words (quotes taken off) that is a
/// regular file from here, and for a Python script the modules it imports
/// from its folder (`py_imports`: as `tracetui_policy.py`, not every file
/// beside it), hashed once in `hashes` while unchanged.
pub(crate) fn policy_files(hashes: &Hashes, cmd: &str) -> Vec<PolicyFile> {
    policy_paths(cmd)
        .iter()
        .filter_map(|p| hash_policy_file(hashes, p))
        .collect()
}

/// The files `cmd` names (its words that are regular files from here,
/// absolute) and, for a Python script, the modules it imports from its
/// folder: what a run of it reads.
pub(crate) fn policy_paths(cmd: &str) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = Vec::new();
    let named = cmd
        .split_whitespace()
        .map(|w| w.trim_matches(|c| c == '\'' || c == '"'))
        .filter(|w| !w.is_empty() && !w.starts_with('-'))
        .filter_map(|w| std::path::absolute(w).ok().filter(|p| p.is_file()));
    for p in named {
        let imported = match p.extension() {
            Some(x) if x == "py" => super::py_imports::imported_beside(&p),
            _ => Vec::new(),
        };
        for f in std::iter::once(p).chain(imported) {
            if !paths.contains(&f) {
                paths.push(f);
            }
        }
    }
    paths
}

/// A policy file over this many bytes is said to be hashed (a script and
/// its modules are KBs; a model's weights named on the command line may
/// be GBs).
const LARGE_POLICY_FILE: u64 = 64 << 20;

/// `path` hashed now, or as it was when last hashed if its length and
/// modification time are the same.
pub(crate) fn hash_policy_file(hashes: &Hashes, path: &Path) -> Option<PolicyFile> {
    let m = std::fs::metadata(path).ok()?;
    let (len, modified) = (m.len(), m.modified().ok());
    let mut seen = hashes
        .policy_files
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(f) = seen
        .iter()
        .find(|s| s.0 == path && s.1 == len && s.2 == modified)
    {
        return Some(f.3.clone());
    }
    if len > LARGE_POLICY_FILE {
        log::warn!(
            "hashing {} ({} MiB) for the results' provenance: the policy's command names it or \
             its script imports it; a file this large takes a while (once per command)",
            crate::text::sanitize(&path.display().to_string()),
            len >> 20
        );
    }
    let (bytes, sha256) = hash_file(path).ok()?;
    let f = PolicyFile {
        path: path.display().to_string(),
        bytes,
        sha256,
    };
    seen.push((path.to_path_buf(), len, modified, f.clone()));
    Some(f)
}
