//! Philly's per-minute utilisation files (GBs): indexed by time on first use
//! (one scan noting where each minute's rows start), then read a minute at
//! a time. Rows look like `2017-10-03 00:08:00 PDT,m29,60.8,NA,...,`.

use crate::text::sanitize;
use crate::trace::input::{InputError, Location, RowPolicy, Skips};
use crate::trace::lines::{Lines, Record};
use crate::trace::model::Secs;
use chrono::NaiveDateTime;
use rustc_hash::FxHashMap;
use std::io::{BufReader, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::OnceLock;

/// Why a utilisation file's time is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ZonedError {
    #[error("'{}' has no time zone", sanitize(.0))]
    NoZone(String),
    #[error("time zone '{}' is not PDT or PST", sanitize(.0))]
    Zone(String),
    #[error("'{}' is not a time", sanitize(.0))]
    NotATime(String),
    #[error("'{}' {why}", sanitize(.text))]
    Range {
        text: String,
        why: crate::trace::limits::ValueError,
    },
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
    crate::trace::limits::dated(at).map_err(|m| ZonedError::Range {
        text: when.to_string(),
        why: m,
    })?;
    Ok(at)
}

#[derive(Debug)]
pub struct UtilIndex {
    /// (time, byte offset of its first row), in file order.
    pub runs: Vec<(Secs, u64)>,
    /// Value column names after time and machine.
    pub columns: Vec<String>,
    pub skips: Skips,
}

/// One minute's rows: machine → values (None for `NA`).
pub type Minute = crate::trace::native::MachineValues;

#[derive(Debug)]
pub struct UtilFile {
    pub path: PathBuf,
    machines: FxHashMap<String, u32>,
    strict: bool,
    index: OnceLock<Result<UtilIndex, InputError>>,
    /// Bytes scanned so far while indexing, and the file's size (for progress).
    scanned: std::sync::atomic::AtomicU64,
    pub size: u64,
}

impl UtilFile {
    pub fn new(path: PathBuf, machine_names: &[String], strict: bool) -> UtilFile {
        let machines = machine_names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i as u32))
            .collect();
        let size = std::fs::metadata(&path).map_or(0, |m| m.len());
        UtilFile {
            path,
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
        self.scanned.load(std::sync::atomic::Ordering::Relaxed) as f64 / self.size.max(1) as f64
    }

    pub fn ready(&self) -> bool {
        self.index.get().is_some()
    }

    /// The index, built by one scan on first use (call it from a background thread).
    pub fn index(&self) -> &Result<UtilIndex, InputError> {
        self.index.get_or_init(|| self.build())
    }

    fn build(&self) -> Result<UtilIndex, InputError> {
        use std::io::Read;
        let file = self.path.display().to_string();
        let mut f = crate::trace::reader::open_file(&self.path)?;
        let read_err = |e: std::io::Error| InputError::file(&file, format!("cannot read: {e}"));
        // One pass in big blocks: only each line's first field (the time) is
        // looked at, and only parsed when it changes.
        let mut buf = vec![0u8; 1 << 22];
        let (mut carry, mut base, mut line) = (0usize, 0u64, 0u64);
        let mut scan = Scan {
            file: &file,
            columns: None,
            policy: RowPolicy::new(&file, self.strict),
            runs: Vec::new(),
            last_text: Vec::new(),
        };
        let mut at_end = false;
        while !at_end {
            if carry == buf.len() {
                buf.resize(buf.len() * 2, 0);
            }
            let n = f.read(&mut buf[carry..]).map_err(read_err)?;
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
            self.scanned
                .store(base, std::sync::atomic::Ordering::Relaxed);
        }
        scan.finish()
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
        let mut f = std::fs::File::open(&self.path).ok()?;
        f.seek(SeekFrom::Start(offset)).ok()?;
        let mut lines = Lines::new(BufReader::with_capacity(1 << 16, f), String::new());
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
                .and_then(|n| self.machines.get(n.trim()))
            else {
                continue;
            };
            let vals = (2..2 + idx.columns.len())
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
        Some((when, out))
    }
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

    fn finish(self) -> Result<UtilIndex, InputError> {
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
