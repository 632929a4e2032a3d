//! The fast path for a plain ITP file: the file cut at line starts into a
//! part per core, each part parsed on its own thread straight from large
//! reads (fields found by byte search, one UTF-8 check per line), then the
//! parts merged in file order, where duplicate ids are found. The result —
//! jobs, errors, skips, messages — is exactly the CSV reader's; a file
//! with a quote anywhere is left to the CSV reader, which understands
//! quoting.

use super::{detect, finish, parse_row, Columns};
use crate::trace::input::{InputError, LoadReport, RowPolicy};
use crate::trace::model::{Job, Sym, Symbols, Trace};
use crate::trace::seen;
use crate::trace::{parts, LoadOptions};
use std::path::Path;

/// Jobs a part collects per block: the merge frees each block as it moves
/// it, so the jobs are never held twice.
const BLOCK_JOBS: usize = 1 << 16;

/// What one part of the file holds.
#[derive(Default)]
struct Part {
    blocks: Vec<Vec<Job>>,
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
pub fn load(
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
    let read = |r| read_part(path, r, file, &cols, strict);
    let Some(got) = parts::read_parts(path, from, file, workers(bytes), read)? else {
        return Ok(None);
    };
    let mut policy = RowPolicy::new(file, opts.strict);
    let merged = merge(got, file, &cols, &mut policy)?;
    finish(file, &cols, opts, merged, policy).map(Some)
}

fn read_part(
    path: &Path,
    range: (u64, u64),
    file: &str,
    cols: &Columns,
    strict: bool,
) -> Result<Part, InputError> {
    let mut p = Part::default();
    // About 53 bytes a row in the released files.
    let estimate = ((range.1 - range.0) / 48) as usize;
    p.lines.reserve(estimate);
    p.hashes.reserve(estimate);
    p.values.reserve(estimate * cols.checked.len());
    let mut block: Vec<Job> = Vec::with_capacity(BLOCK_JOBS.min(estimate + 1));
    let mut index = 0u32;
    // A line of spaces is blank here, as the CSV path has it.
    let blank = |l: &[u8]| l.iter().all(u8::is_ascii_whitespace);
    p.rows = parts::for_each_row(path, range, file, strict, blank, |row, _| {
        let (job, v) = parse_row(row, cols, &mut p.symbols, index)?;
        if block.len() == BLOCK_JOBS {
            p.blocks.push(std::mem::replace(
                &mut block,
                Vec::with_capacity(BLOCK_JOBS),
            ));
        }
        p.hashes.push(seen::hash(job.id.as_bytes()));
        block.push(job);
        p.lines.push(row.line);
        p.values.extend_from_slice(&v[..cols.checked.len()]);
        index += 1;
        Ok(())
    })?;
    p.blocks.push(block);
    Ok(p)
}

/// The parts in file order as one list of jobs: line numbers and symbols
/// re-based, duplicate ids refused, every bad row counted in line order.
fn merge(
    mut got: Vec<Part>,
    file: &str,
    cols: &Columns,
    policy: &mut RowPolicy,
) -> Result<(Vec<Job>, Symbols, Vec<i64>), InputError> {
    let repeats = {
        let ids: Vec<&[u8]> = got
            .iter()
            .flat_map(|p| p.blocks.iter().flatten())
            .map(|j| j.id.as_bytes())
            .collect();
        let hashes: Vec<u64> = got.iter().flat_map(|p| p.hashes.iter().copied()).collect();
        seen::repeats(&ids, &hashes)
    };
    count_bad_rows(&got, &repeats, file, policy)?;
    // Each part's jobs made final on its own thread: repeats dropped, rows
    // numbered, symbols re-based.
    let mut symbols = Symbols::default();
    let mut plans = Vec::with_capacity(got.len());
    let (mut first, mut kept) = (0usize, 0usize);
    for p in &got {
        let n = p.lines.len();
        let (a, b) = (
            repeats.partition_point(|r| (r.0 as usize) < first),
            repeats.partition_point(|r| (r.0 as usize) < first + n),
        );
        let remap: Vec<_> = (0..p.symbols.len() as u32)
            .map(|i| symbols.intern(p.symbols.get(crate::trace::model::Sym::new(i))))
            .collect();
        plans.push((first, kept, &repeats[a..b], remap));
        kept += n - (b - a);
        first += n;
    }
    let per = cols.checked.len();
    std::thread::scope(|s| {
        for (p, (first, kept, gone, remap)) in got.iter_mut().zip(&plans) {
            s.spawn(move || finalise(p, *first, *kept, gone, remap, per));
        }
    });
    let mut jobs: Vec<Job> = Vec::with_capacity(kept);
    let mut values = Vec::with_capacity(kept * per);
    for p in got {
        values.extend_from_slice(&p.values);
        for mut block in p.blocks {
            jobs.append(&mut block);
        }
    }
    Ok((jobs, symbols, values))
}

/// Part `p`'s jobs as they stay: those at the global positions `gone`
/// removed (with their values), the rest numbered from `kept` on, their
/// symbols re-based through `remap`.
fn finalise(
    p: &mut Part,
    first: usize,
    kept: usize,
    gone: &[(u32, u32)],
    remap: &[Sym],
    per: usize,
) {
    let mut gone = gone.iter().map(|r| r.0 as usize - first).peekable();
    let (mut at, mut row) = (0usize, kept as u32);
    let mut values = Vec::with_capacity(p.values.len());
    for block in &mut p.blocks {
        block.retain_mut(|job| {
            let k = at;
            at += 1;
            if gone.next_if_eq(&k).is_some() {
                return false;
            }
            job.native_row = row;
            row += 1;
            if let Some(m) = &mut job.model {
                *m = remap[m.index() as usize];
            }
            values.extend_from_slice(&p.values[k * per..(k + 1) * per]);
            true
        });
    }
    p.values = values;
}

/// Every bad row and repeated id, in line order, through `policy`.
fn count_bad_rows(
    got: &[Part],
    repeats: &[(u32, u32)],
    file: &str,
    policy: &mut RowPolicy,
) -> Result<(), InputError> {
    let rows: Vec<_> = got.iter().map(|p| (p.lines.len(), &p.rows)).collect();
    let row = |k: usize, i: usize| {
        let job = &got[k].blocks[i / BLOCK_JOBS][i % BLOCK_JOBS];
        (got[k].lines[i], job.id.as_str())
    };
    parts::count_bad_rows(&rows, repeats, file, "duplicate job id", row, policy)
}

#[cfg(test)]
#[path = "fast_tests.rs"]
mod tests;
