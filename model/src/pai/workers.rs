//! Worker names to instances, for joining the sensor and machine-metric
//! tables: each instance's 64-bit worker key and a `KeyTable` over them
//! (about 14 bytes an instance while the side index is built, where a hash
//! map of keys took 36).

use super::PaiTables;
use crate::key_table::KeyTable;

pub(super) struct Workers {
    /// Per instance: the short join key of its worker name.
    keys: Vec<u64>,
    /// Each key's first instance.
    table: KeyTable,
}

/// The 64 bits of a 128-bit join key used by the side index.
pub(super) fn short(k: u128) -> u64 {
    (k >> 64) as u64 ^ k as u64
}

impl Workers {
    pub(super) fn of(t: &PaiTables) -> Workers {
        let keys: Vec<u64> = t.instances.iter().map(|i| i.worker).collect();
        Workers {
            table: KeyTable::of(&keys),
            keys,
        }
    }

    /// The first instance whose worker has short key `k`.
    pub(super) fn find(&self, k: u64) -> Option<u32> {
        self.table.find(&self.keys, k)
    }

    /// The first instance of instance `i`'s worker.
    pub(super) fn first_of(&self, i: u32) -> u32 {
        self.find(self.keys[i as usize]).unwrap_or(i)
    }
}
