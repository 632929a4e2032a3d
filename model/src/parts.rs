//! Reading one large plain file on every core: the file cut into parts at
//! line starts, each part read in large blocks through one bounded buffer
//! and handed out a line at a time, with its line number within the part.

use super::fields::Fields;
use super::input::InputError;
use super::limits::MAX_LINE;
use super::slots::Slots;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// Bytes read at a time by one part's reader.
const BLOCK: usize = 4 << 20;

/// Byte ranges of `path` from `from` to its end, split into at most `n`
/// parts at line starts.
pub(crate) fn split_points(path: &Path, from: u64, n: usize) -> std::io::Result<Vec<(u64, u64)>> {
    let mut f = std::fs::File::open(path)?;
    let len = f.metadata()?.len();
    let mut cuts = vec![from];
    let span = len.saturating_sub(from);
    for k in 1..n as u64 {
        let mut at = from + span * k / n as u64;
        f.seek(SeekFrom::Start(at))?;
        let mut r = BufReader::new((&mut f).take(MAX_LINE as u64 + 1));
        let mut skip = Vec::new();
        at += r.read_until(b'\n', &mut skip)? as u64;
        if at > *cuts.last().unwrap_or(&0) && at < len {
            cuts.push(at);
        }
    }
    if len > from {
        cuts.push(len);
    }
    Ok(cuts.windows(2).map(|w| (w[0], w[1])).collect())
}

/// How many parts a file of `bytes` is worth: one per core, at most four,
/// and one for anything under 4 MiB (threads would cost more than they save).
pub(crate) fn workers(bytes: u64) -> usize {
    if bytes < 4 << 20 {
        return 1;
    }
    crate::par::cores().clamp(1, MOST_PARTS)
}

/// The most parts a file is cut into (more threads than this read no
/// faster from one disk).
pub(crate) const MOST_PARTS: usize = 4;

/// One line's fields, found by byte search (a line with a quote is left
/// to the CSV reader, which understands quoting).
pub(crate) struct Split<'a> {
    line: &'a [u8],
    ends: &'a [(u32, u32)],
    /// The line, when it is UTF-8 (checked once for all its fields).
    text: Option<&'a str>,
}

impl<'a> Split<'a> {
    /// `line` cut at its commas; `ends` is the caller's, reused line to line.
    pub(crate) fn of(line: &'a [u8], ends: &'a mut Vec<(u32, u32)>) -> Split<'a> {
        super::lines::comma_ends(line, ends);
        Split {
            line,
            ends,
            text: std::str::from_utf8(line).ok(),
        }
    }
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
        self.text.is_some()
    }

    fn text(&self, i: usize) -> Option<&str> {
        // Cut at commas, so always at character boundaries.
        let (a, b) = *self.ends.get(i).unwrap_or(&(0, 0));
        self.text?.get(a as usize..b as usize)
    }
}

/// A plain file's header names (trimmed, without a byte-order mark),
/// where its rows start and how many bytes they take, or `None` for
/// anything the CSV reader should judge (not a regular file, no header
/// line, a blank first line, a quote).
pub(crate) fn plain_header(path: &Path) -> Option<(Vec<String>, u64, u64)> {
    let len = std::fs::metadata(path).ok().filter(|m| m.is_file())?.len();
    let f = std::fs::File::open(path).ok()?;
    let mut r = BufReader::new(f.take(MAX_LINE as u64));
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
    Some((names, n as u64, len.saturating_sub(n as u64)))
}

/// Calls `each(line, number)` for every line of `path`'s bytes `a..b`
/// (numbers from 1, the `\n` removed), and returns how many lines there
/// were. `each` returns `false` to stop early. A line over `MAX_LINE`
/// bytes is an error naming `file` and the line.
pub(crate) fn for_each_line(
    path: &Path,
    (a, b): (u64, u64),
    file: &str,
    mut each: impl FnMut(&[u8], u64) -> bool,
) -> Result<u64, InputError> {
    let read_err = |e: std::io::Error| InputError::io(file, "cannot read", e);
    let mut f = std::fs::File::open(path).map_err(read_err)?;
    f.seek(SeekFrom::Start(a)).map_err(read_err)?;
    let mut f = f.take(b - a);
    let mut buf = vec![0u8; BLOCK + MAX_LINE + 1];
    let (mut filled, mut line) = (0usize, 0u64);
    let mut eof = false;
    while !eof || filled > 0 {
        if !eof {
            let n = read_some(&mut f, &mut buf[filled..]).map_err(read_err)?;
            eof = n == 0;
            filled += n;
        }
        let mut start = 0;
        for nl in memchr::memchr_iter(b'\n', &buf[start..filled]) {
            line += 1;
            if nl - start > MAX_LINE {
                return Err(too_long(file, line));
            }
            if !each(&buf[start..nl], line) {
                return Ok(line);
            }
            start = nl + 1;
        }
        if eof && start < filled {
            // The last line, without its `\n`.
            line += 1;
            if filled - start > MAX_LINE {
                return Err(too_long(file, line));
            }
            each(&buf[start..filled], line);
            start = filled;
        }
        if filled - start > MAX_LINE {
            return Err(too_long(file, line + 1));
        }
        buf.copy_within(start..filled, 0);
        filled -= start;
    }
    Ok(line)
}

/// What reading one part's rows gave, besides what its loader kept.
#[derive(Default)]
pub(crate) struct RowsRead {
    /// Lines the part holds.
    pub lines_read: u64,
    /// Its first bad rows (the first only, when strict), by line within the part.
    pub errors: Vec<(u64, InputError)>,
    /// All its bad rows.
    pub bad: u64,
    /// It met a quote (the whole file is left to the CSV reader).
    pub quoted: bool,
}

/// Calls `each(row, byte offset)` for every row of `path`'s bytes `range`
/// (lines `blank` calls blank are skipped); a row `each` refuses is counted
/// among the bad ones, the first few kept, and stops the read when
/// `strict`. A quote stops it too (`quoted`).
pub(crate) fn for_each_row(
    path: &Path,
    range: (u64, u64),
    file: &str,
    strict: bool,
    blank: fn(&[u8]) -> bool,
    mut each: impl FnMut(&super::fields::Row<Split>, u64) -> Result<(), InputError>,
) -> Result<RowsRead, InputError> {
    let mut r = RowsRead::default();
    let mut ends: Vec<(u32, u32)> = Vec::new();
    let mut at = range.0;
    r.lines_read = for_each_line(path, range, file, |line, n| {
        let byte = at;
        at += line.len() as u64 + 1;
        if memchr::memchr(b'"', line).is_some() {
            r.quoted = true;
            return false;
        }
        if blank(line) {
            return true;
        }
        let split = Split::of(line, &mut ends);
        let row = super::fields::Row {
            file,
            line: n,
            record: &split,
        };
        match each(&row, byte) {
            Ok(()) => true,
            Err(e) => {
                r.bad += 1;
                if r.errors.len() < super::input::FIRST_REASONS {
                    r.errors.push((n, e));
                }
                !strict
            }
        }
    })?;
    Ok(r)
}

/// A loader's part of a file.
pub(crate) trait PartRead: Send {
    fn rows(&self) -> &RowsRead;
}

/// A part with the count of items it pushed.
impl<P: PartRead> PartRead for (P, usize) {
    fn rows(&self) -> &RowsRead {
        self.0.rows()
    }
}

/// `path`'s rows from byte `from` on, cut at line starts into
/// `workers` parts, each read by `read` on its own thread; in file
/// order, an error's line counted from the file's start. `None` when a
/// part met a quote.
pub(crate) fn read_parts<P: PartRead>(
    path: &Path,
    from: u64,
    file: &str,
    workers: usize,
    read: impl Fn((u64, u64)) -> Result<P, InputError> + Sync,
) -> Result<Option<Vec<P>>, InputError> {
    let ranges =
        split_points(path, from, workers).map_err(|e| InputError::io(file, "cannot read", e))?;
    let parts = crate::par::each(ranges, read)
        .into_iter()
        .map(|r| r.unwrap_or_else(|_| Err(InputError::file(file, "reader panicked"))))
        .collect();
    in_file_order(parts)
}

/// The same, each part's items pushed into its own stretch of `out`
/// (`room(range)` slots reserved for it) and `out` their list in file
/// order; each part with how many items it pushed.
pub(crate) fn read_parts_into<T: Send, P: PartRead>(
    path: &Path,
    (from, file, workers): (u64, &str, usize),
    out: &mut Vec<T>,
    room: impl Fn((u64, u64)) -> usize,
    read: impl Fn((u64, u64), &mut Slots<T>) -> Result<P, InputError> + Sync,
) -> Result<Option<Vec<(P, usize)>>, InputError> {
    let ranges =
        split_points(path, from, workers).map_err(|e| InputError::io(file, "cannot read", e))?;
    let sizes: Vec<usize> = ranges.iter().map(|&r| room(r)).collect();
    let done = super::slots::fill(out, &sizes, |k, slots| read(ranges[k], slots))
        .ok_or_else(|| InputError::file(file, "reader panicked"))?;
    let parts = done.into_iter().map(|(r, n)| r.map(|p| (p, n))).collect();
    in_file_order(parts)
}

/// The parts read, in file order, an error's line counted from the
/// file's start; `None` when a part met a quote.
fn in_file_order<P: PartRead>(
    parts: Vec<Result<P, InputError>>,
) -> Result<Option<Vec<P>>, InputError> {
    let mut got = Vec::with_capacity(parts.len());
    let mut before = 1; // the header
    for p in parts {
        let p = p.map_err(|e| e.shifted(before))?;
        if p.rows().quoted {
            return Ok(None);
        }
        before += p.rows().lines_read;
        got.push(p);
    }
    Ok(Some(got))
}

/// Every bad row and repeated id of `parts` (each with the rows it kept,
/// repeats still among them), in line order, through `policy` (which
/// stops at the first when strict). `repeats` are global positions of kept
/// rows, (repeat, first), in order; `row(part, index)` gives a kept row's
/// line within its part and its id, and `what` names a repeat as the
/// format's CSV reader does ("duplicate job id").
pub(crate) fn count_bad_rows<'a>(
    parts: &[(usize, &RowsRead)],
    repeats: &[(u32, u32)],
    file: &str,
    what: &str,
    row: impl Fn(usize, usize) -> (u64, &'a str),
    policy: &mut super::input::RowPolicy,
) -> Result<(), InputError> {
    // Each part's first position and the lines before it (the header's too).
    let mut starts = Vec::with_capacity(parts.len());
    let (mut first, mut before) = (0usize, 1u64);
    for &(kept, p) in parts {
        starts.push((first, before));
        first += kept;
        before += p.lines_read;
    }
    let at = |pos: u32| {
        let k = starts.partition_point(|&(f, _)| f <= pos as usize) - 1;
        let (f, before) = starts[k];
        let (line, id) = row(k, pos as usize - f);
        (line + before, id)
    };
    let mut repeats = repeats.iter().peekable();
    for (&(kept, p), &(first, before)) in parts.iter().zip(&starts) {
        let end = first + kept;
        let mut shown = 0u64;
        let mut errors = p.errors.iter().peekable();
        loop {
            let dup = repeats
                .peek()
                .filter(|r| (r.0 as usize) < end)
                .map(|r| at(r.0));
            let err = errors.peek().map(|(l, _)| l + before);
            match (dup, err) {
                (Some((line, id)), e) if e.is_none_or(|e| line < e) => {
                    let &(_, was) = repeats.next().expect("peeked");
                    let e = super::seen::duplicate(file, line, what, id, at(was).0);
                    policy.bad_row(e)?;
                }
                (_, Some(_)) => {
                    let (_, e) = errors.next().expect("peeked");
                    shown += 1;
                    policy.bad_row(e.clone().shifted(before))?;
                }
                _ => break,
            }
        }
        // Rows past the first few reasons: counted, as the CSV reader counts them.
        policy.skips.count += p.bad - shown;
    }
    Ok(())
}

/// Reads until `buf` is full or the input ends.
fn read_some(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

fn too_long(file: &str, line: u64) -> InputError {
    InputError::on_line(
        file,
        line,
        format!("a line longer than {MAX_LINE} bytes (1 MiB): not a trace table"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(bytes: &[u8], parts: usize) -> Vec<(Vec<u8>, u64)> {
        let dir = std::env::temp_dir().join(format!("tracetui-parts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(format!("f{parts}-{}", bytes.len()));
        std::fs::write(&p, bytes).unwrap();
        let mut out = Vec::new();
        let mut before = 0;
        for part in split_points(&p, 2, parts).unwrap() {
            let mut local = Vec::new();
            let n = for_each_line(&p, part, "f", |l, n| {
                local.push((l.to_vec(), n + before));
                true
            })
            .unwrap();
            before += n;
            out.extend(local);
        }
        out
    }

    #[test]
    fn every_line_once_in_order_whatever_the_parts() {
        let text = b"h\na,1\n\nbb,22\r\nccc,333\nlast";
        let one = lines_of(text, 1);
        assert_eq!(one.len(), 5);
        assert_eq!(one[0], (b"a,1".to_vec(), 1));
        assert_eq!(one[4], (b"last".to_vec(), 5));
        for n in 2..6 {
            assert_eq!(lines_of(text, n), one, "{n} parts");
        }
    }

    #[test]
    fn a_line_over_the_limit_is_an_error_naming_it() {
        let dir = std::env::temp_dir().join(format!("tracetui-parts-long-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("long");
        let mut bytes = b"ok\n".to_vec();
        bytes.extend(std::iter::repeat_n(b'x', MAX_LINE + 10));
        std::fs::write(&p, &bytes).unwrap();
        let len = bytes.len() as u64;
        let e = for_each_line(&p, (0, len), "f", |_, _| true).unwrap_err();
        assert!(e.to_string().starts_with("f:2: a line longer"), "{e}");
    }
}
