//! A set of small numbers (shape classes) as bits: a join or a leave flips
//! one bit, and a walk reads set bits in ascending order, skipping empty
//! stretches 4,096 numbers at a time through a summary word per 64 words.

/// The classes with waiting jobs, ascending.
#[derive(Debug, Clone, Default)]
pub struct ClassSet {
    words: Vec<u64>,
    /// Bit `w % 64` of `summary[w / 64]` is set while `words[w]` is not 0.
    summary: Vec<u64>,
    len: usize,
}

impl ClassSet {
    /// A set that can hold the numbers below `n` without growing.
    pub fn with_room(n: usize) -> ClassSet {
        let words = n.div_ceil(64);
        ClassSet {
            words: vec![0; words],
            summary: vec![0; words.div_ceil(64)],
            len: 0,
        }
    }

    /// Adds `c`; false if it was there.
    #[inline]
    pub fn insert(&mut self, c: u32) -> bool {
        let w = c as usize / 64;
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
            self.summary.resize(self.words.len().div_ceil(64), 0);
        }
        let bit = 1u64 << (c % 64);
        let word = &mut self.words[w];
        if *word & bit != 0 {
            return false;
        }
        *word |= bit;
        self.summary[w / 64] |= 1 << (w % 64);
        self.len += 1;
        true
    }

    /// Takes `c` out; false if it was not there.
    #[inline]
    pub fn remove(&mut self, c: u32) -> bool {
        let w = c as usize / 64;
        let bit = 1u64 << (c % 64);
        let Some(word) = self.words.get_mut(w) else {
            return false;
        };
        if *word & bit == 0 {
            return false;
        }
        *word &= !bit;
        if *word == 0 {
            self.summary[w / 64] &= !(1 << (w % 64));
        }
        self.len -= 1;
        true
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn clear(&mut self) {
        self.words.fill(0);
        self.summary.fill(0);
        self.len = 0;
    }

    /// The members, ascending.
    pub fn iter(&self) -> Members<'_> {
        Members {
            set: self,
            top: 0,
            top_bits: self.summary.first().copied().unwrap_or(0),
            word: 0,
            bits: 0,
        }
    }
}

/// The members of a `ClassSet`, ascending.
pub struct Members<'a> {
    set: &'a ClassSet,
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
    use super::ClassSet;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        /// The bits hold what a tree set holds, in its order, growing past
        /// the room given and across summary words.
        #[test]
        fn a_class_set_matches_a_tree_set(
            ops in proptest::collection::vec((any::<bool>(), prop_oneof![0u32..70, 4000u32..4200, 9000u32..9100]), 1..300)
        ) {
            let mut bits = ClassSet::with_room(10);
            let mut model = BTreeSet::new();
            for (add, c) in ops {
                if add {
                    prop_assert_eq!(bits.insert(c), model.insert(c));
                } else {
                    prop_assert_eq!(bits.remove(c), model.remove(&c));
                }
                prop_assert_eq!(bits.len(), model.len());
                prop_assert_eq!(bits.iter().collect::<Vec<_>>(), model.iter().copied().collect::<Vec<_>>());
            }
            bits.clear();
            prop_assert_eq!(bits.iter().next(), None);
        }
    }
}
