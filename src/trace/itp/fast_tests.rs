//! The fast path gives exactly what the CSV reader gives, whatever the
//! rows hold and however the file is cut.

use super::*;

/// A small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

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
        out.extend_from_slice(line.as_bytes());
        if rng.below(40) == 0 {
            out.extend_from_slice(b"\xff\xfe"); // not UTF-8
        }
        out.push(b'\n');
    }
    if rng.below(2) == 0 {
        out.pop(); // no newline at the end
    }
    out
}

fn summary(r: &Result<(Trace, LoadReport), InputError>) -> String {
    match r {
        Err(e) => format!("error: {e}"),
        Ok((t, rep)) => {
            let details: Vec<String> = t
                .jobs
                .iter()
                .map(|j| crate::trace::detail::of_job(t, j, false).to_string())
                .collect();
            format!(
                "{:?}\n{:?}\n{:?}\n{:?}\n{details:?}",
                t.jobs, t.symbols, rep.skips, rep.notes
            )
        }
    }
}

#[test]
fn the_parts_read_what_the_csv_reader_reads() {
    let dir = std::env::temp_dir().join(format!("tracetui-itp-fast-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut loaded = 0;
    for case in 0..240 {
        let bytes = file(&mut rng, case % 3 == 0);
        let path = dir.join(format!("c{case}.csv"));
        std::fs::write(&path, &bytes).unwrap();
        for strict in [false, true] {
            let opts = LoadOptions {
                strict,
                ..LoadOptions::default()
            };
            let want = super::super::load_from(&bytes[..], "f.csv", &opts);
            for workers in [1usize, 2, 3, 7] {
                let got = match load_by(&path, "f.csv", &opts, &move |_| workers) {
                    Ok(Some(t)) => Ok(t),
                    Ok(None) => panic!("case {case}: the fast path declined a plain file"),
                    Err(e) => Err(e),
                };
                let (g, w) = (summary(&got), summary(&want));
                if g != w {
                    let first = g.split(", ").zip(w.split(", ")).find(|(a, b)| a != b);
                    panic!(
                        "case {case}, strict {strict}, {workers} parts: {first:?}\n{:?}",
                        String::from_utf8_lossy(&bytes[..bytes.len().min(400)])
                    );
                }
            }
            loaded += want.is_ok() as usize;
        }
    }
    assert!(loaded > 200, "most cases load: {loaded}");
}

/// A raw-schema ITP file holding `rows`, in this test run's own folder.
fn a_file(name: &str, rows: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tracetui-itp-fast-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
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
