//! Hostile input: huge numbers, never-ending lines, times at the edges, CRLF,
//! directories and symlink loops, pipes. Each is refused with a message
//! naming file and line (or a counted skip), in bounded memory.

use crate::common;

use common::cli::{stderr, stdout, tracetui};
use tracetui::trace::{load_acme, load_itp_from, load_pai, LoadOptions, MAX_GPUS, MAX_SECS};

const RAW: &str = "job_id,submission_time,duration,num_gpu\n";

fn strict() -> LoadOptions {
    LoadOptions {
        strict: true,
        ..Default::default()
    }
}

fn itp_err(body: &str, opts: &LoadOptions) -> String {
    load_itp_from(body.as_bytes(), "t.csv", opts)
        .map(|_| ())
        .unwrap_err()
        .to_string()
}

#[test]
fn a_gpu_count_past_the_limit_is_refused_not_allocated() {
    let e = itp_err(&format!("{RAW}a,0,10,2147483648\n"), &strict());
    assert_eq!(
        e,
        "t.csv:2: column num_gpu: 2147483648 GPUs is more than the 1048576 a cluster may have"
    );
    // Leniently, the row is a counted skip and the rest loads.
    let (t, r) = load_itp_from(
        format!("{RAW}a,0,10,2147483648\nb,0,10,1\n").as_bytes(),
        "t.csv",
        &Default::default(),
    )
    .unwrap();
    assert_eq!((t.jobs.len(), r.total_skipped()), (1, 1));
    // At the limit the job loads; sizing a cluster for it is refused by name.
    let e = itp_err(&format!("{RAW}a,0,100,{MAX_GPUS}\n"), &Default::default());
    assert!(
        e.starts_with("t.csv: the offered load") && e.contains("more than the 1048576 supported"),
        "{e}"
    );
    let o = tracetui(&["sim", "itp", common::cli::SAMPLE, "--gpus", "100000000"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("100000000 is not in 1..=1048576"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_largest_numbers_accepted_run_without_overflow() {
    // A job of every GPU there may be, running until 2100, beside a small one.
    let body = format!("{RAW}big,0,{MAX_SECS},{MAX_GPUS}\nsmall,{MAX_SECS},{MAX_SECS},1\n");
    let opts = LoadOptions {
        gpus: Some(MAX_GPUS),
        gpus_per_node: 1024,
        ..Default::default()
    };
    let (t, _) = load_itp_from(body.as_bytes(), "t.csv", &opts).unwrap();
    let r = tracetui::sim::run(
        std::sync::Arc::new(t),
        tracetui::sim::Policy::Fifo,
        tracetui::sim::Placement::Consolidate,
    );
    assert_eq!(r.jobs_done, 2);
    let util = r.gpu_util.unwrap();
    assert!((0.0..=1.0 + 1e-9).contains(&util), "{util}");
}

#[test]
fn times_outside_1970_to_2100_are_refused() {
    let e = itp_err(&format!("{RAW}a,9223372036854775000,10,1\n"), &strict());
    assert!(
        e.starts_with("t.csv:2: column submission_time: 9223372036854775000 is out of range"),
        "{e}"
    );
    let e = itp_err(&format!("{RAW}a,0,{},1\n", MAX_SECS + 1), &strict());
    assert!(e.starts_with("t.csv:2: column duration: "), "{e}");
    let seren = std::fs::read_to_string("tests/fixtures/acme/trace_seren.csv").unwrap();
    for year in ["0001", "9999"] {
        let row = format!("z1,u,1,1,1,SFT,COMPLETED,{year}-03-01 00:00:00+08:00,,,,,\n");
        let p = common::write_file("trace_seren.csv", (seren.clone() + &row).as_bytes());
        let e = load_acme(&p, &strict())
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("trace_seren.csv:8: column submit_time: ")
                && e.contains("is outside 1970 to 2100"),
            "{e}"
        );
    }
}

#[test]
fn a_line_that_never_ends_stops_with_file_and_line() {
    let long = "x".repeat(tracetui::trace::MAX_LINE + 1);
    let e = itp_err(&format!("{RAW}a,0,1,1\n{long}"), &Default::default());
    assert_eq!(
        e,
        "t.csv:3: a line longer than 1048576 bytes (1 MiB): not a trace table"
    );
    if std::path::Path::new("/dev/zero").exists() {
        for format in ["itp", "acme"] {
            let o = tracetui(&["sim", format, "/dev/zero"]);
            assert_eq!(o.status.code(), Some(1));
            assert!(
                stderr(&o).contains("/dev/zero:1: a line longer than 1048576 bytes"),
                "{format}: {}",
                stderr(&o)
            );
        }
    } else {
        eprintln!("skipped the /dev/zero half: no /dev/zero");
    }
    // The PAI tables' reader too.
    let d = common::scratch_dir("pai-long");
    for e in std::fs::read_dir("tests/fixtures/pai").unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, d.join(p.file_name().unwrap())).unwrap();
    }
    let mut job = std::fs::read_to_string(d.join("pai_job_table.csv")).unwrap();
    job.push_str(&long);
    std::fs::write(d.join("pai_job_table.csv"), job).unwrap();
    let e = load_pai(&d, &Default::default())
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("pai_job_table.csv:") && e.contains("a line longer than"),
        "{e}"
    );
}

#[test]
fn crlf_files_report_the_right_line() {
    let e = itp_err(
        &format!("{}j1,0,100,1\r\nj2,x,100,1\r\n", RAW.replace('\n', "\r\n")),
        &strict(),
    );
    assert!(e.starts_with("t.csv:3: column submission_time"), "{e}");
    let seren = std::fs::read_to_string("tests/fixtures/acme/trace_seren.csv")
        .unwrap()
        .replace('\n', "\r\n");
    let p = common::write_file(
        "trace_seren.csv",
        (seren + "b1,u,1,x,1,SFT,COMPLETED,2023-03-01 00:00:00+08:00,,,,,\r\n").as_bytes(),
    );
    let e = load_acme(&p, &strict())
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.contains("trace_seren.csv:8: column gpu_num"), "{e}");
    // And the good rows of a CRLF file load whole: no `\r` left in a field.
    let (t, _) = load_acme(&p, &Default::default()).unwrap();
    assert!(t.jobs.iter().all(|j| !j.id.contains('\r')));
}

#[test]
fn directories_and_symlink_loops_say_what_they_are() {
    let o = tracetui(&["sim", "itp", "tests"]);
    assert!(
        stderr(&o).contains("tests: is a directory; a file is expected here"),
        "{}",
        stderr(&o)
    );
    let d = common::scratch_dir("loop");
    let (a, b) = (d.join("a.csv"), d.join("b.csv"));
    std::os::unix::fs::symlink(&b, &a).unwrap();
    std::os::unix::fs::symlink(&a, &b).unwrap();
    let o = tracetui(&["sim", "itp", a.to_str().unwrap()]);
    assert!(
        stderr(&o).contains("Too many levels of symbolic links"),
        "{}",
        stderr(&o)
    );
    // A PAI directory whose table is a directory: said, not "missing".
    let pd = common::scratch_dir("paidir");
    for e in std::fs::read_dir("tests/fixtures/pai").unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, pd.join(p.file_name().unwrap())).unwrap();
    }
    std::fs::remove_file(pd.join("pai_task_table.csv")).unwrap();
    std::fs::create_dir(pd.join("pai_task_table.csv")).unwrap();
    let e = load_pai(&pd, &Default::default())
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with("pai_task_table.csv: is a directory; a file is expected here"),
        "{e}"
    );
}

#[test]
fn pipes_and_process_substitution_are_read() {
    if std::process::Command::new("bash")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: needs bash for <(…)");
        return;
    }
    let o = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "{} sim itp <(cat {}) --format json",
            env!("CARGO_BIN_EXE_tracetui"),
            common::cli::SAMPLE
        ))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["jobs"], 2000);
}

#[test]
fn a_philly_record_that_never_ends_stops_at_16_mib() {
    let d = common::scratch_dir("philly-long");
    std::fs::copy(
        "tests/fixtures/philly/cluster_machine_list",
        d.join("cluster_machine_list"),
    )
    .unwrap();
    let mut log = b"[{\"status\": \"Pass\", \"vc\": \"".to_vec();
    log.extend(std::iter::repeat_n(b'a', (16 << 20) + 100));
    std::fs::write(d.join("cluster_job_log"), log).unwrap();
    let e = tracetui::trace::load_philly(&d, &Default::default())
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("cluster_job_log: byte ")
            && e.contains("a job record longer than 16777216 bytes from byte 1"),
        "{e}"
    );
}
