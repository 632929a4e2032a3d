//! Worker names to instances, for joining the sensor and machine-metric
//! tables: an open-addressing table of instance numbers over each
//! instance's 64-bit worker key (about 16 bytes an instance while the side
//! index is built, where a hash map of keys took 36).

use super::tables::InstanceRow;
use super::PaiTables;

pub struct Workers {
    /// Per instance: the short join key of its worker name.
    keys: Vec<u64>,
    /// Instance + 1 (0: empty), placed by key; the first instance of a
    /// worker is the one kept.
    slots: Vec<u32>,
}

/// The 64 bits of a 128-bit join key used by the side index.
pub fn short(k: u128) -> u64 {
    (k >> 64) as u64 ^ k as u64
}

impl Workers {
    pub fn of(t: &PaiTables) -> Workers {
        let keys: Vec<u64> = t
            .instances
            .iter()
            .map(|i| short(t.inst_texts.key_in(i.texts, InstanceRow::WORKER_NAME)))
            .collect();
        Workers::from_keys(keys)
    }

    /// The table over instances' worker keys, in instance order.
    fn from_keys(keys: Vec<u64>) -> Workers {
        let size = (keys.len() * 10 / 7 + 1).next_power_of_two().max(16);
        let mut w = Workers {
            keys,
            slots: vec![0; size],
        };
        for i in 0..w.keys.len() {
            let k = w.keys[i];
            let mut at = w.home(k);
            loop {
                match w.slots[at] {
                    0 => {
                        w.slots[at] = i as u32 + 1;
                        break;
                    }
                    s if w.keys[s as usize - 1] == k => break,
                    _ => at = (at + 1) & (w.slots.len() - 1),
                }
            }
        }
        w
    }

    fn home(&self, k: u64) -> usize {
        // The key is a hash already; fold its halves for the low bits.
        ((k >> 32) ^ k) as usize & (self.slots.len() - 1)
    }

    /// The first instance whose worker has short key `k`.
    pub fn find(&self, k: u64) -> Option<u32> {
        let mut at = self.home(k);
        loop {
            match self.slots[at] {
                0 => return None,
                s if self.keys[s as usize - 1] == k => return Some(s - 1),
                _ => at = (at + 1) & (self.slots.len() - 1),
            }
        }
    }

    /// The first instance of instance `i`'s worker.
    pub fn first_of(&self, i: u32) -> u32 {
        self.find(self.keys[i as usize]).unwrap_or(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Found as a map from key to its first instance finds them, with
    /// keys crowding one slot and workers shared by several instances.
    #[test]
    fn finds_the_first_instance_of_each_worker() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut keys = Vec::new();
        for i in 0..5000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            keys.push(match i % 4 {
                0 => (x % 300) << 40, // the same low bits: one home slot
                1 => keys[(x % (i.max(1))) as usize % keys.len().max(1)],
                _ => x,
            });
        }
        let w = Workers::from_keys(keys.clone());
        let mut first: HashMap<u64, u32> = HashMap::new();
        for (i, &k) in keys.iter().enumerate() {
            first.entry(k).or_insert(i as u32);
        }
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(w.find(k), Some(first[&k]));
            assert_eq!(w.first_of(i as u32), first[&k]);
        }
        let missing = (0..1000u64)
            .map(|m| m * 7919 + 1)
            .find(|m| !first.contains_key(m));
        assert_eq!(w.find(missing.expect("a key not held")), None);
    }
}
