//! The waiting queue, split into classes of jobs with the same shape
//! (demand and GPU-type constraint).
//!
//! Jobs of one shape get the same placement answer from a given cluster
//! state, so a scheduling pass only asks each class's head whether it fits,
//! instead of asking every waiting job. That keeps a pass over a queue of
//! thousands to a handful of placement queries, with exactly the result of
//! walking the whole queue in order.

use super::cluster::TypeFilter;
use super::order::Order;
use super::summed_bits::SummedBits;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use tracetui_model::{Demand, Trace};

/// Shape classes, fixed for a trace.
#[derive(Debug)]
pub(crate) struct Shapes {
    /// Jobs in arrival order (submit, then trace order): rank → job.
    pub arrival: Vec<u32>,
    /// job → rank.
    pub rank: Vec<u32>,
    /// job → class.
    pub class_of: Vec<u32>,
    /// class → (demand, type filter).
    pub shapes: Vec<(Demand, TypeFilter)>,
    /// class → the CPU and memory it asks of each machine.
    pub asks: Vec<super::shape_classes::Asks>,
    /// Each class's members in arrival order, built the first time a
    /// backfill walk needs them (10 MB at 1.26 M jobs the other walks
    /// never touch).
    members: std::sync::OnceLock<Members>,
}

impl Shapes {
    /// Whether any job asks CPU or memory of its machines.
    pub(crate) fn ask_host(&self) -> bool {
        let of_units =
            |d: &Demand| matches!(d, Demand::Instances(u) if u.iter().any(|u| u.asks_host()));
        self.asks
            .iter()
            .any(|a| *a != super::shape_classes::Asks::default())
            || self.shapes.iter().any(|(d, _)| of_units(d))
    }
}

/// The members of every class, for backfill.
#[derive(Debug)]
pub(crate) struct Members {
    /// class → its jobs' ranks in arrival order.
    pub of: Vec<Vec<u32>>,
    /// job → position within its class's members.
    pub pos: Vec<u32>,
}

impl Shapes {
    pub(crate) fn new(trace: &Trace) -> Shapes {
        let c = super::shape_classes::classes(trace);
        Shapes {
            arrival: c.arrival,
            rank: c.rank,
            class_of: c.class_of,
            shapes: c.shapes,
            asks: c.asks,
            members: std::sync::OnceLock::new(),
        }
    }

    /// Each class's members in arrival order (built on first use).
    pub(crate) fn members(&self) -> &Members {
        self.members.get_or_init(|| {
            let mut of: Vec<Vec<u32>> = vec![Vec::new(); self.shapes.len()];
            let mut pos = vec![0u32; self.class_of.len()];
            for (r, &j) in self.arrival.iter().enumerate() {
                let c = self.class_of[j as usize] as usize;
                pos[j as usize] = of[c].len() as u32;
                of[c].push(r as u32);
            }
            Members { of, pos }
        })
    }
}

/// A min-tree over a class's members: the first waiting member with a run
/// time at most X, for EASY backfill.
#[derive(Debug, Clone)]
pub(crate) struct MinTree {
    size: usize,
    v: Vec<u64>,
}

impl MinTree {
    pub(crate) fn new(n: usize) -> MinTree {
        let size = n.next_power_of_two().max(1);
        MinTree {
            size,
            v: vec![u64::MAX; 2 * size],
        }
    }

    pub(crate) fn set(&mut self, i: usize, value: u64) {
        let mut k = i + self.size;
        self.v[k] = value;
        while k > 1 {
            k /= 2;
            self.v[k] = self.v[2 * k].min(self.v[2 * k + 1]);
        }
    }

    /// The lowest index at or after `from` whose value is at most `x`.
    pub(crate) fn first_at_most(&self, from: usize, x: u64) -> Option<usize> {
        self.search(1, 0, self.size, from, x)
    }

    fn search(&self, node: usize, lo: usize, hi: usize, from: usize, x: u64) -> Option<usize> {
        if hi <= from || self.v[node] > x {
            return None;
        }
        if node >= self.size {
            return Some(lo);
        }
        let mid = (lo + hi) / 2;
        self.search(2 * node, lo, mid, from, x)
            .or_else(|| self.search(2 * node + 1, mid, hi, from, x))
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) struct ClassQueue {
    /// (policy key, rank), in walk order.
    pub order: Order,
    /// The capacity epoch in which this class's head last failed to fit.
    pub failed_epoch: Option<u64>,
    /// Run times of waiting members (backfill only).
    pub short: Option<MinTree>,
}

/// The waiting jobs, by class.
#[derive(Debug, Clone, Default)]
pub(crate) struct Queue {
    pub classes: Vec<ClassQueue>,
    /// Classes with at least one waiting job.
    pub(super) active: SummedBits,
    len: usize,
}

impl Queue {
    pub(crate) fn new(classes: usize) -> Queue {
        Queue {
            classes: vec![ClassQueue::default(); classes],
            active: SummedBits::new(classes, false),
            len: 0,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Bytes held (trees counted by entries).
    pub(crate) fn held_bytes(&self) -> usize {
        let classes: usize = self
            .classes
            .iter()
            .map(|c| 64 + c.order.held_bytes() + c.short.as_ref().map_or(0, |t| t.v.capacity() * 8))
            .sum();
        classes + self.active.capacity_bytes()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(crate) fn insert(&mut self, class: u32, key: u64, rank: u32) {
        if self.classes[class as usize].order.insert((key, rank)) {
            self.len += 1;
            self.active.insert(class as usize);
        }
    }

    pub(crate) fn remove(&mut self, class: u32, key: u64, rank: u32) {
        let c = &mut self.classes[class as usize];
        if c.order.remove(&(key, rank)) {
            self.len -= 1;
            if c.order.is_empty() {
                self.active.remove(class as usize);
            }
        }
    }

    pub(crate) fn head(&self, class: u32) -> Option<(u64, u32)> {
        self.classes[class as usize].order.first()
    }

    /// How many waiting jobs come before (key, rank) in walk order.
    pub(crate) fn before(&self, key: u64, rank: u32) -> usize {
        self.active
            .iter()
            .map(|c| self.classes[c as usize].order.before((key, rank)))
            .sum()
    }

    /// Every waiting (key, rank), class by class.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (u32, u64, u32)> + '_ {
        self.active.iter().flat_map(move |c| {
            self.classes[c as usize]
                .order
                .iter()
                .map(move |&(k, r)| (c, k, r))
        })
    }

    /// The first `limit` waiting ranks in walk order (a merge of the class orders).
    pub(crate) fn in_order(&self, limit: usize) -> Vec<u32> {
        let mut iters: Vec<_> = self
            .active
            .iter()
            .map(|c| self.classes[c as usize].order.iter().peekable())
            .collect();
        let mut heap = BinaryHeap::new();
        for (i, it) in iters.iter_mut().enumerate() {
            if let Some(&&e) = it.peek() {
                heap.push(Reverse((e, i)));
            }
        }
        let mut out = Vec::with_capacity(limit.min(self.len));
        while out.len() < limit {
            let Some(Reverse((e, i))) = heap.pop() else {
                break;
            };
            out.push(e.1);
            iters[i].next();
            if let Some(&&next) = iters[i].peek() {
                heap.push(Reverse((next, i)));
            }
        }
        out
    }

    /// Empties the queue, keeping the class slots.
    pub(crate) fn clear(&mut self) {
        for c in self.active.iter() {
            let c = &mut self.classes[c as usize];
            c.order.clear();
        }
        for c in &mut self.classes {
            c.failed_epoch = None;
            c.short = None;
        }
        self.active.clear_all();
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_tree_finds_first_short_member() {
        let mut t = MinTree::new(5);
        assert_eq!(t.first_at_most(0, u64::MAX - 1), None);
        t.set(1, 50);
        t.set(3, 10);
        t.set(4, 5);
        assert_eq!(t.first_at_most(0, 60), Some(1));
        assert_eq!(t.first_at_most(2, 60), Some(3));
        assert_eq!(t.first_at_most(0, 20), Some(3));
        assert_eq!(t.first_at_most(0, 5), Some(4));
        assert_eq!(t.first_at_most(5, 60), None);
        assert_eq!(t.first_at_most(0, 4), None);
        t.set(3, u64::MAX);
        assert_eq!(t.first_at_most(0, 20), Some(4));
    }

    #[test]
    fn merge_walks_classes_in_key_order() {
        let mut q = Queue::new(2);
        q.insert(0, 0, 5);
        q.insert(1, 0, 2);
        q.insert(0, 0, 1);
        q.insert(1, 0, 9);
        assert_eq!(q.in_order(10), vec![1, 2, 5, 9]);
        assert_eq!(q.in_order(2), vec![1, 2]);
        q.remove(1, 0, 2);
        assert_eq!(q.len(), 3);
        assert_eq!(q.in_order(10), vec![1, 5, 9]);
    }
}
