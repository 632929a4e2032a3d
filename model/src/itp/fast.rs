//! The fast path for a plain ITP file: the file cut at line starts into a
//! part per core, each part parsed on its own thread straight from large
//! reads (fields found by byte search, one UTF-8 check per line) into its
//! own stretch of the one job list (`slots`), then the parts merged in
//! file order, where duplicate ids are found. The result —
//! jobs, errors, skips, messages — is exactly the CSV reader's; a file
//! with a quote anywhere is left to the CSV reader, which understands
//! quoting.

use super::{detect, finish, parse_row, Columns};
use crate::input::{InputError, LoadReport, RowPolicy};
use crate::model::{Job, Sym, Symbols, Trace};
use crate::seen;
use crate::slots::Slots;
use crate::{parts, LoadOptions};
use std::path::Path;

/// Bytes of rows sampled from the file's start to size the parts' room.
const SAMPLE: u64 = 1 << 20;

/// Bytes a row takes, as the rows in the file's first megabyte have them,
/// less a twentieth (16 for a file of fewer rows): a part is given room
/// for as many jobs as its bytes hold such rows. The room that is not
/// written costs no memory, but the stretches are moved down over it at
/// the end, so it is kept near; a part of shorter rows spills past it.
fn row_bytes(path: &Path, from: u64) -> u64 {
    use std::io::{Read, Seek, SeekFrom};
    let mut sample = Vec::new();
    let read = std::fs::File::open(path).and_then(|mut f| {
        f.seek(SeekFrom::Start(from))?;
        f.take(SAMPLE).read_to_end(&mut sample)
    });
    let rows = memchr::memchr_iter(b'\n', &sample).count() as u64;
    match read {
        Ok(_) if rows >= 64 => (sample.len() as u64 * 19 / 20 / rows).max(1),
        _ => 16,
    }
}

/// What one part of the file holds besides its jobs.
#[derive(Default)]
struct Part {
    /// Line of each job, within the part.
    lines: Vec<u64>,
    /// Hash of each job's id.
    hashes: Vec<u64>,
    values: Vec<i64>,
    symbols: Symbols,
    rows: parts::RowsRead,
}

impl parts::PartRead for Part {
    fn rows(&self) -> &parts::RowsRead {
        &self.rows
    }
}

/// Loads `path` by parts, or `None` when it is not a plain file or holds a
/// quote (the CSV reader then reads it).
pub(super) fn load(
    path: &Path,
    file: &str,
    opts: &LoadOptions,
) -> Result<Option<(Trace, LoadReport)>, InputError> {
    load_by(path, file, opts, &parts::workers)
}

/// The same, cut into `workers(bytes)` parts.
fn load_by(
    path: &Path,
    file: &str,
    opts: &LoadOptions,
    workers: &dyn Fn(u64) -> usize,
) -> Result<Option<(Trace, LoadReport)>, InputError> {
    let Some((header, from, bytes)) = parts::plain_header(path) else {
        return Ok(None);
    };
    let cols = detect(&header, file)?;
    let strict = opts.strict;
    // Each part parses its jobs straight into its stretch of one list.
    let mut jobs = Vec::new();
    let row = row_bytes(path, from);
    let room = |(a, b): (u64, u64)| ((b - a) / row) as usize + 1;
    let read = |r, slots: &mut Slots<Job>| read_part(path, r, file, &cols, strict, slots);
    let how = (from, file, workers(bytes));
    let Some(got) = parts::read_parts_into(path, how, &mut jobs, room, read)? else {
        return Ok(None);
    };
    jobs.shrink_to_fit();
    let mut policy = RowPolicy::new(file, opts.strict);
    let merged = merge(got, jobs, file, &cols, &mut policy)?;
    finish(file, &cols, opts, merged, policy).map(Some)
}

fn read_part(
    path: &Path,
    range: (u64, u64),
    file: &str,
    cols: &Columns,
    strict: bool,
    jobs: &mut Slots<Job>,
) -> Result<Part, InputError> {
    let mut p = Part::default();
    // About 53 bytes a row in the released files.
    let estimate = ((range.1 - range.0) / 48) as usize;
    p.lines.reserve(estimate);
    p.hashes.reserve(estimate);
    p.values.reserve(estimate * cols.checked.len());
    let mut index = 0u32;
    // A line of spaces is blank here, as the CSV path has it.
    let blank = |l: &[u8]| l.iter().all(u8::is_ascii_whitespace);
    p.rows = parts::for_each_row(path, range, file, strict, blank, |row, _| {
        let (job, v) = parse_row(row, cols, &mut p.symbols, index)?;
        p.hashes.push(seen::hash(job.id.as_bytes()));
        jobs.push(job);
        p.lines.push(row.line);
        p.values.extend_from_slice(&v[..cols.checked.len()]);
        index += 1;
        Ok(())
    })?;
    Ok(p)
}

/// The parts in file order as one list of jobs: line numbers and symbols
/// re-based, duplicate ids refused, every bad row counted in line order.
fn merge(
    mut got: Vec<(Part, usize)>,
    mut jobs: Vec<Job>,
    file: &str,
    cols: &Columns,
    policy: &mut RowPolicy,
) -> Result<(Vec<Job>, Symbols, Vec<i64>), InputError> {
    let repeats = {
        let hashes: Vec<&[u64]> = got.iter().map(|p| &p.0.hashes[..]).collect();
        seen::repeats(&|i| jobs[i].id.as_bytes(), &hashes)
    };
    count_bad_rows(&got, &jobs, &repeats, file, policy)?;
    // Each part's jobs made final on its own thread: rows numbered,
    // symbols re-based, the values of repeats dropped.
    let mut symbols = Symbols::default();
    let mut plans = Vec::with_capacity(got.len());
    let (mut first, mut kept) = (0usize, 0usize);
    for (p, n) in &got {
        let (a, b) = (
            repeats.partition_point(|r| (r.0 as usize) < first),
            repeats.partition_point(|r| (r.0 as usize) < first + n),
        );
        let remap: Vec<_> = (0..p.symbols.len() as u32)
            .map(|i| symbols.intern(p.symbols.get(crate::model::Sym::new(i))))
            .collect();
        plans.push((first, kept, &repeats[a..b], remap));
        kept += n - (b - a);
        first += n;
    }
    let per = cols.checked.len();
    let mut work = Vec::with_capacity(got.len());
    let mut rest = &mut jobs[..];
    for ((p, n), plan) in got.iter_mut().zip(&plans) {
        let (mine, after) = rest.split_at_mut(*n);
        rest = after;
        work.push((mine, p, plan));
    }
    let done = crate::par::each(work, |(mine, p, (first, kept, gone, remap))| {
        finalise(mine, p, *first, *kept, gone, remap, per)
    });
    if done.iter().any(Result::is_err) {
        return Err(InputError::file(file, "reader panicked"));
    }
    if !repeats.is_empty() {
        let mut gone = repeats.iter().map(|r| r.0 as usize).peekable();
        let mut at = 0usize;
        jobs.retain(|_| {
            at += 1;
            gone.next_if_eq(&(at - 1)).is_none()
        });
    }
    let mut values = Vec::with_capacity(kept * per);
    for (p, _) in got {
        values.extend_from_slice(&p.values);
    }
    Ok((jobs, symbols, values))
}

/// Part `p`'s jobs as they stay: those at the global positions `gone`
/// skipped (the caller drops them) with their values, the rest numbered
/// from `kept` on, their symbols re-based through `remap`.
fn finalise(
    jobs: &mut [Job],
    p: &mut Part,
    first: usize,
    kept: usize,
    gone: &[(u32, u32)],
    remap: &[Sym],
    per: usize,
) {
    if !gone.is_empty() && per > 0 {
        let mut skip = gone.iter().map(|r| r.0 as usize - first).peekable();
        let mut values = Vec::with_capacity(p.values.len());
        for (at, chunk) in p.values.chunks(per).enumerate() {
            if skip.next_if_eq(&at).is_none() {
                values.extend_from_slice(chunk);
            }
        }
        p.values = values;
    }
    let mut skip = gone.iter().map(|r| r.0 as usize - first).peekable();
    let mut row = kept as u32;
    for (k, job) in jobs.iter_mut().enumerate() {
        if skip.next_if_eq(&k).is_some() {
            continue;
        }
        job.native_row = row;
        row += 1;
        if let Some(m) = &mut job.model {
            *m = remap[m.index() as usize];
        }
    }
}

/// Every bad row and repeated id, in line order, through `policy`.
fn count_bad_rows(
    got: &[(Part, usize)],
    jobs: &[Job],
    repeats: &[(u32, u32)],
    file: &str,
    policy: &mut RowPolicy,
) -> Result<(), InputError> {
    let rows: Vec<_> = got.iter().map(|(p, n)| (*n, &p.rows)).collect();
    let starts: Vec<usize> = got
        .iter()
        .scan(0, |at, (_, n)| {
            *at += n;
            Some(*at - n)
        })
        .collect();
    let row = |k: usize, i: usize| (got[k].0.lines[i], jobs[starts[k] + i].id.as_str());
    parts::count_bad_rows(&rows, repeats, file, "duplicate job id", row, policy)
}

#[cfg(test)]
#[path = "fast_tests.rs"]
mod tests;
