//! The fast path gives exactly what the CSV reader gives, whatever the
//! rows hold and however the file is cut.

use super::*;

use crate::fast_check::{self, Rng};

/// A file of good rows mixed with every kind of bad one.
fn file(rng: &mut Rng, elastic: bool) -> Vec<u8> {
    let mut out = if elastic {
        b"job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n"
            .to_vec()
    } else {
        b"job_id,submission_time,duration,num_gpu\n".to_vec()
    };
    let rows = 1 + rng.below(300);
    for _ in 0..rows {
        let id = format!("j{}", rng.below(rows * 2));
        let (t, d, g) = (rng.below(1000), 1 + rng.below(5000), 1 + rng.below(16));
        let mut line = if elastic {
            let model = ["resnet", "bert", "gpt"][rng.below(3) as usize];
            format!(
                "{id},{t},{},{model},{},{},{g},{d}",
                rng.below(99),
                t + d,
                32
            )
        } else {
            format!("{id},{t},{d},{g}")
        };
        match rng.below(14) {
            0 => line = format!("{line},extra"),
            1 => line = line.replacen(&t.to_string(), "x", 1),
            2 => line = line.replace(&format!(",{g}"), ",0"),
            // Not an empty line: the csv crate does not count those in
            // its line numbers (see `empty_lines_are_counted`).
            3 => line = "\t".into(),
            4 => line = format!("  {line}\r"),
            5 => line = format!("{line} "),
            6 => line = "   ".into(),
            7 => line = line.replacen(&id, "", 1),
            _ => {}
        }
        fast_check::row(rng, &mut out, &line);
    }
    fast_check::end(rng, &mut out);
    out
}

#[test]
fn the_parts_read_what_the_csv_reader_reads() {
    let loaded = fast_check::parts_read_what_the_csv_reader_reads(
        "itp-fast",
        240,
        &mut |rng, case| file(rng, case % 3 == 0),
        &|path, opts| super::super::load_from(&std::fs::read(path).unwrap()[..], "f.csv", opts),
        &|path, opts, workers| load_by(path, "f.csv", opts, &move |_| workers),
        &|_| String::new(),
    );
    assert!(loaded > 200, "most cases load: {loaded}");
}

/// A raw-schema ITP file holding `rows`, in this test run's own folder.
fn a_file(name: &str, rows: &str) -> std::path::PathBuf {
    let path = fast_check::folder("itp-fast-one").join(name);
    std::fs::write(
        &path,
        format!("job_id,submission_time,duration,num_gpu\n{rows}"),
    )
    .unwrap();
    path
}

#[test]
fn a_quote_anywhere_is_left_to_the_csv_reader() {
    let path = a_file("q.csv", "a,1,2,1\n\"b,c\",1,2,1\n");
    let opts = LoadOptions::default();
    assert!(load_by(&path, "q", &opts, &|_| 2).unwrap().is_none());
    let (t, _) = super::super::load(&path, &opts).unwrap();
    assert_eq!(t.jobs[1].id, "b,c");
}

#[test]
fn empty_lines_are_counted() {
    let path = a_file("e.csv", "a,1,2,1\n\n\nb,x,2,1\n");
    let opts = LoadOptions {
        strict: true,
        ..LoadOptions::default()
    };
    let e = load_by(&path, "e", &opts, &|_| 2).unwrap_err();
    assert_eq!(
        e.to_string(),
        "e:5: column submission_time: not a whole number: 'x'"
    );
}

#[test]
fn parts_get_room_for_a_little_more_than_the_rows_they_hold() {
    let dir = fast_check::folder("itp-room");
    let path = dir.join("f.csv");
    let header = "job_id,submission_time,duration,num_gpu\n";
    // Rows of 50 bytes (the newline counted): room for 50 / 47 of them.
    let row = format!("{:0>39},100,200,8\n", "a");
    assert_eq!(row.len(), 50);
    std::fs::write(&path, format!("{header}{}", row.repeat(1000))).unwrap();
    assert_eq!(row_bytes(&path, header.len() as u64), 47);
    // Too few rows to judge by: generous room.
    std::fs::write(&path, format!("{header}{}", row.repeat(10))).unwrap();
    assert_eq!(row_bytes(&path, header.len() as u64), 16);
    std::fs::remove_dir_all(&dir).unwrap();
}
