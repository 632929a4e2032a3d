//! Who holds each GPU. Almost every GPU is held whole by one job or by
//! none, so that is one flat slot per GPU (a start or an end writes it, no
//! list to search or shift); the few GPUs several jobs share (fractions, a
//! recorded replay that overflows a GPU) keep their holders in a side map.

use rustc_hash::FxHashMap;

/// A sole holder's share when nobody holds the GPU.
const NOBODY: u16 = 0;
/// A sole holder's share when the holders are in `shared`.
const MANY: u16 = u16::MAX;

/// Every holder of every GPU, with its share in milli-GPUs, sorted by job.
#[derive(Debug, Clone)]
pub(super) struct Holders {
    /// Per GPU: its one holder and share; a share of `NOBODY` (nobody holds
    /// it) or `MANY` (see `shared`) marks the other cases.
    sole: Vec<(u32, u16)>,
    /// GPU → its holders, sorted by job, when `sole` cannot hold them: more
    /// than one, or a share that reads as a mark.
    shared: FxHashMap<u32, Vec<(u32, u16)>>,
}

impl Holders {
    pub(super) fn new(gpus: usize) -> Holders {
        Holders {
            sole: vec![(0, NOBODY); gpus],
            shared: FxHashMap::default(),
        }
    }

    /// Bytes held.
    pub(super) fn held_bytes(&self) -> usize {
        let lists: usize = self.shared.values().map(|v| 40 + v.capacity() * 8).sum();
        self.sole.capacity() * 8 + self.shared.capacity() * 8 + lists
    }

    /// The holders of GPU `flat`, sorted by job.
    pub(super) fn of(&self, flat: usize) -> &[(u32, u16)] {
        match self.sole[flat].1 {
            NOBODY => &[],
            MANY => self.shared.get(&(flat as u32)).map_or(&[], |v| v),
            _ => std::slice::from_ref(&self.sole[flat]),
        }
    }

    /// Adds `job` with `milli` to GPU `flat` (before any holder with the same job).
    #[inline]
    pub(super) fn add(&mut self, flat: usize, job: u32, milli: u16) {
        let sole = self.sole[flat];
        if sole.1 == NOBODY && milli != NOBODY && milli != MANY {
            self.sole[flat] = (job, milli);
            return;
        }
        let list = self.shared.entry(flat as u32).or_default();
        if sole.1 != NOBODY && sole.1 != MANY {
            list.push(sole);
        }
        let at = list.partition_point(|&(j, _)| j < job);
        list.insert(at, (job, milli));
        self.sole[flat] = (0, MANY);
    }

    /// Takes the first holding of `job` with `milli` off GPU `flat`, if it is there.
    #[inline]
    pub(super) fn remove(&mut self, flat: usize, job: u32, milli: u16) {
        let sole = self.sole[flat];
        if sole.1 != MANY {
            if sole.1 != NOBODY && sole == (job, milli) {
                self.sole[flat] = (0, NOBODY);
            }
            return;
        }
        let key = flat as u32;
        let Some(list) = self.shared.get_mut(&key) else {
            return;
        };
        if let Some(i) = list.iter().position(|&h| h == (job, milli)) {
            list.remove(i);
        }
        match list[..] {
            [] => {
                self.sole[flat] = (0, NOBODY);
                self.shared.remove(&key);
            }
            [one] if one.1 != NOBODY && one.1 != MANY => {
                self.sole[flat] = one;
                self.shared.remove(&key);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Holders;
    use proptest::prelude::*;

    proptest! {
        /// The flat slots and side map hold exactly what a sorted list per
        /// GPU holds, through any adds and removes, marks' values included.
        #[test]
        fn holders_match_a_sorted_list_per_gpu(
            ops in proptest::collection::vec(
                (any::<bool>(), 0usize..4, 0u32..5, prop_oneof![
                    Just(0u16), Just(1000u16), Just(400u16), Just(600u16), Just(u16::MAX)
                ]),
                1..400,
            )
        ) {
            let mut h = Holders::new(4);
            let mut model: Vec<Vec<(u32, u16)>> = vec![Vec::new(); 4];
            for (add, gpu, job, milli) in ops {
                let list = &mut model[gpu];
                if add {
                    h.add(gpu, job, milli);
                    let at = list.partition_point(|&(j, _)| j < job);
                    list.insert(at, (job, milli));
                } else {
                    h.remove(gpu, job, milli);
                    if let Some(i) = list.iter().position(|&x| x == (job, milli)) {
                        list.remove(i);
                    }
                }
                for (g, list) in model.iter().enumerate() {
                    prop_assert_eq!(h.of(g), &list[..]);
                }
                prop_assert!(h.shared.values().all(|v| v.len() > 1 || v.iter().any(|x| x.1 == 0 || x.1 == u16::MAX)));
            }
        }
    }
}
