//! `gen` streams its output: the peak memory of `gen itp` and `gen acme`
//! does not grow with `--jobs`. Each run's own peak is read from its
//! `/proc` status while it runs, so tests running beside it change nothing.

use crate::common;

use common::cli::{stderr, tracetui_peak_kib};

/// Runs `tracetui gen FORMAT --jobs JOBS` to /dev/null and returns its own
/// peak resident set, in KiB, after checking it wrote the jobs.
fn gen_peak_kib(format: &str, jobs: u64) -> i64 {
    let n = jobs.to_string();
    let (o, peak) = tracetui_peak_kib(&[
        "gen",
        format,
        "--jobs",
        &n,
        "--seed",
        "1",
        "--out",
        "/dev/null",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("wrote {jobs} ")),
        "{}",
        stderr(&o)
    );
    peak
}

#[test]
fn gen_itp_and_acme_write_millions_of_jobs_in_the_memory_of_thousands() {
    // Holding the jobs took about 144 bytes each for itp (2 M jobs: 288 MB)
    // and 40 for acme's stored draws (400 k jobs: 16 MB more).
    let small = gen_peak_kib("itp", 20_000);
    let itp = gen_peak_kib("itp", 2_000_000);
    assert!(
        itp - small < 4 * 1024,
        "gen itp: {small} KiB peak at 20,000 jobs, {itp} KiB at 2,000,000"
    );
    let small = gen_peak_kib("acme", 4_000);
    let acme = gen_peak_kib("acme", 400_000);
    assert!(
        acme - small < 4 * 1024,
        "gen acme: {small} KiB peak at 4,000 jobs, {acme} KiB at 400,000"
    );
}
