//! Zeus's group trace as its repository ships it (`alibaba_groups.csv.xz`),
//! and its times — PAI's — shown in Asia/Shanghai like PAI.

use crate::common;

use common::cli::{stderr, stdout, tracetui};
use std::path::Path;
use tracetui::trace::{load_zeus, LoadOptions};

const FIXTURE: &str = "tests/fixtures/zeus";

/// The fixture directory with its groups file compressed as released, and
/// a group starting at PAI's second 4,550,879 (Mon 00:07:59 UTC+8).
fn released(truncate: bool) -> std::path::PathBuf {
    let d = common::zeus_without_groups("zeus-xz");
    let mut csv = std::fs::read(Path::new(FIXTURE).join("alibaba_groups.csv")).unwrap();
    csv.extend_from_slice(b"g-pai,4550879.0,4551879.0,cifar100,1.0\n");
    let mut xz = common::xz(&csv);
    if truncate {
        xz.truncate(xz.len() - 20);
    }
    std::fs::write(d.join("alibaba_groups.csv.xz"), xz).unwrap();
    d
}

#[test]
fn the_released_xz_file_reads_like_the_csv() {
    let (plain, _) = load_zeus(Path::new(FIXTURE), &LoadOptions::default()).unwrap();
    let d = released(false);
    for path in [d.clone(), d.join("alibaba_groups.csv.xz")] {
        let (t, _) = load_zeus(&path, &LoadOptions::default()).unwrap();
        assert_eq!(t.jobs.len(), plain.jobs.len() + 1, "{}", path.display());
        for (a, b) in plain.jobs.iter().zip(&t.jobs) {
            assert_eq!((&a.id, a.submit, a.runtime), (&b.id, b.submit, b.runtime));
        }
    }
    let o = tracetui(&["sim", "zeus", d.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn zeus_times_are_pai_times_in_asia_shanghai() {
    let d = released(false);
    let (t, _) = load_zeus(&d, &LoadOptions::default()).unwrap();
    assert_eq!(t.zone, tracetui::trace::PAI_ZONE);
    let o = tracetui(&[
        "job",
        "zeus",
        d.to_str().unwrap(),
        "g-pai",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let start = v["start_time_local"].as_str().unwrap();
    assert!(start.starts_with("Mon 00:07:59 day "), "{start}");
    let s = tracetui(&["stats", "zeus", d.to_str().unwrap()]);
    assert!(stdout(&s).contains("Asia/Shanghai"), "{}", stdout(&s));
}

#[test]
fn a_damaged_xz_file_says_so_with_its_name() {
    let d = released(true);
    let e = load_zeus(&d, &LoadOptions::default())
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("alibaba_groups.csv.xz") && e.contains("not a readable .xz file"),
        "{e}"
    );
}
