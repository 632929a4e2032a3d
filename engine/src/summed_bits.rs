//! The one bit set: a summary word per 64 of its words, bit `w` of the
//! summary set while word `w` holds a set bit, so the next set bit is
//! found in two reads however many empty words lie between (the free GPUs
//! of a 1,024-GPU machine that is mostly busy, the free counts of a type
//! whose machines have up to 1,024 GPUs), and a walk over the members
//! skips empty stretches 4,096 numbers at a time (the shape classes with
//! waiting jobs).

#[derive(Debug, Clone, Default)]
pub(super) struct SummedBits {
    words: Vec<u64>,
    summary: Vec<u64>,
}

impl SummedBits {
    /// `n` bits, all set (`full`) or all clear.
    pub(super) fn new(n: usize, full: bool) -> SummedBits {
        let mut b = SummedBits::default();
        b.grow(n);
        if full {
            for i in 0..n {
                b.set(i);
            }
        }
        b
    }

    /// Room for `n` bits (the new ones clear).
    pub(super) fn grow(&mut self, n: usize) {
        let words = n.div_ceil(64);
        if words > self.words.len() {
            self.words.resize(words, 0);
            self.summary.resize(words.div_ceil(64), 0);
        }
    }

    pub(super) fn capacity_bytes(&self) -> usize {
        (self.words.capacity() + self.summary.capacity()) * 8
    }

    /// Word `w` (bits `64 w` to `64 w + 63`).
    #[inline(always)]
    pub(super) fn word(&self, w: usize) -> u64 {
        self.words[w]
    }

    #[inline(always)]
    pub(super) fn set(&mut self, i: usize) {
        let w = i / 64;
        self.words[w] |= 1 << (i % 64);
        self.summary[w / 64] |= 1 << (w % 64);
    }

    #[inline(always)]
    pub(super) fn clear(&mut self, i: usize) {
        let w = i / 64;
        self.words[w] &= !(1 << (i % 64));
        if self.words[w] == 0 {
            self.summary[w / 64] &= !(1 << (w % 64));
        }
    }

    /// The first word from `w` on that holds a set bit.
    #[inline]
    pub(super) fn next_word_from(&self, w: usize) -> Option<usize> {
        let mut s = w / 64;
        let mut bits = self.summary.get(s)? & (u64::MAX << (w % 64));
        while bits == 0 {
            s += 1;
            bits = *self.summary.get(s)?;
        }
        Some(s * 64 + bits.trailing_zeros() as usize)
    }

    /// The lowest set bit from `i` on.
    #[inline]
    pub(super) fn next_from(&self, i: usize) -> Option<usize> {
        let w = i / 64;
        let here = self.words.get(w)? & (u64::MAX << (i % 64));
        if here != 0 {
            return Some(w * 64 + here.trailing_zeros() as usize);
        }
        let w = self.next_word_from(w + 1)?;
        Some(w * 64 + self.words[w].trailing_zeros() as usize)
    }

    /// Adds `i`, making room for it; false if it was there.
    #[inline]
    pub(super) fn insert(&mut self, i: usize) -> bool {
        if i / 64 >= self.words.len() {
            self.grow(i + 1);
        }
        let had = self.words[i / 64] & (1 << (i % 64)) != 0;
        self.set(i);
        !had
    }

    /// Takes `i` out; false if it was not there.
    #[inline]
    pub(super) fn remove(&mut self, i: usize) -> bool {
        match self.words.get(i / 64) {
            Some(w) if w & (1 << (i % 64)) != 0 => {
                self.clear(i);
                true
            }
            _ => false,
        }
    }

    /// Clears every bit, keeping the room.
    pub(super) fn clear_all(&mut self) {
        self.words.fill(0);
        self.summary.fill(0);
    }

    /// The set bits, ascending (a word and a summary word at a time).
    pub(super) fn iter(&self) -> Members<'_> {
        self.iter_from(0)
    }

    /// The set bits from `i` on, ascending.
    pub(super) fn iter_from(&self, i: usize) -> Members<'_> {
        let w = i / 64;
        let Some(&word) = self.words.get(w) else {
            return Members {
                set: self,
                top: self.summary.len(),
                top_bits: 0,
                word: 0,
                bits: 0,
            };
        };
        // Word `w` is read first (from bit `i`); its summary word's bits
        // for the words after it come next.
        let after = (u64::MAX << (w % 64)) << 1;
        Members {
            set: self,
            top: w / 64,
            top_bits: self.summary[w / 64] & after,
            word: w,
            bits: word & (u64::MAX << (i % 64)),
        }
    }
}

/// The set bits of a `SummedBits`, ascending.
pub(super) struct Members<'a> {
    set: &'a SummedBits,
    /// The summary word being read, and its bits not yet visited.
    top: usize,
    top_bits: u64,
    /// The word being read, and its bits not yet visited.
    word: usize,
    bits: u64,
}

impl Iterator for Members<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        while self.bits == 0 {
            while self.top_bits == 0 {
                self.top += 1;
                self.top_bits = *self.set.summary.get(self.top)?;
            }
            self.word = self.top * 64 + self.top_bits.trailing_zeros() as usize;
            self.top_bits &= self.top_bits - 1;
            self.bits = self.set.words[self.word];
        }
        let c = self.word * 64 + self.bits.trailing_zeros() as usize;
        self.bits &= self.bits - 1;
        Some(c as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        /// Set and clear in any order, over any span: the next set bit from
        /// anywhere is what a tree set says, and the words agree.
        #[test]
        fn matches_a_tree_set(
            n in 1usize..9000,
            ops in prop::collection::vec((any::<bool>(), 0usize..9000), 0..400),
            probes in prop::collection::vec(0usize..9100, 1..40),
            full in any::<bool>(),
        ) {
            let mut b = SummedBits::new(n, full);
            let mut model: BTreeSet<usize> = if full { (0..n).collect() } else { BTreeSet::new() };
            for (on, i) in ops {
                let i = i % n;
                if on { b.set(i); model.insert(i); } else { b.clear(i); model.remove(&i); }
            }
            for p in probes {
                prop_assert_eq!(b.next_from(p), model.range(p..).next().copied());
                prop_assert_eq!(b.iter_from(p).map(|i| i as usize).collect::<Vec<_>>(), model.range(p..).copied().collect::<Vec<_>>());
            }
            prop_assert_eq!(b.iter_from(0).map(|i| i as usize).collect::<Vec<_>>(), model.iter().copied().collect::<Vec<_>>());
            prop_assert_eq!(b.iter().map(|i| i as usize).collect::<Vec<_>>(), model.iter().copied().collect::<Vec<_>>());
            for w in 0..n.div_ceil(64) {
                let expect = model.range(w * 64..(w + 1) * 64).fold(0u64, |a, &i| a | 1 << (i % 64));
                prop_assert_eq!(b.word(w), expect);
            }
        }
    }

    proptest! {
        /// Inserted and removed past the room given and across summary
        /// words, it holds what a tree set holds, in its order.
        #[test]
        fn grows_as_a_tree_set_does(
            ops in proptest::collection::vec((any::<bool>(), prop_oneof![0usize..70, 4000usize..4200, 9000usize..9100]), 1..300)
        ) {
            let mut bits = SummedBits::new(10, false);
            let mut model = BTreeSet::new();
            for (add, c) in ops {
                if add {
                    prop_assert_eq!(bits.insert(c), model.insert(c));
                } else {
                    prop_assert_eq!(bits.remove(c), model.remove(&c));
                }
                prop_assert_eq!(bits.iter().map(|i| i as usize).collect::<Vec<_>>(), model.iter().copied().collect::<Vec<_>>());
            }
            bits.clear_all();
            prop_assert_eq!(bits.iter().next(), None);
        }
    }
}
