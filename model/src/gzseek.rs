//! A gzip file read from any offset of its uncompressed bytes, without
//! unpacking it: a pass from the start records the inflater's whole state
//! every `spacing` bytes of output (the method of zlib's `zran.c`), and a
//! later read resumes from the nearest one before its offset, so it inflates
//! at most `spacing` bytes it does not need. Concatenated gzip members
//! (bgzip, `cat a.gz b.gz`) read as one stream, as `gunzip` reads them.

use miniz_oxide::inflate::stream::{inflate, InflateState};
use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};
use std::io::{Error, ErrorKind, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Output bytes between two recorded states: a state (the 32 KB window and
/// the decoder's tables) per 16 MB, and a read inflates ≤ 16 MB extra.
pub(crate) const SPACING: u64 = 16 << 20;

/// The most states kept for one file.
const MAX_STATES: usize = 1024;

#[derive(Clone)]
struct Checkpoint {
    /// Compressed bytes consumed (the file offset to read on from).
    input: u64,
    /// Uncompressed bytes produced before this point.
    output: u64,
    state: Box<InflateState>,
}

/// The states recorded so far, in output order; shared by every reader of
/// one file, growing as any pass from the start goes further.
pub(crate) struct Checkpoints {
    spacing: u64,
    list: Mutex<Vec<Checkpoint>>,
}

impl Checkpoints {
    pub(crate) fn new(spacing: u64) -> Arc<Checkpoints> {
        Arc::new(Checkpoints {
            spacing: spacing.max(1),
            list: Mutex::new(Vec::new()),
        })
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.list.lock().map_or(0, |l| l.len())
    }

    /// The last state at or before `offset`.
    fn before(&self, offset: u64) -> Option<Checkpoint> {
        let l = self.list.lock().ok()?;
        let i = l.partition_point(|c| c.output <= offset).checked_sub(1)?;
        Some(l[i].clone())
    }

    /// Keeps this state if it is `spacing` past the last one kept.
    fn offer(&self, input: u64, output: u64, state: &InflateState) {
        let Ok(mut l) = self.list.lock() else {
            return;
        };
        let last = l.last().map_or(0, |c| c.output);
        // At most MAX_STATES (a stream inflating to more than 16 GB reads
        // its tail from the last one, slowly, rather than hold more).
        if output >= last + self.spacing && l.len() < MAX_STATES {
            l.push(Checkpoint {
                input,
                output,
                state: Box::new(state.clone()),
            });
        }
    }
}

/// A reader of the uncompressed bytes of one gzip file.
pub(crate) struct GzReader {
    file: std::fs::File,
    state: Box<InflateState>,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Compressed bytes consumed (file offset of `buf[start]`).
    input: u64,
    /// Uncompressed bytes handed out so far.
    output: u64,
    done: bool,
    /// Checked against each member's trailer on a pass from the start.
    crc: Option<(flate2::Crc, u64)>,
    record: Option<Arc<Checkpoints>>,
    /// Compressed bytes consumed, for progress.
    progress: Option<Arc<AtomicU64>>,
}

fn corrupt(what: &str) -> Error {
    Error::new(
        ErrorKind::InvalidData,
        format!("not a readable gzip file ({what})"),
    )
}

impl GzReader {
    /// From the start, recording states into `record`.
    pub(crate) fn from_start(path: &Path, record: Arc<Checkpoints>) -> std::io::Result<GzReader> {
        let mut r = GzReader::open(path, 0, 0, InflateState::new_boxed(DataFormat::Raw))?;
        r.crc = Some((flate2::Crc::new(), 0));
        r.record = Some(record);
        r.member_header()?;
        Ok(r)
    }

    /// From uncompressed `offset`, resuming from the best state recorded.
    pub(crate) fn at(path: &Path, states: &Checkpoints, offset: u64) -> std::io::Result<GzReader> {
        let mut r = match states.before(offset) {
            Some(c) => GzReader::open(path, c.input, c.output, c.state)?,
            None => {
                let mut r = GzReader::open(path, 0, 0, InflateState::new_boxed(DataFormat::Raw))?;
                r.member_header()?;
                r
            }
        };
        let mut skip = offset - r.output;
        let mut scratch = vec![0u8; 1 << 16];
        while skip > 0 {
            let n = r.read(&mut scratch[..skip.min(1 << 16) as usize])?;
            if n == 0 {
                return Err(Error::new(ErrorKind::UnexpectedEof, "offset past the end"));
            }
            skip -= n as u64;
        }
        Ok(r)
    }

    fn open(
        path: &Path,
        input: u64,
        output: u64,
        state: Box<InflateState>,
    ) -> std::io::Result<GzReader> {
        let mut file = std::fs::File::open(path)?;
        file.seek(SeekFrom::Start(input))?;
        Ok(GzReader {
            file,
            state,
            buf: vec![0; 1 << 18],
            start: 0,
            end: 0,
            input,
            output,
            done: false,
            crc: None,
            record: None,
            progress: None,
        })
    }

    /// Reports compressed bytes consumed into `to` as the read goes.
    pub(crate) fn with_progress(mut self, to: Arc<AtomicU64>) -> GzReader {
        self.progress = Some(to);
        self
    }

    /// Makes at least one unread input byte available; false at the end of the file.
    fn fill(&mut self) -> std::io::Result<bool> {
        if self.start < self.end {
            return Ok(true);
        }
        let n = self.file.read(&mut self.buf)?;
        self.start = 0;
        self.end = n;
        Ok(n > 0)
    }

    fn byte(&mut self) -> std::io::Result<u8> {
        if !self.fill()? {
            return Err(Error::new(
                ErrorKind::UnexpectedEof,
                corrupt("it ends inside a header or trailer").to_string(),
            ));
        }
        let b = self.buf[self.start];
        self.start += 1;
        self.input += 1;
        Ok(b)
    }

    /// Reads a member's header (RFC 1952), leaving the input at its data.
    fn member_header(&mut self) -> std::io::Result<()> {
        let mut fixed = [0u8; 10];
        for i in 0..fixed.len() {
            fixed[i] = match self.byte() {
                Ok(b) => b,
                Err(_) if i < 3 => return Err(corrupt("no gzip header")),
                Err(e) => return Err(e),
            };
            if i == 2 && fixed[..3] != [0x1f, 0x8b, 8] {
                return Err(corrupt("no gzip header"));
            }
        }
        let flags = fixed[3];
        if flags & 4 != 0 {
            let len = self.byte()? as usize | (self.byte()? as usize) << 8;
            for _ in 0..len {
                self.byte()?;
            }
        }
        for bit in [8u8, 16] {
            if flags & bit != 0 {
                while self.byte()? != 0 {}
            }
        }
        if flags & 2 != 0 {
            self.byte()?;
            self.byte()?;
        }
        Ok(())
    }

    /// After a member's data: checks its trailer, and goes on into the next
    /// member if one follows (anything else after it is ignored, as by gunzip).
    fn member_end(&mut self) -> std::io::Result<()> {
        let mut t = [0u8; 8];
        for b in &mut t {
            *b = self.byte()?;
        }
        if let Some((crc, len)) = &mut self.crc {
            let want = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
            let size = u32::from_le_bytes([t[4], t[5], t[6], t[7]]);
            if crc.sum() != want || *len as u32 != size {
                return Err(corrupt("a member's checksum does not match"));
            }
            *crc = flate2::Crc::new();
            *len = 0;
        }
        if !self.fill()? || self.buf[self.start] != 0x1f {
            self.done = true;
            return Ok(());
        }
        self.member_header()?;
        self.state.reset_as(miniz_oxide::inflate::stream::MinReset);
        Ok(())
    }
}

impl Read for GzReader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while !self.done && !out.is_empty() {
            if !self.fill()? {
                return Err(Error::new(
                    ErrorKind::UnexpectedEof,
                    "the archive ends early (a partial download?)",
                ));
            }
            // Small steps while recording, so states can fall `spacing` apart.
            let step = if self.record.is_some() {
                1 << 16
            } else {
                out.len()
            };
            let len = step.min(out.len());
            let out = &mut out[..len];
            let r = inflate(
                &mut self.state,
                &self.buf[self.start..self.end],
                out,
                MZFlush::None,
            );
            self.start += r.bytes_consumed;
            self.input += r.bytes_consumed as u64;
            self.output += r.bytes_written as u64;
            if let Some((crc, len)) = &mut self.crc {
                crc.update(&out[..r.bytes_written]);
                *len += r.bytes_written as u64;
            }
            if let Some(p) = &self.progress {
                p.store(self.input, Ordering::Relaxed);
            }
            let stuck = r.bytes_consumed == 0 && r.bytes_written == 0;
            match r.status {
                Ok(MZStatus::StreamEnd) => self.member_end()?,
                _ if stuck => return Err(corrupt("its compressed data is damaged")),
                Ok(_) | Err(MZError::Buf) => {
                    if let Some(rec) = &self.record {
                        rec.offer(self.input, self.output, &self.state);
                    }
                }
                Err(_) => return Err(corrupt("its compressed data is damaged")),
            }
            if r.bytes_written > 0 {
                return Ok(r.bytes_written);
            }
        }
        Ok(0)
    }
}

/// A gzip file and the states recorded in it.
pub(crate) struct Seekable {
    pub(crate) path: PathBuf,
    pub(crate) states: Arc<Checkpoints>,
}

impl Seekable {
    pub(crate) fn new(path: PathBuf, spacing: u64) -> Seekable {
        Seekable {
            path,
            states: Checkpoints::new(spacing),
        }
    }

    pub(crate) fn read_from_start(&self) -> std::io::Result<GzReader> {
        GzReader::from_start(&self.path, self.states.clone())
    }

    /// `len` bytes from uncompressed `offset`.
    pub(crate) fn range(&self, offset: u64, len: u64) -> std::io::Result<std::io::Take<GzReader>> {
        Ok(GzReader::at(&self.path, &self.states, offset)?.take(len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gz(parts: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for p in parts {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(p).unwrap();
            out.extend(e.finish().unwrap());
        }
        out
    }

    fn data(n: usize, seed: u64) -> Vec<u8> {
        let mut x = seed;
        (0..n)
            .map(|i| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                if i % 7 == 0 {
                    b'\n'
                } else {
                    b'a' + (x >> 60) as u8
                }
            })
            .collect()
    }

    #[test]
    fn reads_from_any_offset_after_one_pass_across_members() {
        let dir = std::env::temp_dir().join(format!("gzseek-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (data(700_000, 1), data(300_000, 2));
        let path = dir.join("two.gz");
        std::fs::write(&path, gz(&[&a, &b])).unwrap();
        let whole: Vec<u8> = a.iter().chain(&b).copied().collect();
        let s = Seekable::new(path.clone(), 50_000);
        let mut all = Vec::new();
        s.read_from_start().unwrap().read_to_end(&mut all).unwrap();
        assert!(all == whole);
        assert!(s.states.len() > 10, "{} states", s.states.len());
        for off in [0u64, 1, 49_999, 123_457, 699_999, 700_000, 700_001, 999_000] {
            let mut got = Vec::new();
            s.range(off, 1000).unwrap().read_to_end(&mut got).unwrap();
            let end = (off as usize + 1000).min(whole.len());
            assert!(got == whole[off as usize..end], "at {off}");
        }
        // A cut file is an error, not a short read.
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(dir.join("cut.gz"), &bytes[..bytes.len() / 2]).unwrap();
        let cut = Seekable::new(dir.join("cut.gz"), 50_000);
        let e = cut
            .read_from_start()
            .unwrap()
            .read_to_end(&mut Vec::new())
            .unwrap_err();
        assert!(e.to_string().contains("ends early"), "{e}");
        // A flipped byte is caught (by inflate or by the checksum).
        let mut bad = bytes.clone();
        bad[bytes.len() / 3] ^= 0x55;
        std::fs::write(dir.join("bad.gz"), &bad).unwrap();
        let bad = Seekable::new(dir.join("bad.gz"), 50_000);
        assert!(bad
            .read_from_start()
            .unwrap()
            .read_to_end(&mut Vec::new())
            .is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
