//! Joining rows to jobs by a key, guessing the next row first.

use crate::key_table::KeyTable;

/// Finding a job by a key, trying the row after the last one found first:
/// the released tables list a job's rows together, so the guess almost
/// always hits and the hash map (a cache miss at this size) is the fallback.
pub struct JoinIndex {
    pub keys: Vec<u128>,
    pub index: KeyTable,
}

impl JoinIndex {
    pub fn new(keys: Vec<u128>) -> JoinIndex {
        JoinIndex {
            index: KeyTable::of(&keys),
            keys,
        }
    }

    pub fn find(&self, k: u128, guess: &mut usize) -> Option<u32> {
        for g in [*guess, *guess + 1] {
            if self.keys.get(g) == Some(&k) {
                *guess = g;
                return Some(g as u32);
            }
        }
        let j = self.index.find(&self.keys, k)?;
        *guess = j as usize;
        Some(j)
    }
}
