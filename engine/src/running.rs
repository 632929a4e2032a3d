//! The GPUs each running job holds. Every job's grants live in one slab,
//! in a room of a power-of-two size; an ended job's room goes on a free
//! list of its size and the next job needing that size takes it. Once the
//! slab has grown to the busiest moment, a start or an end allocates
//! nothing, and finding a job's grants is two array reads, not a hash
//! lookup (a start and an end were a hash insert, a hash removal and an
//! allocation and a free of the list each).

use crate::cluster::Grant;

/// A running job's grants: `len` of them from slab index `at`, in a room
/// of `2^class(len)` grants.
#[derive(Debug, Clone, Copy)]
struct Span {
    job: u32,
    at: u32,
    len: u32,
}

/// The room class of `len` grants: rooms hold 2^class grants.
fn class(len: usize) -> usize {
    len.max(1).next_power_of_two().trailing_zeros() as usize
}

/// Running jobs and their grants. Their order (`keys`, `iter`) follows
/// starts and ends, not job numbers: anything whose order shows sorts what
/// it takes from here.
#[derive(Debug, Clone, Default)]
pub struct Running {
    /// job → 1 + its place in `live`; 0: not running. Per job, so a
    /// compact checkpoint leaves it out (see `take_places`).
    places: Vec<u32>,
    /// The running jobs' spans, densely (an end moves the last one into
    /// its place).
    live: Vec<Span>,
    slab: Vec<Grant>,
    /// `free[c]`: the starts of unused rooms of 2^c grants.
    free: Vec<Vec<u32>>,
}

impl Running {
    /// Room for jobs numbered below `n`.
    pub(crate) fn for_jobs(n: usize) -> Running {
        Running {
            places: vec![0; n],
            ..Running::default()
        }
    }

    /// How many jobs run now.
    pub fn len(&self) -> usize {
        self.live.len()
    }

    /// Whether no job runs.
    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }

    fn span(&self, job: u32) -> Option<Span> {
        let p = *self.places.get(job as usize)?;
        (p != 0).then(|| self.live[p as usize - 1])
    }

    /// The grants `job` holds, if it is running.
    pub fn get(&self, job: &u32) -> Option<&[Grant]> {
        self.span(*job).map(|s| self.slice(s))
    }

    /// The running jobs, in the order starts and ends left them (not job order).
    pub fn keys(&self) -> impl Iterator<Item = &u32> + '_ {
        self.live.iter().map(|s| &s.job)
    }

    /// The running jobs and their grants, in the order of `keys`.
    pub fn iter(&self) -> impl Iterator<Item = (&u32, &[Grant])> + '_ {
        self.live.iter().map(|s| (&s.job, self.slice(*s)))
    }

    /// Bytes held: the per-job places, the spans, the slab and the free lists.
    pub fn held_bytes(&self) -> usize {
        let free: usize = self.free.iter().map(|f| 24 + f.capacity() * 4).sum();
        self.places.capacity() * 4 + self.live.capacity() * 12 + self.slab.capacity() * 8 + free
    }

    /// The per-job places, taken out (for a compact checkpoint: this
    /// `Running` then answers nothing until `put_places`).
    pub(crate) fn take_places(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.places)
    }

    /// A copy of the per-job places (for an engine restored beside this one).
    pub(crate) fn places_copy(&self) -> Vec<u32> {
        self.places.clone()
    }

    /// Gives back the places `take_places` took from this `Running`.
    pub(crate) fn give_places(&mut self, places: Vec<u32>) {
        self.places = places;
    }

    /// Gives back per-job places taken from a `Running` whose running jobs
    /// were `was`'s: made this one's.
    pub(crate) fn put_places(&mut self, mut places: Vec<u32>, was: &Running) {
        for s in &was.live {
            places[s.job as usize] = 0;
        }
        for (i, s) in self.live.iter().enumerate() {
            places[s.job as usize] = i as u32 + 1;
        }
        self.places = places;
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
            ..Grant::default()
        };
        self.slab.resize(at + (1 << c), filler);
        // The slab would pass 2^32 grants only past 32 GB of grants.
        u32::try_from(at).expect("fewer than 2^32 grants held at once")
    }

    /// `job` now holds `grants` (in place of what it held before, if anything).
    pub fn insert(&mut self, job: u32, grants: &[Grant]) {
        let at = self.room(grants.len());
        let room = &mut self.slab[at as usize..at as usize + grants.len()];
        // A few grants as a loop, not a call to copy memory.
        for (to, from) in room.iter_mut().zip(grants) {
            *to = *from;
        }
        let span = Span {
            job,
            at,
            len: grants.len() as u32,
        };
        if self.places.len() <= job as usize {
            self.places.resize(job as usize + 1, 0);
        }
        match self.places[job as usize] {
            0 => {
                self.live.push(span);
                self.places[job as usize] = self.live.len() as u32;
            }
            p => {
                let old = std::mem::replace(&mut self.live[p as usize - 1], span);
                self.vacate(old);
            }
        }
    }

    fn vacate(&mut self, s: Span) {
        let c = class(s.len as usize);
        if self.free.len() <= c {
            self.free.resize_with(c + 1, Vec::new);
        }
        self.free[c].push(s.at);
    }

    /// Takes `job` off the running jobs; its grants stay readable (the
    /// slice returned) until the next change.
    pub fn end(&mut self, job: u32) -> Option<&[Grant]> {
        let p = std::mem::take(self.places.get_mut(job as usize)?);
        if p == 0 {
            return None;
        }
        let s = self.live.swap_remove(p as usize - 1);
        if let Some(moved) = self.live.get(p as usize - 1) {
            self.places[moved.job as usize] = p;
        }
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
    pub(crate) fn drop_each(&mut self, job: u32, gone: &[Grant]) {
        let Some(s) = self.span(job) else {
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
    use crate::cluster::Grant;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    fn grants(job: u32, n: u8) -> Vec<Grant> {
        (0..n as u16)
            .map(|g| Grant {
                machine: job,
                gpu: g,
                milli: 1000,
                ..Grant::default()
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
            let mut r = Running::for_jobs(4);
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

    /// A checkpoint leaves the per-job places out; going back to it puts
    /// the live engine's places right for the checkpoint's running jobs.
    #[test]
    fn places_follow_a_checkpoint_gone_back_to() {
        let mut live = Running::for_jobs(8);
        live.insert(1, &grants(1, 2));
        live.insert(5, &grants(5, 1));
        let mut checkpoint = live.clone();
        assert_eq!(checkpoint.take_places().len(), 8);
        live.insert(3, &grants(3, 4));
        assert!(live.end(1).is_some());
        let mut was = std::mem::take(&mut live);
        let places = was.take_places();
        let mut back = checkpoint.clone();
        back.put_places(places, &was);
        assert_eq!(back.get(&1), Some(&grants(1, 2)[..]));
        assert_eq!(back.get(&5), Some(&grants(5, 1)[..]));
        assert_eq!(back.get(&3), None);
        let mut jobs: Vec<u32> = back.keys().copied().collect();
        jobs.sort_unstable();
        assert_eq!(jobs, [1, 5]);
    }
}
