//! Philly's per-minute utilisation files (GBs): indexed by time on first use
//! (one scan noting where each minute's rows start), then read a minute at
//! a time. Rows look like `2017-10-03 00:08:00 PDT,m29,60.8,NA,...,`.

use super::tarball::Tarball;
use crate::input::{InputError, Location, RowPolicy, Skips};
use crate::lines::{Lines, Record};
use crate::model::Secs;
use crate::text::sanitize;
use chrono::NaiveDateTime;
use rustc_hash::FxHashMap;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// Why a utilisation file's time is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ZonedError {
    /// No zone after the time.
    #[error("'{}' has no time zone", sanitize(.0))]
    NoZone(String),
    /// A zone other than PDT or PST.
    #[error("time zone '{}' is not PDT or PST", sanitize(.0))]
    Zone(String),
    /// Not a `%Y-%m-%d %H:%M:%S` time.
    #[error("'{}' is not a time", sanitize(.0))]
    NotATime(String),
    /// A time outside 1970 to 2100.
    #[error("'{}' {why}", sanitize(.text))]
    Range {
        /// The time as written.
        text: String,
        /// Why it is refused.
        why: crate::limits::ValueError,
    },
    /// Bytes that are not UTF-8.
    #[error("not UTF-8")]
    NotUtf8,
}

/// `2017-10-03 00:08:00 PDT` (or PST) as Unix seconds; other zones are refused.
pub fn parse_zoned(s: &str) -> Result<Secs, ZonedError> {
    let s = s.trim();
    let (when, zone) = s
        .rsplit_once(' ')
        .ok_or_else(|| ZonedError::NoZone(s.to_string()))?;
    let offset = match zone {
        "PDT" => -7 * 3600,
        "PST" => -8 * 3600,
        z => return Err(ZonedError::Zone(z.to_string())),
    };
    let ndt = NaiveDateTime::parse_from_str(when, "%Y-%m-%d %H:%M:%S")
        .map_err(|_| ZonedError::NotATime(when.to_string()))?;
    let at = ndt.and_utc().timestamp() - offset;
    crate::limits::dated(at).map_err(|m| ZonedError::Range {
        text: when.to_string(),
        why: m,
    })?;
    Ok(at)
}

/// Where each minute's rows start in a utilisation file, and its columns.
#[derive(Debug)]
pub struct UtilIndex {
    /// (time, byte offset of its first row), in file order.
    pub runs: Vec<(Secs, u64)>,
    /// Value column names after time and machine.
    pub columns: Vec<String>,
    /// Rows skipped while indexing.
    pub skips: Skips,
    /// Where the rows end (a member's end inside an archive).
    pub end: u64,
}

impl UtilIndex {
    /// A file the archive turned out not to hold: no minutes.
    pub fn absent() -> UtilIndex {
        UtilIndex {
            runs: Vec::new(),
            columns: Vec::new(),
            skips: Skips::default(),
            end: 0,
        }
    }
}

/// One minute's rows: machine → values (None for `NA`).
pub(crate) type Minute = crate::native::MachineValues;

/// Where a utilisation file's bytes are.
#[derive(Debug)]
pub enum UtilSource {
    /// A plain file at this path.
    File(PathBuf),
    /// A member of the release tarball, indexed with its siblings in one pass.
    Archive(Arc<Tarball>, &'static str),
}

/// One utilisation file: indexed by minute on first use, then read a minute at
/// a time.
#[derive(Debug)]
pub struct UtilFile {
    /// Where its bytes are.
    pub source: UtilSource,
    /// The name errors and notes give it.
    pub shown: String,
    machines: FxHashMap<String, u32>,
    strict: bool,
    index: OnceLock<Result<UtilIndex, InputError>>,
    /// Bytes scanned so far while indexing, and the file's size (for progress).
    scanned: std::sync::atomic::AtomicU64,
    /// Its size in bytes (an archive member's: the compressed archive's), for
    /// progress.
    pub size: u64,
}

impl UtilFile {
    /// The file at `path`, for machines named as in `machine_names`; nothing is
    /// read until the index is built.
    pub fn new(path: PathBuf, machine_names: &[String], strict: bool) -> UtilFile {
        let size = std::fs::metadata(&path).map_or(0, |m| m.len());
        let shown = path.display().to_string();
        UtilFile::with(UtilSource::File(path), shown, size, machine_names, strict)
    }

    /// `member` of the release tarball.
    pub fn in_archive(
        tar: Arc<Tarball>,
        member: &'static str,
        machine_names: &[String],
        strict: bool,
    ) -> UtilFile {
        let (shown, size) = (tar.shown(member), tar.size);
        let source = UtilSource::Archive(tar, member);
        UtilFile::with(source, shown, size, machine_names, strict)
    }

    fn with(
        source: UtilSource,
        shown: String,
        size: u64,
        machine_names: &[String],
        strict: bool,
    ) -> UtilFile {
        let machines = machine_names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i as u32))
            .collect();
        UtilFile {
            source,
            shown,
            machines,
            strict,
            index: OnceLock::new(),
            scanned: Default::default(),
            size,
        }
    }

    /// How far the index build has got, 0–1.
    pub fn progress(&self) -> f64 {
        if self.ready() {
            return 1.0;
        }
        match &self.source {
            UtilSource::Archive(tar, _) => tar.progress(),
            UtilSource::File(_) => {
                let done = self.scanned.load(std::sync::atomic::Ordering::Relaxed);
                done as f64 / self.size.max(1) as f64
            }
        }
    }

    /// Whether the index is built.
    pub fn ready(&self) -> bool {
        self.index.get().is_some()
    }

    /// Indexed, and found not to be in the archive after all.
    pub fn absent(&self) -> bool {
        matches!(self.index.get(), Some(Ok(i)) if i.columns.is_empty())
    }

    /// The index, built by one scan on first use (call it from a background thread).
    pub fn index(&self) -> &Result<UtilIndex, InputError> {
        self.index.get_or_init(|| match &self.source {
            UtilSource::File(path) => {
                let f = crate::reader::open_file(path)?;
                let progress = |b| self.scanned.store(b, std::sync::atomic::Ordering::Relaxed);
                scan(f, 0, &self.shown, self.strict, progress)
            }
            UtilSource::Archive(tar, member) => tar.util_index(member),
        })
    }

    /// The rows of the latest minute at or before `t` (and no older than
    /// `max_age` seconds), with that minute's time.
    pub fn at(&self, t: Secs, max_age: Secs) -> Option<(Secs, Minute)> {
        let idx = self.index().as_ref().ok()?;
        let i = idx.runs.partition_point(|r| r.0 <= t).checked_sub(1)?;
        let (when, offset) = idx.runs[i];
        if t - when > max_age {
            return None;
        }
        let rows: Box<dyn Read> = match &self.source {
            UtilSource::File(path) => {
                let mut f = std::fs::File::open(path).ok()?;
                f.seek(SeekFrom::Start(offset)).ok()?;
                Box::new(f)
            }
            UtilSource::Archive(tar, _) => Box::new(tar.range(offset, idx.end - offset).ok()?),
        };
        let mut lines = Lines::new(BufReader::with_capacity(1 << 16, rows), String::new());
        read_minute(&mut lines, &self.machines, idx.columns.len()).map(|m| (when, m))
    }
}

/// Builds the index in one pass over `f`, whose first byte is at `base`:
/// only each line's first field (the time) is looked at, and only parsed
/// when it changes. `progress` hears the bytes scanned so far.
pub(super) fn scan(
    mut f: impl Read,
    base: u64,
    file: &str,
    strict: bool,
    mut progress: impl FnMut(u64),
) -> Result<UtilIndex, InputError> {
    let read_err = |e: std::io::Error| InputError::io(file, "cannot read", e);
    let mut buf = vec![0u8; 1 << 22];
    let (mut carry, mut line, start_at) = (0usize, 0u64, base);
    let (mut base, mut total) = (base, 0u64);
    let mut scan = Scan {
        file,
        columns: None,
        policy: RowPolicy::new(file, strict),
        runs: Vec::new(),
        last_text: Vec::new(),
    };
    let mut at_end = false;
    while !at_end {
        if carry == buf.len() {
            // One line fills the whole block: not a utilisation row.
            let msg = format!("line {} is longer than 4 MiB", line + 1);
            return Err(InputError::file(file, msg));
        }
        let n = f.read(&mut buf[carry..]).map_err(read_err)?;
        total += n as u64;
        let mut end = carry + n;
        if n == 0 {
            at_end = true;
            if carry == 0 {
                break;
            }
            // A last line without a newline.
            if buf.len() == end {
                buf.push(b'\n');
            } else {
                buf[end] = b'\n';
            }
            end += 1;
        }
        let mut start = 0usize;
        while let Some(p) = memchr::memchr(b'\n', &buf[start..end]) {
            let row = &buf[start..start + p];
            let offset = base + start as u64;
            start += p + 1;
            line += 1;
            scan.line(row, offset, line)?;
        }
        buf.copy_within(start..end, 0);
        carry = end - start;
        base += start as u64;
        progress(base - start_at);
    }
    scan.finish(start_at + total)
}

/// The rows of one minute from `lines` (positioned at its first row).
fn read_minute(
    lines: &mut Lines<impl std::io::BufRead>,
    machines: &FxHashMap<String, u32>,
    columns: usize,
) -> Option<Minute> {
    let mut rec = Record::default();
    let mut out = Minute::default();
    let mut first: Option<Vec<u8>> = None;
    while lines.next(&mut rec).ok()? {
        let text = rec.get(0).to_vec();
        match &first {
            None => first = Some(text),
            Some(f) if *f != text => break,
            _ => {}
        }
        let Some(&m) = std::str::from_utf8(rec.get(1))
            .ok()
            .and_then(|n| machines.get(n.trim()))
        else {
            continue;
        };
        let vals = (2..2 + columns)
            .map(|c| {
                let v = rec.get(c);
                if v == b"NA" || v.is_empty() {
                    None
                } else {
                    std::str::from_utf8(v)
                        .ok()
                        .and_then(|s| s.parse::<f32>().ok())
                        .filter(|x| x.is_finite())
                }
            })
            .collect();
        out.insert(m, vals);
    }
    Some(out)
}

/// The index as the scan builds it, one line at a time.
struct Scan<'a> {
    file: &'a str,
    /// Value column names, once the header is read.
    columns: Option<Vec<String>>,
    policy: RowPolicy,
    runs: Vec<(Secs, u64)>,
    /// The time text of the current minute's rows.
    last_text: Vec<u8>,
}

impl Scan<'_> {
    /// Line number `line` (without its newline), starting at byte `offset`:
    /// the header, or a row whose time starts a new minute or not.
    fn line(&mut self, row: &[u8], offset: u64, line: u64) -> Result<(), InputError> {
        let row = row.strip_suffix(b"\r").unwrap_or(row);
        if row.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        if self.columns.is_none() {
            self.columns = Some(header_columns(self.file, row)?);
            return Ok(());
        }
        let text = match memchr::memchr(b',', row) {
            Some(c) => &row[..c],
            None => row,
        };
        let text = text
            .strip_prefix(b"\"")
            .and_then(|t| t.strip_suffix(b"\""))
            .unwrap_or(text);
        if text == self.last_text.as_slice() {
            return Ok(());
        }
        match std::str::from_utf8(text)
            .map_err(|_| ZonedError::NotUtf8)
            .and_then(parse_zoned)
        {
            Ok(t) => {
                self.last_text.clear();
                self.last_text.extend_from_slice(text);
                self.runs.push((t, offset));
            }
            Err(m) => {
                let loc = Location {
                    file: self.file.to_string(),
                    line,
                    column: Some("time".into()),
                    byte: false,
                };
                self.policy.bad_row(InputError::at(loc, m.to_string()))?;
            }
        }
        Ok(())
    }

    fn finish(self, end: u64) -> Result<UtilIndex, InputError> {
        let Some(columns) = self.columns else {
            return Err(InputError::file(
                self.file,
                "empty file: expected a header row",
            ));
        };
        // Files are written in time order; sort in case a part is not.
        let mut runs = self.runs;
        runs.sort_by_key(|r| r.0);
        Ok(UtilIndex {
            runs,
            columns,
            skips: self.policy.skips,
            end,
        })
    }
}

/// `time,machine,values…`: the value column names.
fn header_columns(file: &str, row: &[u8]) -> Result<Vec<String>, InputError> {
    let text = String::from_utf8_lossy(row);
    let mut fields = text.trim_start_matches('\u{feff}').split(',');
    if fields.next().map(str::trim) != Some("time") {
        return Err(header_error(file));
    }
    let cols: Vec<String> = fields
        .skip(1)
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
        .collect();
    if cols.is_empty() {
        return Err(header_error(file));
    }
    Ok(cols)
}

fn header_error(file: &str) -> InputError {
    InputError::on_line(file, 1, "unknown header: expected time,machine,values…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zoned_times() {
        // 2017-11-05 01:30 happens twice in Los Angeles; the suffix says which.
        let pdt = parse_zoned("2017-11-05 01:30:00 PDT").unwrap();
        let pst = parse_zoned("2017-11-05 01:30:00 PST").unwrap();
        assert_eq!(pst - pdt, 3600);
        assert!(parse_zoned("2017-11-05 01:30:00 UTC")
            .unwrap_err()
            .to_string()
            .contains("not PDT or PST"));
        assert!(parse_zoned("2017-11-05 01:30:00").is_err());
    }
}
