//! ElasticFlow's placement, kept only for what it decides: the overhead a
//! job pays each round is small when its GPUs are a set some job held
//! since the cache was last cleared (`cache`), and large otherwise. Jobs
//! are placed from an empty cluster each round, largest first; only the
//! order of the free nodes carries over from round to round.
//!
//! Node sets: a job of at least a node's GPUs takes whole nodes from the
//! front of the free list; smaller ones pack into single nodes, each set
//! listed under the largest size its free GPUs hold evenly (`KEYS`), and
//! only the head of a list is tried. A freed node goes back to the free
//! list, which is kept in order of the node's place in its switch.

use rustc_hash::FxHashSet;

/// The sizes node sets are listed under, in ElasticFlow's order.
pub(super) const KEYS: [u32; 16] = [1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64, 72, 88, 128, 256];

#[derive(Debug, Clone)]
struct NodeSet {
    nodes: Vec<u32>,
    jobs: Vec<(u32, u32)>,
    cap: u32,
    /// The size it was listed under (it may sit under another: kept as
    /// ElasticFlow keeps it).
    num_gpus: u32,
    util: u32,
}

#[derive(Debug, Clone)]
pub(super) struct Nodes {
    gpn: u32,
    per_switch: u32,
    count: u32,
    free: Vec<u32>,
    lists: [Vec<usize>; 16],
    sets: Vec<Option<NodeSet>>,
    /// GPU sets (first global rank, count) held since the last clear.
    cache: FxHashSet<(u32, u32)>,
}

/// The list a size goes in.
fn slot(k: u32) -> Option<usize> {
    KEYS.iter().position(|&x| x == k)
}

/// The largest listed size `free` GPUs hold evenly.
fn key_for(free: u32) -> u32 {
    KEYS.iter()
        .rev()
        .copied()
        .find(|&k| k <= free && free.is_multiple_of(k))
        .unwrap_or(1)
}

impl Nodes {
    pub(super) fn new(count: u32, gpn: u32, switches: u32) -> Nodes {
        let per_switch = (count / switches.max(1)).max(1);
        Nodes {
            gpn: gpn.max(1),
            per_switch,
            count,
            free: (0..count).collect(),
            lists: Default::default(),
            sets: Vec::new(),
            cache: FxHashSet::default(),
        }
    }

    pub(super) fn clear_cache(&mut self) {
        self.cache.clear();
    }

    fn set(&mut self, id: usize) -> &mut NodeSet {
        self.sets[id].as_mut().expect("a listed node set exists")
    }

    fn sort_list(&mut self, s: usize) {
        let sets = &self.sets;
        self.lists[s].sort_by_key(|&id| sets[id].as_ref().map_or(0, |n| n.util));
    }

    /// GPUs not held: the free room of every listed set and the free
    /// nodes' (ElasticFlow's `check_free_gpu`).
    pub(super) fn free_gpus(&self) -> u64 {
        let in_sets: u64 = self
            .lists
            .iter()
            .flatten()
            .filter_map(|&id| self.sets[id].as_ref())
            .map(|s| s.cap.saturating_sub(s.util) as u64)
            .sum();
        in_sets + self.free.len() as u64 * self.gpn as u64
    }

    /// Lets `job`'s `g` GPUs in set `id` go.
    pub(super) fn release(&mut self, id: usize, job: u32, g: u32) {
        let per_switch = self.per_switch;
        let ns = self.set(id);
        ns.util = ns.util.saturating_sub(g);
        ns.jobs.retain(|&(j, _)| j != job);
        let free = ns.cap - ns.util;
        if ns.util == 0 {
            let nodes = std::mem::take(&mut ns.nodes);
            self.free.extend(nodes);
            for l in &mut self.lists {
                l.retain(|&x| x != id);
            }
            self.sets[id] = None;
            self.free.sort_by_key(|&n| n % per_switch);
        } else if free > 0 && free != ns.num_gpus {
            let (from, k) = (ns.num_gpus, key_for(free));
            ns.num_gpus = k;
            if let Some(s) = slot(from) {
                self.lists[s].retain(|&x| x != id);
            }
            if let Some(s) = slot(k) {
                self.lists[s].push(id);
                self.sort_list(s);
            }
        }
    }

    /// Places `job` on `g` GPUs: its set, or None where ElasticFlow's
    /// placement finds none.
    pub(super) fn place(&mut self, job: u32, g: u32) -> Option<usize> {
        let own = slot(g)?;
        if let Some(id) = self.try_head(own, g) {
            return Some(self.put(id, own, job, g));
        }
        for (s, &k) in KEYS.iter().enumerate().rev() {
            if k <= g {
                break;
            }
            if let Some(id) = self.try_head(s, g) {
                return Some(self.put(id, own, job, g));
            }
        }
        let nn = g.div_ceil(self.gpn);
        if nn as usize > self.free.len() {
            return None;
        }
        let nodes: Vec<u32> = self.free.drain(..nn as usize).collect();
        let cap = nn * self.gpn;
        let id = self.sets.len();
        self.sets.push(Some(NodeSet {
            nodes,
            jobs: vec![(job, g)],
            cap,
            num_gpus: g,
            util: g,
        }));
        if cap > g {
            let k = slot(key_for(cap - g))?;
            self.lists[k].push(id);
            self.sort_list(own);
            self.sort_list(k);
        } else {
            self.lists[own].push(id);
            self.sort_list(own);
        }
        Some(id)
    }

    /// The head of list `s`, if `g` more GPUs fit in it; a head that does
    /// not fit goes to the back.
    fn try_head(&mut self, s: usize, g: u32) -> Option<usize> {
        if self.lists[s].is_empty() {
            return None;
        }
        let id = self.lists[s].remove(0);
        let ns = self.sets[id].as_ref()?;
        if ns.util + g <= ns.cap {
            return Some(id);
        }
        self.lists[s].push(id);
        None
    }

    fn put(&mut self, id: usize, own: usize, job: u32, g: u32) -> usize {
        let gpn = self.gpn;
        let ns = self.set(id);
        ns.util += g;
        ns.jobs.push((job, g));
        let free = ns.nodes.len() as u32 * gpn - ns.util;
        if free > 0 {
            let k = key_for(free);
            ns.num_gpus = k;
            if let Some(s) = slot(k) {
                self.lists[s].push(id);
                self.sort_list(own);
                self.sort_list(s);
            }
        } else {
            self.lists[own].push(id);
            self.sort_list(own);
        }
        id
    }

    /// After a round's placement: whether each placed job sits on a GPU
    /// set held since the last clear (ElasticFlow reads the sets off its
    /// log row, node by node; a multi-node set counts as consecutive
    /// ranks from its first node). Every set read is remembered.
    pub(super) fn cache_hits(&mut self) -> Vec<(u32, bool)> {
        let mut out = Vec::new();
        let mut seen = FxHashSet::default();
        let free: FxHashSet<u32> = self.free.iter().copied().collect();
        for node in 0..self.count {
            if free.contains(&node) {
                continue;
            }
            let Some((k, id)) = self.holder(node) else {
                continue;
            };
            let Some(ns) = self.sets[id].as_ref() else {
                continue;
            };
            let mut r0 = node * self.gpn;
            if k >= self.gpn {
                if let Some(&(j, g)) = ns.jobs.first() {
                    if seen.insert(j) {
                        out.push((j, !self.cache.insert((r0, g))));
                    }
                }
                continue;
            }
            let jobs = ns.jobs.clone();
            for (j, g) in jobs {
                out.push((j, !self.cache.insert((r0, g))));
                r0 += g;
            }
        }
        out
    }

    /// The first listed set holding `node`, and the size it is listed under.
    fn holder(&self, node: u32) -> Option<(u32, usize)> {
        for (s, list) in self.lists.iter().enumerate() {
            for &id in list {
                if self.sets[id]
                    .as_ref()
                    .is_some_and(|n| n.nodes.contains(&node))
                {
                    return Some((KEYS[s], id));
                }
            }
        }
        None
    }
}

/// Seconds a job on `g` GPUs pays this round, on a cluster of `n` GPUs: a
/// little on a GPU set in the cache, more for one that is not (more for
/// more GPUs), much more in a restart round.
pub(super) fn overhead(n: u32, g: u32, restart: bool, hit: bool) -> i64 {
    let base = if n < 256 { 2 } else { 7 };
    if hit {
        return base;
    }
    let restart = match (restart, n < 256) {
        (false, _) => 0,
        (true, true) => 27,
        (true, false) => 47,
    };
    let log2 = (32 - g.max(1).saturating_sub(1).leading_zeros()) as i64;
    base + restart + (log2 + 1) * 2
}
