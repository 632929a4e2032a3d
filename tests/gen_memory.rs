//! `gen` streams its output: the peak memory of `gen itp` and `gen acme`
//! does not grow with `--jobs`. A file of its own, so the peak memory of
//! the children (getrusage's `RUSAGE_CHILDREN`) is this test's alone.

mod common;

use common::cli::{stderr, tracetui};

/// The largest resident set of any child waited for so far, in KiB.
fn children_peak_kib() -> i64 {
    let mut u = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given; zeroed is a valid rusage.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, u.as_mut_ptr()) };
    assert_eq!(rc, 0);
    // SAFETY: getrusage returned 0, so it wrote the struct.
    unsafe { u.assume_init() }.ru_maxrss
}

fn gen(format: &str, jobs: u64) {
    let n = jobs.to_string();
    let o = tracetui(&[
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
}

#[test]
fn gen_itp_and_acme_write_millions_of_jobs_in_the_memory_of_thousands() {
    gen("itp", 20_000);
    gen("acme", 4_000);
    let small = children_peak_kib();
    // Holding the jobs took about 144 bytes each for itp (2 M jobs: 288 MB)
    // and 40 for acme's stored draws (400 k jobs: 16 MB more).
    gen("itp", 2_000_000);
    let itp = children_peak_kib();
    assert!(
        itp - small < 4 * 1024,
        "gen itp: {small} KiB peak at 20,000 jobs, {itp} KiB at 2,000,000"
    );
    gen("acme", 400_000);
    let acme = children_peak_kib();
    assert!(
        acme - small < 4 * 1024,
        "gen acme: {small} KiB peak at 4,000 jobs, {acme} KiB at 400,000"
    );
}
