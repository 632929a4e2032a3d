//! `compare --plot` and `sim --plot`: one SVG with the JCT, wait and
//! slowdown CDFs, JCT by job size and each run's utilisation, one legend,
//! human time ticks, a colour per policy name, the numbers beside it, the
//! same drawing from the same run.

use crate::common;

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
    let (a, b) = (
        svg.find("<metadata").unwrap(),
        svg.find("</metadata>").unwrap(),
    );
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
    assert!(
        drawing(&a) == drawing(&b),
        "two runs, two different figures"
    );
    let t = texts(&a);
    for policy in ["fifo", "sjf", "las"] {
        // Once in the one legend, once over its utilisation panel.
        assert_eq!(
            t.iter().filter(|x| *x == policy).count(),
            2,
            "{policy} in {t:?}"
        );
    }
    for label in [
        "JCT CDF",
        "Wait CDF",
        "Slowdown CDF",
        "JCT by job size (median, bar: 25–75 %)",
        "GPUs a job asks for",
        "fraction of jobs",
        "job completion time (log scale)",
        "days from the first submission",
    ] {
        assert!(t.iter().any(|x| x == label), "{label} missing from {t:?}");
    }
    assert!(t.iter().any(|x| x.starts_with("GPU utilisation")));
    assert!(
        t.iter().any(|x| x.starts_with("itp sample.csv · ")),
        "the title names the trace"
    );
    // Time ticks people read, never powers of ten seconds.
    for tick in ["1 h", "1 d"] {
        assert!(t.iter().any(|x| x == tick), "{tick} missing from {t:?}");
    }
    for bad in ["1m40s", "16m40s", "2h46m"] {
        assert!(!t.iter().any(|x| x == bad), "{bad} in {t:?}");
    }
}

/// An element's colour in the legend: the stroke of the sample drawn just
/// before `label`'s text.
fn legend_colour(svg: &str, label: &str) -> String {
    let at = svg
        .rfind(&format!("\n{label}\n</text>"))
        .or_else(|| svg.rfind(&format!(">{label}</text>")))
        .expect("in the legend");
    let before = &svg[..at];
    let stroke = before.rfind("stroke=\"#").expect("a stroke before it");
    before[stroke + 8..stroke + 16]
        .trim_matches('"')
        .to_string()
}

#[test]
fn a_policy_keeps_its_colour_across_figures_and_sizes_and_fonts_are_taken() {
    let (a, _) = plot(
        &["compare", "itp", SAMPLE, "--policies", "fifo,sjf"],
        "c1.svg",
    );
    let (b, _) = plot(
        &[
            "compare",
            "itp",
            SAMPLE,
            "--policies",
            "las,sjf",
            "--plot-size",
            "1800x1300",
            "--plot-font",
            "serif",
            "--plot-font-size",
            "20",
        ],
        "c2.svg",
    );
    assert_eq!(legend_colour(&a, "sjf"), legend_colour(&b, "sjf"));
    assert_ne!(legend_colour(&b, "las"), legend_colour(&b, "sjf"));
    assert!(
        b.contains("width=\"1800\" height=\"1300\""),
        "{}",
        &b[..200]
    );
    assert!(b.contains("font-family=\"serif\""));
    let o = tracetui(&[
        "compare",
        "itp",
        SAMPLE,
        "--plot",
        "x.svg",
        "--plot-size",
        "10x10",
    ]);
    assert_eq!(o.status.code(), Some(2));
    // Too small for its text (labels would overlap): refused, saying what fits.
    let o = tracetui(&[
        "compare",
        "itp",
        SAMPLE,
        "--plot",
        "x.svg",
        "--plot-size",
        "900x700",
        "--plot-font-size",
        "20",
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("a 900x700 figure is too small for 20 px text: its labels would overlap; give --plot-size 1800x1200 or more, or --plot-font-size 10 or less"),
        "{}",
        stderr(&o)
    );
    // A figure comes with its numbers beside it: not to standard output.
    let o = tracetui(&["sim", "itp", SAMPLE, "--plot", "-"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--plot -"), "{}", stderr(&o));
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    assert!(!root.join("-.data.csv").exists());
}

#[test]
fn the_plotted_numbers_are_written_beside_the_figure() {
    let (_, svg) = plot(
        &["sim", "itp", SAMPLE, "--policy", "sjf", "--format", "json"],
        "n.svg",
    );
    let data = svg.with_extension("data.csv");
    let mut r = csv::Reader::from_path(&data).unwrap();
    assert_eq!(
        r.headers().unwrap().iter().collect::<Vec<_>>(),
        ["panel", "policy", "x", "y", "lo", "hi", "n"]
    );
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
    let summary = tracetui(&["sim", "itp", SAMPLE, "--policy", "sjf", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&summary.stdout).unwrap();
    // JCT by size covers every finished job once.
    let n: u64 = rows
        .iter()
        .filter(|r| &r[0] == "jct_by_size")
        .map(|r| r[6].parse::<u64>().unwrap())
        .sum();
    assert_eq!(n, v["jobs_done"].as_u64().unwrap());
    // The JCT CDF ends at 1 at the largest JCT.
    let last = rows.iter().rfind(|r| &r[0] == "jct_cdf").unwrap();
    assert_eq!(&last[3], "1");
    for panel in [
        "wait_cdf",
        "slowdown_cdf",
        "utilisation",
        "utilisation_mean",
    ] {
        assert!(rows.iter().any(|r| &r[0] == panel), "{panel}");
    }
    assert!(std::path::Path::new(&format!("{}.meta.json", data.display())).exists());
}

#[test]
fn sim_plots_one_policy_and_a_schedule_row_is_labelled() {
    let (svg, _) = plot(&["sim", "itp", SAMPLE, "--policy", "sjf"], "one.svg");
    let t = texts(&svg);
    assert_eq!(t.iter().filter(|x| *x == "sjf").count(), 2);
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

/// A `.pdf` name writes the same figure as a PDF page: the same texts in
/// Helvetica, its numbers beside it, the provenance inside, the same
/// bytes twice.
#[test]
fn a_pdf_name_writes_the_figure_as_pdf() {
    let dir = common::scratch_dir("plot-pdf");
    let run = |name: &str| {
        let out = dir.join(name);
        let o = tracetui(&[
            "compare",
            "itp",
            SAMPLE,
            "--policies",
            "fifo,sjf",
            "--plot",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::read(&out).unwrap()
    };
    let pdf = run("fig.pdf");
    let has = |s: &str| pdf.windows(s.len()).any(|w| w == s.as_bytes());
    assert!(pdf.starts_with(b"%PDF-1.4") && pdf.ends_with(b"%%EOF\n"));
    assert!(has("/BaseFont /Helvetica") && has("/FlateDecode") && has("/tracetui ("));
    assert!(dir.join("fig.data.csv").is_file());
    assert_eq!(run("fig.pdf"), pdf, "the same bytes twice");
    // Its page is the SVG's size in points (¾ of a pixel).
    assert!(has("/MediaBox [0 0 1125 750]"));
}
