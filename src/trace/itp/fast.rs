//! The fast path for a plain ITP file: the file cut at line starts into a
//! part per core, each part parsed on its own thread straight from large
//! reads (fields found by byte search, one UTF-8 check per line), then the
//! parts merged in file order, where duplicate ids are found. The result —
//! jobs, errors, skips, messages — is exactly the CSV reader's; a file
//! with a quote anywhere is left to the CSV reader, which understands
//! quoting.

use super::{detect, finish, parse_row, seen, Columns};
use crate::trace::fields::{Fields, Row};
use crate::trace::input::{InputError, LoadReport, RowPolicy, FIRST_REASONS};
use crate::trace::model::{Job, Symbols, Trace};
use crate::trace::{parts, LoadOptions};
use std::io::{BufRead, Read};
use std::path::Path;

/// Jobs a part collects per block: the merge frees each block as it moves
/// it, so the jobs are never held twice.
const BLOCK_JOBS: usize = 1 << 16;

/// One line's fields, found by byte search.
struct Split<'a> {
    line: &'a [u8],
    ends: &'a [(u32, u32)],
    utf8: bool,
}

impl Fields for Split<'_> {
    fn field(&self, i: usize) -> &[u8] {
        self.ends
            .get(i)
            .map_or(b"", |&(a, b)| &self.line[a as usize..b as usize])
    }

    fn width(&self) -> usize {
        self.ends.len()
    }

    fn all_utf8(&self) -> bool {
        self.utf8
    }
}

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
    /// The first bad rows (the first only, when strict), by line.
    errors: Vec<(u64, InputError)>,
    bad: u64,
    lines_read: u64,
    quoted: bool,
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
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(None);
    };
    if !meta.is_file() {
        return Ok(None);
    }
    let Some((header, from)) = header(path) else {
        return Ok(None);
    };
    let cols = detect(&header, file)?;
    let ranges = parts::split_points(path, from, workers(meta.len() - from))
        .map_err(|e| InputError::file(file, format!("cannot read: {e}")))?;
    let strict = opts.strict;
    let read: Vec<Result<Part, InputError>> = std::thread::scope(|s| {
        let handles: Vec<_> = ranges
            .iter()
            .map(|&r| {
                let cols = &cols;
                s.spawn(move || read_part(path, r, file, cols, strict))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(InputError::file(file, "reader panicked")))
            })
            .collect()
    });
    let mut got = Vec::with_capacity(read.len());
    let mut before = 1; // the header
    for p in read {
        let p = p.map_err(|e| e.shifted(before))?;
        if p.quoted {
            return Ok(None);
        }
        before += p.lines_read;
        got.push(p);
    }
    let mut policy = RowPolicy::new(file, opts.strict);
    let merged = merge(got, file, &cols, &mut policy)?;
    finish(file, &cols, opts, merged, policy).map(Some)
}

/// The header's names and where the rows start, or `None` for anything
/// the CSV reader should judge (no header line, a blank first line, a quote).
fn header(path: &Path) -> Option<(Vec<String>, u64)> {
    let f = std::fs::File::open(path).ok()?;
    let mut r = std::io::BufReader::new(f.take(crate::trace::limits::MAX_LINE as u64));
    let mut line = Vec::new();
    let n = r.read_until(b'\n', &mut line).ok()?;
    if line.last() != Some(&b'\n')
        || line.iter().all(u8::is_ascii_whitespace)
        || line.contains(&b'"')
    {
        return None;
    }
    line.pop();
    let names = line
        .split(|&b| b == b',')
        .map(|h| {
            String::from_utf8_lossy(h)
                .trim()
                .trim_start_matches('\u{feff}')
                .to_string()
        })
        .collect();
    Some((names, n as u64))
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
    let mut ends: Vec<(u32, u32)> = Vec::with_capacity(cols.width + 1);
    let mut index = 0u32;
    p.lines_read = parts::for_each_line(path, range, file, |line, n| {
        if memchr::memchr(b'"', line).is_some() {
            p.quoted = true;
            return false;
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            return true; // a blank line
        }
        ends.clear();
        let mut start = 0u32;
        for c in memchr::memchr_iter(b',', line) {
            ends.push((start, c as u32));
            start = c as u32 + 1;
        }
        ends.push((start, line.len() as u32));
        let split = Split {
            line,
            ends: &ends,
            utf8: line.is_ascii() || std::str::from_utf8(line).is_ok(),
        };
        let row = Row {
            file,
            line: n,
            record: &split,
        };
        match parse_row(&row, cols, &mut p.symbols, index) {
            Ok((job, v)) => {
                if block.len() == BLOCK_JOBS {
                    p.blocks.push(std::mem::replace(
                        &mut block,
                        Vec::with_capacity(BLOCK_JOBS),
                    ));
                }
                p.hashes.push(seen::hash(job.id.as_bytes()));
                block.push(job);
                p.lines.push(n);
                p.values.extend_from_slice(&v[..cols.checked.len()]);
                index += 1;
                true
            }
            Err(e) => {
                p.bad += 1;
                if p.errors.len() < FIRST_REASONS {
                    p.errors.push((n, e));
                }
                !strict
            }
        }
    })?;
    p.blocks.push(block);
    Ok(p)
}

/// The parts in file order as one list of jobs: line numbers and symbols
/// re-based, duplicate ids refused, every bad row counted in line order.
fn merge(
    got: Vec<Part>,
    file: &str,
    cols: &Columns,
    policy: &mut RowPolicy,
) -> Result<(Vec<Job>, Symbols, Vec<i64>), InputError> {
    let mut lines: Vec<u64> = Vec::new();
    let mut before = 1u64;
    for p in &got {
        lines.extend(p.lines.iter().map(|l| l + before));
        before += p.lines_read;
    }
    let repeats = {
        let ids: Vec<&[u8]> = got
            .iter()
            .flat_map(|p| p.blocks.iter().flatten())
            .map(|j| j.id.as_bytes())
            .collect();
        let hashes: Vec<u64> = got.iter().flat_map(|p| p.hashes.iter().copied()).collect();
        seen::repeats(&ids, &hashes)
    };
    let mut repeats = repeats.into_iter().peekable();
    let per = cols.checked.len();
    let mut jobs: Vec<Job> = Vec::with_capacity(lines.len() - repeats.len());
    let mut values = Vec::with_capacity(jobs.capacity() * per);
    let mut symbols = Symbols::default();
    let (mut before, mut at) = (1u64, 0usize);
    for part in got {
        let remap: Vec<_> = (0..part.symbols.len() as u32)
            .map(|i| symbols.intern(part.symbols.get(crate::trace::model::Sym::new(i))))
            .collect();
        let mut errors = part.errors.into_iter().peekable();
        let mut shown = 0u64;
        for (k, mut job) in part.blocks.into_iter().flatten().enumerate() {
            let line = lines[at];
            while let Some((_, e)) = errors.next_if(|(l, _)| *l + before < line) {
                shown += 1;
                policy.bad_row(e.shifted(before))?;
            }
            if let Some((_, first)) = repeats.next_if(|&(i, _)| i as usize == at) {
                at += 1;
                let first = lines[first as usize];
                policy.bad_row(seen::duplicate(file, line, &job.id, first))?;
                continue;
            }
            at += 1;
            job.native_row = jobs.len() as u32;
            if let Some(m) = &mut job.model {
                *m = remap[m.index() as usize];
            }
            jobs.push(job);
            values.extend_from_slice(&part.values[k * per..(k + 1) * per]);
        }
        for (_, e) in errors {
            shown += 1;
            policy.bad_row(e.shifted(before))?;
        }
        // Rows past the first few reasons: counted, as the CSV reader counts them.
        policy.skips.count += part.bad - shown;
        before += part.lines_read;
    }
    Ok((jobs, symbols, values))
}

#[cfg(test)]
#[path = "fast_tests.rs"]
mod tests;
