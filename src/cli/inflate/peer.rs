//! FGD's own result files: ours written in their layout (so its plot
//! scripts draw them), and theirs read to compare.

use super::Run;
use crate::sim::sharing::{SharingRule, BINS};
use color_eyre::eyre::{eyre, Result};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// The allocation curves' file.
pub(super) const ALLOC_FILE: &str = "analysis_allo_discrete.csv";
/// The fragmentation curves' file.
pub(super) const FRAG_FILE: &str = "analysis_frag_discrete.csv";

/// `x` as Python writes a float (`12.0`, `45.01`).
pub(super) fn py(x: f64) -> String {
    let s = format!("{x}");
    if s.contains(['.', 'e', 'i', 'N']) {
        s
    } else {
        s + ".0"
    }
}

/// Our runs in FGD's layout: one row per (workload, policy, seed), in the
/// order of its directory names.
pub(super) fn write(
    alloc: &Path,
    frag: &Path,
    workloads: &[&str],
    runs: &[Run],
    tune: f64,
    gpus: &[u64],
    meta: &InflateMeta,
) -> Result<()> {
    let mut order: Vec<&Run> = runs.iter().collect();
    order.sort_by(|a, b| {
        (workloads[a.workload], a.rule.peer(), a.seed.to_string()).cmp(&(
            workloads[b.workload],
            b.rule.peer(),
            b.seed.to_string(),
        ))
    });
    let bins: Vec<String> = (0..BINS).map(|x| x.to_string()).collect();
    let cell = |v: &Option<f64>| v.map(py).unwrap_or_default();
    let lines = |with_total: bool, pick: &dyn Fn(&Run) -> &Vec<Option<f64>>| -> String {
        let mut s = format!(
            "workload,sc_policy,tune,seed,{}{}\n",
            if with_total { "total_gpus," } else { "" },
            bins.join(",")
        );
        for r in &order {
            let cells: Vec<String> = pick(r).iter().map(cell).collect();
            s += &format!(
                "{},{},{},{},{}{}\n",
                workloads[r.workload],
                r.rule.peer(),
                py(tune),
                r.seed,
                if with_total {
                    format!("{},", gpus[r.workload])
                } else {
                    String::new()
                },
                cells.join(",")
            );
        }
        s
    };
    for (path, text) in [
        (alloc, lines(true, &|r| &r.curves.alloc)),
        (frag, lines(false, &|r| &r.curves.frag)),
    ] {
        crate::outfile::write_atomic(path, |w| w.write_all(text.as_bytes())).map_err(|e| {
            eyre!(
                "{}: {e}",
                crate::text::sanitize(&path.display().to_string())
            )
        })?;
        crate::cli::meta::write_beside(path, meta)?;
    }
    Ok(())
}

/// What made a run's files: the build, the command, every trace hashed,
/// and the grid — written beside each as `FILE.meta.json` (FGD's layout
/// has no place for it).
#[derive(serde::Serialize)]
pub(super) struct InflateMeta {
    pub(super) tracetui: &'static str,
    pub(super) build: crate::cli::meta::Build,
    pub(super) command: String,
    #[serde(serialize_with = "each_shared")]
    pub(super) traces: Vec<std::sync::Arc<crate::cli::meta::TraceMeta>>,
    pub(super) placements: Vec<&'static str>,
    pub(super) seeds: Vec<u64>,
    pub(super) tune: f64,
    /// The shuffles' generator: tracetui's own, not Go's `math/rand`.
    pub(super) generator: &'static str,
}

fn each_shared<S: serde::Serializer>(
    v: &[std::sync::Arc<crate::cli::meta::TraceMeta>],
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_seq(v.iter().map(|m| m.as_ref()))
}

/// The peer's values at one x: every seed's, by (workload, placement).
pub(super) type PeerValues = BTreeMap<(String, SharingRule), BTreeMap<usize, Vec<f64>>>;

/// FGD's published curves: allocation and fragmentation.
pub(super) struct Peer {
    pub(super) alloc: PeerValues,
    pub(super) frag: PeerValues,
}

/// Reads FGD's published results from `dir`.
pub(super) fn read(dir: &Path) -> Result<Peer> {
    Ok(Peer {
        alloc: read_file(&dir.join(ALLOC_FILE))?,
        frag: read_file(&dir.join(FRAG_FILE))?,
    })
}

/// Reads one of FGD's `analysis_*_discrete.csv`.
fn read_file(path: &Path) -> Result<PeerValues> {
    let shown = crate::text::sanitize(&path.display().to_string());
    let mut rdr = csv::ReaderBuilder::new()
        .flexible(false)
        .from_path(path)
        .map_err(|e| eyre!("{shown}: {e}"))?;
    let header = rdr.headers().map_err(|e| eyre!("{shown}: {e}"))?.clone();
    let col = |name: &str| {
        header.iter().position(|h| h == name).ok_or_else(|| {
            eyre!("{shown}: no column '{name}' (expected FGD's analysis_allo_discrete.csv)")
        })
    };
    let (w, p) = (col("workload")?, col("sc_policy")?);
    let xs: Vec<(usize, usize)> = (0..BINS)
        .filter_map(|x| {
            header
                .iter()
                .position(|h| h == x.to_string())
                .map(|i| (x, i))
        })
        .collect();
    let mut out = PeerValues::new();
    for (line, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| eyre!("{shown}: {e}"))?;
        let Some(rule) = SharingRule::from_peer(&rec[p]) else {
            continue;
        };
        let e = out.entry((rec[w].to_string(), rule)).or_default();
        for &(x, i) in &xs {
            let Some(t) = rec.get(i).filter(|t| !t.is_empty()) else {
                continue;
            };
            let v: f64 = t.parse().map_err(|_| {
                eyre!(
                    "{shown}:{}: column {x}: '{}' is not a number",
                    line + 2,
                    crate::text::sanitize(t)
                )
            })?;
            e.entry(x).or_default().push(v);
        }
    }
    Ok(out)
}
