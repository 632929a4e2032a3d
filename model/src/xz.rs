//! `.xz` files read as released (Zeus ships `alibaba_groups.csv.xz`): a
//! pure-Rust streaming decoder on its own thread, handing chunks over a
//! bounded channel. Memory is bounded by the dictionary (refused past
//! `MAX_DICT_MIB`) and the channel, never by how far a file expands: a
//! decompression bomb costs time, not memory, and the loader's own bounds
//! (a line's length, a field's value) end it early.

use super::archive::ChannelReader;
use super::input::InputError;
use std::io::{BufReader, ErrorKind, Read};
use std::path::Path;
use std::sync::mpsc;

const CHUNK: usize = 1 << 18;

/// The largest dictionary a file may ask for, in MiB: `xz -9` uses 64.
pub(crate) const MAX_DICT_MIB: u32 = 256;

/// What a decoder error means to the person who gave the file.
fn reason(e: &std::io::Error) -> std::io::Error {
    let msg = if e.kind() == ErrorKind::OutOfMemory {
        format!(
            "not read: its dictionary needs more than the {MAX_DICT_MIB} MiB tracetui allows \
             (xz -9 needs 64 MiB); recompress it with a smaller preset"
        )
    } else {
        format!("not a readable .xz file: {e}")
    };
    std::io::Error::new(ErrorKind::InvalidData, msg)
}

/// Decodes `f` and sends it in chunks of `CHUNK` bytes until the end, an
/// error, or the reader going away.
fn pump(f: std::fs::File, tx: &mpsc::SyncSender<std::io::Result<Vec<u8>>>) {
    let r = BufReader::with_capacity(1 << 20, f);
    let mut xz = lzma_rust2::XzReader::new_mem_limit(r, true, MAX_DICT_MIB * 1024);
    loop {
        let mut chunk = vec![0u8; CHUNK];
        let mut filled = 0;
        while filled < CHUNK {
            match xz.read(&mut chunk[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => {
                    chunk.truncate(filled);
                    if !chunk.is_empty() && tx.send(Ok(chunk)).is_err() {
                        return;
                    }
                    let _ = tx.send(Err(reason(&e)));
                    return;
                }
            }
        }
        chunk.truncate(filled);
        if chunk.is_empty() || tx.send(Ok(chunk)).is_err() {
            return;
        }
    }
}

/// The decompressed bytes of the `.xz` file at `path`.
pub(super) fn open(path: &Path) -> Result<ChannelReader, InputError> {
    let f = super::reader::open_file(path)?;
    let (tx, rx) = mpsc::sync_channel(8);
    std::thread::Builder::new()
        .name("unxz".into())
        .spawn(move || pump(f, &tx))
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
    use std::io::Write;

    fn compress(text: &[u8]) -> Vec<u8> {
        let opts = lzma_rust2::XzOptions::with_preset(1);
        let mut w = lzma_rust2::XzWriter::new(Vec::new(), opts).unwrap();
        w.write_all(text).unwrap();
        w.finish().unwrap()
    }

    fn crc32(bytes: &[u8]) -> u32 {
        let mut c = !0u32;
        for &b in bytes {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = if c & 1 == 1 {
                    (c >> 1) ^ 0xEDB8_8320
                } else {
                    c >> 1
                };
            }
        }
        !c
    }

    /// `xz` with its one block's LZMA2 dictionary property set to `prop`
    /// (36: 1 GiB) and the block header's CRC32 made good again.
    fn with_dict_prop(mut xz: Vec<u8>, prop: u8) -> Vec<u8> {
        let start = 12; // after the stream header
        let size = (usize::from(xz[start]) + 1) * 4;
        let flags = xz[start + 1];
        let mut at = start + 2;
        for present in [flags & 0x40 != 0, flags & 0x80 != 0] {
            if present {
                while xz[at] & 0x80 != 0 {
                    at += 1;
                }
                at += 1;
            }
        }
        assert_eq!(&xz[at..at + 2], &[0x21, 0x01], "an LZMA2 filter");
        xz[at + 2] = prop;
        let crc = crc32(&xz[start..start + size - 4]);
        xz[start + size - 4..start + size].copy_from_slice(&crc.to_le_bytes());
        xz
    }

    fn read_all(dir: &str, xz: &[u8]) -> std::io::Result<Vec<u8>> {
        let dir = std::env::temp_dir().join(format!("tracetui-xz-{dir}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("t.csv.xz");
        std::fs::write(&p, xz).unwrap();
        let mut out = Vec::new();
        let r = open(&p).unwrap().read_to_end(&mut out).map(|_| out);
        let _ = std::fs::remove_dir_all(&dir);
        r
    }

    #[test]
    fn round_trip_and_damage() {
        let text = b"group,start_time\n".repeat(50_000);
        let xz = compress(&text);
        assert_eq!(read_all("whole", &xz).unwrap(), text);
        let e = read_all("half", &xz[..xz.len() / 2]).unwrap_err();
        assert!(e.to_string().contains("not a readable .xz file"), "{e}");
    }

    #[test]
    fn a_dictionary_past_the_bound_is_refused_before_it_is_allocated() {
        let text = b"group,start_time\n".repeat(1_000);
        let xz = compress(&text);
        assert_eq!(
            read_all("dict-ok", &with_dict_prop(xz.clone(), 20)).unwrap(),
            text
        );
        let e = read_all("dict-1g", &with_dict_prop(xz, 36)).unwrap_err();
        assert!(e.to_string().contains("256 MiB"), "{e}");
    }
}
