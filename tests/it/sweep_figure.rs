//! Issue 60's fifth item: a sweep's figure a paper takes — a panel per
//! value of the other axes, one colour and marker per policy in all of
//! them, axis titles in words with units, a share's interval inside
//! [0, 1], the numbers with a column per axis, failed runs counted and
//! never drawn, labels and limits as given, and PDF as well as SVG.

use crate::common;

use common::cli::{stderr, tracetui};
use common::sweep::*;
use std::collections::{BTreeMap, BTreeSet};

/// Three traces (`gen` with seeds 1–3), two policies that run and `edf`,
/// which fails on traces without deadlines, at two loads, three seeds.
fn plan(dir: &std::path::Path) -> std::path::PathBuf {
    let mut traces = Vec::new();
    for s in 1..=3 {
        let t = dir.join(format!("c{s}.csv"));
        let o = tracetui(&[
            "gen",
            "itp",
            "--jobs",
            "300",
            "--seed",
            &s.to_string(),
            "--out",
            t.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        traces.push(format!("\"itp:{}\"", t.display()));
    }
    write_plan(
        dir,
        &format!(
            "trace = [{}]\npolicy = [\"fifo\", \"sjf\", \"edf\"]\nload = [0.7, 0.9]\nseed = [1, 2, 3]\n",
            traces.join(", ")
        ),
    )
}

/// The stroke colour of every polyline drawn 2 px wide (the data lines,
/// their markers and interval bars) in each panel's part of the SVG.
fn colours(svg: &str) -> BTreeSet<String> {
    svg.lines()
        .filter(|l| l.contains("<polyline") && l.contains("stroke-width=\"2\""))
        .filter_map(|l| {
            l.split("stroke=\"")
                .nth(1)?
                .split('"')
                .next()
                .map(String::from)
        })
        .collect()
}

#[test]
fn three_traces_three_panels_one_colour_per_policy_and_a_share_inside_its_bounds() {
    let dir = common::scratch_dir("sweep-figure");
    let plan = plan(&dir);
    let out = dir.join("out");
    let svg = dir.join("fig.svg");
    let o = sweep(
        &plan,
        &out,
        &["--plot", svg.to_str().unwrap(), "--plot-y", "gpu_util"],
    );
    // edf's rows failed (no deadlines): counted, not drawn.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the figure leaves out the 18 failed runs"),
        "{}",
        stderr(&o)
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    for s in 1..=3 {
        assert!(text.contains(&format!("trace = c{s}.csv")), "panel {s}");
    }
    assert!(text.contains("GPU utilisation (share of GPU time)"));
    assert!(text.contains("GPU utilisation by offered load (mean over 3 seeds, 95 % interval)"));
    assert!(text.contains("offered load (share of the GPUs)"));
    assert!(!text.contains(">\nedf\n<"), "no line for the failed policy");
    // fifo and sjf: two colours in all three panels.
    assert_eq!(colours(&text).len(), 2, "{:?}", colours(&text));
    // The metadata lists the runs drawn and, apart, the failed.
    let meta = text
        .split("<metadata id=\"tracetui-meta\">")
        .nth(1)
        .unwrap();
    let meta: serde_json::Value = serde_json::from_str(
        &meta
            .split("</metadata>")
            .next()
            .unwrap()
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&"),
    )
    .unwrap();
    assert_eq!(meta["runs"].as_array().unwrap().len(), 36);
    assert_eq!(meta["failed"].as_array().unwrap().len(), 18);
    // The numbers: a column per axis and for the interval, inside [0, 1].
    let mut r = csv::Reader::from_path(dir.join("fig.data.csv")).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        header,
        ["policy", "trace", "load", "y", "lo", "hi", "interval", "n"]
    );
    let mut per_panel: BTreeMap<String, usize> = BTreeMap::new();
    for row in r.records() {
        let row = row.unwrap();
        let (y, lo, hi): (f64, f64, f64) = (
            row[3].parse().unwrap(),
            row[4].parse().unwrap(),
            row[5].parse().unwrap(),
        );
        assert!(
            (0.0..=y).contains(&lo) && (y..=1.0).contains(&hi),
            "{row:?}"
        );
        assert_eq!(&row[6], "bootstrap 95 %");
        assert_eq!(&row[7], "3");
        *per_panel.entry(row[1].to_string()).or_default() += 1;
    }
    assert_eq!(per_panel.len(), 3);
    assert!(
        per_panel.values().all(|&n| n == 4),
        "2 policies × 2 loads each"
    );
}

/// A figure of mean JCT to `path`, a panel per trace, with its title, y
/// title and y limits given.
fn labelled(path: &str) -> Vec<&str> {
    vec![
        "--plot",
        path,
        "--plot-y",
        "jct_mean_s",
        "--plot-facet",
        "trace",
        "--plot-title",
        "Mean JCT on three clusters",
        "--plot-y-label",
        "JCT (hours, mean)",
        "--plot-y-min",
        "0",
        "--plot-y-max",
        "100",
    ]
}

#[test]
fn labels_limits_one_facet_and_a_pdf() {
    let dir = common::scratch_dir("sweep-figure-pdf");
    let plan = plan(&dir);
    let out = dir.join("out");
    let pdf = dir.join("fig.pdf");
    let o = sweep(
        &plan,
        &out,
        &[
            "--plot",
            pdf.to_str().unwrap(),
            "--plot-y",
            "jct_mean_s",
            "--plot-facet",
            "seed",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o)
            .contains("--plot-facet seed: not an axis of the plan other than x, seed and policy"),
        "{}",
        stderr(&o)
    );
    let o = sweep(&plan, &out, &labelled(pdf.to_str().unwrap()));
    assert_eq!(o.status.code(), Some(1), "edf's rows: {}", stderr(&o));
    let bytes = std::fs::read(&pdf).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.starts_with("%PDF-1.4"), "a PDF");
    assert!(text.contains("/BaseFont /Helvetica"));
    assert!(text.contains("/tracetui ("), "the provenance inside");
    assert!(text.ends_with("%%EOF\n"));
    assert!(dir.join("fig.data.csv").is_file());
    // The labels given: the SVG of the same figure says them.
    let svg = dir.join("same.svg");
    sweep(&plan, &out, &labelled(svg.to_str().unwrap()));
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(s.contains("Mean JCT on three clusters") && s.contains("JCT (hours, mean)"));
    assert!(
        s.contains(">\n100\n<") || s.contains(">100<"),
        "the y limit is a tick"
    );
}

/// The Done-when of issue 60: the researcher's sweep in
/// docs/examples/researcher-sweep (an own elastic policy and four
/// built-ins at two loads) runs with no failed row — here on one of its
/// clusters and one seed, to keep the test short; the whole 90 runs are
/// measured in that folder's README.
#[test]
fn the_researchers_sweep_runs_with_no_failed_row() {
    if !common::python() {
        return;
    }
    let Some(shared) = common::real_traces() else {
        return;
    };
    let dir = common::scratch_dir("sweep-researcher");
    let link = |from: &std::path::Path, to: &std::path::Path| {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(std::fs::canonicalize(from).unwrap(), to).unwrap();
    };
    link(&shared.join("itp/elasticflow"), &dir.join("traces"));
    link(
        &shared.join("elasticflow-artifact/throughputs_A100"),
        &dir.join("ElasticFlow/ElasticFlow/scheduler/throughputs_A100"),
    );
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_tracetui"))
        .args(["policy", "new", "--elastic", "elastic_edf"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs/examples/researcher-sweep/plan.toml");
    let text = std::fs::read_to_string(docs).unwrap();
    let small: String = text
        .lines()
        .filter(|l| !l.contains("cluster03") && !l.contains("cluster04"))
        .map(|l| {
            if l.starts_with("seed") {
                "seed = [1]"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let plan = dir.join("plan.toml");
    std::fs::write(&plan, small).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_tracetui"))
        .args([
            "sweep",
            "plan.toml",
            "--out",
            "results",
            "--plot",
            "deadlines.svg",
            "--plot-y",
            "deadline_met",
        ])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("10 runs, 0 failed"), "{}", stderr(&o));
    let rows = rows(&dir.join("results"));
    assert_eq!(rows.len(), 10);
    assert!(rows
        .iter()
        .all(|r| r["error"].is_empty() && !r["deadline_met"].is_empty()));
    let svg = std::fs::read_to_string(dir.join("deadlines.svg")).unwrap();
    assert!(svg.contains("trace = cluster02.csv"));
}
