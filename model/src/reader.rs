//! Opening and reading untrusted input: a clear message for a directory or a
//! symlink loop where a file is expected, and lines of bounded length (a
//! never-ending line such as `/dev/zero` stops with an error naming the file
//! and the line, instead of growing memory).

use super::input::InputError;
use super::limits::MAX_LINE;
use std::io::Read;
use std::path::Path;

/// Opens `path` for reading, refusing a directory with a message that says so.
pub(crate) fn open_file(path: &Path) -> Result<std::fs::File, InputError> {
    let shown = path.display().to_string();
    if let Ok(m) = std::fs::metadata(path) {
        if m.is_dir() {
            return Err(InputError::file(
                &shown,
                "is a directory; a file is expected here",
            ));
        }
    }
    std::fs::File::open(path).map_err(|e| InputError::io(&shown, "cannot open", e))
}

/// The whole of a small file (a table, a spec) of at most `max` bytes; a
/// larger one is refused as not being `what`. Only a regular file: a FIFO
/// would block the open until a writer came, `/dev/zero` would never end.
pub(crate) fn read_small(path: &Path, max: u64, what: &str) -> Result<Vec<u8>, InputError> {
    let shown = path.display().to_string();
    if let Ok(m) = std::fs::metadata(path) {
        if !m.is_file() && !m.is_dir() {
            return Err(InputError::file(
                &shown,
                format!("not a regular file (a pipe or a device): not {what}"),
            ));
        }
    }
    let mut text = Vec::new();
    open_file(path)?
        .take(max + 1)
        .read_to_end(&mut text)
        .map_err(|e| InputError::io(&shown, "cannot read", e))?;
    if text.len() as u64 > max {
        return Err(InputError::file(
            &shown,
            format!("larger than {} KiB: not {what}", max >> 10),
        ));
    }
    Ok(text)
}

/// Checks that `path` is a directory holding `what`: a path that cannot be
/// read says the OS's reason, a file says it is not a directory.
pub(crate) fn open_dir(path: &Path, what: &str) -> Result<(), InputError> {
    let shown = path.display().to_string();
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(InputError::file(
            &shown,
            format!("not a directory (expected {what})"),
        )),
        Err(e) => Err(InputError::io(
            &shown,
            &format!("cannot open the directory of {what}"),
            e,
        )),
    }
}

/// Whether anything is at `path` — a file, a directory, even a dangling or
/// looping symlink — so that opening it says what is wrong rather than
/// the table being reported missing.
pub(crate) fn present(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// The error a `Capped` reader returns for a line over `MAX_LINE` bytes.
#[derive(Debug)]
pub(crate) struct LineTooLong {
    pub line: u64,
}

impl std::fmt::Display for LineTooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {} is longer than {} bytes: not a trace table",
            self.line, MAX_LINE
        )
    }
}

impl std::error::Error for LineTooLong {}

impl LineTooLong {
    /// The `InputError` for `file`, when `e` is this error (however wrapped).
    pub(crate) fn in_io(file: &str, e: &std::io::Error) -> Option<InputError> {
        let inner = e.get_ref()?.downcast_ref::<LineTooLong>()?;
        Some(InputError::on_line(
            file,
            inner.line,
            format!("a line longer than {MAX_LINE} bytes (1 MiB): not a trace table"),
        ))
    }
}

/// A reader that counts lines and refuses one longer than `MAX_LINE` bytes.
pub(crate) struct Capped<R> {
    inner: R,
    /// Newlines passed so far.
    lines: u64,
    /// Bytes since the last newline.
    run: usize,
}

impl<R: Read> Capped<R> {
    pub(crate) fn new(inner: R) -> Capped<R> {
        Capped {
            inner,
            lines: 0,
            run: 0,
        }
    }
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let got = &buf[..n];
        match memchr::memrchr(b'\n', got) {
            Some(last) => {
                self.lines += memchr::memchr_iter(b'\n', got).count() as u64;
                self.run = n - last - 1;
            }
            None => self.run += n,
        }
        if self.run > MAX_LINE {
            return Err(std::io::Error::other(LineTooLong {
                line: self.lines + 1,
            }));
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_never_ending_line_is_refused_with_its_number() {
        let data = [b"a,b\nc,d\n".to_vec(), vec![b'x'; MAX_LINE + 10]].concat();
        let mut r = Capped::new(&data[..]);
        let mut out = Vec::new();
        let e = r.read_to_end(&mut out).unwrap_err();
        let ie = LineTooLong::in_io("f.csv", &e).unwrap();
        assert_eq!(
            ie.to_string(),
            "f.csv:3: a line longer than 1048576 bytes (1 MiB): not a trace table"
        );
        // Long files of short lines pass.
        let ok = b"a,b\n".repeat(MAX_LINE);
        let mut out = Vec::new();
        Capped::new(&ok[..]).read_to_end(&mut out).unwrap();
        assert_eq!(out.len(), ok.len());
    }

    #[test]
    fn a_directory_says_so() {
        let e = open_file(Path::new("/")).unwrap_err().to_string();
        assert_eq!(e, "/: is a directory; a file is expected here");
    }
}
