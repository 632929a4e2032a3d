//! Parsing one CSV field, with errors that name the file, line and column.

use super::input::{InputError, Location};

/// Anything that hands out a row's fields by position.
pub(crate) trait Fields {
    fn field(&self, i: usize) -> &[u8];
    fn width(&self) -> usize;
    /// Whether every field is known to be UTF-8 already.
    fn all_utf8(&self) -> bool {
        false
    }

    /// Field `i` as text when it is known to be UTF-8 already (checked once
    /// for the whole line), untrimmed.
    fn text(&self, _i: usize) -> Option<&str> {
        None
    }
}

impl Fields for csv::ByteRecord {
    fn field(&self, i: usize) -> &[u8] {
        self.get(i).unwrap_or(b"")
    }

    fn width(&self) -> usize {
        self.len()
    }
}

impl Fields for super::lines::Record {
    fn field(&self, i: usize) -> &[u8] {
        self.get(i)
    }

    fn width(&self) -> usize {
        self.len()
    }

    fn all_utf8(&self) -> bool {
        self.is_utf8()
    }
}

/// One row being read: where it is, for messages.
pub(crate) struct Row<'a, F: Fields + ?Sized = csv::ByteRecord> {
    pub file: &'a str,
    pub line: u64,
    pub record: &'a F,
}

impl<'a, F: Fields + ?Sized> Row<'a, F> {
    /// An error about the whole row.
    pub(crate) fn row_error(&self, message: impl Into<String>) -> InputError {
        InputError::at(
            Location {
                file: self.file.to_string(),
                line: self.line,
                column: None,
                byte: false,
            },
            message,
        )
    }

    /// The row must have exactly `n` fields.
    pub(crate) fn expect_width(&self, n: usize) -> Result<(), InputError> {
        if self.record.width() != n {
            return Err(self.row_error(format!("{} columns, expected {n}", self.record.width())));
        }
        Ok(())
    }

    /// The raw bytes of a field (trimmed), checked to be UTF-8.
    pub(crate) fn bytes(&self, idx: usize, column: &str) -> Result<&'a [u8], InputError> {
        if let Some(t) = self.record.text(idx) {
            return Ok(t.as_bytes().trim_ascii());
        }
        let raw = self.record.field(idx).trim_ascii();
        if self.record.all_utf8() {
            return Ok(raw);
        }
        std::str::from_utf8(raw)
            .map(|_| raw)
            .map_err(|e| self.error(column, format!("not UTF-8 text (byte {})", e.valid_up_to())))
    }

    pub(crate) fn loc(&self, column: &str) -> Location {
        Location {
            file: self.file.to_string(),
            line: self.line,
            column: Some(column.to_string()),
            byte: false,
        }
    }

    pub(crate) fn error(&self, column: &str, message: impl Into<String>) -> InputError {
        InputError::at(self.loc(column), message)
    }

    /// The field as text, trimmed; an error for bytes that are not UTF-8.
    pub(crate) fn text(&self, idx: usize, column: &str) -> Result<&'a str, InputError> {
        self.untrimmed(idx, column).map(str::trim)
    }

    /// The field exactly as it is (an id: spaces are part of a field, as
    /// RFC 4180 has it, quoted or not); an error if empty or not UTF-8.
    pub(crate) fn exact(&self, idx: usize, column: &str) -> Result<&'a str, InputError> {
        let t = self.untrimmed(idx, column)?;
        if t.is_empty() {
            return Err(self.error(column, "empty"));
        }
        Ok(t)
    }

    fn untrimmed(&self, idx: usize, column: &str) -> Result<&'a str, InputError> {
        if let Some(t) = self.record.text(idx) {
            return Ok(t);
        }
        let raw = self.record.field(idx);
        if self.record.all_utf8() {
            // Checked for the whole line at once.
            return Ok(std::str::from_utf8(raw).unwrap_or_default());
        }
        std::str::from_utf8(raw)
            .map_err(|e| self.error(column, format!("not UTF-8 text (byte {})", e.valid_up_to())))
    }

    pub(crate) fn required(&self, idx: usize, column: &str) -> Result<&'a str, InputError> {
        let t = self.text(idx, column)?;
        if t.is_empty() {
            return Err(self.error(column, "empty"));
        }
        Ok(t)
    }

    /// A whole number of at least `min`.
    pub(crate) fn int(&self, idx: usize, column: &str, min: i64) -> Result<i64, InputError> {
        // The common shape, plain digits, read straight from the bytes;
        // anything else (and any error) takes the checked path below.
        if let Some(v) = plain_digits(self.record.field(idx).trim_ascii()) {
            if v >= min {
                return Ok(v);
            }
        }
        let t = self.required(idx, column)?;
        let v = parse_int(t).ok_or_else(|| {
            self.error(
                column,
                format!("not a whole number: '{}'", crate::text::sanitize(t)),
            )
        })?;
        if v < min {
            return Err(self.error(column, format!("{v} is below the minimum {min}")));
        }
        Ok(v)
    }

    /// A GPU count: a whole number from `min` to `limits::MAX_GPUS`.
    pub(crate) fn gpus(&self, idx: usize, column: &str, min: i64) -> Result<u32, InputError> {
        let v = self.int(idx, column, i64::MIN)?;
        super::limits::gpus(v, min).map_err(|m| self.error(column, m.to_string()))
    }

    /// A time in whole seconds, from 0 to `limits::MAX_SECS`.
    pub(crate) fn secs(&self, idx: usize, column: &str) -> Result<i64, InputError> {
        let v = self.int(idx, column, 0)?;
        super::limits::secs(v).map_err(|m| self.error(column, m.to_string()))
    }

    /// A whole number of at least `min`, or `None` when empty.
    pub(crate) fn opt_int(
        &self,
        idx: usize,
        column: &str,
        min: i64,
    ) -> Result<Option<i64>, InputError> {
        if self.text(idx, column)?.is_empty() {
            return Ok(None);
        }
        self.int(idx, column, min).map(Some)
    }

    /// A finite number of at least `min`, or `None` when empty.
    pub(crate) fn opt_num(
        &self,
        idx: usize,
        column: &str,
        min: f64,
    ) -> Result<Option<f64>, InputError> {
        let v = self.opt_float(idx, column)?;
        match v {
            Some(x) if x < min => {
                Err(self.error(column, format!("{x} is below the minimum {min}")))
            }
            _ => Ok(v),
        }
    }

    /// A finite number of at least `min`; an error when empty.
    pub(crate) fn num(&self, idx: usize, column: &str, min: f64) -> Result<f64, InputError> {
        self.opt_num(idx, column, min)?
            .ok_or_else(|| self.error(column, "empty"))
    }

    /// A time in seconds written as a number (`4550879.0`), or `None` when empty.
    pub(crate) fn opt_time(&self, idx: usize, column: &str) -> Result<Option<i64>, InputError> {
        // The common shape, digits and an optional `.0`, without a float parse.
        let v = match whole_seconds(self.record.field(idx).trim_ascii()) {
            Some(v) => Some(v),
            None => self.opt_num(idx, column, 0.0)?.map(|x| x.round() as i64),
        };
        match v {
            Some(v) => super::limits::secs(v)
                .map(Some)
                .map_err(|m| self.error(column, m.to_string())),
            None => Ok(None),
        }
    }

    /// A finite decimal number, or `None` when empty.
    pub(crate) fn opt_float(&self, idx: usize, column: &str) -> Result<Option<f64>, InputError> {
        let t = self.text(idx, column)?;
        if t.is_empty() {
            return Ok(None);
        }
        match t.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Some(v)),
            _ => Err(self.error(
                column,
                format!("not a number: '{}'", crate::text::sanitize(t)),
            )),
        }
    }
}

/// `123`, `123.0` or `123.000` as a non-negative whole number, quickly; `None`
/// for anything else (which then takes the general path).
/// Up to 18 ASCII digits as a number (no sign, no fraction).
fn plain_digits(b: &[u8]) -> Option<i64> {
    if b.is_empty() || b.len() > 18 || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(b.iter().fold(0i64, |v, &c| v * 10 + (c - b'0') as i64))
}

fn whole_seconds(b: &[u8]) -> Option<i64> {
    let (int, frac) = match memchr::memchr(b'.', b) {
        Some(i) => (&b[..i], &b[i + 1..]),
        None => (b, &b[..0]),
    };
    if int.is_empty() || int.len() > 15 || !frac.iter().all(|&c| c == b'0') {
        return None;
    }
    let mut v: i64 = 0;
    for &c in int {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (c - b'0') as i64;
    }
    Some(v)
}

/// A trace file as `open_csv` reads it: buffered, its lines bounded.
pub(crate) type CsvFile = super::reader::Capped<std::io::BufReader<std::fs::File>>;

/// A whole number, also accepting a decimal with a zero fraction (`12.0`),
/// which some exports write.
/// A headerless, flexible CSV reader over a file (headers are checked by
/// the caller, row by row), or an error naming the file.
pub(crate) fn open_csv(path: &std::path::Path) -> Result<csv::Reader<CsvFile>, InputError> {
    let f = super::reader::open_file(path)?;
    Ok(csv_over(std::io::BufReader::with_capacity(1 << 20, f)))
}

/// A headerless, flexible CSV reader over any input, its lines bounded;
/// lines end at `\n` (a `\r` before it is trimmed with the field), which
/// keeps line numbers right in CRLF files.
pub(crate) fn csv_over<R: std::io::Read>(r: R) -> csv::Reader<super::reader::Capped<R>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .terminator(csv::Terminator::Any(b'\n'))
        .from_reader(super::reader::Capped::new(r))
}

/// A CSV header row's names: trimmed, without a byte-order mark.
pub(crate) fn header_names(rec: &csv::ByteRecord) -> Vec<String> {
    rec.iter()
        .map(|h| {
            String::from_utf8_lossy(h)
                .trim()
                .trim_start_matches('\u{feff}')
                .to_string()
        })
        .collect()
}

pub(crate) fn parse_int(t: &str) -> Option<i64> {
    if let Ok(v) = t.parse::<i64>() {
        return Some(v);
    }
    let (whole, frac) = t.split_once('.')?;
    if !frac.is_empty() && frac.bytes().all(|b| b == b'0') && !whole.is_empty() {
        return whole.parse::<i64>().ok();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_digits_agree_with_the_checked_parse() {
        for t in [
            "0",
            "7",
            "0012",
            "123456789012345678",
            "1234567890123456789",
            "",
            "-3",
            "1.0",
            "1 2",
            "x1",
        ] {
            let fast = plain_digits(t.as_bytes());
            if let Some(v) = fast {
                assert_eq!(Some(v), parse_int(t), "{t}");
            }
            assert_eq!(
                fast.is_some(),
                !t.is_empty() && t.len() <= 18 && t.bytes().all(|b| b.is_ascii_digit()),
                "{t}"
            );
        }
    }

    #[test]
    fn ints() {
        assert_eq!(parse_int("12"), Some(12));
        assert_eq!(parse_int("-3"), Some(-3));
        assert_eq!(parse_int("12.000"), Some(12));
        assert_eq!(parse_int("12.5"), None);
        assert_eq!(parse_int("x"), None);
        assert_eq!(parse_int(".0"), None);
        assert_eq!(parse_int("99999999999999999999"), None);
    }
}
