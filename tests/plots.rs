//! `compare --plot` and `sim --plot`: one SVG with the JCT and wait CDFs and
//! the utilisation timeline, every policy in the legend, the same bytes
//! from the same run.

mod common;

use common::cli::{stderr, tracetui, SAMPLE};

fn plot(args: &[&str], name: &str) -> (String, std::path::PathBuf) {
    let out = common::scratch_dir("plot").join(name);
    let mut all = args.to_vec();
    all.extend_from_slice(&["--plot", out.to_str().unwrap()]);
    let o = tracetui(&all);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("wrote "), "{}", stderr(&o));
    (std::fs::read_to_string(&out).unwrap(), out)
}

/// The SVG without its `<metadata>` (the provenance, which names the file).
fn drawing(svg: &str) -> String {
    let (a, b) = (svg.find("<metadata").unwrap(), svg.find("</metadata>").unwrap());
    format!("{}{}", &svg[..a], &svg[b..])
}

/// The text of every `<text>` element.
fn texts(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("the SVG parses as XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text().map(|t| t.trim().to_string()))
        .collect()
}

#[test]
fn compare_plots_every_policy_with_labelled_axes_and_the_same_bytes_twice() {
    let args = ["compare", "itp", SAMPLE, "--policies", "fifo,sjf,las"];
    let (a, _) = plot(&args, "a.svg");
    let (b, _) = plot(&args, "b.svg");
    // The same figure; the metadata names each output's own path.
    assert!(drawing(&a) == drawing(&b), "two runs, two different figures");
    let t = texts(&a);
    for policy in ["fifo", "sjf", "las"] {
        // Once per panel's legend.
        assert_eq!(
            t.iter().filter(|x| *x == policy).count(),
            3,
            "{policy} in {t:?}"
        );
    }
    for label in [
        "JCT CDF",
        "Wait CDF",
        "GPU utilisation",
        "fraction of jobs",
        "job completion time (log scale)",
        "hours from the first submission",
        "GPUs allocated (%)",
    ] {
        assert!(t.iter().any(|x| x == label), "{label} missing");
    }
    assert!(
        t.iter().any(|x| x.starts_with("itp sample.csv · ")),
        "the title names the trace"
    );
    // Okabe–Ito: the first three colours, one per policy.
    for colour in ["#0072B2", "#E69F00", "#009E73"] {
        assert!(a.contains(colour), "{colour}");
    }
}

#[test]
fn sim_plots_one_policy_and_a_schedule_row_is_labelled() {
    let (svg, _) = plot(&["sim", "itp", SAMPLE, "--policy", "sjf"], "one.svg");
    let t = texts(&svg);
    assert_eq!(t.iter().filter(|x| *x == "sjf").count(), 3);
    let (svg, _) = plot(
        &[
            "compare",
            "itp",
            SAMPLE,
            "--policies",
            "fifo",
            "--policy-schedule",
            "5d:sjf",
        ],
        "sched.svg",
    );
    let t = texts(&svg);
    assert!(t.iter().any(|x| x.starts_with("schedule ")), "{t:?}");
}

#[test]
fn a_plot_cannot_be_asked_with_from() {
    let o = tracetui(&[
        "compare",
        "pai",
        common::cli::PAI,
        "--from",
        "1d",
        "--plot",
        "x.svg",
    ]);
    assert_eq!(o.status.code(), Some(2));
}
