//! Gandiva's node sets as ElasticFlow's simulator keeps them
//! (`cluster.py`): per job-size class, a list of sets of whole nodes, each
//! holding up to `cap` jobs at once and time-slicing the rest; a set's
//! `util` counts placements and is never lowered when a job ends (it
//! drives both placement and every sort). Rules: docs/peers/elasticflow-gandiva.md
//! (G1.5, G1.6, G3, G4).

/// The size classes, in the order every walk over them takes.
pub(super) const CLASSES: [u32; 16] =
    [1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64, 72, 88, 128, 256];

#[derive(Debug, Clone)]
pub(super) struct NodeSet {
    /// The machines it holds (which ones changes no end time; the
    /// engine's GPUs follow them).
    pub(super) ids: Vec<u32>,
    pub(super) nodes: u32,
    pub(super) cap: u32,
    pub(super) util: u32,
    pub(super) jobs: Vec<u32>,
}

#[derive(Debug, Clone)]
pub(super) struct Sets {
    pub(super) gpn: u32,
    /// GPUs in the cluster.
    pub(super) n: u32,
    /// Machines in no set, by number.
    pub(super) free: Vec<u32>,
    /// Per class (`CLASSES` order), its sets in list order.
    pub(super) lists: Vec<Vec<NodeSet>>,
}

/// Stable sort by `util` (Python's `list.sort(key=util)`).
fn sort(l: &mut [NodeSet]) {
    l.sort_by_key(|s| s.util);
}

impl Sets {
    pub(super) fn new(nodes: u32, gpn: u32) -> Sets {
        Sets {
            gpn,
            n: nodes * gpn,
            free: (0..nodes).collect(),
            lists: vec![Vec::new(); CLASSES.len()],
        }
    }

    /// Nodes a set of class `g` takes.
    fn nn(&self, g: u32) -> u32 {
        g.div_ceil(self.gpn)
    }

    /// A set of class `g` on the first free machines (as many as it needs
    /// are free).
    fn new_set(&mut self, g: u32) -> NodeSet {
        let nodes = self.nn(g);
        NodeSet {
            ids: self.free.drain(..nodes as usize).collect(),
            nodes,
            cap: ((nodes * self.gpn) as f64 / g as f64) as u32,
            util: 0,
            jobs: Vec::new(),
        }
    }

    fn free_nodes(&self) -> u32 {
        self.free.len() as u32
    }

    /// A set's machines back to the free ones.
    pub(super) fn release(&mut self, ids: &[u32]) {
        self.free.extend_from_slice(ids);
        self.free.sort_unstable();
    }

    /// Places job `j` of class index `c` (G3); false: it waits.
    pub(super) fn place(&mut self, j: u32, c: usize) -> bool {
        let g = CLASSES[c];
        let nn = self.nn(g);
        // 1. The head set, if it has room (strictly below its cap).
        if !self.lists[c].is_empty() {
            let mut s = self.lists[c].remove(0);
            if s.util + 1 < s.cap {
                s.util += 1;
                s.jobs.push(j);
                self.lists[c].push(s);
                sort(&mut self.lists[c]);
                return true;
            }
            self.lists[c].push(s);
        }
        // 2. A new set of free nodes.
        if nn <= self.free_nodes() {
            let mut s = self.new_set(g);
            s.util = 1;
            s.jobs.push(j);
            self.lists[c].push(s);
            sort(&mut self.lists[c]);
            return true;
        }
        // 3. Time-sliced onto the head set, over its capacity.
        if !self.lists[c].is_empty() {
            let mut s = self.lists[c].remove(0);
            s.util += 1;
            s.jobs.push(j);
            self.lists[c].push(s);
            sort(&mut self.lists[c]);
            return true;
        }
        false
    }

    /// Each job of `jobs` to the head set of list `c`, re-sorted after each.
    fn spread(&mut self, c: usize, jobs: Vec<u32>) {
        for j in jobs {
            let s = &mut self.lists[c][0];
            s.util += 1;
            s.jobs.push(j);
            sort(&mut self.lists[c]);
        }
    }

    /// Rebalances the classes' nodes by demand (G4), before progress.
    pub(super) fn adjust(&mut self) {
        let gpn = self.gpn;
        let demand: Vec<u64> = (0..CLASSES.len())
            .map(|c| {
                self.lists[c]
                    .iter()
                    .map(|s| s.jobs.len() as u64)
                    .sum::<u64>()
                    * CLASSES[c] as u64
            })
            .collect();
        let occ: Vec<i64> = (0..CLASSES.len())
            .map(|c| self.lists[c].iter().map(|s| (s.nodes * gpn) as i64).sum())
            .collect();
        let total: u64 = demand.iter().sum();
        if total == 0 {
            return;
        }
        for c in 0..CLASSES.len() {
            if demand[c] == 0 {
                continue;
            }
            let g = CLASSES[c];
            let plan = ((demand[c] as f64 / total as f64) * self.n as f64).floor() as i64;
            let target = plan.min(demand[c] as i64);
            let diff = target - occ[c];
            if diff > 0 {
                let k = (diff as f64 / g as f64).ceil() as u64;
                let nn = self.nn(g);
                let mut last_created = false;
                for _ in 0..k {
                    last_created = false;
                    if nn <= self.free_nodes() {
                        let s = self.new_set(g);
                        self.lists[c].push(s);
                        last_created = true;
                    }
                }
                // ElasticFlow reuses its loop variable there: no
                // re-arrangement when the last pass made a one-node set.
                if !(last_created && nn == 1) {
                    let mut moved = Vec::new();
                    for s in self.lists[c].iter_mut().filter(|s| !s.jobs.is_empty()) {
                        moved.append(&mut s.jobs);
                        s.util = 0;
                    }
                    self.spread(c, moved);
                }
            } else if diff < 0 {
                let mut k = (-diff as f64 / g as f64).ceil() as usize;
                let len = self.lists[c].len();
                if len <= k {
                    k = len.saturating_sub(1);
                }
                let mut moved = Vec::new();
                for _ in 0..k {
                    let mut s = self.lists[c].remove(0);
                    moved.append(&mut s.jobs);
                    self.release(&s.ids);
                }
                if k > 0 {
                    self.spread(c, moved);
                }
            }
        }
    }
}
