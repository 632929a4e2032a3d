//! The free-capacity index of one GPU type: machines by how many GPUs they
//! have free, as bitsets over machine numbers (a change flips a bit; a query
//! reads the lowest set bit), and the partly used GPUs for fractions.

use super::summed_bits::SummedBits;
use std::collections::BTreeSet;

/// A set of machine numbers as bits, over the span of words it ever held
/// (the machines of one type, usually contiguous), with its size.
#[derive(Debug, Clone, Default)]
pub(super) struct Machines {
    /// The word of machine `64 * first` is `words[0]`.
    first: u32,
    words: Vec<u64>,
    len: u32,
}

impl Machines {
    pub(super) fn insert(&mut self, m: u32) {
        let w = m / 64;
        if self.words.is_empty() {
            self.first = w;
            self.words.push(0);
        } else if w < self.first {
            let more = (self.first - w) as usize;
            self.words.splice(0..0, std::iter::repeat_n(0, more));
            self.first = w;
        } else if (w - self.first) as usize >= self.words.len() {
            self.words.resize((w - self.first) as usize + 1, 0);
        }
        let word = &mut self.words[(w - self.first) as usize];
        let bit = 1u64 << (m % 64);
        self.len += u32::from(*word & bit == 0);
        *word |= bit;
    }

    pub(super) fn remove(&mut self, m: u32) {
        let Some(i) = (m / 64).checked_sub(self.first) else {
            return;
        };
        if let Some(word) = self.words.get_mut(i as usize) {
            let bit = 1u64 << (m % 64);
            self.len -= u32::from(*word & bit != 0);
            *word &= !bit;
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The members, ascending.
    pub(super) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        let first = self.first;
        self.words.iter().enumerate().flat_map(move |(i, &w)| {
            let base = (first as usize + i) as u32 * 64;
            set_bits(w).map(move |b| base + b)
        })
    }

    /// The lowest member.
    pub(super) fn lowest(&self) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let (i, w) = self.words.iter().enumerate().find(|(_, &w)| w != 0)?;
        Some((self.first + i as u32) * 64 + w.trailing_zeros())
    }
}

/// The set bits of `w`, ascending.
fn set_bits(mut w: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (w != 0).then(|| {
            let b = w.trailing_zeros();
            w &= w - 1;
            b
        })
    })
}

/// Free-capacity indices for the machines of one GPU type.
#[derive(Debug, Clone, Default)]
pub(super) struct TypeIndex {
    /// `by_free[f]`: machines with exactly `f > 0` free GPUs.
    pub by_free: Vec<Machines>,
    /// Bit `f` set when `by_free[f]` is not empty: a query walks the counts
    /// some machine has, not every count up to the largest machine's
    /// (1,024 on a single big node).
    levels: SummedBits,
    /// The machine sizes (GPUs) of this type, ascending: a whole free
    /// machine of `g` GPUs is one in `by_free[g]`.
    pub sizes: Vec<u32>,
    /// GPUs partly in use: (free milli, machine, gpu).
    pub partial: BTreeSet<(u16, u32, u16)>,
    pub free_gpus: u64,
    pub max_gpus: u32,
    pub total_gpus: u64,
}

impl TypeIndex {
    /// Bytes held.
    pub(super) fn held_bytes(&self) -> usize {
        let sets: usize = self
            .by_free
            .iter()
            .map(|m| 32 + m.words.capacity() * 8)
            .sum();
        sets + self.levels.capacity_bytes() + self.sizes.capacity() * 4 + self.partial.len() * 16
    }

    /// Makes room for machines of `gpus` GPUs.
    pub(super) fn fit(&mut self, gpus: u32) {
        if let Err(at) = self.sizes.binary_search(&gpus) {
            if gpus > 0 {
                self.sizes.insert(at, gpus);
            }
        }
        if self.by_free.len() <= gpus as usize {
            self.by_free.resize(gpus as usize + 1, Machines::default());
            self.levels.grow(gpus as usize + 1);
        }
    }

    pub(super) fn add(&mut self, free: u32, m: u32) {
        let set = &mut self.by_free[free as usize];
        set.insert(m);
        self.levels.set(free as usize);
    }

    pub(super) fn remove(&mut self, free: u32, m: u32) {
        let set = &mut self.by_free[free as usize];
        set.remove(m);
        if set.is_empty() {
            self.levels.clear(free as usize);
        }
    }

    /// The lowest free count from `k` up that some machine has.
    #[inline]
    pub(super) fn first_level_from(&self, k: u32) -> Option<u32> {
        self.levels.next_from(k as usize).map(|f| f as u32)
    }

    /// The free counts from `k` up that some machine has, ascending.
    pub(super) fn levels_from(&self, k: u32) -> impl Iterator<Item = u32> + '_ {
        self.levels.iter_from(k as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bit set holds what a tree set holds, growing either way.
    #[test]
    fn machines_match_a_tree_set() {
        let mut bits = Machines::default();
        let mut model = BTreeSet::new();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..5000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let m = (x % 1000) as u32 + 300 * ((x >> 40) % 3) as u32;
            if x.is_multiple_of(3) {
                bits.remove(m);
                model.remove(&m);
            } else {
                bits.insert(m);
                model.insert(m);
            }
            assert_eq!(bits.len as usize, model.len());
            assert_eq!(bits.lowest(), model.first().copied());
        }
        assert_eq!(
            bits.iter().collect::<Vec<_>>(),
            model.into_iter().collect::<Vec<_>>()
        );
    }
}
