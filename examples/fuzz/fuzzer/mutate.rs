//! Mutations of a seed file, each a way real or hostile input goes wrong:
//! flipped bytes, lines spliced, dropped or repeated, numbers at the edges,
//! control characters, CRLF, truncation, quotes, very long fields.

use tracetui::trace::Rng;

/// Numbers that sit on an edge somewhere: limits, overflows, non-numbers.
const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1048576",
    "1048577",
    "2147483648",
    "4294967296",
    "4102444800",
    "4102444801",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551616",
    "99999999999999999999",
    "1e308",
    "1e-308",
    "NaN",
    "inf",
    "-0.0",
    "0.5",
    "None",
    "",
];

/// Bytes that should never reach a terminal or that break text handling.
const NASTY: &[&[u8]] = &[
    b"\0",
    b"\x07",
    b"\x1b[2J",
    b"\x1b]0;t\x07",
    b"\r",
    b"\n",
    b"\"",
    b",",
    b",,,,",
    "\u{202e}".as_bytes(),
    "\u{9b}".as_bytes(),
    b"\xff",
    b"\xc3",
    b"\xef\xbb\xbf",
    b"{",
    b"]",
    b"NA",
    b"PDT",
    b"+08:00",
    b"2017-11-05 01:30:00",
    b"9999-12-31 23:59:59+14:00",
];

/// The largest input made (a few long lines past the 1 MiB line limit).
pub const MAX_INPUT: usize = 4 << 20;

/// Applies one to four mutations to `seed`; the result is at most `MAX_INPUT`.
pub fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..=rng.below(4) {
        match rng.below(12) {
            0 | 1 => flip(&mut b, rng),
            2 => splice_line(&mut b, seed, rng),
            3 => drop_line(&mut b, rng),
            4 | 5 => number(&mut b, rng),
            6 | 7 => insert(&mut b, NASTY[rng.below(NASTY.len() as u64) as usize], rng),
            8 => b = crlf(&b),
            9 => b.truncate(rng.below(b.len() as u64 + 1) as usize),
            10 => repeat_line(&mut b, rng),
            _ => long_field(&mut b, rng),
        }
        b.truncate(MAX_INPUT);
    }
    b
}

fn at(b: &[u8], rng: &mut Rng) -> usize {
    rng.below(b.len() as u64 + 1) as usize
}

fn flip(b: &mut [u8], rng: &mut Rng) {
    if !b.is_empty() {
        let i = rng.below(b.len() as u64) as usize;
        b[i] ^= 1 << rng.below(8);
    }
}

fn insert(b: &mut Vec<u8>, what: &[u8], rng: &mut Rng) {
    let i = at(b, rng);
    b.splice(i..i, what.iter().copied());
}

/// The byte ranges of `b`'s lines (newline included).
fn lines(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &c) in b.iter().enumerate() {
        if c == b'\n' {
            out.push((start, i + 1));
            start = i + 1;
        }
    }
    if start < b.len() {
        out.push((start, b.len()));
    }
    out
}

fn pick(ls: &[(usize, usize)], rng: &mut Rng) -> Option<(usize, usize)> {
    (!ls.is_empty()).then(|| ls[rng.below(ls.len() as u64) as usize])
}

/// A line of the seed put somewhere else (a duplicate id, a row out of order).
fn splice_line(b: &mut Vec<u8>, seed: &[u8], rng: &mut Rng) {
    if let Some((s, e)) = pick(&lines(seed), rng) {
        let line = seed[s..e].to_vec();
        let to = pick(&lines(b), rng).map_or(0, |l| l.0);
        b.splice(to..to, line);
    }
}

fn drop_line(b: &mut Vec<u8>, rng: &mut Rng) {
    if let Some((s, e)) = pick(&lines(b), rng) {
        b.drain(s..e);
    }
}

fn repeat_line(b: &mut Vec<u8>, rng: &mut Rng) {
    if let Some((s, e)) = pick(&lines(b), rng) {
        let line = b[s..e].to_vec();
        let room = MAX_INPUT.saturating_sub(b.len()) / line.len().max(1);
        let times = (rng.below(64) as usize).min(room);
        let copies: Vec<u8> = line
            .iter()
            .copied()
            .cycle()
            .take(line.len() * times)
            .collect();
        b.splice(e..e, copies);
    }
}

/// A run of digits replaced by an edge number (the first digit at or after
/// a random place, wrapping round; no list of every digit, however long the input).
fn number(b: &mut Vec<u8>, rng: &mut Rng) {
    let start = at(b, rng);
    let Some(i) = (start..b.len())
        .chain(0..start)
        .find(|&i| b[i].is_ascii_digit())
    else {
        return;
    };
    let (mut s, mut e) = (i, i);
    while s > 0 && (b[s - 1].is_ascii_digit() || b[s - 1] == b'.') {
        s -= 1;
    }
    while e < b.len() && (b[e].is_ascii_digit() || b[e] == b'.') {
        e += 1;
    }
    let n = NUMBERS[rng.below(NUMBERS.len() as u64) as usize];
    b.splice(s..e, n.bytes());
}

fn crlf(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len() + b.len() / 16);
    for &c in b {
        if c == b'\n' {
            out.push(b'\r');
        }
        out.push(c);
    }
    out
}

/// A field far longer than any real one; rarely past the 1 MiB line limit.
fn long_field(b: &mut Vec<u8>, rng: &mut Rng) {
    let n = if rng.chance(0.02) {
        (1 << 20) + 16
    } else {
        rng.below(4096) as usize
    };
    let i = at(b, rng);
    b.splice(i..i, std::iter::repeat_n(b'7', n));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_are_deterministic_and_change_the_input() {
        let seed = b"a,b,c\n1,2,3\n4,5,6\n";
        let run = |s: u64| {
            let mut r = Rng::new(s);
            (0..50).map(|_| mutate(seed, &mut r)).collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert!(run(7).iter().filter(|m| m.as_slice() != seed).count() > 40);
        assert_eq!(crlf(b"a\nb\n"), b"a\r\nb\r\n");
    }
}
