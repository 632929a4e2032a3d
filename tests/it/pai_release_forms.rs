//! The PAI release as its users hold it: tables with their `.header` row
//! prepended and `.header` files beside them (read as headers, silently,
//! also under `--strict`), and archives split into `NAME.tar.gz.partaa`,
//! `…ab`, … (read in order as one stream; a missing part named).

use crate::common;

use common::cli::{stderr, stdout, tracetui, PAI};
use std::path::{Path, PathBuf};
use tracetui::trace::PAI_TABLES;

/// A copy of the sample PAI directory.
fn copy_of_sample(tag: &str) -> PathBuf {
    let dir = common::scratch_dir(tag);
    for e in std::fs::read_dir(PAI).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
    }
    dir
}

/// `sim pai DIR --format json` with `extra` options: (stdout, stderr, exit).
fn sim(dir: &Path, extra: &[&str]) -> (String, String, Option<i32>) {
    let mut args = vec!["sim", "pai", dir.to_str().unwrap(), "--format", "json"];
    args.extend_from_slice(extra);
    let o = tracetui(&args);
    (
        common::cli::json_without_meta(&stdout(&o)),
        stderr(&o),
        o.status.code(),
    )
}

#[test]
fn header_rows_and_header_files_are_read_as_headers_also_under_strict() {
    let (plain, plain_err, _) = sim(Path::new(PAI), &["--strict"]);
    let dir = copy_of_sample("pai-headers");
    for (table, columns) in PAI_TABLES {
        let path = dir.join(format!("{table}.csv"));
        let body = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{}\n{body}", columns.join(","))).unwrap();
        std::fs::write(
            dir.join(format!("{table}.header")),
            columns.join(",") + "\n",
        )
        .unwrap();
    }
    let (out, err, code) = sim(&dir, &["--strict"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out, plain, "the same replay as without the header rows");
    let here = err.replace(dir.to_str().unwrap(), PAI);
    assert_eq!(here, plain_err, "the same notes: no bad row, no extra job");
    // The group tag table's rows count no header among them.
    assert!(err.contains("pai_group_tag_table.csv: 2000 rows"), "{err}");
    // Lenient too, and the drill-down of a job reads the side tables past
    // their header rows.
    let (out, err, _) = sim(&dir, &[]);
    assert_eq!(out, plain);
    assert!(!err.contains("skipped"), "{err}");
    let job = std::fs::read_to_string(dir.join("pai_job_table.csv")).unwrap();
    let name = job
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .to_string();
    let theirs = tracetui(&[
        "job",
        "pai",
        dir.to_str().unwrap(),
        &name,
        "--strict",
        "--format",
        "json",
    ]);
    let ours = tracetui(&["job", "pai", PAI, &name, "--strict", "--format", "json"]);
    assert!(theirs.status.success(), "{}", stderr(&theirs));
    assert_eq!(stdout(&theirs), stdout(&ours));
}

#[test]
fn a_header_file_in_another_column_order_is_an_error_naming_it() {
    let dir = copy_of_sample("pai-bad-header");
    std::fs::write(
        dir.join("pai_job_table.header"),
        "inst_id,job_name,user,status,start_time,end_time\n",
    )
    .unwrap();
    let (_, err, code) = sim(&dir, &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("pai_job_table.header: lists the columns 'inst_id,job_name"),
        "{err}"
    );
    assert!(
        err.contains("'job_name,inst_id,user,status,start_time,end_time'"),
        "{err}"
    );
}

/// Packs `DIR/TABLE.csv` as `TABLE.tar.gz` split into parts of `size`
/// bytes (`TABLE.tar.gz.partaa`, …) and removes the CSV; the part names.
fn split_archive(dir: &Path, table: &str, size: usize) -> Vec<PathBuf> {
    let csv = dir.join(format!("{table}.csv"));
    let mut gz = Vec::new();
    {
        let enc = flate2::write::GzEncoder::new(&mut gz, flate2::Compression::default());
        let mut tar = tar::Builder::new(enc);
        tar.append_path_with_name(&csv, format!("{table}.csv"))
            .unwrap();
        tar.into_inner().unwrap().finish().unwrap();
    }
    std::fs::remove_file(&csv).unwrap();
    gz.chunks(size)
        .enumerate()
        .map(|(i, part)| {
            let suffix: String = [b'a' + (i / 26) as u8, b'a' + (i % 26) as u8]
                .iter()
                .map(|&b| b as char)
                .collect();
            let p = dir.join(format!("{table}.tar.gz.part{suffix}"));
            std::fs::write(&p, part).unwrap();
            p
        })
        .collect()
}

#[test]
fn split_archives_are_read_in_order_and_a_missing_part_is_named() {
    let (plain, _, _) = sim(Path::new(PAI), &[]);
    let dir = copy_of_sample("pai-parts");
    let jobs = split_archive(&dir, "pai_job_table", 20_000);
    let insts = split_archive(&dir, "pai_instance_table", 60_000);
    assert!(jobs.len() >= 3 && insts.len() >= 3, "{jobs:?} {insts:?}");
    let (out, err, code) = sim(&dir, &["--strict"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out, plain, "the same replay as from the CSV");
    let note = format!(
        "pai_job_table.tar.gz: read from its {} split parts, partaa to part",
        jobs.len()
    );
    assert!(err.contains(&note), "{err}");
    // A part missing in the middle: named before anything is read.
    let gone = jobs[1].with_extension("gone");
    std::fs::rename(&jobs[1], &gone).unwrap();
    let (_, err, code) = sim(&dir, &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("pai_job_table.tar.gz.partab: missing"),
        "{err}"
    );
    std::fs::rename(&gone, &jobs[1]).unwrap();
    // The last part missing: the archive ends early, and the message asks.
    let last = insts.last().unwrap();
    std::fs::remove_file(last).unwrap();
    let (_, err, code) = sim(&dir, &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("the archive ends early; is a part after part"),
        "{err}"
    );
}
