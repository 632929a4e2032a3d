//! Keys (hashes already: `texts::key` and its 64-bit folds) to their first
//! place in a list the caller keeps: hashbrown's `HashTable` of 4-byte
//! indexes (as `seen.rs` keeps ids), where a hash map would hold a copy of
//! every key beside its index (36 bytes an entry for a 128-bit key, 4 and
//! a control byte here, at millions of PAI rows).

use hashbrown::hash_table::{Entry, HashTable};

/// A key that is a hash already: its bits fold to a table hash.
pub trait HashKey: Copy + Eq {
    fn fold(self) -> u64;
}

impl HashKey for u64 {
    fn fold(self) -> u64 {
        (self >> 32) ^ self
    }
}

impl HashKey for u128 {
    fn fold(self) -> u64 {
        (self >> 64) as u64 ^ self as u64
    }
}

#[derive(Debug, Clone, Default)]
pub struct KeyTable {
    table: HashTable<u32>,
}

impl KeyTable {
    /// The table over `keys`, each key at its first place.
    pub fn of<K: HashKey>(keys: &[K]) -> KeyTable {
        let mut t = KeyTable {
            table: HashTable::with_capacity(keys.len()),
        };
        for i in 0..keys.len() as u32 {
            let _ = t.insert(keys, i);
        }
        t
    }

    /// Adds `keys[i]` unless its key is there; `Err(first)` with the place
    /// of the one there.
    pub fn insert<K: HashKey>(&mut self, keys: &[K], i: u32) -> Result<(), u32> {
        let k = keys[i as usize];
        let same = |&s: &u32| keys[s as usize] == k;
        match self
            .table
            .entry(k.fold(), same, |&s| keys[s as usize].fold())
        {
            Entry::Occupied(e) => Err(*e.get()),
            Entry::Vacant(e) => {
                e.insert(i);
                Ok(())
            }
        }
    }

    /// The place of key `k` in `keys`.
    pub fn find<K: HashKey>(&self, keys: &[K], k: K) -> Option<u32> {
        self.table
            .find(k.fold(), |&s| keys[s as usize] == k)
            .copied()
    }

    /// Bytes held: an index and a control byte a bucket.
    pub fn held_bytes(&self) -> usize {
        let buckets = if self.table.capacity() == 0 {
            0
        } else {
            (self.table.capacity() * 8 / 7).next_power_of_two()
        };
        buckets * 5
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Finds what a map from key to its first place finds, with keys
    /// crowding one slot, repeated keys and growth on the way.
    #[test]
    fn finds_the_first_place_of_each_key() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut keys: Vec<u128> = Vec::new();
        let mut grown = KeyTable::default();
        let mut first: HashMap<u128, u32> = HashMap::new();
        for i in 0..5000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let k = match i % 4 {
                0 => ((x % 300) as u128) << 80, // the same low bits: one home slot
                1 if i > 1 => keys[(x % i as u64) as usize],
                _ => x as u128 | (x as u128) << 64,
            };
            keys.push(k);
            let had = first.get(&k).copied();
            first.entry(k).or_insert(i);
            assert_eq!(grown.insert(&keys, i), had.map_or(Ok(()), Err));
        }
        let built = KeyTable::of(&keys);
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(built.find(&keys, k), Some(first[&k]), "key {i}");
            assert_eq!(grown.find(&keys, k), Some(first[&k]), "key {i}");
        }
        let missing = (1..1000u128)
            .map(|m| m * 7919)
            .find(|m| !first.contains_key(m));
        assert_eq!(built.find(&keys, missing.expect("a key not held")), None);
        assert_eq!(KeyTable::default().find(&keys, 5), None);
    }
}
