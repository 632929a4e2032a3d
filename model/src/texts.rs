//! Compact storage for the millions of short strings in the PAI tables:
//! one byte arena per table, with lowercase-hex ids (most of PAI's names)
//! packed two characters to a byte; and 128-bit keys for joins.

/// A string stored in a `Texts` arena.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TextId(u64);

impl TextId {
    /// The empty string, which is stored as nothing.
    pub const EMPTY: TextId = TextId(u64::MAX);

    /// Its bits, for the load cache.
    pub(crate) fn raw(self) -> u64 {
        self.0
    }

    /// From `raw`'s bits.
    pub(crate) fn from_raw(b: u64) -> TextId {
        TextId(b)
    }
}

/// Up to three strings stored one after another in a `Texts` arena: their
/// offset, with which of them are not empty in the top bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextRun(u64);

const RUN_SHIFT: u32 = 61;
const RUN_OFFSET: u64 = (1 << RUN_SHIFT) - 1;

impl TextRun {
    /// A run whose strings are all empty.
    pub const EMPTY: TextRun = TextRun(0);

    /// Its bits, for the load cache.
    pub(crate) fn raw(self) -> u64 {
        self.0
    }

    /// From `raw`'s bits.
    pub(crate) fn from_raw(b: u64) -> TextRun {
        TextRun(b)
    }

    /// Whether string `i` of the run is not empty.
    pub fn has(self, i: usize) -> bool {
        self.0 >> RUN_SHIFT & (1 << i) != 0
    }

    /// This run after its arena was appended to another of `base` bytes.
    pub(crate) fn rebased(self, base: u64) -> TextRun {
        if self == TextRun::EMPTY {
            self
        } else {
            TextRun(self.0 + base)
        }
    }
}

/// A byte arena of strings: each behind a 3-byte head, lowercase-hex ones
/// packed two characters a byte.
#[derive(Debug, Clone, Default)]
pub struct Texts {
    bytes: Vec<u8>,
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Lowercase hex digit values; 0x10 marks anything else.
const HEX_VAL: [u8; 256] = {
    let mut t = [0x10u8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

impl Texts {
    /// Stores `s` (empty strings cost nothing).
    pub fn add(&mut self, s: &[u8]) -> TextId {
        if s.is_empty() {
            return TextId::EMPTY;
        }
        let len = s.len().min(u16::MAX as usize);
        let s = &s[..len];
        let id = TextId(self.bytes.len() as u64);
        let head = [0u8, len as u8, (len >> 8) as u8];
        if len.is_multiple_of(2) && len <= 256 {
            // Pack two hex digits a byte when every character is a lowercase hex digit.
            let mut packed = [0u8; 128];
            let mut bad = 0u8;
            for (i, out) in packed.iter_mut().take(len / 2).enumerate() {
                let (a, b) = (HEX_VAL[s[2 * i] as usize], HEX_VAL[s[2 * i + 1] as usize]);
                bad |= a | b;
                *out = (a << 4) | (b & 15);
            }
            if bad & 0x10 == 0 {
                self.bytes.extend_from_slice(&[1, head[1], head[2]]);
                self.bytes.extend_from_slice(&packed[..len / 2]);
                return id;
            }
        }
        self.bytes.extend_from_slice(&head);
        self.bytes.extend_from_slice(s);
        id
    }

    /// Room for `additional` more bytes.
    pub fn reserve(&mut self, additional: usize) {
        self.bytes.reserve(additional);
    }

    /// `f` of the string, without making a `String` (packed hex is
    /// unpacked on the stack): for the millions of ids a load builds.
    pub(crate) fn with<R>(&self, id: TextId, f: impl FnOnce(&str) -> R) -> R {
        if id == TextId::EMPTY {
            return f("");
        }
        let at = id.0 as usize;
        let len = u16::from_le_bytes([self.bytes[at + 1], self.bytes[at + 2]]) as usize;
        let body = &self.bytes[at + 3..];
        if self.bytes[at] == 1 {
            // Packed hex: at most 256 characters, all ASCII.
            let mut s = [0u8; 256];
            for (k, &b) in body[..len / 2].iter().enumerate() {
                s[2 * k] = HEX[(b >> 4) as usize];
                s[2 * k + 1] = HEX[(b & 15) as usize];
            }
            f(std::str::from_utf8(&s[..len]).unwrap_or(""))
        } else {
            f(&String::from_utf8_lossy(&body[..len]))
        }
    }

    /// The string back (empty for `TextId::EMPTY`).
    pub fn get(&self, id: TextId) -> String {
        if id == TextId::EMPTY {
            return String::new();
        }
        let at = id.0 as usize;
        let packed = self.bytes[at] == 1;
        let len = u16::from_le_bytes([self.bytes[at + 1], self.bytes[at + 2]]) as usize;
        let body = &self.bytes[at + 3..];
        if packed {
            let mut s = String::with_capacity(len);
            for &b in &body[..len / 2] {
                s.push(HEX[(b >> 4) as usize] as char);
                s.push(HEX[(b & 15) as usize] as char);
            }
            s
        } else {
            String::from_utf8_lossy(&body[..len]).into_owned()
        }
    }

    /// Stores up to three strings one after another and names them all by
    /// one offset (8 bytes for the three, where three ids take 24).
    pub(crate) fn add_run(&mut self, strings: [&[u8]; 3]) -> TextRun {
        let at = self.bytes.len() as u64;
        let mut present = 0u64;
        for (i, s) in strings.iter().enumerate() {
            if self.add(s) != TextId::EMPTY {
                present |= 1 << i;
            }
        }
        if present == 0 {
            return TextRun::EMPTY;
        }
        TextRun(at | present << RUN_SHIFT)
    }

    /// String `i` of a run (empty when it was empty).
    pub(crate) fn get_in(&self, run: TextRun, i: usize) -> String {
        if run.0 >> RUN_SHIFT & (1 << i) == 0 {
            return String::new();
        }
        let mut at = (run.0 & RUN_OFFSET) as usize;
        for skip in 0..i {
            if run.0 >> RUN_SHIFT & (1 << skip) != 0 {
                at += self.entry_len(at);
            }
        }
        self.get(TextId(at as u64))
    }

    /// The bytes of the entry at `at`, its header included.
    fn entry_len(&self, at: usize) -> usize {
        let len = u16::from_le_bytes([self.bytes[at + 1], self.bytes[at + 2]]) as usize;
        3 + if self.bytes[at] == 1 { len / 2 } else { len }
    }

    /// Appends another arena; its ids become `id.rebased(self.bytes_used() before)`.
    pub fn append(&mut self, other: &Texts) {
        self.bytes.extend_from_slice(&other.bytes);
    }

    pub(crate) fn bytes_used(&self) -> usize {
        self.bytes.len()
    }

    /// Whether `id` names a whole entry of this arena (a load cache read
    /// back is checked with it before any string is taken).
    pub(crate) fn holds(&self, id: TextId) -> bool {
        id == TextId::EMPTY || self.entry_fits(id.0 as usize)
    }

    /// Whether each present string of `run` is a whole entry.
    pub(crate) fn holds_run(&self, run: TextRun) -> bool {
        let mut at = (run.0 & RUN_OFFSET) as usize;
        for i in 0..3 {
            if run.has(i) {
                if !self.entry_fits(at) {
                    return false;
                }
                at += self.entry_len(at);
            }
        }
        true
    }

    fn entry_fits(&self, at: usize) -> bool {
        if at.checked_add(3).is_none_or(|h| h > self.bytes.len()) || self.bytes[at] > 1 {
            return false;
        }
        // Packed hex holds at most 256 characters (the stack buffer `with`
        // unpacks into).
        let len = u16::from_le_bytes([self.bytes[at + 1], self.bytes[at + 2]]) as usize;
        (self.bytes[at] == 0 || len <= 256) && at + self.entry_len(at) <= self.bytes.len()
    }

    /// The arena's bytes, for the load cache.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// An arena of `as_bytes`'s bytes.
    pub(crate) fn from_bytes(bytes: Vec<u8>) -> Texts {
        Texts { bytes }
    }
}

/// A 128-bit key for joining on a string column; distinct strings collide
/// with probability ~n²/2¹²⁹, negligible for the tables' millions of rows.
pub fn key(s: &[u8]) -> u128 {
    #[inline]
    fn mix(mut h: u64, x: u64, k: u64) -> u64 {
        h = (h ^ x).wrapping_mul(k);
        h ^ (h >> 29)
    }
    const K1: u64 = 0x9E37_79B9_7F4A_7C15;
    const K2: u64 = 0xC2B2_AE3D_27D4_EB4F;
    let mut a = 0x243F_6A88_85A3_08D3u64 ^ s.len() as u64;
    let mut b = 0x1319_8A2E_0370_7344u64 ^ (s.len() as u64).rotate_left(32);
    let mut chunks = s.chunks_exact(8);
    for c in &mut chunks {
        let x = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        a = mix(a, x, K1);
        b = mix(b, x.rotate_left(23), K2);
    }
    let mut tail = [0u8; 8];
    tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    let x = u64::from_le_bytes(tail);
    a = mix(a, x, K1);
    b = mix(b, x.rotate_left(23), K2);
    let fin = |mut h: u64| {
        h ^= h >> 33;
        h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        h ^= h >> 33;
        h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
        h ^ (h >> 33)
    };
    ((fin(a ^ b.rotate_left(17)) as u128) << 64) | fin(b ^ a.rotate_left(41)) as u128
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each string of a run comes back, empty ones included, after the
    /// arena was appended to another.
    #[test]
    fn runs_round_trip_with_empty_members() {
        let mut t = Texts::default();
        let cases: [[&[u8]; 3]; 5] = [
            [b"", b"ab12", b"worker-1"],
            [b"ff", b"", b""],
            [b"", b"", b""],
            [b"x y", b"00", b"deadbeef"],
            [b"", b"", b"only the last"],
        ];
        let mut other = Texts::default();
        other.add(b"something first");
        let base = other.bytes_used() as u64;
        let runs: Vec<TextRun> = cases.iter().map(|c| t.add_run(*c)).collect();
        other.append(&t);
        for (c, run) in cases.iter().zip(&runs) {
            for (i, s) in c.iter().enumerate() {
                let want = String::from_utf8_lossy(s).into_owned();
                assert_eq!(t.get_in(*run, i), want);
                assert_eq!(other.get_in(run.rebased(base), i), want);
                assert_eq!(run.has(i), !s.is_empty());
            }
        }
        assert_eq!(runs[2], TextRun::EMPTY);
    }

    #[test]
    fn round_trips_hex_and_plain() {
        let mut t = Texts::default();
        let a = t.add(b"4b3f04b66a525d2df903eb16");
        let b = t.add(b"worker");
        let c = t.add(b"");
        let d = t.add(b"ABC1"); // upper-case hex is kept as written
        let e = t.add(b"abc"); // odd length
        assert_eq!(t.get(a), "4b3f04b66a525d2df903eb16");
        assert_eq!(t.get(b), "worker");
        assert_eq!(t.get(c), "");
        assert_eq!(t.get(d), "ABC1");
        assert_eq!(t.get(e), "abc");
        assert_eq!(t.bytes_used(), 3 + 12 + 3 + 6 + 3 + 4 + 3 + 3);
    }

    #[test]
    fn keys_differ() {
        let mut seen = std::collections::HashSet::new();
        for i in 0..20_000 {
            assert!(seen.insert(key(format!("{i:x}").as_bytes())));
        }
        assert_ne!(key(b""), key(b"\0"));
        assert_ne!(key(b"ab"), key(b"ba"));
    }
}
