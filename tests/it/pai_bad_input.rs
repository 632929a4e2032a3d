//! Bad PAI input: every case gives an error naming file (and archive member)
//! and line in strict mode, or a counted skip; never a panic or a hang.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use tracetui::trace::{load_pai, pai_side_index, LoadOptions, PaiTables};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/pai");

/// A copy of the fixture, with `file` replaced by `body` when given.
fn fixture_with(file: Option<(&str, &[u8])>) -> PathBuf {
    let d = common::scratch_dir("pai");
    for e in std::fs::read_dir(FIXTURE).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "csv") {
            std::fs::copy(&p, d.join(p.file_name().unwrap())).unwrap();
        }
    }
    if let Some((name, body)) = file {
        std::fs::write(d.join(name), body).unwrap();
    }
    d
}

fn append(file: &str, line: &str) -> PathBuf {
    let mut body = std::fs::read(Path::new(FIXTURE).join(file)).unwrap();
    body.extend_from_slice(line.as_bytes());
    fixture_with(Some((file, &body)))
}

fn strict(dir: &Path) -> String {
    load_pai(
        dir,
        &LoadOptions {
            strict: true,
            ..LoadOptions::default()
        },
    )
    .unwrap_err()
    .to_string()
}

fn lenient_skips(dir: &Path) -> (u64, Vec<String>) {
    let (_, r) = load_pai(dir, &LoadOptions::default()).unwrap();
    (r.total_skipped(), r.skip_lines())
}

#[test]
fn wrong_column_count() {
    let d = append("pai_job_table.csv", "j99,i99,u1,Terminated,1.0\n");
    assert!(
        strict(&d).ends_with("pai_job_table.csv:21: 5 columns, expected 6"),
        "{}",
        strict(&d)
    );
    let (n, lines) = lenient_skips(&d);
    assert_eq!(n, 1);
    assert!(
        lines[0].contains("pai_job_table.csv: skipped 1 bad row"),
        "{lines:?}"
    );
}

#[test]
fn empty_and_non_numeric_fields_where_numbers_belong() {
    let d = append("pai_job_table.csv", "j99,i99,u1,Terminated,,5.0\n");
    assert!(
        strict(&d).ends_with("pai_job_table.csv:21: column start_time: empty"),
        "{}",
        strict(&d)
    );
    let d = append(
        "pai_task_table.csv",
        "j01,extra,one,Terminated,,,1,1,100,V100\n",
    );
    assert!(
        strict(&d).ends_with("pai_task_table.csv:22: column inst_num: not a number: 'one'"),
        "{}",
        strict(&d)
    );
    let d = append("pai_machine_spec.csv", "m9,V100,96,512,\n");
    assert!(
        strict(&d).ends_with("pai_machine_spec.csv:5: column cap_gpu: empty"),
        "{}",
        strict(&d)
    );
}

#[test]
fn end_before_start() {
    let d = append(
        "pai_instance_table.csv",
        "j01,worker,inX,wX,i01,Terminated,4550990.0,4550980.0,m1\n",
    );
    let e = strict(&d);
    assert!(
        e.ends_with(
            "pai_instance_table.csv:23: column end_time: end 4550980 is before start 4550990"
        ),
        "{e}"
    );
}

#[test]
fn instance_of_an_unknown_job() {
    let d = append(
        "pai_instance_table.csv",
        "nope,worker,inX,wX,iX,Terminated,4550990.0,4551000.0,m1\n",
    );
    let e = strict(&d);
    assert!(
        e.ends_with("pai_instance_table.csv:23: column job_name: 'nope' is not in pai_job_table"),
        "{e}"
    );
    assert_eq!(lenient_skips(&d).0, 1);
}

#[test]
fn task_of_an_unknown_job_and_duplicate_jobs() {
    let d = append(
        "pai_task_table.csv",
        "zz,worker,1.0,Terminated,,,1,1,100,V100\n",
    );
    assert!(strict(&d)
        .ends_with("pai_task_table.csv:22: column job_name: 'zz' is not in pai_job_table"));
    let d = append(
        "pai_job_table.csv",
        "j01,i01,u1,Terminated,4550879.0,4550989.0\n",
    );
    assert!(strict(&d)
        .ends_with("pai_job_table.csv:21: column job_name: duplicate job 'j01' (first on line 1)"));
}

#[test]
fn sensor_and_metric_rows_of_unknown_workers_are_skipped_or_refused() {
    // The fixture itself holds one such row in each (worker wZZ).
    let (t, _) = load_pai(Path::new(FIXTURE), &LoadOptions::default()).unwrap();
    let Some(p) = t.native_as::<PaiTables>() else {
        panic!()
    };
    let side = pai_side_index(p, false).unwrap();
    assert_eq!(
        side.skips.iter().map(|s| s.count).collect::<Vec<_>>(),
        vec![1, 1]
    );
    assert!(side.skips[0].first[0].ends_with(
        "pai_sensor_table.csv:4: column worker_name: 'wZZ' is not in pai_instance_table"
    ));
    let e = pai_side_index(p, true).unwrap_err().to_string();
    assert!(e.contains("pai_sensor_table.csv:4"), "{e}");
}

#[test]
fn non_utf8_bytes() {
    let mut body = std::fs::read(Path::new(FIXTURE).join("pai_job_table.csv")).unwrap();
    body.extend_from_slice(b"j\xff9,i99,u1,Terminated,1.0,2.0\n");
    let d = fixture_with(Some(("pai_job_table.csv", &body)));
    assert!(
        strict(&d).ends_with("pai_job_table.csv:21: column job_name: not UTF-8 text (byte 1)"),
        "{}",
        strict(&d)
    );
}

#[test]
fn missing_required_table_names_the_layout() {
    let d = fixture_with(None);
    std::fs::remove_file(d.join("pai_task_table.csv")).unwrap();
    let e = load_pai(&d, &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("missing pai_task_table.csv (or pai_task_table.tar.gz, or its parts pai_task_table.tar.gz.partaa, …)"),
        "{e}"
    );
    assert!(
        e.contains("pai_job_table, pai_task_table, pai_instance_table"),
        "{e}"
    );
    let e = load_pai(Path::new("/no/such/dir"), &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(
            "cannot open the directory of the PAI release's tables: No such file or directory"
        ),
        "{e}"
    );
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let e = load_pai(&file, &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("not a directory (expected the PAI release's tables)"),
        "{e}"
    );
}

fn tar_gz(member: &str, body: &[u8]) -> Vec<u8> {
    let mut tar = tar::Builder::new(Vec::new());
    let mut h = tar::Header::new_gnu();
    h.set_size(body.len() as u64);
    h.set_mode(0o644);
    h.set_cksum();
    tar.append_data(&mut h, member, body).unwrap();
    let tar = tar.into_inner().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&tar).unwrap();
    gz.finish().unwrap()
}

/// The fixture with `table` given as a .tar.gz of `member` instead of a .csv.
pub(crate) fn with_archive(table: &str, member: &str, truncate: bool) -> PathBuf {
    let d = fixture_with(None);
    let csv = d.join(format!("{table}.csv"));
    let body = std::fs::read(&csv).unwrap();
    std::fs::remove_file(&csv).unwrap();
    let mut gz = tar_gz(member, &body);
    if truncate {
        gz.truncate(gz.len() / 2);
    }
    std::fs::write(d.join(format!("{table}.tar.gz")), gz).unwrap();
    d
}

#[test]
fn released_tar_gz_is_read_in_place() {
    let d = with_archive("pai_instance_table", "pai_instance_table.csv", false);
    let before: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let (t, r) = load_pai(
        &d,
        &LoadOptions {
            strict: true,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    assert_eq!(t.segments.len(), 21, "22 instances, one of the CPU job");
    assert!(
        r.notes
            .iter()
            .any(|n| n.ends_with("pai_instance_table.tar.gz[pai_instance_table.csv]: 22 rows")),
        "{:?}",
        r.notes
    );
    let after: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(before, after, "nothing extracted into the trace directory");
}

#[test]
fn truncated_tar_gz_is_an_error_even_when_lenient() {
    let d = with_archive("pai_job_table", "pai_job_table.csv", true);
    let e = load_pai(&d, &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("pai_job_table.tar.gz[pai_job_table.csv]:"),
        "{e}"
    );
    assert!(e.contains("read failed"), "{e}");
}

#[test]
fn tar_gz_holding_the_wrong_file() {
    let d = with_archive("pai_task_table", "something_else.csv", false);
    let e = load_pai(&d, &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("pai_task_table.tar.gz[pai_task_table.csv]"),
        "{e}"
    );
    assert!(
        e.contains("holds 'something_else.csv', expected 'pai_task_table.csv'"),
        "{e}"
    );
}

#[test]
fn gzip_that_is_not_gzip() {
    let d = fixture_with(None);
    std::fs::remove_file(d.join("pai_job_table.csv")).unwrap();
    std::fs::write(d.join("pai_job_table.tar.gz"), b"plain text, not gzip").unwrap();
    let e = load_pai(&d, &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("pai_job_table.tar.gz[pai_job_table.csv]:1: read failed"),
        "{e}"
    );
}

#[test]
fn a_truncated_sensor_archive_is_said_damaged_not_shown_empty() {
    let d = with_archive("pai_sensor_table", "pai_sensor_table.csv", true);
    let (t, _) = load_pai(&d, &LoadOptions::default()).unwrap();
    let native = t.native.clone().unwrap();
    let e = native.build_indexes().unwrap_err();
    assert!(
        e.to_string()
            .contains("pai_sensor_table.tar.gz[pai_sensor_table.csv]:")
            && e.to_string().contains("read failed"),
        "{e}"
    );
    // The drill-down says so instead of an empty sensor section.
    let v = native.job_detail(&t, &t.jobs[0], false);
    let note = v["note"].as_str().unwrap_or_default();
    assert!(
        note.contains("the table is damaged") && note.contains("pai_sensor_table.tar.gz"),
        "{v}"
    );
    // And the replay logs it as a warning rather than "indexed".
    let mut app = common::ui::app_for(
        std::sync::Arc::new(t),
        tracetui::sim::Policy::Recorded,
        (100, 30),
    );
    let u = common::ui::act(&mut app, tracetui::ui::action::Action::Indexed(Err(e)));
    let logged = u.log_lines();
    assert!(
        logged
            .iter()
            .any(|l| l.starts_with("side tables damaged") && l.contains("pai_sensor_table.tar.gz")),
        "{logged:?}"
    );
    assert!(!logged.iter().any(|l| l.contains("side tables indexed")));
}

/// Every job's drill-down, as JSON text, in job-table order.
fn all_details(d: &Path) -> Vec<String> {
    let (t, _) = load_pai(d, &LoadOptions::default()).unwrap();
    let p = t.native_as::<PaiTables>().unwrap();
    (0..p.jobs.len() as u32)
        .map(|row| {
            let side = tracetui::trace::pai_side_rows(
                p,
                &tracetui::trace::pai_workers_of(p, row).unwrap(),
            )
            .unwrap();
            tracetui::trace::pai_job_detail(p, &t.symbols, row, &side)
                .unwrap()
                .to_string()
        })
        .collect()
}

/// From a plain `.csv` the instances' names are read back by offset at
/// drill-down; from an archive they are held. Both show the same.
#[test]
fn instance_names_read_back_from_a_csv_equal_those_held_from_an_archive() {
    let csv = all_details(&fixture_with(None));
    let archive = all_details(&with_archive(
        "pai_instance_table",
        "pai_instance_table.csv",
        false,
    ));
    assert_eq!(csv.len(), 20);
    assert_eq!(csv, archive);
    assert!(csv[0].contains(r#""inst_name":"in01""#), "{}", csv[0]);
    assert!(csv[0].contains(r#""worker_name":"w01""#), "{}", csv[0]);
}

/// An instance table rewritten after the load (rows moved) is an error at
/// drill-down, never another row's names.
#[test]
fn an_instance_table_changed_after_the_load_is_an_error_not_other_names() {
    let d = fixture_with(None);
    let (t, _) = load_pai(&d, &LoadOptions::default()).unwrap();
    let p = t.native_as::<PaiTables>().unwrap();
    let path = d.join("pai_instance_table.csv");
    let body = std::fs::read_to_string(&path).unwrap();
    let (first, rest) = body.split_once('\n').unwrap();
    std::fs::write(&path, format!("{rest}{first}\n")).unwrap();
    let row = p.job_by_name("j01").unwrap();
    let e = tracetui::trace::pai_workers_of(p, row)
        .unwrap_err()
        .to_string();
    assert!(e.contains("pai_instance_table.csv"), "{e}");
    assert!(e.contains("changed since it was loaded"), "{e}");
    // Through the replay's drill-down: a note says so.
    let job = t.jobs.iter().find(|j| j.id == "j01").unwrap();
    let v = tracetui::trace::detail_of_job(&t, job, true);
    let note = v["note"].as_str().unwrap_or_default();
    assert!(note.contains("changed since it was loaded"), "{v}");
}
