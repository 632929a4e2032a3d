//! `.xz` files read as released (Zeus ships `alibaba_groups.csv.xz`): a
//! pure-Rust decoder on its own thread, handing chunks over a bounded
//! channel, so a file that expands enormously never sits in memory whole.

use super::archive::ChannelReader;
use super::input::InputError;
use std::io::{BufReader, Write};
use std::path::Path;
use std::sync::mpsc;

const CHUNK: usize = 1 << 18;

/// Sends what the decoder writes in chunks of `CHUNK` bytes.
struct ChunkWriter {
    tx: mpsc::SyncSender<std::io::Result<Vec<u8>>>,
    buf: Vec<u8>,
}

impl Write for ChunkWriter {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(b);
        if self.buf.len() >= CHUNK {
            self.flush()?;
        }
        Ok(b.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK));
        self.tx
            .send(Ok(chunk))
            .map_err(|_| std::io::Error::other("the reader stopped"))
    }
}

/// The decompressed bytes of the `.xz` file at `path`.
pub(super) fn open(path: &Path) -> Result<ChannelReader, InputError> {
    let f = super::reader::open_file(path)?;
    let (tx, rx) = mpsc::sync_channel(8);
    std::thread::Builder::new()
        .name("unxz".into())
        .spawn(move || {
            let mut w = ChunkWriter {
                tx: tx.clone(),
                buf: Vec::with_capacity(CHUNK),
            };
            let r = lzma_rs::xz_decompress(&mut BufReader::with_capacity(1 << 20, f), &mut w);
            match r {
                Ok(()) => {
                    let _ = w.flush();
                }
                Err(e) => {
                    let _ = w.flush();
                    let msg = format!("not a readable .xz file: {e}");
                    let _ = tx.send(Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        msg,
                    )));
                }
            }
        })
        .map_err(|e| {
            InputError::file(
                &path.display().to_string(),
                format!("cannot start reader: {e}"),
            )
        })?;
    Ok(ChannelReader::new(rx))
}

/// Whether `path` names an `.xz` file.
pub(super) fn is_xz(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "xz")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn round_trip_and_damage() {
        let text = b"group,start_time\n".repeat(50_000);
        let mut xz = Vec::new();
        lzma_rs::xz_compress(&mut &text[..], &mut xz).unwrap();
        let dir = std::env::temp_dir().join(format!("tracetui-xz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("t.csv.xz");
        std::fs::write(&p, &xz).unwrap();
        let mut out = Vec::new();
        open(&p).unwrap().read_to_end(&mut out).unwrap();
        assert_eq!(out, text);
        std::fs::write(&p, &xz[..xz.len() / 2]).unwrap();
        let e = open(&p).unwrap().read_to_end(&mut Vec::new()).unwrap_err();
        assert!(e.to_string().contains("not a readable .xz file"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
