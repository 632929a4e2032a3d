//! Joining rows to jobs by a key, guessing the next row first.

use super::tables::{opt_idx, NONE_IDX};
use super::PaiTables;
use crate::key_table::KeyTable;
use crate::model::Symbols;

/// Finding a job by a key, trying the row after the last one found first:
/// the released tables list a job's rows together, so the guess almost
/// always hits and the hash map (a cache miss at this size) is the fallback.
pub(crate) struct JoinIndex {
    /// Per job row, the key (`texts::key`) of the name joined on.
    pub keys: Vec<u128>,
    /// The rows by key.
    pub index: KeyTable,
}

impl JoinIndex {
    /// The index of `keys`, one per job row.
    pub(crate) fn new(keys: Vec<u128>) -> JoinIndex {
        JoinIndex {
            index: KeyTable::of(&keys),
            keys,
        }
    }

    /// The row whose key is `k`, trying `guess` and the row after it first;
    /// `guess` is left at the row found.
    pub(crate) fn find(&self, k: u128, guess: &mut usize) -> Option<u32> {
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

/// Links each instance to its task row, by job and task name.
pub(super) fn resolve_tasks(t: &mut PaiTables, symbols: &Symbols) {
    // Instance task-name symbols → main symbols, by string.
    let map: Vec<Option<u32>> = (0..t.inst_symbols.len() as u32)
        .map(|i| {
            symbols
                .lookup(t.inst_symbols.get(crate::model::Sym::new(i)))
                .map(|s| s.index())
        })
        .collect();
    for inst in &mut t.instances {
        let Some(Some(name)) = opt_idx(inst.task_name).map(|n| map[n as usize]) else {
            continue;
        };
        let (a, b) = t.tasks_of[inst.job as usize];
        inst.task = t.task_order[a as usize..b as usize]
            .iter()
            .copied()
            .find(|&ti| t.tasks[ti as usize].task_name.map(|s| s.index()) == Some(name))
            .unwrap_or(NONE_IDX);
    }
}
