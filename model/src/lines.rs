//! A fast reader of headerless CSV lines for the large PAI tables: one
//! buffer, field boundaries by byte search, line numbers for messages.
//! Quoted fields are understood (quotes stripped); a field cannot hold a newline.

use super::input::{InputError, Location};
use std::io::{BufRead, Read};

/// One line split into fields.
#[derive(Debug, Default)]
pub(crate) struct Record {
    buf: Vec<u8>,
    fields: Vec<(u32, u32)>,
    pub line: u64,
    /// Byte offset of the line in its input.
    pub offset: u64,
    /// The whole line is valid UTF-8 (checked once, so fields need not be).
    utf8: bool,
}

impl Record {
    /// Whether the fields are exactly `columns` (spaces around them aside).
    pub(crate) fn names(&self, columns: &[&str]) -> bool {
        self.len() == columns.len()
            && (0..self.len()).all(|i| self.get(i).trim_ascii() == columns[i].as_bytes())
    }

    pub(crate) fn len(&self) -> usize {
        self.fields.len()
    }

    /// Field `i`, trimmed of spaces; empty when missing.
    pub(crate) fn get(&self, i: usize) -> &[u8] {
        self.fields
            .get(i)
            .map(|&(a, b)| self.buf[a as usize..b as usize].trim_ascii())
            .unwrap_or(b"")
    }

    pub(crate) fn is_utf8(&self) -> bool {
        self.utf8
    }

    fn split(&mut self) {
        self.fields.clear();
        self.utf8 = std::str::from_utf8(&self.buf).is_ok();
        if memchr::memchr(b'"', &self.buf).is_none() {
            comma_ends(&self.buf, &mut self.fields);
            return;
        }
        let b = &self.buf;
        let mut i = 0;
        let n = b.len();
        loop {
            if i < n && b[i] == b'"' {
                let start = i + 1;
                let mut j = start;
                while j < n {
                    if b[j] == b'"' {
                        if j + 1 < n && b[j + 1] == b'"' {
                            j += 2;
                            continue;
                        }
                        break;
                    }
                    j += 1;
                }
                self.fields.push((start as u32, j.min(n) as u32));
                i = j + 1;
                while i < n && b[i] != b',' {
                    i += 1;
                }
            } else {
                let start = i;
                while i < n && b[i] != b',' {
                    i += 1;
                }
                self.fields.push((start as u32, i as u32));
            }
            if i >= n {
                break;
            }
            i += 1; // the comma
        }
    }
}

/// The one field splitter: `line` cut at its commas into `ends` (start,
/// end), cleared first, by byte search. A line with a quote needs
/// `Record`'s quoted path (or the CSV reader) instead.
pub(crate) fn comma_ends(line: &[u8], ends: &mut Vec<(u32, u32)>) {
    ends.clear();
    let mut start = 0u32;
    for c in memchr::memchr_iter(b',', line) {
        ends.push((start, c as u32));
        start = c as u32 + 1;
    }
    ends.push((start, line.len() as u32));
}

/// Lines of one input, with their numbers.
pub(crate) struct Lines<R> {
    r: R,
    pub file: String,
    line: u64,
    offset: u64,
    /// Columns whose names, as the first record, make it a header to skip.
    header: Option<&'static [&'static str]>,
}

impl<R: BufRead> Lines<R> {
    pub(crate) fn new(r: R, file: String) -> Lines<R> {
        Lines {
            r,
            file,
            line: 0,
            offset: 0,
            header: None,
        }
    }

    /// Skips the first record if it names `columns` (a header row users
    /// prepend to a headerless table), silently.
    pub(crate) fn skipping_header(mut self, columns: &'static [&'static str]) -> Lines<R> {
        self.header = Some(columns);
        self
    }

    /// Lines read so far, blank ones included.
    pub(crate) fn line(&self) -> u64 {
        self.line
    }

    /// Reads the next non-blank line into `rec`; `false` at the end.
    pub(crate) fn next(&mut self, rec: &mut Record) -> Result<bool, InputError> {
        loop {
            let Some(offset) = self.next_raw(&mut rec.buf)? else {
                return Ok(false);
            };
            rec.offset = offset;
            rec.line = self.line;
            rec.split();
            if self.header.take().is_some_and(|c| rec.names(c)) {
                continue;
            }
            return Ok(true);
        }
    }

    /// Reads the next non-blank line into `buf`, without its line end, as
    /// it is (not split); its byte offset, or `None` at the end.
    pub(crate) fn next_raw(&mut self, buf: &mut Vec<u8>) -> Result<Option<u64>, InputError> {
        loop {
            buf.clear();
            let limit = super::limits::MAX_LINE as u64 + 1;
            let n = (&mut self.r)
                .take(limit)
                .read_until(b'\n', buf)
                .map_err(|e| {
                    InputError::at(
                        Location {
                            file: self.file.clone(),
                            line: self.line + 1,
                            column: None,
                            byte: false,
                        },
                        format!("read failed: {e}"),
                    )
                    .because(e)
                })?;
            if n == 0 {
                return Ok(None);
            }
            if n as u64 == limit && buf.last() != Some(&b'\n') {
                return Err(InputError::on_line(
                    &self.file,
                    self.line + 1,
                    format!(
                        "a line longer than {} bytes (1 MiB): not a trace table",
                        super::limits::MAX_LINE
                    ),
                ));
            }
            let offset = self.offset;
            self.offset += n as u64;
            self.line += 1;
            while matches!(buf.last(), Some(b'\n' | b'\r')) {
                buf.pop();
            }
            if buf.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            return Ok(Some(offset));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_is_skipped_only_as_the_first_record() {
        let text = &b"\n a , b\n1,2\na,b\n"[..];
        let mut l = Lines::new(text, "f".into()).skipping_header(&["a", "b"]);
        let mut r = Record::default();
        assert!(l.next(&mut r).unwrap());
        assert_eq!((r.get(0), r.line), (&b"1"[..], 3));
        assert!(l.next(&mut r).unwrap());
        assert_eq!((r.get(0), r.line), (&b"a"[..], 4), "later, it is a row");
        let mut l = Lines::new(&b"1,2\n"[..], "f".into()).skipping_header(&["a", "b"]);
        assert!(l.next(&mut r).unwrap());
        assert_eq!(r.get(1), b"2", "no header: the first row is a row");
    }

    #[test]
    fn splits_plain_and_quoted_fields() {
        let mut l = Lines::new(&b"a,b,,c\r\n\n\"x,y\",2\nlast"[..], "f".into());
        let mut r = Record::default();
        assert!(l.next(&mut r).unwrap());
        assert_eq!(
            (r.len(), r.get(0), r.get(2), r.get(3), r.line),
            (4, &b"a"[..], &b""[..], &b"c"[..], 1)
        );
        assert!(l.next(&mut r).unwrap());
        assert_eq!(
            (r.len(), r.get(0), r.get(1), r.line),
            (2, &b"x,y"[..], &b"2"[..], 3)
        );
        assert!(l.next(&mut r).unwrap());
        assert_eq!(r.get(0), b"last");
        assert!(!l.next(&mut r).unwrap());
        assert_eq!(r.get(9), b"");
    }
}
