//! Reading a tar archive as a stream, member by member: the one job the
//! loaders need of one (Philly's `trace-data.tar.gz`, PAI's and Zeus's
//! one-table archives). POSIX ustar and GNU headers, numbers in octal or
//! GNU base-256, GNU long names (`L`) and pax `path` and `size` records
//! (`x`); every header's checksum checked. Nothing is unpacked, so no file
//! system call or OS library is needed (the `tar` crate brings `libc` and
//! `filetime` for unpacking, which the model never does).

use std::io::{self, Read};

const BLOCK: u64 = 512;

/// One member's header: its path as written (bytes), its type, where its
/// data starts in the archive and how long it is.
#[derive(Debug, Clone)]
pub(crate) struct Header {
    path: Vec<u8>,
    kind: u8,
    /// Offset of its data from the start of the (unpacked) archive.
    pub(crate) start: u64,
    pub(crate) size: u64,
}

impl Header {
    /// Whether it is a regular file (not a directory, link or device).
    pub(crate) fn is_file(&self) -> bool {
        matches!(self.kind, b'0' | 0)
    }

    /// Its path, as text (bytes that are not UTF-8 shown replaced).
    pub(crate) fn path(&self) -> String {
        String::from_utf8_lossy(&self.path).into_owned()
    }
}

/// A tar archive read from `R`, one member at a time: `next` gives the
/// next member's header, and reading the archive then reads that member's
/// data (to its end, not past it).
pub(crate) struct Archive<R> {
    inner: R,
    /// Bytes of the archive read so far.
    pos: u64,
    /// The current member's data not read yet, and the padding after it.
    left: u64,
    pad: u64,
    ended: bool,
}

fn bad(why: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why.into())
}

impl<R: Read> Archive<R> {
    pub(crate) fn new(inner: R) -> Archive<R> {
        Archive {
            inner,
            pos: 0,
            left: 0,
            pad: 0,
            ended: false,
        }
    }

    /// The archive's source, where the last read left it.
    pub(crate) fn into_inner(self) -> R {
        self.inner
    }

    /// The next member (what is left of the current one skipped), or None
    /// at the archive's end (a zero block, or the end of the stream).
    pub(crate) fn next(&mut self) -> io::Result<Option<Header>> {
        let mut long_path: Option<Vec<u8>> = None;
        let mut pax_path: Option<Vec<u8>> = None;
        let mut pax_size: Option<u64> = None;
        loop {
            self.skip_rest()?;
            if self.ended {
                return Ok(None);
            }
            let mut block = [0u8; BLOCK as usize];
            if !self.read_block(&mut block)? {
                self.ended = true;
                return Ok(None);
            }
            if block.iter().all(|&b| b == 0) {
                self.ended = true;
                return Ok(None);
            }
            check_sum(&block)?;
            let kind = block[156];
            let size = number(&block[124..136])
                .ok_or_else(|| bad("a tar header's size is not a number"))?;
            self.left = size;
            self.pad = (BLOCK - size % BLOCK) % BLOCK;
            match kind {
                b'L' => long_path = Some(trimmed(self.read_small(size)?)),
                b'x' => {
                    let records = self.read_small(size)?;
                    for (key, value) in pax_records(&records)? {
                        match key {
                            b"path" => pax_path = Some(value.to_vec()),
                            b"size" => {
                                let v =
                                    std::str::from_utf8(value).ok().and_then(|v| v.parse().ok());
                                pax_size =
                                    Some(v.ok_or_else(|| bad("a pax size is not a number"))?);
                            }
                            _ => {}
                        }
                    }
                }
                b'K' | b'g' => {}
                _ => {
                    let size = pax_size.unwrap_or(size);
                    self.left = size;
                    self.pad = (BLOCK - size % BLOCK) % BLOCK;
                    let path = pax_path.or(long_path).unwrap_or_else(|| ustar_path(&block));
                    return Ok(Some(Header {
                        path,
                        kind,
                        start: self.pos,
                        size,
                    }));
                }
            }
        }
    }

    /// Skips what is left of the current member and its padding.
    fn skip_rest(&mut self) -> io::Result<()> {
        let n = self.left + self.pad;
        if n > 0 {
            let copied = io::copy(&mut (&mut self.inner).take(n), &mut io::sink())?;
            self.pos += copied;
            self.left = 0;
            self.pad = 0;
            if copied < n {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the archive ends inside a member",
                ));
            }
        }
        Ok(())
    }

    /// Reads a whole block; false at the stream's end before it.
    fn read_block(&mut self, block: &mut [u8; BLOCK as usize]) -> io::Result<bool> {
        let mut filled = 0;
        while filled < block.len() {
            match self.inner.read(&mut block[filled..]) {
                Ok(0) if filled == 0 => return Ok(false),
                Ok(0) => {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the archive ends inside a header",
                    ))
                }
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.pos += BLOCK;
        Ok(true)
    }

    /// A long name's or a pax header's data (bounded), with its padding.
    fn read_small(&mut self, size: u64) -> io::Result<Vec<u8>> {
        if size > 1 << 20 {
            return Err(bad("a tar name or pax header over 1 MiB"));
        }
        let mut data = vec![0; size as usize];
        self.read_exact(&mut data)?;
        self.skip_rest()?;
        Ok(data)
    }
}

impl<R: Read> Read for Archive<R> {
    /// Reads the current member's data, to its end.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        if want == 0 {
            return Ok(0);
        }
        let n = self.inner.read(&mut buf[..want])?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the archive ends inside a member",
            ));
        }
        self.left -= n as u64;
        self.pos += n as u64;
        Ok(n)
    }
}

/// A header's checksum: the sum of its bytes, the checksum field counted as spaces.
fn check_sum(block: &[u8; BLOCK as usize]) -> io::Result<()> {
    let want =
        number(&block[148..156]).ok_or_else(|| bad("a tar header's checksum is not a number"))?;
    let sum: u64 = block
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            if (148..156).contains(&i) {
                b' ' as u64
            } else {
                b as u64
            }
        })
        .sum();
    if sum != want {
        return Err(bad("archive header checksum mismatch"));
    }
    Ok(())
}

/// A header's number: octal text (spaces and NULs around it), or GNU
/// base-256 (the first byte's top bit set).
fn number(field: &[u8]) -> Option<u64> {
    if field.first().is_some_and(|&b| b & 0x80 != 0) {
        let mut v: u64 = (field[0] & 0x7f) as u64;
        for &b in &field[1..] {
            v = v.checked_mul(256)?.checked_add(b as u64)?;
        }
        return Some(v);
    }
    let text: Vec<u8> = field
        .iter()
        .copied()
        .skip_while(|&b| b == b' ' || b == 0)
        .take_while(|&b| b != b' ' && b != 0)
        .collect();
    if text.is_empty() {
        return Some(0);
    }
    let mut v: u64 = 0;
    for b in text {
        if !(b'0'..=b'7').contains(&b) {
            return None;
        }
        v = v.checked_mul(8)?.checked_add((b - b'0') as u64)?;
    }
    Some(v)
}

/// A name field up to its first NUL.
fn trimmed(mut field: Vec<u8>) -> Vec<u8> {
    if let Some(end) = field.iter().position(|&b| b == 0) {
        field.truncate(end);
    }
    field
}

/// The path a ustar header gives: its prefix, a slash and its name (GNU
/// headers keep other fields where ustar's prefix is).
fn ustar_path(block: &[u8; BLOCK as usize]) -> Vec<u8> {
    let name = trimmed(block[0..100].to_vec());
    if &block[257..263] != b"ustar\0" {
        return name;
    }
    let prefix = trimmed(block[345..500].to_vec());
    if prefix.is_empty() {
        return name;
    }
    let mut path = prefix;
    path.push(b'/');
    path.extend(name);
    path
}

/// A pax header's records: `LEN key=value\n`, each as (key, value).
fn pax_records(data: &[u8]) -> io::Result<Vec<(&[u8], &[u8])>> {
    let mut out = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        if rest.iter().all(|&b| b == 0) {
            break;
        }
        let space = rest
            .iter()
            .position(|&b| b == b' ')
            .ok_or_else(|| bad("a pax record without its length"))?;
        let len: usize = std::str::from_utf8(&rest[..space])
            .ok()
            .and_then(|l| l.parse().ok())
            .filter(|&l| l > space + 1 && l <= rest.len())
            .ok_or_else(|| bad("a pax record's length is wrong"))?;
        let record = &rest[space + 1..len];
        let record = record.strip_suffix(b"\n").unwrap_or(record);
        let eq = record
            .iter()
            .position(|&b| b == b'=')
            .ok_or_else(|| bad("a pax record without '='"))?;
        out.push((&record[..eq], &record[eq + 1..]));
        rest = &rest[len..];
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(name: &str, kind: u8, size: u64) -> [u8; 512] {
        let mut b = [0u8; 512];
        b[..name.len()].copy_from_slice(name.as_bytes());
        b[100..108].copy_from_slice(b"0000644\0");
        b[124..136].copy_from_slice(format!("{size:011o}\0").as_bytes());
        b[156] = kind;
        b[257..263].copy_from_slice(b"ustar\0");
        b[263..265].copy_from_slice(b"00");
        b[148..156].copy_from_slice(b"        ");
        let sum: u64 = b.iter().map(|&x| x as u64).sum();
        b[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
        b
    }

    fn member(out: &mut Vec<u8>, name: &str, kind: u8, data: &[u8]) {
        out.extend(header(name, kind, data.len() as u64));
        out.extend(data);
        out.resize(out.len().div_ceil(512) * 512, 0);
    }

    /// A member as read: path, whether a file, where its data starts, its data.
    type Got = (String, bool, u64, Vec<u8>);

    fn all(bytes: &[u8]) -> io::Result<Vec<Got>> {
        let mut a = Archive::new(bytes);
        let mut out = Vec::new();
        while let Some(h) = a.next()? {
            let mut data = Vec::new();
            a.read_to_end(&mut data)?;
            out.push((h.path(), h.is_file(), h.start, data));
        }
        Ok(out)
    }

    #[test]
    fn reads_members_long_names_and_pax_paths() {
        let mut t = Vec::new();
        member(&mut t, "dir/", b'5', b"");
        member(&mut t, "dir/a.csv", b'0', b"1,2\n3,4\n");
        let long = format!("{}/b.csv", "x".repeat(120));
        member(
            &mut t,
            "././@LongLink",
            b'L',
            format!("{long}\0").as_bytes(),
        );
        member(&mut t, "trunc", b'0', b"long");
        let rec = "18 path=pax/c.csv\n";
        member(&mut t, "PaxHeader", b'x', rec.as_bytes());
        member(&mut t, "short", b'0', &[7u8; 700]);
        t.extend([0u8; 1024]);
        let got = all(&t).unwrap();
        let names: Vec<(&str, bool)> = got.iter().map(|m| (m.0.as_str(), m.1)).collect();
        assert_eq!(
            names,
            vec![
                ("dir/", false),
                ("dir/a.csv", true),
                (long.as_str(), true),
                ("pax/c.csv", true)
            ]
        );
        assert_eq!(got[1].3, b"1,2\n3,4\n");
        assert_eq!(got[1].2, 1024, "data starts after its header");
        assert_eq!(
            &t[got[3].2 as usize..got[3].2 as usize + 700],
            &[7u8; 700][..]
        );
        assert_eq!(got[3].3.len(), 700);
    }

    #[test]
    fn a_member_need_not_be_read_to_go_on() {
        let mut t = Vec::new();
        member(&mut t, "a", b'0', &[1u8; 1000]);
        member(&mut t, "b", b'0', b"bee");
        let mut a = Archive::new(&t[..]);
        assert_eq!(a.next().unwrap().unwrap().path(), "a");
        let mut two = [0u8; 2];
        a.read_exact(&mut two).unwrap();
        let b = a.next().unwrap().unwrap();
        assert_eq!((b.path(), b.size), ("b".to_string(), 3));
        assert!(a.next().unwrap().is_none(), "the stream's end ends it");
    }

    #[test]
    fn damage_is_an_error_never_a_panic() {
        let mut t = Vec::new();
        member(&mut t, "a", b'0', &[1u8; 600]);
        let mut flipped = t.clone();
        flipped[10] ^= 1;
        let e = all(&flipped).unwrap_err().to_string();
        assert!(e.contains("checksum"), "{e}");
        let e = all(&t[..700]).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        assert_eq!(e.to_string(), "the archive ends inside a member");
        let e = all(&t[..300]).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        for at in 0..t.len() {
            for bit in [0, 3, 7] {
                let mut b = t.clone();
                b[at] ^= 1 << bit;
                let _ = all(&b);
            }
        }
    }

    /// Archives the `tar` crate writes (GNU and ustar headers, long
    /// names), read by both: the same members, data and offsets.
    #[test]
    fn reads_what_the_tar_crate_writes_as_the_tar_crate_does() {
        for gnu in [true, false] {
            let mut b = ::tar::Builder::new(Vec::new());
            let names = [
                "trace-data/cluster_machine_list".to_string(),
                format!("trace-data/{}/cluster_gpu_util", "d".repeat(150)),
                "._cluster_job_log".to_string(),
                "a".to_string(),
            ];
            for (i, name) in names.iter().enumerate() {
                let data = vec![i as u8; 100 + 997 * i];
                let mut h = if gnu {
                    ::tar::Header::new_gnu()
                } else {
                    ::tar::Header::new_ustar()
                };
                h.set_size(data.len() as u64);
                h.set_mode(0o644);
                h.set_entry_type(::tar::EntryType::Regular);
                b.append_data(&mut h, name, &data[..]).unwrap();
            }
            let mut h = ::tar::Header::new_gnu();
            h.set_entry_type(::tar::EntryType::Directory);
            h.set_size(0);
            b.append_data(&mut h, "trace-data/", &[][..]).unwrap();
            let bytes = b.into_inner().unwrap();
            let mut theirs = Vec::new();
            let mut a = ::tar::Archive::new(&bytes[..]);
            for e in a.entries().unwrap() {
                let mut e = e.unwrap();
                let mut data = Vec::new();
                e.read_to_end(&mut data).unwrap();
                let path = e.path().unwrap().to_string_lossy().into_owned();
                let file = e.header().entry_type().is_file();
                theirs.push((path, file, e.raw_file_position(), data));
            }
            assert_eq!(all(&bytes).unwrap(), theirs, "gnu headers: {gnu}");
            assert_eq!(theirs.len(), 5);
        }
    }

    #[test]
    fn numbers_in_octal_and_base_256() {
        assert_eq!(number(b"00000001750\0"), Some(1000));
        assert_eq!(number(b"   1750 \0"), Some(1000));
        assert_eq!(number(b"\0\0\0\0"), Some(0));
        let mut big = [0u8; 12];
        big[0] = 0x80;
        big[8..].copy_from_slice(&(9u32 << 28).to_be_bytes());
        assert_eq!(number(&big), Some(9 << 28), "sizes over 8 GiB");
        assert_eq!(number(b"12x4"), None);
    }
}
