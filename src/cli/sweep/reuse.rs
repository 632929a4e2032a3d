//! When a sweep's record may stand for its run: while everything the run
//! read is as it was — the tracetui build, the trace's bytes, every
//! throughput table, cluster spec and power trace, the external policies'
//! commands and files (a script and the modules it imports), the directory
//! a policy's command runs in — and the per-run files asked for now were
//! written then. A record that differs runs again, and the sweep says why.

use crate::cli::meta::{trace_meta, Build, Hashes};
use crate::cli::SimArgs;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// What a run read and wrote, as its record keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Read {
    /// The version, the commit, and for a build from a modified tree (or
    /// outside git) the binary's SHA-256.
    pub build: String,
    /// Each input by what it is to the run (`trace`, `throughputs A100`,
    /// `cluster`, `energy`, `policy`).
    pub files: BTreeMap<String, Input>,
    /// The external policies' commands (a schedule's too).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<String>,
    /// Where the commands ran (they may name files relative to it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directory: Option<String>,
    /// The per-run files written beside the record: `jobs`, `timeline`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outputs: Vec<String>,
}

/// One input: its absolute path, and its files' names and SHA-256 (empty
/// where a file could not be read).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Input {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub path: String,
    pub files: Vec<[String; 2]>,
}

impl Read {
    /// What a run with `args` reads now, writing `outputs`.
    pub(crate) fn of(args: &SimArgs, hashes: &Hashes, outputs: &[&str]) -> Read {
        let t = &args.trace;
        let mut files = BTreeMap::new();
        let trace = match trace_meta(hashes, t.load.format, &t.load.path) {
            Ok(m) => Input {
                path: m.path.clone(),
                files: vec![[String::new(), m.sha256.clone()]],
            },
            Err(e) => Input {
                path: t.load.path.display().to_string(),
                files: vec![[e.to_string(), String::new()]],
            },
        };
        files.insert("trace".to_string(), trace);
        for i in crate::cli::meta_inputs::inputs_of(hashes, t) {
            let named = i.files.into_iter().map(|f| [f.name, f.sha256]).collect();
            let input = Input {
                path: i.path,
                files: named,
            };
            files.insert(i.what, input);
        }
        let commands = commands(args);
        let policy_files: Vec<[String; 2]> = commands
            .iter()
            .flat_map(|c| crate::cli::meta_inputs::policy_files(hashes, c))
            .map(|f| [f.path, f.sha256])
            .collect();
        if !policy_files.is_empty() {
            let input = Input {
                path: String::new(),
                files: policy_files,
            };
            files.insert("policy".to_string(), input);
        }
        let directory = (!commands.is_empty())
            .then(|| std::env::current_dir().ok())
            .flatten()
            .map(|d| d.display().to_string());
        Read {
            build: build(hashes),
            files,
            commands,
            directory,
            outputs: outputs.iter().map(|o| o.to_string()).collect(),
        }
    }
}

/// The external policies' commands `args` names, `--policy` first, then a
/// schedule's in its order, each once.
fn commands(args: &SimArgs) -> Vec<String> {
    crate::cli::policy_arg::exec_commands(
        [&args.policy],
        args.trace.policies.policy_schedule.as_deref(),
    )
}

/// This build: the version and commit, and where the tree was modified
/// or unknown, the binary's SHA-256 (hashed once).
fn build(hashes: &Hashes) -> String {
    let b = Build::this();
    let mut s = format!("{} {}", env!("CARGO_PKG_VERSION"), b.commit);
    if b.modified != Some(false) {
        let sha = hashes.binary.get_or_init(|| {
            std::env::current_exe()
                .and_then(|p| crate::cli::meta::hash_file(&p))
                .map(|(_, sha)| sha)
                .unwrap_or_default()
        });
        s.push_str(" binary ");
        s.push_str(sha);
    }
    s
}

/// Why a record that read `then` cannot stand for a run that reads `now`
/// (none: it can); `written(o)` says whether the per-run file `o` is there.
pub(crate) fn why_stale(
    then: Option<&Read>,
    now: &Read,
    written: impl Fn(&str) -> bool,
) -> Option<String> {
    let Some(then) = then else {
        return Some("recorded by an older tracetui".into());
    };
    let mut why: Vec<String> = Vec::new();
    if then.build != now.build {
        why.push("tracetui is another build".into());
    }
    let mut inputs: Vec<&String> = then.files.keys().chain(now.files.keys()).collect();
    inputs.sort();
    inputs.dedup();
    for what in inputs {
        let (a, b) = (then.files.get(what), now.files.get(what));
        if a == b {
            continue;
        }
        let moved = a.zip(b).is_some_and(|(a, b)| a.path != b.path);
        let what = shown(what);
        why.push(if moved {
            format!("{what} is another file")
        } else {
            format!("{what} changed")
        });
    }
    if then.commands != now.commands {
        why.push("policy commands changed".into());
    }
    if then.directory != now.directory {
        why.push("run from another directory".into());
    }
    for o in &now.outputs {
        if !then.outputs.contains(o) || !written(o) {
            why.push(format!("--{o}-out asked for"));
        }
    }
    (!why.is_empty()).then(|| why.join(", "))
}

/// An input's name in a reason.
fn shown(what: &str) -> String {
    match what {
        "cluster" => "cluster spec".into(),
        "energy" => "power traces".into(),
        "policy" => "policy files".into(),
        w => w.to_string(),
    }
}

/// How many runs run again for each reason, said after the count to run:
/// `3 re-run: throughputs changed; 1 re-run: it failed before`.
pub(crate) fn said(reasons: &[String]) -> String {
    let mut counted: Vec<(&str, usize)> = Vec::new();
    for r in reasons {
        match counted.iter_mut().find(|(w, _)| w == r) {
            Some((_, n)) => *n += 1,
            None => counted.push((r, 1)),
        }
    }
    counted
        .iter()
        .map(|(w, n)| format!("{n} re-run: {w}"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Whether the per-run file `what` of run `id` is in `out`.
pub(crate) fn written(out: &Path, id: &str, what: &str) -> bool {
    super::record::run_file(out, id, what).is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(build: &str, trace_sha: &str, outputs: &[&str]) -> Read {
        let mut files = BTreeMap::new();
        files.insert(
            "trace".to_string(),
            Input {
                path: "/t.csv".into(),
                files: vec![[String::new(), trace_sha.into()]],
            },
        );
        Read {
            build: build.into(),
            files,
            commands: Vec::new(),
            directory: None,
            outputs: outputs.iter().map(|o| o.to_string()).collect(),
        }
    }

    #[test]
    fn each_difference_is_named() {
        let then = read("0.1.0 a", "x", &["jobs"]);
        assert_eq!(why_stale(Some(&then), &then, |_| true), None);
        assert_eq!(
            why_stale(None, &then, |_| true).as_deref(),
            Some("recorded by an older tracetui")
        );
        let now = read("0.1.0 b", "y", &["jobs", "timeline"]);
        assert_eq!(
            why_stale(Some(&then), &now, |_| true).as_deref(),
            Some("tracetui is another build, trace changed, --timeline-out asked for")
        );
        // Asked for, written then, since deleted.
        assert_eq!(
            why_stale(Some(&then), &then, |o| o != "jobs").as_deref(),
            Some("--jobs-out asked for")
        );
        // Not asked for now: a file written then is no reason.
        assert_eq!(
            why_stale(Some(&then), &read("0.1.0 a", "x", &[]), |_| false),
            None
        );
        let mut moved = then.clone();
        moved.files.get_mut("trace").unwrap().path = "/elsewhere/t.csv".into();
        assert_eq!(
            why_stale(Some(&then), &moved, |_| true).as_deref(),
            Some("trace is another file")
        );
    }

    #[test]
    fn reasons_are_counted_in_first_seen_order() {
        let r = ["b".to_string(), "a".into(), "b".into()];
        assert_eq!(said(&r), "2 re-run: b; 1 re-run: a");
        assert_eq!(said(&[]), "");
    }
}
