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
}

impl Source {
    pub fn path(&self) -> &Path {
        match self {
            Source::Csv(p) | Source::TarGz(p) => p,
        }
    }

    /// How messages name this input: the file, and for archives the member.
    pub fn display(&self, member: &str) -> String {
        match self {
            Source::Csv(p) => p.display().to_string(),
            Source::TarGz(p) => format!("{}[{member}]", p.display()),
        }
    }
}

/// `dir/NAME.csv`, else `dir/NAME.tar.gz`.
pub(crate) fn find(dir: &Path, name: &str) -> Option<Source> {
    let csv = dir.join(format!("{name}.csv"));
    if super::reader::present(&csv) {
        return Some(Source::Csv(csv));
    }
    let tgz = dir.join(format!("{name}.tar.gz"));
    super::reader::present(&tgz).then_some(Source::TarGz(tgz))
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

fn pump(path: PathBuf, member: String, tx: mpsc::SyncSender<std::io::Result<Vec<u8>>>) {
    let send_err = |tx: &mpsc::SyncSender<_>, e: std::io::Error| {
        let _ = tx.send(Err(e));
    };
    let file = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(e) => return send_err(&tx, e),
    };
    let gz = flate2::read::GzDecoder::new(BufReader::with_capacity(1 << 20, file));
    let mut archive = tar::Archive::new(gz);
    let entries = match archive.entries() {
        Ok(e) => e,
        Err(e) => return send_err(&tx, e),
    };
    for entry in entries {
        let mut entry = match entry {
            Ok(e) => e,
            Err(e) => return send_err(&tx, e),
        };
        let name = entry
            .path()
            .map(|p| {
                p.file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default()
            })
            .unwrap_or_default();
        if !entry.header().entry_type().is_file() || name.starts_with("._") {
            continue; // directories and macOS resource forks
        }
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
                match entry.read(&mut chunk[filled..]) {
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
        Source::TarGz(p) => {
            // Fail early and clearly if the archive cannot even be opened.
            super::reader::open_file(p)?;
            let (tx, rx) = mpsc::sync_channel(8);
            let (path, m) = (p.clone(), member.to_string());
            std::thread::Builder::new()
                .name(format!("gunzip {member}"))
                .spawn(move || pump(path, m, tx))
                .map_err(|e| {
                    InputError::file(
                        &p.display().to_string(),
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
