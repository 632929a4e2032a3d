//! Provenance: what every result says about where it came from — the
//! tracetui version, the command line, every knob with its value (the
//! defaults too), the trace's files with their size and SHA-256, and the
//! policies (an external one's command and the name its hello gave).
//! Nothing about the clock or the host, so the same inputs give the same
//! bytes. The JSON summary has it as `meta`, the CSV summary as a `meta`
//! column, an SVG in `<metadata>`, and the per-job and timeline files
//! beside them as `NAME.meta.json`.

use super::{Cli, Command, TraceArgs};
use crate::sim::{Policy, Schedule};
use crate::trace::Format;
use clap::CommandFactory;
use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The files a command hashed for provenance, each kept while its length
/// and modification time stay the same: a sweep's runs share one hash of
/// each trace, table and script. The command owns it (no global).
#[derive(Debug, Default)]
pub(crate) struct Hashes {
    traces: Mutex<Hashed>,
    pub(super) inputs: Mutex<super::meta_inputs::Hashed>,
    pub(super) policy_files: Mutex<super::meta_inputs::Seen>,
    interpreters: Mutex<Vec<super::meta_interpreter::Interpreter>>,
    /// This binary's SHA-256 (a sweep's build, where no commit names it).
    pub(super) binary: std::sync::OnceLock<String>,
}

/// Where a result came from.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Meta {
    pub tracetui: &'static str,
    /// The build it came from.
    pub build: Build,
    /// The command line, quoted for a POSIX shell; for a sweep's run, the
    /// `sim` command that gives the same row.
    pub command: String,
    /// A sweep's run id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    #[serde(serialize_with = "shared")]
    pub trace: Arc<TraceMeta>,
    /// Every option of the command and its value (null where unset), by
    /// its long name; `trace` is `FORMAT:PATH`, as in a sweep plan.
    pub knobs: Map<String, Value>,
    pub policies: Vec<PolicyMeta>,
    /// The throughput tables, cluster spec and power traces the run read, hashed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<super::meta_inputs::InputMeta>,
}

fn shared<S: serde::Serializer>(m: &Arc<TraceMeta>, s: S) -> Result<S::Ok, S::Error> {
    m.as_ref().serialize(s)
}

/// The trace's files.
#[derive(Debug, Serialize)]
pub(crate) struct TraceMeta {
    pub format: &'static str,
    /// The trace's path, absolute.
    pub path: String,
    /// The one file's SHA-256; for several files, the SHA-256 of their
    /// `sha256sum` lines (`HASH  NAME`, sorted by name); empty for a
    /// trace read from a pipe (not hashed).
    pub sha256: String,
    pub files: Vec<FileMeta>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct FileMeta {
    /// Relative to the trace's directory.
    pub name: String,
    pub bytes: u64,
    pub sha256: String,
}

/// `--version`: the version, and the commit it was built from (build.rs).
pub(crate) const VERSION: &str =
    concat!(env!("CARGO_PKG_VERSION"), " (", env!("TRACETUI_BUILD"), ")");

/// The build a run came from: the commit and whether tracked files
/// differed from it (`null` outside a git checkout).
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct Build {
    pub commit: &'static str,
    pub modified: Option<bool>,
}

impl Build {
    /// This binary's.
    pub(crate) fn this() -> Build {
        Build {
            commit: env!("TRACETUI_COMMIT"),
            modified: match env!("TRACETUI_MODIFIED") {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            },
        }
    }
}

/// A policy the run used.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PolicyMeta {
    /// As results show it.
    pub name: String,
    /// What `--policy` takes to choose it (`exec:CMD[k=v]` for a program).
    pub arg: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The name the program gave itself in its hello.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hello: Option<String>,
    /// The files its command names (its script), hashed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<super::meta_inputs::PolicyFile>,
    /// The Python its command runs, and its version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interpreter: Option<super::meta_interpreter::Interpreter>,
}

impl Meta {
    /// The meta of a run of `t`'s command line with `policies` (a
    /// schedule's too) on the trace `trace` describes.
    pub(crate) fn of(
        hashes: &Hashes,
        t: &TraceArgs,
        trace: Arc<TraceMeta>,
        policies: &[Policy],
        schedule: Option<&Schedule>,
    ) -> Meta {
        Meta {
            tracetui: env!("CARGO_PKG_VERSION"),
            build: Build::this(),
            command: shell_line(&t.command_line),
            run: None,
            trace,
            knobs: t.knobs.clone(),
            policies: policy_metas(hashes, policies, schedule),
            inputs: super::meta_inputs::inputs_of(hashes, t),
        }
    }

    /// Compact JSON, for a CSV field.
    pub(crate) fn compact(&self) -> String {
        serde_json::to_string(self).expect("meta serialises")
    }
}

fn policy_metas(
    hashes: &Hashes,
    policies: &[Policy],
    schedule: Option<&Schedule>,
) -> Vec<PolicyMeta> {
    let mut all: Vec<Policy> = policies.to_vec();
    if let Some(s) = schedule {
        all.extend(s.start);
        all.extend(s.switches.iter().filter_map(|(_, w)| match w {
            crate::sim::Switch::Policy(p) => Some(*p),
            crate::sim::Switch::Power(_) | crate::sim::Switch::Placement(_) => None,
        }));
    }
    let mut out: Vec<PolicyMeta> = Vec::new();
    for p in all {
        if out.iter().any(|m| m.arg == p.name()) {
            continue;
        }
        out.push(PolicyMeta {
            name: p.title().to_string(),
            arg: p.name().to_string(),
            command: p.command().map(str::to_string),
            hello: p.hello_name().map(str::to_string),
            files: p
                .command()
                .map(|c| super::meta_inputs::policy_files(hashes, c))
                .unwrap_or_default(),
            interpreter: p
                .command()
                .and_then(|c| super::meta_interpreter::interpreter_of(&hashes.interpreters, c)),
        });
    }
    out
}

/// `argv` as one line a POSIX shell reads back as the same words; the
/// program is `tracetui` wherever it was installed.
pub(crate) fn shell_line(argv: &[String]) -> String {
    let mut words = vec!["tracetui".to_string()];
    words.extend(argv.iter().skip(1).map(|w| super::tui::shell_word(w)));
    words.join(" ")
}

/// `argv` parsed once, as the command line is: the arguments, with the
/// command line and every option of its subcommand and its value (the
/// knobs) put into a `sim` or `compare` run's `TraceArgs`, and a sweep's
/// command line into its `SweepArgs`.
pub(crate) fn parse(argv: &[std::ffi::OsString]) -> Result<Cli, clap::Error> {
    let mut cmd = <Cli as CommandFactory>::command();
    let m = cmd.try_get_matches_from_mut(argv)?;
    let mut cli = <Cli as clap::FromArgMatches>::from_arg_matches(&m)?;
    let line: Vec<String> = argv
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let trace = match &mut cli.command {
        Some(Command::Sim(a)) => Some(&mut a.trace),
        Some(Command::Compare(a)) => Some(&mut a.trace),
        Some(Command::Sweep(a)) => {
            a.command_line = line.clone();
            None
        }
        _ => None,
    };
    if let Some(t) = trace {
        t.knobs = knobs(&cmd, &m);
        t.command_line = line;
    }
    Ok(cli)
}

/// Every option of the subcommand `m` matched and its value, defaults
/// included, by long name (`trace` first, `FORMAT:PATH`).
fn knobs(cmd: &clap::Command, m: &clap::ArgMatches) -> Map<String, Value> {
    let Some((name, sub)) = m.subcommand() else {
        return Map::new();
    };
    let Some(sc) = cmd.find_subcommand(name) else {
        return Map::new();
    };
    knobs_of(sc, |id| {
        let v = sub.try_get_raw(id).ok().flatten()?;
        Some(v.map(|s| s.to_string_lossy().into_owned()).collect())
    })
}

/// Every option of `sc` and its value as `raw` gives it by id (as typed,
/// or its default; none: null), by long name (`trace` first, the
/// positional values joined by `:`).
pub(crate) fn knobs_of(
    sc: &clap::Command,
    raw: impl Fn(&str) -> Option<Vec<String>>,
) -> Map<String, Value> {
    let mut out = Map::new();
    let positional: Vec<String> = sc
        .get_positionals()
        .filter_map(|a| raw(a.get_id().as_str()))
        .flatten()
        .collect();
    if !positional.is_empty() {
        out.insert("trace".into(), Value::String(positional.join(":")));
    }
    for arg in sc.get_arguments().filter(|a| !a.is_positional()) {
        let id = arg.get_id().as_str();
        if matches!(id, "help" | "version") {
            continue;
        }
        let value = match raw(id) {
            None => Value::Null,
            Some(mut v) if v.len() == 1 => Value::String(v.remove(0)),
            Some(v) => Value::Array(v.into_iter().map(Value::String).collect()),
        };
        out.insert(arg.get_long().unwrap_or(id).to_string(), value);
    }
    out
}

/// What identifies a trace's files as they are now.
type Stamp = (
    &'static str,
    PathBuf,
    Vec<(PathBuf, u64, Option<std::time::SystemTime>)>,
);

/// The traces hashed so far, by what they were then.
type Hashed = Vec<(Stamp, Arc<TraceMeta>)>;

/// The meta of the trace `format` reads at `path`: every regular file it
/// reads, hashed once in `hashes` while it is unchanged.
pub(crate) fn trace_meta(
    hashes: &Hashes,
    format: Format,
    path: &Path,
) -> std::io::Result<Arc<TraceMeta>> {
    let abs = std::fs::canonicalize(path).or_else(|_| std::path::absolute(path))?;
    let mut files: Vec<PathBuf> = format
        .reads(path)
        .into_iter()
        .filter(|f| std::fs::metadata(f).is_ok_and(|m| m.is_file()))
        .collect();
    files.sort();
    files.dedup();
    let stamp: Stamp = (
        format.name(),
        abs.clone(),
        files
            .iter()
            .map(|f| {
                let m = std::fs::metadata(f).ok();
                let len = m.as_ref().map_or(0, |m| m.len());
                (f.clone(), len, m.and_then(|m| m.modified().ok()))
            })
            .collect(),
    );
    // Held while hashing: runs of one trace wait for its one hash.
    let mut seen = hashes.traces.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, m)) = seen.iter().find(|(s, _)| *s == stamp) {
        return Ok(m.clone());
    }
    let base = if path.is_dir() {
        path.to_path_buf()
    } else {
        path.parent().map(Path::to_path_buf).unwrap_or_default()
    };
    let mut metas = Vec::new();
    for f in &files {
        let (bytes, sha256) = hash_file(f)
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", f.display())))?;
        let name = f.strip_prefix(&base).unwrap_or(f);
        metas.push(FileMeta {
            name: name.to_string_lossy().into_owned(),
            bytes,
            sha256,
        });
    }
    metas.sort_by(|a, b| a.name.cmp(&b.name));
    let sha256 = match metas.as_slice() {
        // Nothing to hash (a pipe, read as it streams): no claim.
        [] => String::new(),
        [one] => one.sha256.clone(),
        many => {
            let lines: String = many
                .iter()
                .map(|f| format!("{}  {}\n", f.sha256, f.name))
                .collect();
            hex(&Sha256::digest(lines.as_bytes()))
        }
    };
    let meta = Arc::new(TraceMeta {
        format: format.name(),
        path: abs.to_string_lossy().into_owned(),
        sha256,
        files: metas,
    });
    seen.push((stamp, meta.clone()));
    Ok(meta)
}

/// `load`, and with `hash` the meta of the trace `format` reads at `path`
/// hashed meanwhile on another core.
pub(crate) fn hashed_while<T>(
    hashes: &Hashes,
    hash: bool,
    format: Format,
    path: &Path,
    load: impl FnOnce() -> color_eyre::eyre::Result<T>,
) -> color_eyre::eyre::Result<(T, Option<Arc<TraceMeta>>)> {
    if !hash {
        return Ok((load()?, None));
    }
    let (hashed, loaded) = crate::trace::both(|| trace_meta(hashes, format, path), load);
    let loaded = loaded?;
    let hashed = hashed.map_err(|_| color_eyre::eyre::eyre!("hashing the trace panicked"))?;
    let hashed = hashed.map_err(|e| color_eyre::eyre::eyre!("hashing the trace: {e}"))?;
    Ok((loaded, Some(hashed)))
}

/// A file's length and SHA-256 (read in 1 MiB pieces).
pub(crate) fn hash_file(path: &Path) -> std::io::Result<(u64, String)> {
    let mut f = std::fs::File::open(path)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut len = 0u64;
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            return Ok((len, hex(&h.finalize())));
        }
        len += n as u64;
        h.update(&buf[..n]);
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn pretty<M: Serialize>(meta: &M) -> String {
    serde_json::to_string_pretty(meta).expect("meta serialises") + "\n"
}

/// Where the meta of the output `path` goes: `path.meta.json` (the per-job
/// and timeline files are tables, which have no place for it).
pub(crate) fn beside(path: &Path) -> Option<PathBuf> {
    if path.as_os_str() == "-" {
        return None;
    }
    let mut name = path.as_os_str().to_os_string();
    name.push(".meta.json");
    Some(PathBuf::from(name))
}

/// Writes `meta` beside the output `path` (not for standard output).
pub(crate) fn write_beside<M: Serialize>(path: &Path, meta: &M) -> color_eyre::eyre::Result<()> {
    let Some(to) = beside(path) else {
        return Ok(());
    };
    let text = pretty(meta);
    crate::outfile::write_atomic(&to, |w| std::io::Write::write_all(w, text.as_bytes())).map_err(
        |e| color_eyre::eyre::eyre!("{}: {e}", crate::text::sanitize(&to.display().to_string())),
    )
}

/// `svg` with `meta` in a `<metadata>` element after its opening tag.
pub(crate) fn into_svg<M: Serialize>(svg: &str, meta: &M) -> String {
    let json = pretty(meta)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let at = svg
        .find("<svg")
        .and_then(|s| svg[s..].find('>').map(|e| s + e + 1));
    match at {
        Some(at) => format!(
            "{}\n<metadata id=\"tracetui-meta\">{json}</metadata>{}",
            &svg[..at],
            &svg[at..]
        ),
        None => svg.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_read_back_as_given() {
        let word = super::super::tui::shell_word;
        assert_eq!(word("--gpus=64"), "--gpus=64");
        assert_eq!(word("exec:python3 p.py"), "'exec:python3 p.py'");
        assert_eq!(word("it's"), "'it'\\''s'");
        assert_eq!(word(""), "''");
        let line = shell_line(&["/x/tracetui".into(), "sim".into(), "a b".into()]);
        assert_eq!(line, "tracetui sim 'a b'");
    }

    #[test]
    fn knobs_name_every_option_with_its_default() {
        let argv = [
            "tracetui", "sim", "itp", "x.csv", "--gpus", "16", "--strict",
        ]
        .map(std::ffi::OsString::from);
        let Some(Command::Sim(a)) = parse(&argv).unwrap().command else {
            panic!("a sim run");
        };
        let k = &a.trace.knobs;
        assert_eq!(k["trace"], "itp:x.csv");
        assert_eq!(k["gpus"], "16");
        assert_eq!(k["strict"], "true");
        assert_eq!(k["include-cpu-jobs"], "false");
        assert_eq!(k["policy"], "fifo");
        assert_eq!(k["placement"], "consolidate");
        assert_eq!(k["format"], "table");
        assert_eq!(k["jobs-out"], Value::Null);
        assert_eq!(k.keys().next().map(String::as_str), Some("trace"));
        assert_eq!(a.trace.command_line[4], "--gpus");
        assert!(parse(&["tracetui".into(), "--nope".into()]).is_err());
    }

    #[test]
    fn svg_metadata_is_escaped_and_inside_the_svg() {
        let meta = Meta {
            tracetui: "0",
            build: Build::this(),
            command: "tracetui sim itp '<a&b>.csv'".into(),
            run: None,
            trace: Arc::new(TraceMeta {
                format: "itp",
                path: "/<a&b>.csv".into(),
                sha256: "00".into(),
                files: Vec::new(),
            }),
            knobs: Map::new(),
            policies: Vec::new(),
            inputs: Vec::new(),
        };
        let svg = into_svg("<?xml?>\n<svg a=\"1\">\n<rect/></svg>", &meta);
        assert!(svg.starts_with("<?xml?>\n<svg a=\"1\">\n<metadata"));
        assert!(svg.contains("&lt;a&amp;b&gt;.csv"));
        assert!(!svg.contains("<a&b>"));
        assert!(svg.ends_with("<rect/></svg>"));
    }
}
