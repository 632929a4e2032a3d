"""One job as ElasticFlow plans it (the built-in's `job.rs`): its deadline,
the iterations it has left, the GPU counts it may hold (its table's
columns up to its model's cap) and its rate on each, and the plan it holds
now; and the probe of growing it one level (`grow.py`).
"""

from bisect import bisect_left

from tracetui_policy import rate_on

from .maps import I64_MAX, Steps

BEST_EFFORT = I64_MAX // 4     # the deadline of a best-effort job


class Probe:
    """Growing a job one level (`grow.py`): the level, the gain per GPU,
    and the plan from that level now."""

    __slots__ = ("next", "marginal", "alloc", "free", "end", "real_end")

    def __init__(self):
        self.next = 0
        self.marginal = 0.0
        self.alloc = Steps([], [])
        self.free = Steps([], [])
        self.end = 0
        self.real_end = 0


class EJob:
    """One job as ElasticFlow plans it (the built-in's `Job`; named so as
    not to be taken for tracetui_policy's `Job`, the job as tracetui tells
    it)."""

    __slots__ = ("ddl", "iter_left", "levels", "gpus", "alloc", "end",
                 "real_end", "overhead", "in_cache", "node_set", "probe",
                 "counts", "rate_by", "next_by")

    def __init__(self, ddl, iters, levels):
        self.ddl = ddl
        self.iter_left = iters
        self.levels = levels          # [(count, rate)], ascending
        self.counts = [c for c, _ in levels]
        self.rate_by = {}
        for c, r in levels:
            self.rate_by.setdefault(c, r)
        self.next_by = {}
        for i in range(len(levels) - 1, -1, -1):   # the first of a count wins
            c = levels[i][0]
            self.next_by[c] = levels[i + 1][0] if i + 1 < len(levels) else c
        self.gpus = 0
        self.alloc = Steps([], [])
        self.end = 0
        self.real_end = 0
        self.overhead = 0
        self.in_cache = False
        self.node_set = None
        self.probe = Probe()

    def best_effort(self):
        return self.ddl == BEST_EFFORT

    def max_gpu(self):
        return self.levels[-1][0] if self.levels else 0

    def tp(self, g):
        r = self.rate_by.get(g)
        if r is not None:
            return r
        r = rate_on(self.levels, g)
        return 0.0 if r is None else r

    def next_level(self, g):
        """The level after `g` (the first, for 0); `g` itself at the top."""
        if g == 0:
            return self.counts[0] if self.counts else 0
        return self.next_by.get(g, g)

    def last_level(self, x):
        """The largest level below `x` (0: none)."""
        i = bisect_left(self.counts, x)
        return self.counts[i - 1] if i else 0

    def planned_at(self, t):
        g = self.alloc.get(t)
        return 0 if g is None else g
