//! Symbol columns read fast: a column's last few values remembered by
//! their bytes, so the millions of rows that repeat a task name, status or
//! GPU type are not hashed each time.

use super::tables::sym;
use crate::model::{Sym, Symbols};

/// The last few values of one column and their symbols, found by their
/// bytes before any hashing: columns of few values (task names, statuses,
/// GPU types) hit it on almost every one of millions of rows.
#[derive(Debug, Default)]
pub(crate) struct Recent {
    last: Vec<(Vec<u8>, Option<Sym>)>,
    next: usize,
}

impl Recent {
    const SIZE: usize = 8;

    /// `sym` of `b`, remembered.
    #[inline]
    pub(crate) fn sym(&mut self, symbols: &mut Symbols, b: &[u8]) -> Option<Sym> {
        if let Some((_, s)) = self.last.iter().find(|(k, _)| k.as_slice() == b) {
            return *s;
        }
        let s = sym(symbols, b);
        if self.last.len() < Self::SIZE {
            self.last.push((b.to_vec(), s));
        } else {
            let (k, v) = &mut self.last[self.next];
            k.clear();
            k.extend_from_slice(b);
            *v = s;
            self.next = (self.next + 1) % Self::SIZE;
        }
        s
    }
}

/// A table's symbols as its rows are read, with each column's recent values.
pub(crate) struct Syms<'a> {
    pub(crate) symbols: &'a mut Symbols,
    columns: [Recent; 3],
}

impl<'a> Syms<'a> {
    pub(crate) fn new(symbols: &'a mut Symbols) -> Syms<'a> {
        Syms {
            symbols,
            columns: Default::default(),
        }
    }

    /// The symbol of `b` in the table's `i`-th symbol column.
    #[inline]
    pub(crate) fn col(&mut self, i: usize, b: &[u8]) -> Option<Sym> {
        self.columns[i].sym(self.symbols, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Remembered or not, a value's symbol is the one `sym` gives, also
    /// once more values than are remembered have come and gone.
    #[test]
    fn remembered_symbols_are_the_interned_ones() {
        let mut plain = Symbols::default();
        let mut fast = Symbols::default();
        let mut recent = Recent::default();
        for i in 0..100u32 {
            let v = format!("v{}", (i * 7) % 13);
            let b = if i % 11 == 0 { &b""[..] } else { v.as_bytes() };
            assert_eq!(recent.sym(&mut fast, b), sym(&mut plain, b), "row {i}");
        }
        assert_eq!(plain, fast);
    }
}
