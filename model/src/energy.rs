//! Zeus's power traces (ml-energy/zeus, NSDI '23): `summary_train.csv` and
//! `summary_power_<gpu>.csv` read into one profile per Zeus workload.
//!
//! The batch size is the workload's default in the Zeus paper
//! (`DEFAULT_BATCH`: 1024, 256, 192, 1024, 32, 128), or where the power
//! trace does not measure that one, its most-run batch size in
//! `summary_train.csv` that the power trace measures (ties: the smaller).
//! What a replay makes of the profiles is `sim::energy`.

use super::input::{InputError, Location};
use crate::text::sanitize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The six Zeus workloads (dataset, network).
pub const WORKLOADS: [(&str, &str); 6] = [
    ("cifar100", "shufflenetv2"),
    ("imagenet", "resnet50"),
    ("librispeech", "deepspeech2"),
    ("movielens-1m", "ncf"),
    ("squad", "bert_base_uncased"),
    ("sentiment140", "bert_base_uncased"),
];

/// The default batch size of each workload (Zeus, NSDI '23, Table 3).
pub const DEFAULT_BATCH: [u32; 6] = [1024, 256, 192, 1024, 32, 128];

/// One workload at its batch size: per power limit (watts), time per epoch and average power.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// The batch size measured: the workload's default, or its most-run one the
    /// power trace measures.
    pub batch_size: u32,
    /// (power limit W, time per epoch s, average power W), by limit.
    pub limits: Vec<(u32, f64, f64)>,
}

impl Profile {
    /// (time per epoch, average power) at `limit`.
    pub fn at(&self, limit: u32) -> (f64, f64) {
        self.limits
            .iter()
            .find(|l| l.0 == limit)
            .map_or((1.0, 0.0), |l| (l.1, l.2))
    }

    /// The highest power limit measured, in watts (0 when none is).
    pub fn max_limit(&self) -> u32 {
        self.limits.iter().map(|l| l.0).max().unwrap_or(0)
    }
}

/// The most a Zeus summary CSV may hold: 64 MiB (the released ones are
/// under 200 KB).
const MAX_BYTES: u64 = 64 << 20;

/// A measured row: (batch size, power limit, time per epoch, average power).
type PowerRow = (u32, u32, f64, f64);

/// The `want` columns of a CSV with a header, by line number.
fn read_csv(path: &Path, want: &[&str]) -> Result<Vec<(u64, Vec<String>)>, InputError> {
    let file = path.display().to_string();
    let bytes = super::reader::read_small(path, MAX_BYTES, "a Zeus summary CSV")?;
    let text = String::from_utf8(bytes)
        .map_err(|_| InputError::file(&file, "not UTF-8 text: not a Zeus summary CSV"))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines
        .next()
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .collect();
    let idx: Vec<usize> = want
        .iter()
        .map(|w| header.iter().position(|h| h == w))
        .collect::<Option<_>>()
        .ok_or_else(|| {
            InputError::on_line(&file, 1, format!("header must have {}", want.join(",")))
        })?;
    Ok(lines
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let f: Vec<&str> = l.split(',').collect();
            (
                i as u64 + 2,
                idx.iter()
                    .map(|&k| f.get(k).map_or(String::new(), |s| s.trim().to_string()))
                    .collect(),
            )
        })
        .collect())
}

/// Training runs of workload `(d, n)` per batch size (the most-run one is the default).
fn training_runs(train: &[(u64, Vec<String>)], d: &str, n: &str) -> BTreeMap<u32, u32> {
    let mut runs: BTreeMap<u32, u32> = BTreeMap::new();
    for (_, f) in train.iter().filter(|(_, f)| f[0] == d && f[1] == n) {
        if let Ok(b) = f[2].parse::<u32>() {
            *runs.entry(b).or_insert(0) += 1;
        }
    }
    runs
}

/// The power trace's rows of workload `(d, n)`, checked; where two
/// optimizers are measured, the first one in the file counts.
fn power_rows(
    power: &[(u64, Vec<String>)],
    pfile: &str,
    d: &str,
    n: &str,
) -> Result<Vec<PowerRow>, InputError> {
    let bad = |line: u64, col: &str, v: &str| {
        InputError::at(
            Location {
                file: pfile.to_string(),
                line,
                column: Some(col.into()),
                byte: false,
            },
            format!("not a number: '{}'", sanitize(v)),
        )
    };
    let mut rows: Vec<PowerRow> = Vec::new();
    let mut first_optimizer_rows = BTreeSet::new();
    for (line, f) in power.iter().filter(|(_, f)| f[0] == d && f[1] == n) {
        let b = f[2]
            .parse::<u32>()
            .map_err(|_| bad(*line, "batch_size", &f[2]))?;
        let l = f[3]
            .parse::<u32>()
            .map_err(|_| bad(*line, "power_limit", &f[3]))?;
        let t = f[4]
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x > 0.0)
            .ok_or_else(|| bad(*line, "time_per_epoch", &f[4]))?;
        let w = f[5]
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x >= 0.0)
            .ok_or_else(|| bad(*line, "average_power", &f[5]))?;
        if first_optimizer_rows.insert((b, l)) {
            rows.push((b, l, t, w));
        }
    }
    if rows.is_empty() {
        return Err(InputError::file(
            pfile,
            format!("no rows for workload {d}/{n}"),
        ));
    }
    Ok(rows)
}

/// Reads `summary_train.csv` and `summary_power_<gpu>.csv` from `dir`: one
/// profile per workload of `WORKLOADS`, in that order.
pub fn load_profiles(dir: &Path, gpu: &str) -> Result<Vec<Profile>, InputError> {
    let train_path = dir.join("summary_train.csv");
    let power_path = dir.join(format!("summary_power_{gpu}.csv"));
    let train = read_csv(&train_path, &["dataset", "network", "batch_size"])?;
    let power = read_csv(
        &power_path,
        &[
            "dataset",
            "network",
            "batch_size",
            "power_limit",
            "time_per_epoch",
            "average_power",
        ],
    )?;
    let pfile = power_path.display().to_string();
    let mut profiles = Vec::new();
    for (wi, (d, n)) in WORKLOADS.into_iter().enumerate() {
        let runs = training_runs(&train, d, n);
        let rows = power_rows(&power, &pfile, d, n)?;
        let measured: BTreeSet<u32> = rows.iter().map(|r| r.0).collect();
        let default = Some(DEFAULT_BATCH[wi]).filter(|b| measured.contains(b));
        let batch = default
            .or_else(|| {
                runs.iter()
                    .filter(|(b, _)| measured.contains(b))
                    .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
                    .map(|(b, _)| *b)
            })
            .ok_or_else(|| {
                InputError::file(
                    &train_path.display().to_string(),
                    format!(
                        "no training runs of {d}/{n} at a batch size {} measures",
                        pfile
                    ),
                )
            })?;
        let mut limits: Vec<(u32, f64, f64)> = rows
            .iter()
            .filter(|r| r.0 == batch)
            .map(|r| (r.1, r.2, r.3))
            .collect();
        limits.sort_by_key(|l| l.0);
        profiles.push(Profile {
            batch_size: batch,
            limits,
        });
    }
    Ok(profiles)
}
