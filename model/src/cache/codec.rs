//! The load cache's bytes: little-endian numbers, length-prefixed strings
//! and arrays, arrays of numbers copied whole, and a 64-bit checksum over
//! everything before it, so a damaged file is refused, never half-read.

use std::io::{BufReader, BufWriter, Read, Write};

/// What went wrong reading a cache file: it is then ignored and removed.
#[derive(Debug)]
pub(crate) struct Unreadable(pub String);

impl From<std::io::Error> for Unreadable {
    fn from(e: std::io::Error) -> Unreadable {
        Unreadable(e.to_string())
    }
}

/// A 64-bit checksum of a byte stream, the same however the stream is cut
/// into reads: four lanes over 8-byte words.
#[derive(Clone)]
pub(crate) struct Checksum {
    lanes: [u64; 4],
    pending: [u8; 32],
    n_pending: usize,
    total: u64,
}

const K: u64 = 0x9e37_79b9_7f4a_7c15;

impl Checksum {
    pub(crate) fn new() -> Checksum {
        Checksum {
            lanes: [1, 2, 3, 4],
            pending: [0; 32],
            n_pending: 0,
            total: 0,
        }
    }

    fn block(&mut self, b: &[u8]) {
        for (lane, w) in self.lanes.iter_mut().zip(b.chunks_exact(8)) {
            let w = u64::from_le_bytes(w.try_into().unwrap_or([0; 8]));
            *lane = (*lane ^ w).wrapping_mul(K).rotate_left(29);
        }
    }

    pub(crate) fn update(&mut self, mut b: &[u8]) {
        self.total += b.len() as u64;
        if self.n_pending > 0 {
            let take = (32 - self.n_pending).min(b.len());
            self.pending[self.n_pending..self.n_pending + take].copy_from_slice(&b[..take]);
            self.n_pending += take;
            b = &b[take..];
            if self.n_pending < 32 {
                return;
            }
            let p = self.pending;
            self.block(&p);
            self.n_pending = 0;
        }
        let mut blocks = b.chunks_exact(32);
        for blk in &mut blocks {
            self.block(blk);
        }
        let rest = blocks.remainder();
        self.pending[..rest.len()].copy_from_slice(rest);
        self.n_pending = rest.len();
    }

    pub(crate) fn finish(&self) -> u64 {
        let mut h = self.total.wrapping_mul(K);
        for &l in &self.lanes {
            h = (h ^ l).wrapping_mul(K).rotate_left(31);
        }
        for &b in &self.pending[..self.n_pending] {
            h = (h ^ b as u64).wrapping_mul(K);
        }
        h
    }
}

/// Bytes passed through, summed into a checksum.
struct Summed<T> {
    inner: T,
    sum: Checksum,
}

impl<W: Write> Write for Summed<W> {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(b)?;
        self.sum.update(&b[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<R: Read> Read for Summed<R> {
    fn read(&mut self, b: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(b)?;
        self.sum.update(&b[..n]);
        Ok(n)
    }
}

/// Writes a cache file.
pub(crate) struct Writer<W: Write> {
    out: BufWriter<Summed<W>>,
}

impl<W: Write> Writer<W> {
    pub(crate) fn new(inner: W) -> Writer<W> {
        Writer {
            out: BufWriter::with_capacity(
                1 << 20,
                Summed {
                    inner,
                    sum: Checksum::new(),
                },
            ),
        }
    }

    pub(crate) fn raw(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.out.write_all(b)
    }

    pub(crate) fn u8(&mut self, v: u8) -> std::io::Result<()> {
        self.raw(&[v])
    }

    pub(crate) fn u32(&mut self, v: u32) -> std::io::Result<()> {
        self.raw(&v.to_le_bytes())
    }

    pub(crate) fn u64(&mut self, v: u64) -> std::io::Result<()> {
        self.raw(&v.to_le_bytes())
    }

    pub(crate) fn f64(&mut self, v: f64) -> std::io::Result<()> {
        self.u64(v.to_bits())
    }

    pub(crate) fn len(&mut self, n: usize) -> std::io::Result<()> {
        self.u64(n as u64)
    }

    pub(crate) fn str(&mut self, s: &str) -> std::io::Result<()> {
        self.bytes(s.as_bytes())
    }

    pub(crate) fn bytes(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.len(b.len())?;
        self.raw(b)
    }

    /// An array of plain numbers, copied whole (little-endian machines
    /// only write caches: see `cache::usable`).
    pub(crate) fn array<T: bytemuck::Pod>(&mut self, v: &[T]) -> std::io::Result<()> {
        self.len(v.len())?;
        self.raw(bytemuck::cast_slice(v))
    }

    /// The checksum, then the file flushed; the inner writer back.
    pub(crate) fn finish(self) -> std::io::Result<W> {
        let mut s = self.out.into_inner().map_err(|e| e.into_error())?;
        let sum = s.sum.finish();
        s.inner.write_all(&sum.to_le_bytes())?;
        s.inner.flush()?;
        Ok(s.inner)
    }
}

/// Reads a cache file of `len` bytes, never allocating past what is left.
pub(crate) struct Reader<R: Read> {
    /// The content: all but the checksum's last 8 bytes, summed as read.
    input: BufReader<Summed<std::io::Take<R>>>,
    left: u64,
}

impl<R: Read> Reader<R> {
    pub(crate) fn new(inner: R, len: u64) -> Reader<R> {
        let content = len.saturating_sub(8);
        Reader {
            input: BufReader::with_capacity(
                1 << 20,
                Summed {
                    inner: inner.take(content),
                    sum: Checksum::new(),
                },
            ),
            left: content,
        }
    }

    pub(crate) fn raw(&mut self, b: &mut [u8]) -> Result<(), Unreadable> {
        if b.len() as u64 > self.left {
            return Err(Unreadable("cut short".into()));
        }
        self.left -= b.len() as u64;
        self.input.read_exact(b)?;
        Ok(())
    }

    pub(crate) fn u8(&mut self) -> Result<u8, Unreadable> {
        let mut b = [0; 1];
        self.raw(&mut b)?;
        Ok(b[0])
    }

    pub(crate) fn u32(&mut self) -> Result<u32, Unreadable> {
        let mut b = [0; 4];
        self.raw(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    pub(crate) fn u64(&mut self) -> Result<u64, Unreadable> {
        let mut b = [0; 8];
        self.raw(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    pub(crate) fn f64(&mut self) -> Result<f64, Unreadable> {
        Ok(f64::from_bits(self.u64()?))
    }

    /// A count of items at least `each` bytes long: refused when the file
    /// cannot hold them.
    pub(crate) fn len(&mut self, each: u64) -> Result<usize, Unreadable> {
        let n = self.u64()?;
        if n.saturating_mul(each.max(1)) > self.left {
            return Err(Unreadable(format!("a count of {n} past the file's end")));
        }
        Ok(n as usize)
    }

    pub(crate) fn bytes(&mut self) -> Result<Vec<u8>, Unreadable> {
        let n = self.len(1)?;
        let mut v = vec![0; n];
        self.raw(&mut v)?;
        Ok(v)
    }

    pub(crate) fn str(&mut self) -> Result<String, Unreadable> {
        String::from_utf8(self.bytes()?).map_err(|_| Unreadable("a string not UTF-8".into()))
    }

    pub(crate) fn array<T: bytemuck::Pod>(&mut self) -> Result<Vec<T>, Unreadable> {
        let n = self.len(std::mem::size_of::<T>() as u64)?;
        let mut v = vec![T::zeroed(); n];
        self.raw(bytemuck::cast_slice_mut(&mut v))?;
        Ok(v)
    }

    /// Checks that all was read and the checksum matches.
    pub(crate) fn finish(self) -> Result<(), Unreadable> {
        if self.left != 0 {
            return Err(Unreadable(format!("{} bytes left over", self.left)));
        }
        let summed = self.input.into_inner();
        let sum = summed.sum.finish();
        let mut b = [0; 8];
        summed.inner.into_inner().read_exact(&mut b)?;
        if u64::from_le_bytes(b) != sum {
            return Err(Unreadable("its checksum does not match".into()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checksum_is_the_same_however_the_bytes_are_cut() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut whole = Checksum::new();
        whole.update(&data);
        for cut in [1, 3, 31, 32, 33, 100, 999] {
            let mut parts = Checksum::new();
            for c in data.chunks(cut) {
                parts.update(c);
            }
            assert_eq!(parts.finish(), whole.finish(), "cut {cut}");
        }
        let mut other = Checksum::new();
        let mut changed = data.clone();
        changed[500] ^= 1;
        other.update(&changed);
        assert_ne!(other.finish(), whole.finish());
    }

    #[test]
    fn a_file_round_trips_and_damage_is_refused() {
        let mut w = Writer::new(Vec::new());
        w.str("key").unwrap();
        w.array(&[1u32, 2, 3]).unwrap();
        w.f64(0.5).unwrap();
        let bytes = w.finish().unwrap();
        let mut r = Reader::new(&bytes[..], bytes.len() as u64);
        assert_eq!(r.str().unwrap(), "key");
        assert_eq!(r.array::<u32>().unwrap(), vec![1, 2, 3]);
        assert_eq!(r.f64().unwrap(), 0.5);
        r.finish().unwrap();
        let mut bad = bytes.clone();
        bad[12] ^= 0x40;
        let mut r = Reader::new(&bad[..], bad.len() as u64);
        let _ = r.str();
        let _ = r.array::<u32>();
        let _ = r.f64();
        assert!(r.finish().is_err(), "a flipped bit is refused");
        let mut r = Reader::new(&bytes[..10], 10);
        assert!(r.str().and_then(|_| r.array::<u32>()).is_err(), "cut short");
    }
}
