"""ElasticFlow's placement (the built-in's `nodes.rs`), kept only for what
it decides: the overhead a job pays each round is small when its GPUs are
a set some job held since the cache was last cleared (`cache`), and large
otherwise. Jobs are placed from an empty cluster each round, largest
first; only the order of the free nodes carries over from round to round.

Node sets: a job of at least a node's GPUs takes whole nodes from the front
of the free list; smaller ones pack into single nodes, each set listed
under the largest size its free GPUs hold evenly (`KEYS`), and only the
head of a list is tried. A freed node goes back to the free list, which is
kept in order of the node's place in its switch.
"""

KEYS = [1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64, 72, 88, 128, 256]
SLOT_OF = {k: i for i, k in enumerate(KEYS)}


def key_for(free):
    """The largest listed size `free` GPUs hold evenly."""
    for k in reversed(KEYS):
        if k <= free and free % k == 0:
            return k
    return 1


class NodeSet:
    __slots__ = ("nodes", "jobs", "cap", "num_gpus", "util")

    def __init__(self, nodes, jobs, cap, num_gpus, util):
        self.nodes = nodes
        self.jobs = jobs
        self.cap = cap
        self.num_gpus = num_gpus
        self.util = util


class Nodes:
    """ElasticFlow's placement, kept for the overheads it decides."""

    def __init__(self, count, gpn, switches):
        self.gpn = max(gpn, 1)
        self.per_switch = max(count // max(switches, 1), 1)
        self.count = count
        self.free = list(range(count))
        self.lists = [[] for _ in KEYS]
        self.sets = []
        self.cache = set()

    def clear_cache(self):
        self.cache.clear()

    def sort_list(self, s):
        sets = self.sets
        self.lists[s].sort(key=lambda i: sets[i].util if sets[i] is not None else 0)

    def free_gpus(self):
        """GPUs not held: every listed set's free room and the free nodes'
        (ElasticFlow's check_free_gpu)."""
        in_sets = sum(
            max(self.sets[i].cap - self.sets[i].util, 0)
            for lst in self.lists
            for i in lst
            if self.sets[i] is not None
        )
        return in_sets + len(self.free) * self.gpn

    def release(self, sid, job, g):
        ns = self.sets[sid]
        ns.util = max(ns.util - g, 0)
        ns.jobs = [x for x in ns.jobs if x[0] != job]
        free = ns.cap - ns.util
        if ns.util == 0:
            nodes, ns.nodes = ns.nodes, []
            self.free.extend(nodes)
            for i in range(len(self.lists)):
                self.lists[i] = [x for x in self.lists[i] if x != sid]
            self.sets[sid] = None
            ps = self.per_switch
            self.free.sort(key=lambda n: n % ps)
        elif free > 0 and free != ns.num_gpus:
            frm, k = ns.num_gpus, key_for(free)
            ns.num_gpus = k
            s = SLOT_OF.get(frm)
            if s is not None:
                self.lists[s] = [x for x in self.lists[s] if x != sid]
            s = SLOT_OF.get(k)
            if s is not None:
                self.lists[s].append(sid)
                self.sort_list(s)

    def place(self, job, g):
        own = SLOT_OF.get(g)
        if own is None:
            return None
        sid = self.try_head(own, g)
        if sid is not None:
            return self.put(sid, own, job, g)
        for s in range(len(KEYS) - 1, -1, -1):
            if KEYS[s] <= g:
                break
            sid = self.try_head(s, g)
            if sid is not None:
                return self.put(sid, own, job, g)
        nn = -(-g // self.gpn)
        if nn > len(self.free):
            return None
        nodes = self.free[:nn]
        del self.free[:nn]
        cap = nn * self.gpn
        sid = len(self.sets)
        self.sets.append(NodeSet(nodes, [(job, g)], cap, g, g))
        if cap > g:
            k = SLOT_OF.get(key_for(cap - g))
            if k is None:
                return None
            self.lists[k].append(sid)
            self.sort_list(own)
            self.sort_list(k)
        else:
            self.lists[own].append(sid)
            self.sort_list(own)
        return sid

    def try_head(self, s, g):
        if not self.lists[s]:
            return None
        sid = self.lists[s].pop(0)
        ns = self.sets[sid]
        if ns is None:
            return None
        if ns.util + g <= ns.cap:
            return sid
        self.lists[s].append(sid)
        return None

    def put(self, sid, own, job, g):
        ns = self.sets[sid]
        ns.util += g
        ns.jobs.append((job, g))
        free = len(ns.nodes) * self.gpn - ns.util
        if free > 0:
            k = key_for(free)
            ns.num_gpus = k
            s = SLOT_OF.get(k)
            if s is not None:
                self.lists[s].append(sid)
                self.sort_list(own)
                self.sort_list(s)
        else:
            self.lists[own].append(sid)
            self.sort_list(own)
        return sid

    def cache_hits(self):
        out = []
        seen = set()
        free = set(self.free)
        for node in range(self.count):
            if node in free:
                continue
            h = self.holder(node)
            if h is None:
                continue
            k, sid = h
            ns = self.sets[sid]
            if ns is None:
                continue
            r0 = node * self.gpn
            if k >= self.gpn:
                if ns.jobs:
                    j, g = ns.jobs[0]
                    if j not in seen:
                        seen.add(j)
                        key = (r0, g)
                        hit = key in self.cache
                        self.cache.add(key)
                        out.append((j, hit))
                continue
            for j, g in list(ns.jobs):
                key = (r0, g)
                hit = key in self.cache
                self.cache.add(key)
                out.append((j, hit))
                r0 += g
        return out

    def holder(self, node):
        for s, lst in enumerate(self.lists):
            for sid in lst:
                ns = self.sets[sid]
                if ns is not None and node in ns.nodes:
                    return KEYS[s], sid
        return None


def overhead(n, g, restart, hit):
    base = 2 if n < 256 else 7
    if hit:
        return base
    rs = 0 if not restart else (27 if n < 256 else 47)
    log2 = (max(g, 1) - 1).bit_length()
    return base + rs + (log2 + 1) * 2
