//! Test support for the loaders that read a file by parts: files mixing
//! good rows with every kind of bad one, and the check that the parts
//! read exactly what the CSV reader reads, however the file is cut.

use super::input::{InputError, LoadReport};
use super::model::Trace;
use super::LoadOptions;
use std::path::{Path, PathBuf};

/// A small deterministic generator.
pub(super) struct Rng(pub u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub(super) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Appends `line` as a row, now and then with bytes that are not UTF-8.
pub(super) fn row(rng: &mut Rng, out: &mut Vec<u8>, line: &str) {
    out.extend_from_slice(line.as_bytes());
    if rng.below(40) == 0 {
        out.extend_from_slice(b"\xff\xfe"); // not UTF-8
    }
    out.push(b'\n');
}

/// Ends a file, half the time without a newline after its last row.
pub(super) fn end(rng: &mut Rng, out: &mut Vec<u8>) {
    if rng.below(2) == 0 {
        out.pop();
    }
}

pub(super) type Loaded = Result<(Trace, LoadReport), InputError>;

/// A fast path's answer: `None` when it leaves the file to the CSV reader.
pub(super) type MaybeLoaded = Result<Option<(Trace, LoadReport)>, InputError>;

/// Everything a load gives, as text: jobs, symbols, skips, notes, each
/// job's drill-down, and `extra` (a format's own tables).
pub(super) fn summary(r: &Loaded, extra: &dyn Fn(&Trace) -> String) -> String {
    match r {
        Err(e) => format!("error: {e}"),
        Ok((t, rep)) => {
            let details: Vec<String> = t
                .jobs
                .iter()
                .map(|j| super::detail::of_job(t, j, false).to_string())
                .collect();
            format!(
                "{:?}\n{:?}\n{:?}\n{:?}\n{details:?}\n{}",
                t.jobs,
                t.symbols,
                rep.skips,
                rep.notes,
                extra(t)
            )
        }
    }
}

/// A folder of this test run's own, removed by `done`.
pub(super) fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tracetui-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// For `cases` files made by `make`, lenient and strict: `by_parts(path,
/// opts, n)` cut 1, 2, 3 and 7 ways gives what `csv(path, opts)` gives.
/// Returns how many loads succeeded.
pub(super) fn parts_read_what_the_csv_reader_reads(
    name: &str,
    cases: usize,
    make: &mut dyn FnMut(&mut Rng, usize) -> Vec<u8>,
    csv: &dyn Fn(&Path, &LoadOptions) -> Loaded,
    by_parts: &dyn Fn(&Path, &LoadOptions, usize) -> MaybeLoaded,
    extra: &dyn Fn(&Trace) -> String,
) -> usize {
    let dir = folder(name);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut loaded = 0;
    for case in 0..cases {
        let bytes = make(&mut rng, case);
        let path = dir.join(format!("c{case}.csv"));
        std::fs::write(&path, &bytes).unwrap();
        for strict in [false, true] {
            let opts = LoadOptions {
                strict,
                ..LoadOptions::default()
            };
            let want = csv(&path, &opts);
            for workers in [1usize, 2, 3, 7] {
                let got = match by_parts(&path, &opts, workers) {
                    Ok(Some(t)) => Ok(t),
                    Ok(None) => panic!("case {case}: the fast path declined a plain file"),
                    Err(e) => Err(e),
                };
                let (g, w) = (summary(&got, extra), summary(&want, extra));
                if g != w {
                    let first = g.split(", ").zip(w.split(", ")).find(|(a, b)| a != b);
                    panic!(
                        "case {case}, strict {strict}, {workers} parts: {first:?}\n{:?}",
                        String::from_utf8_lossy(&bytes[..bytes.len().min(600)])
                    );
                }
            }
            loaded += want.is_ok() as usize;
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    loaded
}
