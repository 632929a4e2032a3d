//! The GPUs each running job holds. Every job's grants live in one slab,
//! in a room of a power-of-two size; an ended job's room goes on a free
//! list of its size and the next job needing that size takes it. Once the
//! slab has grown to the busiest moment, a start or an end allocates
//! nothing (a list per job cost an allocation and a free per job).

use crate::sim::cluster::Grant;
use rustc_hash::FxHashMap;

/// A job's grants: `len` of them from slab index `at`, in a room of
/// `room(len)` grants.
#[derive(Debug, Clone, Copy)]
struct Span {
    at: u32,
    len: u32,
}

/// The room class of `len` grants: rooms hold 2^class grants.
fn class(len: usize) -> usize {
    len.max(1).next_power_of_two().trailing_zeros() as usize
}

/// Running jobs and their grants, by job index: a hash map underneath, so
/// anything whose order shows sorts what it takes from it.
#[derive(Debug, Clone, Default)]
pub struct Running {
    spans: FxHashMap<u32, Span>,
    slab: Vec<Grant>,
    /// `free[c]`: the starts of unused rooms of 2^c grants.
    free: Vec<Vec<u32>>,
}

impl Running {
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub fn contains_key(&self, job: &u32) -> bool {
        self.spans.contains_key(job)
    }

    /// The grants `job` holds, if it is running.
    pub fn get(&self, job: &u32) -> Option<&[Grant]> {
        self.spans.get(job).map(|s| self.slice(*s))
    }

    pub fn keys(&self) -> impl Iterator<Item = &u32> + '_ {
        self.spans.keys()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&u32, &[Grant])> + '_ {
        self.spans.iter().map(|(j, s)| (j, self.slice(*s)))
    }

    /// Bytes held: the table, the slab and the free lists.
    pub fn held_bytes(&self) -> usize {
        let free: usize = self.free.iter().map(|f| 24 + f.capacity() * 4).sum();
        self.spans.capacity() * 16 + self.slab.capacity() * 8 + free
    }

    fn slice(&self, s: Span) -> &[Grant] {
        &self.slab[s.at as usize..(s.at + s.len) as usize]
    }

    /// A room for `len` grants.
    fn room(&mut self, len: usize) -> u32 {
        let c = class(len);
        if let Some(at) = self.free.get_mut(c).and_then(|f| f.pop()) {
            return at;
        }
        let at = self.slab.len();
        let filler = Grant {
            machine: 0,
            gpu: 0,
            milli: 0,
        };
        self.slab.resize(at + (1 << c), filler);
        // The slab would pass 2^32 grants only past 32 GB of grants.
        u32::try_from(at).expect("fewer than 2^32 grants held at once")
    }

    fn vacate(&mut self, s: Span) {
        let c = class(s.len as usize);
        if self.free.len() <= c {
            self.free.resize_with(c + 1, Vec::new);
        }
        self.free[c].push(s.at);
    }

    /// `job` now holds `grants` (in place of what it held before, if anything).
    pub fn insert(&mut self, job: u32, grants: &[Grant]) {
        if let Some(old) = self.spans.remove(&job) {
            self.vacate(old);
        }
        let at = self.room(grants.len());
        self.slab[at as usize..at as usize + grants.len()].copy_from_slice(grants);
        let len = grants.len() as u32;
        self.spans.insert(job, Span { at, len });
    }

    /// Takes `job` off the running jobs; its grants stay readable (the
    /// slice returned) until the next change.
    pub fn end(&mut self, job: u32) -> Option<&[Grant]> {
        let s = self.spans.remove(&job)?;
        self.vacate(s);
        Some(self.slice(s))
    }

    /// Takes `job` off the running jobs, with a copy of its grants.
    pub fn remove(&mut self, job: &u32) -> Option<Vec<Grant>> {
        self.end(*job).map(|g| g.to_vec())
    }

    /// Adds `more` grants to `job` (running it with none first if it was not).
    pub fn extend(&mut self, job: u32, more: &[Grant]) {
        let mut all = self.get(&job).map(|g| g.to_vec()).unwrap_or_default();
        all.extend_from_slice(more);
        self.insert(job, &all);
    }

    /// Takes one grant equal to each of `gone` off `job`, if it holds them.
    pub fn drop_each(&mut self, job: u32, gone: &[Grant]) {
        let Some(&s) = self.spans.get(&job) else {
            return;
        };
        let mut held = self.slice(s).to_vec();
        for g in gone {
            if let Some(i) = held.iter().position(|h| h == g) {
                held.remove(i);
            }
        }
        self.insert(job, &held);
    }
}

impl std::ops::Index<&u32> for Running {
    type Output = [Grant];

    fn index(&self, job: &u32) -> &[Grant] {
        self.get(job).expect("a running job")
    }
}

#[cfg(test)]
mod tests {
    use super::Running;
    use crate::sim::cluster::Grant;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    fn grants(job: u32, n: u8) -> Vec<Grant> {
        (0..n as u16)
            .map(|g| Grant {
                machine: job,
                gpu: g,
                milli: 1000,
            })
            .collect()
    }

    proptest! {
        /// The slab holds what a map of lists holds, through starts, ends,
        /// extensions and partial drops, with rooms reused and never shared.
        #[test]
        fn running_matches_a_map_of_lists(
            ops in proptest::collection::vec((0u8..4, 0u32..12, 0u8..20), 1..300)
        ) {
            let mut r = Running::default();
            let mut model: BTreeMap<u32, Vec<Grant>> = BTreeMap::new();
            for (op, job, n) in ops {
                let g = grants(job, n);
                match op {
                    0 => {
                        r.insert(job, &g);
                        model.insert(job, g);
                    }
                    1 => prop_assert_eq!(r.remove(&job), model.remove(&job)),
                    2 => {
                        r.extend(job, &g);
                        model.entry(job).or_default().extend_from_slice(&g);
                    }
                    _ => {
                        let gone = &g[..g.len() / 2];
                        r.drop_each(job, gone);
                        if let Some(held) = model.get_mut(&job) {
                            for x in gone {
                                if let Some(i) = held.iter().position(|h| h == x) {
                                    held.remove(i);
                                }
                            }
                        }
                    }
                }
                prop_assert_eq!(r.len(), model.len());
                for (j, held) in &model {
                    prop_assert_eq!(r.get(j), Some(&held[..]));
                }
            }
            // Every room live or free is used once: the slab never outgrows
            // what the busiest moment needs by more than the rounding.
            let live: usize = model.values().map(|g| g.len().max(1).next_power_of_two()).sum();
            prop_assert!(r.slab.len() >= live);
        }
    }
}
