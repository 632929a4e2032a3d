//! A sweep's plan: a TOML file whose keys are `sim`'s long options without
//! the dashes (`_` for `-` accepted), `trace = "FORMAT:PATH"` in place of
//! the positional arguments; a value is one setting, a list is an axis of
//! the grid. A `true` is a flag (`strict = true`), a `false` leaves it out.
//! Paths are taken as the command line takes them: from the directory the
//! sweep runs in.
//!
//! Each run's arguments are typed from its settings by `options.rs`
//! through the value parsers `sim` gives each option (the runs that give
//! every value of every key before any run, each other run when it runs),
//! so a run's row is the row `tracetui sim` gives for the same arguments.

use color_eyre::eyre::{bail, eyre, Result};
use sha2::{Digest, Sha256};
use std::ffi::OsString;
use std::sync::Arc;

/// (key, value) of a run, shared with the plan's other runs.
pub(crate) type Setting = (Arc<str>, Arc<str>);

/// One key of the plan and its values (one for a fixed setting).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Key {
    pub name: String,
    pub values: Vec<String>,
    /// Given as a list: an axis of the grid.
    pub axis: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// `trace` first, `policy` next, then the other keys by name.
    pub keys: Vec<Key>,
}

/// One run of the grid.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Run {
    /// Its place in the grid (the first key varies slowest).
    pub index: usize,
    /// Stable from its settings: the same settings, the same id.
    pub id: String,
    /// (key, value) in the plan's key order.
    pub settings: Vec<Setting>,
}

/// Keys a plan may not set: the sweep writes these itself.
const THE_SWEEPS: [(&str, &str); 8] = [
    ("format", "results.csv holds every run's row"),
    (
        "jobs-out",
        "give the sweep --jobs-out for a per-job file per run",
    ),
    (
        "timeline-out",
        "give the sweep --timeline-out for a timeline per run",
    ),
    ("plot", "give the sweep --plot for a figure of the grid"),
    ("plot-size", "give the sweep --plot-size"),
    ("plot-font", "give the sweep --plot-font"),
    ("plot-font-size", "give the sweep --plot-font-size"),
    ("policies", "a plan's 'policy' takes a list"),
];

/// Runs a plan may hold (a grid past this is a mistake, not an experiment).
pub(crate) const MAX_RUNS: usize = 1_000_000;

impl Plan {
    /// Reads a plan's text; `file` names it in errors.
    pub(crate) fn parse(text: &str, file: &str) -> Result<Plan> {
        let table: toml::Table = text
            .parse()
            .map_err(|e| eyre!("{file}: {}", crate::config::toml_error(&e)))?;
        let mut keys = Vec::new();
        for (raw, value) in &table {
            let name = raw.replace('_', "-");
            let word = name.starts_with(|c: char| c.is_ascii_lowercase())
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
            if !word {
                bail!(
                    "{file}: '{}' is not a plan key: keys are sim's long options, such as preempt_cost",
                    crate::text::sanitize(raw)
                );
            }
            if let Some((_, why)) = THE_SWEEPS.iter().find(|(k, _)| *k == name) {
                bail!("{file}: '{raw}' is not a plan key: {why}");
            }
            if keys.iter().any(|k: &Key| k.name == name) {
                bail!("{file}: '{raw}' is given twice (as - and _)");
            }
            let (values, axis) = match value {
                toml::Value::Array(items) => {
                    let vs = items
                        .iter()
                        .map(|v| scalar(v).ok_or_else(|| not_scalar(file, raw)))
                        .collect::<Result<Vec<_>>>()?;
                    if vs.is_empty() {
                        bail!("{file}: '{raw}' is an empty list: a grid axis needs a value");
                    }
                    (vs, true)
                }
                v => (vec![scalar(v).ok_or_else(|| not_scalar(file, raw))?], false),
            };
            keys.push(Key { name, values, axis });
        }
        if !keys.iter().any(|k| k.name == "trace") {
            bail!("{file}: no 'trace' (trace = \"itp:cluster01.csv\", FORMAT:PATH, or a list of them)");
        }
        keys.sort_by_key(|k| (rank(&k.name), k.name.clone()));
        let plan = Plan { keys };
        // Counted wide: a grid past what a machine word holds is said as it is.
        let n: u128 = plan
            .keys
            .iter()
            .map(|k| k.values.len() as u128)
            .fold(1, |a, b| a.saturating_mul(b));
        if n > MAX_RUNS as u128 {
            bail!("{file}: the plan makes {n} runs, more than the {MAX_RUNS} a sweep takes");
        }
        Ok(plan)
    }

    /// How many runs the grid makes.
    pub(crate) fn len(&self) -> usize {
        self.keys
            .iter()
            .map(|k| k.values.len())
            .fold(1usize, |a, b| a.saturating_mul(b))
    }

    /// Every run, the first key varying slowest; a run listed twice (the
    /// same value twice in a list) is refused.
    pub(crate) fn runs(&self) -> Result<Vec<Run>> {
        let n = self.len();
        let mut runs = Vec::with_capacity(n);
        let mut seen = std::collections::HashMap::new();
        // Every run shares the plan's names and values (a run holds
        // pointers, not copies: a million runs of long values stay small).
        let names: Vec<Arc<str>> = self
            .keys
            .iter()
            .map(|k| Arc::from(k.name.as_str()))
            .collect();
        let values: Vec<Vec<Arc<str>>> = self
            .keys
            .iter()
            .map(|k| k.values.iter().map(|v| Arc::from(v.as_str())).collect())
            .collect();
        for index in 0..n {
            let mut rest = index;
            let mut settings: Vec<Setting> = names.iter().map(|n| (n.clone(), n.clone())).collect();
            for (i, k) in self.keys.iter().enumerate().rev() {
                settings[i].1 = values[i][rest % k.values.len()].clone();
                rest /= k.values.len();
            }
            let id = run_id(&settings);
            if let Some(first) = seen.insert(id.clone(), index) {
                bail!(
                    "runs {} and {} of the plan are the same ({}): a list names a value twice",
                    first + 1,
                    index + 1,
                    shown(&settings)
                );
            }
            runs.push(Run {
                index,
                id,
                settings,
            });
        }
        Ok(runs)
    }

    /// Runs that between them give every value of every key (the i-th
    /// takes each key's value i modulo its count), in grid order:
    /// checking their arguments checks every value of the plan.
    pub(crate) fn covering(&self) -> Vec<usize> {
        let most = self.keys.iter().map(|k| k.values.len()).max().unwrap_or(1);
        let mut out: Vec<usize> = (0..most)
            .map(|i| {
                self.keys
                    .iter()
                    .fold(0usize, |at, k| at * k.values.len() + i % k.values.len())
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The keys that are axes of the grid.
    pub(crate) fn axes(&self) -> impl Iterator<Item = &Key> {
        self.keys.iter().filter(|k| k.axis)
    }
}

/// `trace`, `policy`, then the rest (by name).
fn rank(name: &str) -> u8 {
    match name {
        "trace" => 0,
        "policy" => 1,
        _ => 2,
    }
}

fn not_scalar(file: &str, key: &str) -> color_eyre::eyre::Report {
    eyre!("{file}: '{key}' takes a value or a list of values (text, numbers, true/false), not a table or a nested list")
}

/// A TOML value as the command line writes it.
fn scalar(v: &toml::Value) -> Option<String> {
    match v {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        toml::Value::Boolean(b) => Some(b.to_string()),
        toml::Value::Datetime(d) => Some(d.to_string()),
        toml::Value::Array(_) | toml::Value::Table(_) => None,
    }
}

/// The run's id: the first 16 hex digits of the SHA-256 of its settings
/// (sorted, each key and value length-prefixed).
fn run_id(settings: &[Setting]) -> String {
    let mut sorted: Vec<&Setting> = settings.iter().collect();
    sorted.sort();
    let mut h = Sha256::new();
    // Each key and value with its length first: no value can pass for another.
    for (k, v) in sorted {
        for part in [k, v] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
    }
    h.finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Settings in a message: `trace=itp:a.csv policy=sjf`.
pub(crate) fn shown(settings: &[Setting]) -> String {
    settings
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

impl Run {
    /// Its `trace` setting (`FORMAT:PATH`).
    pub(crate) fn trace(&self) -> &str {
        self.settings
            .iter()
            .find(|(k, _)| &**k == "trace")
            .map_or("", |(_, v)| &**v)
    }

    /// `tracetui sim …` for this run, as a user would type it.
    #[cfg(test)]
    pub(crate) fn argv(&self) -> Result<Vec<OsString>> {
        self.argv_with(|_| true)
    }

    /// `argv`, where `flag` says which keys are flags: `true` gives a flag
    /// and `false` leaves it out; any other key takes `false` as its value.
    pub(crate) fn argv_with(&self, flag: impl Fn(&str) -> bool) -> Result<Vec<OsString>> {
        let mut argv: Vec<OsString> = vec!["tracetui".into(), "sim".into()];
        for (k, v) in &self.settings {
            if &**k == "trace" {
                let Some((format, path)) = v.split_once(':') else {
                    bail!("trace '{v}' is not FORMAT:PATH (itp:cluster01.csv)");
                };
                argv.push(format.into());
                argv.push(path.into());
            }
        }
        for (k, v) in &self.settings {
            match (&**k, &**v) {
                ("trace", _) => {}
                (_, "false") if flag(k) => {}
                (_, "true") if flag(k) => argv.push(format!("--{k}").into()),
                _ => argv.push(format!("--{k}={v}").into()),
            }
        }
        Ok(argv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: &str = r#"
        trace = ["itp:a.csv", "itp:b.csv"]
        policy = ["fifo", "sjf"]
        preempt_cost = 30
        gpus = [8, 16, 32]
        strict = true
    "#;

    #[test]
    fn the_covering_runs_give_every_value_of_every_key() {
        let plan = Plan::parse(PLAN, "p.toml").unwrap();
        let runs = plan.runs().unwrap();
        let cover = plan.covering();
        assert_eq!(cover.len(), 3, "as many as the longest list");
        for k in &plan.keys {
            for v in &k.values {
                assert!(
                    cover.iter().any(|&i| runs[i]
                        .settings
                        .iter()
                        .any(|(n, x)| **n == *k.name && **x == **v)),
                    "{} = {v} not covered",
                    k.name
                );
            }
        }
    }

    #[test]
    fn lists_are_axes_and_the_first_key_varies_slowest() {
        let plan = Plan::parse(PLAN, "p.toml").unwrap();
        let names: Vec<&str> = plan.keys.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["trace", "policy", "gpus", "preempt-cost", "strict"]);
        assert_eq!(plan.axes().count(), 3);
        let runs = plan.runs().unwrap();
        assert_eq!(runs.len(), 12);
        assert_eq!(&*runs[0].settings[0].1, "itp:a.csv");
        assert_eq!(&*runs[6].settings[0].1, "itp:b.csv");
        assert_eq!(&*runs[1].settings[2].1, "16");
        let argv = runs[1].argv().unwrap();
        let argv: Vec<&str> = argv.iter().map(|a| a.to_str().unwrap()).collect();
        assert_eq!(
            argv,
            [
                "tracetui",
                "sim",
                "itp",
                "a.csv",
                "--policy=fifo",
                "--gpus=16",
                "--preempt-cost=30",
                "--strict"
            ]
        );
        let a = super::super::options::Options::new()
            .sim_args(&runs[1])
            .unwrap();
        assert_eq!(a.trace.load.read.gpus, Some(16));
    }

    #[test]
    fn ids_follow_the_settings_not_their_order_or_the_plan() {
        let a = Plan::parse(PLAN, "p.toml").unwrap().runs().unwrap();
        let reordered = "gpus = [32, 16, 8]\nstrict = true\npolicy = [\"sjf\", \"fifo\"]\n\
            trace = [\"itp:b.csv\", \"itp:a.csv\"]\npreempt-cost = 30\n";
        let b = Plan::parse(reordered, "q.toml").unwrap().runs().unwrap();
        let ids = |r: &[Run]| {
            let mut v: Vec<String> = r.iter().map(|r| r.id.clone()).collect();
            v.sort();
            v
        };
        assert_eq!(ids(&a), ids(&b));
        assert_eq!(a[0].id.len(), 16);
        assert_ne!(a[0].id, a[1].id);
    }

    #[test]
    fn a_bad_plan_says_what_is_wrong() {
        let err = |t: &str| Plan::parse(t, "p.toml").unwrap_err().to_string();
        assert!(err("policy = \"fifo\"").contains("no 'trace'"));
        assert!(err("trace = \"itp:a\"\nformat = \"csv\"").contains("results.csv"));
        assert!(err("trace = \"itp:a\"\ngpus = []").contains("empty list"));
        assert!(err("trace = \"itp:a\"\ngpus = [[1]]").contains("nested list"));
        assert!(err("trace = [").contains("p.toml"));
        assert!(err("trace = \"itp:a\"\n\"jobs-out=/tmp/x\" = true").contains("not a plan key"));
        let twice = Plan::parse("trace = \"itp:a\"\ngpus = [8, 8]", "p.toml").unwrap();
        assert!(twice.runs().unwrap_err().to_string().contains("twice"));
        let unknown = Plan::parse("trace = \"itp:a\"\ncolour = 1", "p.toml").unwrap();
        let e = super::super::options::Options::new()
            .sim_args(&unknown.runs().unwrap()[0])
            .unwrap_err()
            .to_string();
        assert!(e.contains("--colour"), "{e}");
        let no_format = Plan::parse("trace = \"a.csv\"", "p.toml").unwrap();
        assert!(no_format.runs().unwrap()[0].argv().is_err());
    }
}
