//! Alibaba's 2023 GPU-sharing trace (openb) end to end: its counts as
//! released, FGD's typical pods and fragmentation on the real trace, and
//! `tracetui inflate` — the paper's arrival-only experiment — within the
//! spread of FGD's published results (read from ../shared/traces/openb).

use crate::common;

use common::cli::{stderr, stdout, tracetui};
use std::path::{Path, PathBuf};
use tracetui::sim::sharing::{node_frag, Setup, SharingRule};

const FIXTURE: &str = "tests/fixtures/openb/openb_pod_list_default.csv";

/// The real openb directory, or `None` with the reason printed.
fn openb() -> Option<PathBuf> {
    let dir = common::real_traces()?.join("openb");
    if !dir.join("openb_pod_list_default.csv").is_file() {
        eprintln!(
            "skipped: {} has no openb_pod_list_default.csv",
            dir.display()
        );
        return None;
    }
    Some(dir)
}

fn load(path: &Path) -> tracetui::trace::Trace {
    let f = tracetui::trace::Format::find("openb").unwrap();
    tracetui::trace::load(f, path, &Default::default())
        .unwrap()
        .0
}

#[test]
fn stats_counts_the_released_pods_nodes_and_gpus() {
    let Some(dir) = openb() else { return };
    let pods = dir.join("openb_pod_list_default.csv");
    let o = tracetui(&["stats", "openb", pods.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for line in [
        "jobs       8152 ",
        "Running      5193",
        "Failed       1870",
        "Pending      897",
        "Succeeded    192",
        "machines   1213",
        "G2              549 machines    4392 GPUs",
    ] {
        assert!(out.contains(line), "{line}: {out}");
    }
    assert!(
        stderr(&o).contains("1213 nodes, 6212 GPUs"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_typical_pods_and_empty_nodes_fragmentation_are_fgds() {
    let Some(dir) = openb() else { return };
    let t = load(&dir.join("openb_pod_list_default.csv"));
    let pods = t.native.as_ref().unwrap().pods().unwrap();
    let s = Setup::new(&t.cluster, pods);
    // FGD's 95 % rule keeps 35 of the 91 kinds (fgd-semantics.md, appendix A).
    assert_eq!(s.typical.len(), 35);
    let head: Vec<(u32, u32, u32)> = s.typical[..5]
        .iter()
        .map(|k| (k.cpu_milli, k.milli, k.gpus))
        .collect();
    assert_eq!(
        head,
        [
            (3152, 810, 1),
            (11300, 1000, 1),
            (11400, 1000, 1),
            (3152, 1000, 1),
            (11908, 470, 1)
        ]
    );
    assert!((s.typical[0].p - 1047.0 / 7766.0).abs() < 1e-12);
    let cpu: f64 = s.typical.iter().filter(|k| k.milli == 0).map(|k| k.p).sum();
    assert!((cpu - 0.1360).abs() < 5e-5, "{cpu}");
    // An empty node of each shape, in milli-GPUs.
    let ty = |n: &str| t.cluster.gpu_types.iter().position(|x| x == n).unwrap() as u16;
    for (model, cpu, gpus, want) in [
        ("G2", 96_000, 8, 1087.82),
        ("T4", 104_000, 2, 271.95),
        ("P100", 16_000, 2, 359.26),
        ("V100M16", 8000, 1, 605.20),
    ] {
        let f = node_frag(&s.typical, ty(model), cpu, &vec![1000; gpus]);
        assert!((f - want).abs() < 0.005, "{model}: {f} vs {want}");
    }
}

#[test]
fn inflate_matches_fgds_published_grid_on_the_default_trace() {
    let Some(dir) = openb() else { return };
    let pods = dir.join("openb_pod_list_default.csv");
    let expected = dir.join("expected");
    let o = tracetui(&[
        "inflate",
        pods.to_str().unwrap(),
        "--against",
        expected.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    // Every placement's mean over seeds 42–51 at 100, 110, 120 and 130 %
    // arrived within 1.5 of FGD's standard deviations (0.3 at least; 1
    // point for random), and the empty cluster's fragmentation within 0.1.
    assert!(out.contains("every value within FGD's spread"), "{out}");
    assert_eq!(out.matches(" ok)").count(), 6 * 5, "{out}");
    assert!(out.contains("first at 130 %: fgd"), "{out}");
    assert!(stderr(&o).contains("60 runs in"), "{}", stderr(&o));
}

#[test]
fn inflate_writes_fgds_layout_the_same_bytes_every_time() {
    let out = common::scratch_dir("openb-layout");
    let run = |dir: &Path| {
        let o = tracetui(&[
            "inflate",
            FIXTURE,
            "--seeds",
            "1-3",
            "--placement",
            "fgd,best-fit",
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        (
            std::fs::read_to_string(dir.join("analysis_allo_discrete.csv")).unwrap(),
            std::fs::read_to_string(dir.join("analysis_frag_discrete.csv")).unwrap(),
        )
    };
    let (alloc, frag) = run(&out);
    let again = common::scratch_dir("openb-layout-again");
    assert_eq!(
        run(&again),
        (alloc.clone(), frag.clone()),
        "the same runs, the same bytes"
    );
    let header: Vec<&str> = alloc.lines().next().unwrap().split(',').collect();
    assert_eq!(
        header[..6],
        ["workload", "sc_policy", "tune", "seed", "total_gpus", "0"]
    );
    assert_eq!(header.len(), 5 + 131);
    assert!(
        frag.starts_with("workload,sc_policy,tune,seed,0,1,"),
        "{frag}"
    );
    let rows: Vec<&str> = alloc
        .lines()
        .skip(1)
        .map(|l| {
            l.splitn(5, ',')
                .take(4)
                .collect::<Vec<_>>()
                .join(",")
                .leak() as &str
        })
        .collect();
    assert_eq!(
        rows,
        [
            "openb_pod_list_default,05-BestFit,1.3,1",
            "openb_pod_list_default,05-BestFit,1.3,2",
            "openb_pod_list_default,05-BestFit,1.3,3",
            "openb_pod_list_default,06-FGD,1.3,1",
            "openb_pod_list_default,06-FGD,1.3,2",
            "openb_pod_list_default,06-FGD,1.3,3",
        ]
    );
    let first: Vec<&str> = alloc.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(first[4], "13", "the fixture's 13 GPUs");
    // What made them, beside each: the build, the command, the trace hashed.
    let meta: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("analysis_allo_discrete.csv.meta.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(meta["seeds"], serde_json::json!([1, 2, 3]));
    assert_eq!(meta["placements"], serde_json::json!(["fgd", "best-fit"]));
    assert_eq!(
        meta["traces"][0]["files"].as_array().unwrap().len(),
        2,
        "{meta}"
    );
    assert!(
        meta["command"]
            .as_str()
            .unwrap()
            .starts_with("tracetui inflate "),
        "{meta}"
    );
    assert!(out.join("analysis_frag_discrete.csv.meta.json").is_file());
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_dir_all(&again);
}

#[test]
fn inflate_refuses_bad_arguments_and_outputs_over_its_inputs() {
    for (args, words) in [
        (vec!["--tune", "0"], "--tune is a number above 0"),
        (vec!["--seeds", "51-42"], "is not seeds"),
        (vec!["--placement", "tetris"], "invalid value 'tetris'"),
    ] {
        let mut all = vec!["inflate", FIXTURE];
        all.extend(args);
        let o = tracetui(&all);
        assert!(!o.status.success());
        assert!(stderr(&o).contains(words), "{all:?}: {}", stderr(&o));
    }
    let d = common::scratch_dir("openb-clash");
    std::fs::write(d.join("analysis_allo_discrete.csv"), "workload,sc_policy\n").unwrap();
    std::fs::write(d.join("analysis_frag_discrete.csv"), "workload,sc_policy\n").unwrap();
    let dir = d.to_str().unwrap();
    let o = tracetui(&["inflate", FIXTURE, "--against", dir, "--out", dir]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--out"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(d.join("analysis_allo_discrete.csv")).unwrap(),
        "workload,sc_policy\n"
    );
    let lone = d.join("pods.csv");
    std::fs::copy(FIXTURE, &lone).unwrap();
    let o = tracetui(&["inflate", lone.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("no node list") && stderr(&o).contains("--nodes"),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn every_output_of_a_replay_of_pods_says_its_fragmentation() {
    let json = |args: &[&str]| -> serde_json::Value {
        let o = tracetui(args);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str(&stdout(&o)).unwrap()
    };
    let r = json(&[
        "sim",
        "openb",
        FIXTURE,
        "--placement",
        "fgd",
        "--format",
        "json",
    ]);
    let f = &r["fragmentation"];
    let (mean, max) = (
        f["mean_pct"].as_f64().unwrap(),
        f["max_pct"].as_f64().unwrap(),
    );
    assert!(mean > 0.0 && mean <= max && max <= 100.0, "{f}");
    assert!(f["unallocated_gpus_mean"].as_f64().unwrap() <= 13.0, "{f}");
    let o = tracetui(&["sim", "openb", FIXTURE]);
    assert!(
        stdout(&o).contains("frag      ") && stdout(&o).contains("frag = FGD's fragmentation"),
        "{}",
        stdout(&o)
    );
    let o = tracetui(&[
        "compare",
        "openb",
        FIXTURE,
        "--policies",
        "fifo,sjf",
        "--format",
        "csv",
    ]);
    let head = stdout(&o).lines().next().unwrap_or("").to_string();
    assert!(
        head.contains("fragmentation_mean,fragmentation_max,unallocated_gpus_mean"),
        "{head}"
    );
    let o = tracetui(&["compare", "openb", FIXTURE, "--policies", "fifo,sjf"]);
    assert!(stdout(&o).contains("frag %"), "{}", stdout(&o));
    // A trace of jobs, not pods, says nothing of it.
    let r = json(&[
        "sim",
        "itp",
        "sample-traces/itp/sample.csv",
        "--format",
        "json",
    ]);
    assert!(r.get("fragmentation").is_none(), "{r}");
    let o = tracetui(&[
        "compare",
        "itp",
        "sample-traces/itp/sample.csv",
        "--format",
        "csv",
    ]);
    assert!(!stdout(&o).contains("fragmentation"));
}

/// A lesson file of FGD's arrival-only run of the real default list.
fn inflate_lesson(dir: &Path, extra: &str) -> PathBuf {
    let d = common::scratch_dir("openb-lesson");
    let text = std::fs::read_to_string("docs/examples/fgd-lesson/lesson.toml").unwrap();
    // Absolute: the lesson file reads its trace relative to itself, and
    // TRACETUI_REAL_TRACES is relative (CI: ../shared/traces).
    let pods = dir
        .join("openb_pod_list_default.csv")
        .canonicalize()
        .unwrap();
    let text = text.replace(
        "openb:openb_pod_list_default.csv",
        &format!("openb:{}", pods.display()),
    ) + extra;
    let f = d.join("lesson.toml");
    std::fs::write(&f, text).unwrap();
    f
}

#[test]
fn the_fgd_lesson_fills_the_cluster_and_fgd_fits_more_than_best_fit() {
    let Some(dir) = openb() else { return };
    use tracetui::sim::{Engine, Placement, Policy};
    let l = tracetui::lesson::Lesson::from_file(&inflate_lesson(&dir, "")).unwrap();
    let (t, report) = l.load_trace().unwrap();
    assert!(
        report.notes.iter().any(|n| n.contains("arrival-only")),
        "{:?}",
        report.notes
    );
    assert!(
        !report.notes.iter().any(|n| n.contains(" replayed")),
        "{:?}",
        report.notes
    );
    assert!(t.jobs.len() > 8152, "every pod, and clones to the GPUs");
    assert!(t.jobs.iter().all(|j| j.runtime.is_none()), "none leaves");
    assert!(t.jobs.iter().any(|j| j.id.contains("-tuned-")));
    assert!(t.jobs.windows(2).all(|w| w[1].submit - w[0].submit == 1));
    let t = std::sync::Arc::new(t);
    let allocated = |p: Placement| {
        let mut e = Engine::new(t.clone(), Policy::FirstFit, p);
        e.run_to_end();
        e.cluster().allocated_milli()
    };
    let (bf, fgd) = (
        allocated(Placement::Sharing(SharingRule::BestFit)),
        allocated(Placement::Sharing(SharingRule::Fgd)),
    );
    // FGD's paper at 100 % arrived: 93 % allocated under best-fit, 95 % under FGD.
    assert!(fgd > bf, "fgd {fgd} vs best-fit {bf}");
    assert!(bf > 6212 * 1000 * 90 / 100, "{bf}");
    let bad = inflate_lesson(&dir, "").with_file_name("bad.toml");
    let text = std::fs::read_to_string(inflate_lesson(&dir, ""))
        .unwrap()
        .replace("tune = 1.0", "tune = 3.0");
    std::fs::write(&bad, text).unwrap();
    let e = tracetui::lesson::Lesson::from_file(&bad)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("[inflate] tune = 3"), "{e}");
    let _ = std::fs::remove_dir_all(bad.parent().unwrap());
}
