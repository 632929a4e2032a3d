//! One class's waiting jobs in walk order: (policy key, arrival rank),
//! sorted, no repeats.
//!
//! Under most policies jobs join a class in walk order and leave from its
//! head (fifo's keys are all equal and ranks rise), so the order is kept in
//! a ring: a join is a push at the back, a start a pop at the front, with
//! no tree to search or rebalance. A join or a leave that would move more
//! than `SHIFT` entries turns the class into a B-tree until it is cleared;
//! both hold the same set, so which one holds it never shows.

use std::collections::{BTreeSet, VecDeque};
use std::ops::Bound;

pub(super) type Entry = (u64, u32);

/// Entries a ring may shift for one join or leave before it becomes a tree.
const SHIFT: usize = 32;

#[derive(Debug, Clone)]
pub(crate) enum Order {
    Ring(VecDeque<Entry>),
    Tree(BTreeSet<Entry>),
}

impl Default for Order {
    fn default() -> Order {
        Order::Ring(VecDeque::new())
    }
}

impl Order {
    /// Adds `e`; false if it was there.
    pub(crate) fn insert(&mut self, e: Entry) -> bool {
        let ring = match self {
            Order::Tree(t) => return t.insert(e),
            Order::Ring(r) => r,
        };
        if ring.back().is_none_or(|&b| b < e) {
            ring.push_back(e);
            return true;
        }
        match ring.binary_search(&e) {
            Ok(_) => false,
            Err(i) if i.min(ring.len() - i) <= SHIFT => {
                ring.insert(i, e);
                true
            }
            Err(_) => self.as_tree().insert(e),
        }
    }

    /// Takes `e` out; false if it was not there.
    pub(crate) fn remove(&mut self, e: &Entry) -> bool {
        let ring = match self {
            Order::Tree(t) => return t.remove(e),
            Order::Ring(r) => r,
        };
        if ring.front() == Some(e) {
            ring.pop_front();
            return true;
        }
        match ring.binary_search(e) {
            Err(_) => false,
            Ok(i) if i.min(ring.len() - 1 - i) <= SHIFT => {
                ring.remove(i);
                true
            }
            Ok(_) => self.as_tree().remove(e),
        }
    }

    fn as_tree(&mut self) -> &mut BTreeSet<Entry> {
        if let Order::Ring(r) = self {
            *self = Order::Tree(r.drain(..).collect());
        }
        match self {
            Order::Tree(t) => t,
            Order::Ring(_) => unreachable!("just made a tree"),
        }
    }

    pub(crate) fn first(&self) -> Option<Entry> {
        match self {
            Order::Ring(r) => r.front().copied(),
            Order::Tree(t) => t.first().copied(),
        }
    }

    /// The first entry after `e` (`inclusive`: at or after).
    pub(crate) fn after(&self, e: Entry, inclusive: bool) -> Option<Entry> {
        match self {
            Order::Ring(r) => {
                let i = r.partition_point(|&x| x < e || (!inclusive && x == e));
                r.get(i).copied()
            }
            Order::Tree(t) => {
                let from = if inclusive {
                    Bound::Included(e)
                } else {
                    Bound::Excluded(e)
                };
                t.range((from, Bound::Unbounded)).next().copied()
            }
        }
    }

    /// How many entries come before `e`.
    pub(crate) fn before(&self, e: Entry) -> usize {
        match self {
            Order::Ring(r) => r.partition_point(|&x| x < e),
            Order::Tree(t) => t.range(..e).count(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Order::Ring(r) => r.len(),
            Order::Tree(t) => t.len(),
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every entry in order.
    pub(crate) fn iter(&self) -> Box<dyn Iterator<Item = &Entry> + '_> {
        match self {
            Order::Ring(r) => Box::new(r.iter()),
            Order::Tree(t) => Box::new(t.iter()),
        }
    }

    /// Empties the order, back to a ring.
    pub(crate) fn clear(&mut self) {
        match self {
            Order::Ring(r) => r.clear(),
            Order::Tree(_) => *self = Order::default(),
        }
    }

    /// Bytes held (a tree counted by entries).
    pub(crate) fn held_bytes(&self) -> usize {
        match self {
            Order::Ring(r) => r.capacity() * 16,
            Order::Tree(t) => t.len() * 24,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The same answers as a B-tree set for any mix of joins, leaves and
        /// queries, whichever form the order is in at the time.
        #[test]
        fn order_matches_a_tree(ops in proptest::collection::vec((0u8..4, 0u64..3, 0u32..200), 1..600)) {
            let (mut o, mut t) = (Order::default(), BTreeSet::new());
            for (op, k, r) in ops {
                let e = (k, r);
                match op {
                    0 | 1 => prop_assert_eq!(o.insert(e), t.insert(e)),
                    2 => prop_assert_eq!(o.remove(&e), t.remove(&e)),
                    _ => {
                        let next = |inc| t.range((if inc { Bound::Included(e) } else { Bound::Excluded(e) }, Bound::Unbounded)).next().copied();
                        prop_assert_eq!(o.after(e, true), next(true));
                        prop_assert_eq!(o.after(e, false), next(false));
                        prop_assert_eq!(o.before(e), t.range(..e).count());
                    }
                }
                prop_assert_eq!(o.first(), t.first().copied());
                prop_assert_eq!(o.len(), t.len());
            }
            prop_assert!(o.iter().copied().eq(t.iter().copied()));
            o.clear();
            prop_assert!(matches!(o, Order::Ring(_)) && o.is_empty());
        }

        /// Joins in walk order and starts from the head keep the ring.
        #[test]
        fn fifo_use_stays_a_ring(n in 1u32..500) {
            let mut o = Order::default();
            for r in 0..n {
                o.insert((0, r));
                if r % 3 == 0 {
                    let head = o.first().unwrap();
                    o.remove(&head);
                }
            }
            prop_assert!(matches!(o, Order::Ring(_)));
        }
    }

    #[test]
    fn a_leave_deep_inside_a_long_ring_makes_a_tree() {
        let mut o = Order::default();
        for r in 0..100 {
            o.insert((0, r));
        }
        assert!(o.remove(&(0, 10)), "near the front: shifted in the ring");
        assert!(matches!(o, Order::Ring(_)));
        assert!(o.remove(&(0, 50)));
        assert!(matches!(o, Order::Tree(_)));
        assert_eq!(o.len(), 98);
        assert_eq!(o.after((0, 49), false), Some((0, 51)));
    }
}
