//! The fast path for a plain AcmeTrace file: the file cut at line starts
//! into a part per core, each part filed into its own `Build` on its own
//! thread from large reads (fields by byte search, one UTF-8 check per
//! line), then the parts joined in file order, where repeated ids are found
//! (a shard of the ids per core) and taken back out. Jobs, tables, skips
//! and messages are the CSV reader's; a file with a quote anywhere is left
//! to the CSV reader, which understands quoting.

use super::build::Build;
use super::{schema, tables, AcmeTables, Cols};
use crate::input::{InputError, RowPolicy};
use crate::model::Sym;
use crate::{parts, seen, LoadOptions};
use std::path::Path;

/// What one part of the file holds.
struct Part {
    b: Build,
    /// Hash of each row's id.
    hashes: Vec<u64>,
    rows: parts::RowsRead,
}

impl parts::PartRead for Part {
    fn rows(&self) -> &parts::RowsRead {
        &self.rows
    }
}

/// Files `path` in `workers(bytes)` parts, or `None` when it is not a
/// plain file or holds a quote (the CSV reader then reads it).
pub(super) fn load_by(
    path: &Path,
    file: &str,
    opts: &LoadOptions,
    workers: &dyn Fn(u64) -> usize,
) -> Result<Option<(Build, RowPolicy)>, InputError> {
    let Some((header, from, bytes)) = parts::plain_header(path) else {
        return Ok(None);
    };
    let (name, names, header) = schema(file, header)?;
    let cols = Cols::new(names);
    let read = |r| read_part(path, r, file, &cols, opts);
    let Some(got) = parts::read_parts(path, from, file, workers(bytes), read)? else {
        return Ok(None);
    };
    let mut policy = RowPolicy::new(file, opts.strict);
    let b = join(got, file, tables(path, name, header), &mut policy)?;
    Ok(Some((b, policy)))
}

fn read_part(
    path: &Path,
    range: (u64, u64),
    file: &str,
    cols: &Cols,
    opts: &LoadOptions,
) -> Result<Part, InputError> {
    let mut b = Build::new(AcmeTables::default(), false);
    // The CSV reader skips only an empty line.
    let rows = parts::for_each_row(
        path,
        range,
        file,
        opts.strict,
        <[u8]>::is_empty,
        |row, byte| {
            let f = b.check(row, cols)?;
            b.add(row, cols, f, byte, opts);
            Ok(())
        },
    )?;
    let hashes = b
        .tables
        .ids
        .iter()
        .map(|id| seen::hash(id.as_bytes()))
        .collect();
    Ok(Part { b, hashes, rows })
}

/// The parts in file order as one `Build`: repeated ids refused (and taken
/// back out of their part), every bad row counted in line order, rows
/// renumbered, symbols interned in the order the kept jobs use them.
fn join(
    mut got: Vec<Part>,
    file: &str,
    tables: AcmeTables,
    policy: &mut RowPolicy,
) -> Result<Build, InputError> {
    let repeats = {
        let ids: Vec<&[u8]> = got
            .iter()
            .flat_map(|p| p.b.tables.ids.iter().map(|id| id.as_bytes()))
            .collect();
        let hashes: Vec<&[u64]> = got.iter().map(|p| &p.hashes[..]).collect();
        seen::repeats(&|i| ids[i], &hashes)
    };
    report_bad_rows(&got, &repeats, file, policy)?;
    let mut first = 0u32;
    let mut clean = Vec::with_capacity(got.len());
    for p in &mut got {
        let n = p.b.tables.ids.len() as u32;
        let gone: Vec<u32> = repeats
            .iter()
            .filter(|r| r.0 >= first && r.0 < first + n)
            .map(|r| r.0 - first)
            .collect();
        drop_rows(&mut p.b, &gone);
        clean.push(gone.is_empty());
        first += n;
    }
    let mut out = Build::new(tables, false);
    for (p, clean) in got.into_iter().zip(clean) {
        append(&mut out, p.b, clean);
    }
    Ok(out)
}

/// Every bad row and repeated id, in line order, through `policy`.
fn report_bad_rows(
    got: &[Part],
    repeats: &[(u32, u32)],
    file: &str,
    policy: &mut RowPolicy,
) -> Result<(), InputError> {
    let rows: Vec<_> = got
        .iter()
        .map(|p| (p.b.tables.ids.len(), &p.rows))
        .collect();
    let row = |k: usize, i: usize| (got[k].b.row_lines[i], got[k].b.tables.ids[i].as_str());
    parts::count_bad_rows(&rows, repeats, file, "duplicate job", row, policy)
}

/// Takes rows `gone` (in order, within the part) back out of `b`: their
/// counts, states, ids and offsets, and their jobs; the rest renumbered.
fn drop_rows(b: &mut Build, gone: &[u32]) {
    if gone.is_empty() {
        return;
    }
    for &r in gone {
        b.tally.count(b.effects[r as usize], -1);
        b.state_counts[b.state_of[r as usize] as usize].1 -= 1;
    }
    let keep = |v: usize| gone.binary_search(&(v as u32)).is_err();
    retain_at(&mut b.tables.offsets, keep);
    retain_at(&mut b.tables.ids, keep);
    retain_at(&mut b.row_lines, keep);
    let segments = std::mem::take(&mut b.segments);
    b.jobs.retain_mut(|j| {
        if !keep(j.native_row as usize) {
            return false;
        }
        j.native_row -= gone.partition_point(|&g| g < j.native_row) as u32;
        let from = b.segments.len() as u32;
        b.segments
            .extend_from_slice(&segments[j.segments.start as usize..j.segments.end as usize]);
        j.segments = from..b.segments.len() as u32;
        true
    });
}

fn retain_at<T>(v: &mut Vec<T>, keep: impl Fn(usize) -> bool) {
    let mut i = 0;
    v.retain(|_| {
        i += 1;
        keep(i - 1)
    });
}

/// Part `p` after the rows of `out`: rows, segments and symbols re-based.
/// The first part, when none of its rows was taken out, is moved whole:
/// its symbols are already in the order its jobs first use them.
fn append(out: &mut Build, mut p: Build, clean: bool) {
    if clean && out.tables.ids.is_empty() {
        std::mem::swap(&mut out.jobs, &mut p.jobs);
        std::mem::swap(&mut out.segments, &mut p.segments);
        std::mem::swap(&mut out.tables.offsets, &mut p.tables.offsets);
        std::mem::swap(&mut out.tables.ids, &mut p.tables.ids);
        std::mem::swap(&mut out.symbols, &mut p.symbols);
    }
    out.jobs.reserve(p.jobs.len());
    out.tables.offsets.reserve(p.tables.offsets.len());
    out.tables.ids.reserve(p.tables.ids.len());
    let row_base = out.tables.offsets.len() as u32;
    let seg_base = out.segments.len() as u32;
    let mut remap: Vec<Option<Sym>> = vec![None; p.symbols.len()];
    let mut sym = |s: Sym, out: &mut Build| {
        *remap[s.index() as usize].get_or_insert_with(|| out.symbols.intern(p.symbols.get(s)))
    };
    for mut job in p.jobs {
        job.native_row += row_base;
        job.segments = job.segments.start + seg_base..job.segments.end + seg_base;
        job.user = job.user.map(|s| sym(s, out));
        job.model = job.model.map(|s| sym(s, out));
        out.jobs.push(job);
    }
    out.segments.extend(p.segments);
    out.tables.offsets.extend(p.tables.offsets);
    out.tables.ids.extend(p.tables.ids);
    out.tally.add(&p.tally);
    out.zone = out.zone.or(p.zone);
    for (k, n) in p.state_counts {
        if n > 0 {
            *out.tables.states.entry(k).or_default() += n;
        }
    }
}

#[cfg(test)]
#[path = "fast_tests.rs"]
mod tests;
