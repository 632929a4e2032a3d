//! The ITP loader on good and bad input: every error names file, line and column.

use crate::common;

use common::write_file;
use tracetui::trace::{load_itp, JobStatus, LoadOptions};

const RAW: &str = "job_id,submission_time,duration,num_gpu\n";

fn load(
    name: &str,
    body: &[u8],
    strict: bool,
) -> Result<(tracetui::trace::Trace, tracetui::trace::LoadReport), String> {
    let p = write_file(name, body);
    let opts = LoadOptions {
        strict,
        gpus: Some(8),
        ..LoadOptions::default()
    };
    load_itp(&p, &opts).map_err(|e| e.to_string())
}

fn strict_error(body: &str) -> String {
    load("t.csv", body.as_bytes(), true).unwrap_err()
}

#[test]
fn raw_schema_loads() {
    let (t, r) = load(
        "t.csv",
        format!("{RAW}a,10,100,2\nb,5,50,1\n").as_bytes(),
        true,
    )
    .unwrap();
    assert_eq!(t.jobs.len(), 2);
    assert_eq!(t.jobs[0].id, "a");
    assert_eq!(
        (
            t.jobs[0].submit,
            t.jobs[0].runtime.get(),
            t.jobs[0].demand.total_milli()
        ),
        (10, Some(100), 2000)
    );
    assert_eq!(t.jobs[1].status, JobStatus::Unknown);
    assert_eq!(r.total_skipped(), 0);
    assert!(
        r.notes[0].contains("ITP raw schema, 2 jobs"),
        "{:?}",
        r.notes
    );
}

#[test]
fn elasticflow_schema_loads_model_and_deadline() {
    let body =
        "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n\
                x,100,5000,resnet50,900,64,4,600\n";
    let (t, r) = load("e.csv", body.as_bytes(), true).unwrap();
    let j = &t.jobs[0];
    assert_eq!(j.deadline, Some(900));
    assert_eq!(t.sym(j.model), "resnet50");
    assert_eq!(j.demand.total_milli(), 4000);
    assert!(r.notes[0].contains("ElasticFlow"));
}

/// ElasticFlow's optional `best_effort` column, beside either of its
/// schemas: 1 makes a job one without a deadline, anything else keeps it;
/// a value that is not a number is named; the raw schema takes none.
#[test]
fn best_effort_column_makes_a_job_without_a_deadline() {
    let body =
        "job_id,submit_time,iteration,model_name,ddl,batch_size,num_gpu,duration,best_effort\n\
                x,100,5000,resnet50,900,64,4,600,1\ny,100,5000,resnet50,900,64,4,600,0\n";
    let (t, _) = load("e.csv", body.as_bytes(), true).unwrap();
    assert_eq!(t.jobs[0].deadline, None);
    assert_eq!(t.jobs[1].deadline, Some(900));
    let body = "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration,best_effort\n\
                x,100,5000,resnet50,900,64,4,600,yes\n";
    let e = strict_error(body);
    assert!(
        e.ends_with("t.csv:2: column best_effort: not a whole number: 'yes'"),
        "{e}"
    );
    let e = strict_error(&format!(
        "{}best_effort\na,1,10,1,1\n",
        RAW.trim_end().to_owned() + ","
    ));
    assert!(e.contains("unknown header"), "{e}");
}

/// ElasticFlow's Philly trace (`philly_103959.csv`, its Figure 8b) adds
/// `real_iteration` and `real_duration` to the artifact's columns: they
/// load, and are not read (its simulator reads `iteration` and `duration`).
#[test]
fn the_artifacts_philly_columns_load() {
    let body = "job_id,submit_time,real_iteration,model_name,ddl,batch_size,num_gpu,real_duration,duration,iteration\n\
                0,0,99,vgg16,771220,256,1,5,976570,1282877\n";
    let (t, _) = load("p.csv", body.as_bytes(), true).unwrap();
    assert_eq!(t.jobs[0].runtime.get(), Some(976570));
    assert_eq!(t.jobs[0].deadline, Some(771220));
    assert_eq!(t.jobs[0].demand.total_milli(), 1000);
}

#[test]
fn missing_file() {
    let e = load_itp(
        std::path::Path::new("/no/such/trace.csv"),
        &LoadOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "/no/such/trace.csv: cannot open: No such file or directory (os error 2)"
    );
}

#[test]
fn empty_file() {
    let e = strict_error("");
    assert!(
        e.ends_with("t.csv: empty file: expected an ITP header row"),
        "{e}"
    );
}

#[test]
fn header_only() {
    assert!(strict_error(RAW).ends_with("t.csv: no jobs: the file has a header and nothing else"));
}

#[test]
fn unknown_header() {
    let e = strict_error("id,when,how_long\n1,2,3\n");
    assert!(
        e.contains("t.csv:1: unknown header 'id,when,how_long'"),
        "{e}"
    );
    assert!(e.contains("job_id,submission_time,duration,num_gpu"), "{e}");
}

#[test]
fn wrong_column_count() {
    let e = strict_error(&format!("{RAW}a,1,2,1\nb,1,2\n"));
    assert!(e.ends_with("t.csv:3: 3 columns, expected 4"), "{e}");
}

#[test]
fn non_numeric_value() {
    let e = strict_error(&format!("{RAW}a,1,abc,1\n"));
    assert!(
        e.ends_with("t.csv:2: column duration: not a whole number: 'abc'"),
        "{e}"
    );
}

#[test]
fn negative_value() {
    let e = strict_error(&format!("{RAW}a,-5,10,1\n"));
    assert!(
        e.ends_with("t.csv:2: column submission_time: -5 is below the minimum 0"),
        "{e}"
    );
}

#[test]
fn zero_gpus() {
    let e = strict_error(&format!("{RAW}a,1,10,0\n"));
    assert!(
        e.ends_with("t.csv:2: column num_gpu: zero GPUs: an ITP job needs at least one"),
        "{e}"
    );
}

#[test]
fn duplicate_job_id() {
    let e = strict_error(&format!("{RAW}a,1,10,1\nb,2,10,1\na,3,10,1\n"));
    assert!(
        e.ends_with("t.csv:4: column job_id: duplicate job id 'a' (first on line 2)"),
        "{e}"
    );
}

#[test]
fn non_utf8_bytes() {
    let mut body = RAW.as_bytes().to_vec();
    body.extend_from_slice(b"a\xff\xfe,1,10,1\n");
    let e = load("t.csv", &body, true).unwrap_err();
    assert!(
        e.ends_with("t.csv:2: column job_id: not UTF-8 text (byte 1)"),
        "{e}"
    );
}

#[test]
fn escape_sequences_in_ids_are_kept_exact() {
    let (t, _) = load(
        "t.csv",
        format!("{RAW}\"a\x1b[2Jb\",1,10,1\n").as_bytes(),
        true,
    )
    .unwrap();
    assert_eq!(t.jobs[0].id, "a\x1b[2Jb", "shown escaped, kept exact");
}

#[test]
fn lenient_mode_counts_skips_and_keeps_the_first_reasons() {
    let body = format!("{RAW}a,1,10,1\nb,x,10,1\nc,1,10,0\nd,2,10\ne,3,10,2\n");
    let (t, r) = load("t.csv", body.as_bytes(), false).unwrap();
    assert_eq!(
        t.jobs.iter().map(|j| j.id.as_str()).collect::<Vec<_>>(),
        vec!["a", "e"]
    );
    assert_eq!(r.total_skipped(), 3);
    let lines = r.skip_lines();
    assert!(lines[0].contains("t.csv: skipped 3 bad rows"), "{lines:?}");
    assert!(
        lines[1].contains("t.csv:3: column submission_time"),
        "{lines:?}"
    );
    assert!(lines[3].contains("t.csv:5: 3 columns"), "{lines:?}");
}

#[test]
fn all_rows_bad_is_an_error_even_when_lenient() {
    let e = load("t.csv", format!("{RAW}a,x,1,1\n").as_bytes(), false).unwrap_err();
    assert!(
        e.contains("no usable jobs: all 1 rows were bad; the first: ")
            && e.ends_with("t.csv:2: column submission_time: not a whole number: 'x'"),
        "{e}"
    );
}

#[test]
fn auto_sized_cluster_keeps_load_under_80_percent_and_fits_the_largest_job() {
    // 2 jobs: 1000 s × 16 GPUs and 1000 s × 4 GPUs, submitted 100 s apart:
    // offered load 200 GPUs → 250 GPUs at 80 % → 256 with 8-GPU nodes.
    let p = write_file(
        "a.csv",
        format!("{RAW}a,0,1000,16\nb,100,1000,4\n").as_bytes(),
    );
    let (t, r) = load_itp(&p, &LoadOptions::default()).unwrap();
    assert_eq!(t.cluster.total_gpus(), 256);
    assert_eq!(t.cluster.machines.len(), 32);
    assert!(
        r.notes[1].contains("256 GPUs = 32 nodes × 8"),
        "{:?}",
        r.notes
    );
    // A low load still fits the largest job.
    let p = write_file("b.csv", format!("{RAW}a,0,1,64\nb,100000,1,1\n").as_bytes());
    let (t, _) = load_itp(
        &p,
        &LoadOptions {
            gpus_per_node: 4,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    assert_eq!(t.cluster.total_gpus(), 64);
}

/// Ids are exact: spaces are part of a field (RFC 4180), quoted or not, so
/// `a`, ` a`, `a ` and `a\r` are four jobs, by the quoted (CSV) reader and
/// the fast one alike.
#[test]
fn ids_keep_their_spaces() {
    let quoted = format!("{RAW}a,1,10,1\n\" a\",2,10,1\n\"a \",3,10,1\n\"a\r\",4,10,1\n");
    let (t, r) = load("quoted.csv", quoted.as_bytes(), true).unwrap();
    let ids: Vec<&str> = t.jobs.iter().map(|j| j.id.as_str()).collect();
    assert_eq!(ids, ["a", " a", "a ", "a\r"], "{:?}", r.skips);
    let plain = format!("{RAW}a,1,10,1\n a,2,10,1\na ,3,10,1\n");
    let (t, _) = load("plain.csv", plain.as_bytes(), true).unwrap();
    let ids: Vec<&str> = t.jobs.iter().map(|j| j.id.as_str()).collect();
    assert_eq!(ids, ["a", " a", "a "]);
}
