//! Opening a released table as `NAME.csv` or as the released `NAME.tar.gz`,
//! read in place and streamed (never extracted). Decompression runs on its
//! own thread, so it overlaps with parsing on a second core.

use super::input::InputError;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc;

/// Where a table was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Csv(PathBuf),
    TarGz(PathBuf),
    /// A `.tar.gz` split into `NAME.tar.gz.partaa`, `…ab`, …: read in
    /// order as one stream, as `cat` would join them.
    Parts(Vec<PathBuf>),
}

impl Source {
    pub fn path(&self) -> &Path {
        match self {
            Source::Csv(p) | Source::TarGz(p) => p,
            Source::Parts(v) => &v[0],
        }
    }

    /// How messages name this input: the file, and for archives the member
    /// (`DIR/NAME.tar.gz.partaa…ac[NAME.csv]` for split parts).
    pub fn display(&self, member: &str) -> String {
        match self {
            Source::Csv(p) => p.display().to_string(),
            Source::TarGz(p) => format!("{}[{member}]", p.display()),
            Source::Parts(v) => format!(
                "{}…{}[{member}]",
                v[0].display(),
                part_suffix(&v[v.len() - 1]).unwrap_or_default()
            ),
        }
    }
}

/// The two letters that end a split part's name (`ab` of `….partab`).
fn part_suffix(p: &Path) -> Option<String> {
    let name = p.file_name()?.to_string_lossy().into_owned();
    let at = name.rfind(".part")?;
    Some(name[at + 5..].to_string())
}

/// The suffix `split` gives part `i`: aa, ab, …, az, ba, ….
fn nth_suffix(i: usize) -> String {
    let a = |k: usize| char::from(b'a' + k as u8);
    format!("{}{}", a(i / 26), a(i % 26))
}

/// `dir/NAME.tar.gz.part??` in order; an error naming the first part
/// missing from the run aa, ab, … the parts present make.
pub(crate) fn split_parts(dir: &Path, tgz: &str) -> Result<Vec<PathBuf>, InputError> {
    let stem = format!("{tgz}.part");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut found: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| {
            n.strip_prefix(&stem)
                .is_some_and(|s| s.len() == 2 && s.bytes().all(|b| b.is_ascii_lowercase()))
        })
        .collect();
    found.sort();
    for (i, name) in found.iter().enumerate() {
        let want = format!("{stem}{}", nth_suffix(i));
        if *name != want {
            let have: Vec<&str> = found.iter().map(|n| &n[stem.len()..]).collect();
            return Err(InputError::file(
                &dir.join(&want).display().to_string(),
                format!(
                    "missing: {tgz} is split into parts read in order (aa, ab, …), and only {} are here",
                    have.join(", ")
                ),
            ));
        }
    }
    Ok(found.into_iter().map(|n| dir.join(n)).collect())
}

/// The files of split parts, one after the other, as one stream.
struct Concat {
    parts: Vec<PathBuf>,
    next: usize,
    cur: Option<std::fs::File>,
}

impl Read for Concat {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        loop {
            if self.cur.is_none() {
                let Some(p) = self.parts.get(self.next) else {
                    return Ok(0);
                };
                let f = std::fs::File::open(p)
                    .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", p.display())))?;
                self.cur = Some(f);
                self.next += 1;
            }
            match self.cur.as_mut().map(|f| f.read(out)) {
                Some(Ok(0)) => self.cur = None,
                Some(r) => return r,
                None => unreachable!("opened above"),
            }
        }
    }
}

/// `dir/NAME.csv`, else `dir/NAME.tar.gz`, else its split parts
/// `dir/NAME.tar.gz.partaa`, `…ab`, … (an error if one is missing).
pub(crate) fn find(dir: &Path, name: &str) -> Result<Option<Source>, InputError> {
    let csv = dir.join(format!("{name}.csv"));
    if super::reader::present(&csv) {
        return Ok(Some(Source::Csv(csv)));
    }
    let tgz = dir.join(format!("{name}.tar.gz"));
    if super::reader::present(&tgz) {
        return Ok(Some(Source::TarGz(tgz)));
    }
    let parts = split_parts(dir, &format!("{name}.tar.gz"))?;
    Ok((!parts.is_empty()).then_some(Source::Parts(parts)))
}

/// A reader over chunks sent by a decompression thread.
pub(crate) struct ChannelReader {
    rx: mpsc::Receiver<std::io::Result<Vec<u8>>>,
    cur: Vec<u8>,
    pos: usize,
}

impl ChannelReader {
    pub(crate) fn new(rx: mpsc::Receiver<std::io::Result<Vec<u8>>>) -> ChannelReader {
        ChannelReader {
            rx,
            cur: Vec::new(),
            pos: 0,
        }
    }
}

impl Read for ChannelReader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.pos >= self.cur.len() {
            match self.rx.recv() {
                Ok(Ok(chunk)) => {
                    self.cur = chunk;
                    self.pos = 0;
                }
                Ok(Err(e)) => return Err(e),
                Err(_) => return Ok(0), // sender done
            }
        }
        let n = out.len().min(self.cur.len() - self.pos);
        out[..n].copy_from_slice(&self.cur[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// The archive's bytes: its file, or its parts one after the other.
fn raw(src: &Source) -> std::io::Result<Box<dyn Read + Send>> {
    Ok(match src {
        Source::Parts(v) => Box::new(Concat {
            parts: v.clone(),
            next: 0,
            cur: None,
        }),
        other => Box::new(std::fs::File::open(other.path())?),
    })
}

/// A tar entry's file name, if it is a file (not a directory or a macOS
/// `._` resource fork).
pub(crate) fn file_member(entry: &crate::tar::Header) -> Option<String> {
    let path = entry.path();
    let name = std::path::Path::new(&path)
        .file_name()?
        .to_string_lossy()
        .into_owned();
    (entry.is_file() && !name.starts_with("._")).then_some(name)
}

fn pump(src: Source, member: String, tx: mpsc::SyncSender<std::io::Result<Vec<u8>>>) {
    // An archive whose parts end too soon: perhaps its last part is missing.
    let last = match &src {
        Source::Parts(v) => part_suffix(&v[v.len() - 1]),
        _ => None,
    };
    let send_err = |tx: &mpsc::SyncSender<_>, e: std::io::Error| {
        let e = match &last {
            Some(l) if e.kind() == std::io::ErrorKind::UnexpectedEof => std::io::Error::new(
                e.kind(),
                format!("{e}: the archive ends early; is a part after part{l} missing?"),
            ),
            _ => e,
        };
        let _ = tx.send(Err(e));
    };
    let file = match raw(&src) {
        Ok(f) => f,
        Err(e) => return send_err(&tx, e),
    };
    let gz = flate2::read::GzDecoder::new(BufReader::with_capacity(1 << 20, file));
    let mut archive = crate::tar::Archive::new(gz);
    loop {
        let entry = match archive.next() {
            Ok(Some(e)) => e,
            Ok(None) => break,
            Err(e) => return send_err(&tx, e),
        };
        let Some(name) = file_member(&entry) else {
            continue;
        };
        if name != member {
            let msg = format!(
                "holds '{}', expected '{member}'",
                crate::text::sanitize(&name)
            );
            return send_err(
                &tx,
                std::io::Error::new(std::io::ErrorKind::InvalidData, msg),
            );
        }
        loop {
            let mut chunk = vec![0u8; 1 << 18];
            let mut filled = 0;
            while filled < chunk.len() {
                match archive.read(&mut chunk[filled..]) {
                    Ok(0) => break,
                    Ok(n) => filled += n,
                    Err(e) => return send_err(&tx, e),
                }
            }
            if filled == 0 {
                return;
            }
            chunk.truncate(filled);
            if tx.send(Ok(chunk)).is_err() {
                return; // the reader stopped early
            }
        }
    }
    let msg = format!("holds no '{member}'");
    send_err(
        &tx,
        std::io::Error::new(std::io::ErrorKind::InvalidData, msg),
    );
}

/// Opens table `member` (e.g. `pai_job_table.csv`) from `src` for streaming.
pub(crate) fn open(src: &Source, member: &str) -> Result<Box<dyn BufRead + Send>, InputError> {
    match src {
        Source::Csv(p) => {
            let f = super::reader::open_file(p)?;
            Ok(Box::new(BufReader::with_capacity(1 << 20, f)))
        }
        Source::TarGz(_) | Source::Parts(_) => {
            // Fail early and clearly if the archive cannot even be opened.
            match src {
                Source::Parts(v) => v
                    .iter()
                    .try_for_each(|p| super::reader::open_file(p).map(drop))?,
                _ => drop(super::reader::open_file(src.path())?),
            }
            let (tx, rx) = mpsc::sync_channel(8);
            let (s, m) = (src.clone(), member.to_string());
            std::thread::Builder::new()
                .name(format!("gunzip {member}"))
                .spawn(move || pump(s, m, tx))
                .map_err(|e| {
                    InputError::file(
                        &src.path().display().to_string(),
                        format!("cannot start reader: {e}"),
                    )
                })?;
            Ok(Box::new(BufReader::with_capacity(
                1 << 18,
                ChannelReader {
                    rx,
                    cur: Vec::new(),
                    pos: 0,
                },
            )))
        }
    }
}
