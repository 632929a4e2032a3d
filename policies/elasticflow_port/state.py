"""What elasticflow keeps between rounds (the built-in's `state.rs`): its
jobs and their plans, its event list (the arrivals, and the ends and plan
changes it set), the reservations, the placement and the counts it
reports; and when the next round is.

The built-in reads the arrivals off the trace; here they come in the
messages (`arrived`), with the next submit times to come (`coming`,
lookahead 8; a round needs at most the next four). Arrivals the built-in
takes ahead of their time (everything due within a slot is taken together
a slot later) reach this program later: the due list keeps their places
until the round that takes them.
"""

from bisect import bisect_left

from .admit import first_table, job_of
from .maps import SLOT, Steps
from .nodes import Nodes


class Due:
    """The jobs due at one time: arrivals and planned ends. `start` may
    hold, until the round at its time resolves them, markers for arrivals
    the built-in took ahead (`advance`'s merge) before they reached this
    program: ("lt", k) the arrivals submitted before k, ("eq", k) those at
    k, ("rest", edge) the others up to edge — in the order the built-in
    put them."""

    __slots__ = ("start", "end")

    def __init__(self):
        self.start = []
        self.end = []


class Failed(Exception):
    """A round cannot go on (the built-in stops the run there too)."""


class State:
    """The books (their rounds in `round.py`, their hand-out in `grow.py`)."""

    def __init__(self, view, lookahead):
        """The books of a run at `view.time`: every job of the snapshot,
        waiting or running, counts as admitted, not started (in arrival
        order); the first round is now if any job is there, else at the
        first arrival."""
        self.lookahead = lookahead
        machines = len(view.machines)
        self.n = sum(m["gpus"] for m in view.machines)
        self.gpn = max(view.per_node or 1, 1)
        self.jobs = {}        # every job admitted and not ended, by index
        self.runnable = []    # those jobs, in the policy's order;
        self.pending = []     # of them, those that never started,
        self.running = []     # and those that did
        self.events = {}      # time -> Due: the ends and plan changes set
        self.free = Steps([0], [self.n])
        self.nodes = Nodes(machines, self.gpn, view.switches or 0)
        self.rounds = 0       # rounds held (ElasticFlow's `schedule_count`)
        self.last = view.time
        self.accepted = 0     # started and not found late by their plan
        self.declined = 0     # declined, or found late when they ended
        # Arrivals (submit, job) not yet taken, and the times to come.
        self.untaken = []
        self.coming = []
        self.view = view
        self.table = first_table(view.speeds)
        there = list(view.queue.values()) + list(view.running.values())
        for vj in sorted(there, key=lambda j: (j.submit, j.job)):
            job = job_of(vj, self.table)
            if job is not None:
                self.jobs[vj.job] = job
                self.runnable.append(vj.job)
                self.pending.append(vj.job)
        # None: the first arrival, known at the first `schedule`.
        self.next = view.time if self.runnable else None
        self.next_known = bool(self.runnable)

    # -- arrivals

    def arrived(self, vj):
        """A job arrived (it waits until a round takes it)."""
        key = (vj.submit, vj.job)
        i = bisect_left(self.untaken, key)
        self.untaken.insert(i, key)

    def arrival_times(self):
        """The distinct submit times of the arrivals not yet taken, ascending."""
        last = None
        for s, _ in self.untaken:
            if s != last:
                yield s
                last = s
        for s in self.coming:
            if last is None or s > last:
                yield s
                last = s
        if len(self.coming) >= self.lookahead:
            raise Failed("needs more than %d submit times ahead" % self.lookahead)

    def next_arrival(self):
        """The time of the first arrival not yet taken."""
        if self.untaken:
            return self.untaken[0][0]
        if self.coming:
            return self.coming[0]
        return None

    def take_arrivals(self, t):
        """Takes the arrivals due by `t`, in arrival order."""
        n = 0
        while n < len(self.untaken) and self.untaken[n][0] <= t:
            n += 1
        out = [j for _, j in self.untaken[:n]]
        del self.untaken[:n]
        return out

    def resolve(self, start):
        """A due list's markers, replaced by the arrivals they stand for."""
        out = []
        for x in start:
            if not isinstance(x, tuple):
                out.append(x)
                continue
            kind, k = x
            n = 0
            u = self.untaken
            if kind == "lt":
                while n < len(u) and u[n][0] < k:
                    n += 1
            elif kind == "eq":
                while n < len(u) and u[n][0] == k:
                    n += 1
            else:
                while n < len(u) and u[n][0] <= k:
                    n += 1
            out.extend(j for _, j in u[:n])
            del u[:n]
        return out

    # -- events

    def add_end_event(self, job):
        """Puts `job`'s end event at its end time."""
        j = self.jobs.get(job)
        if j is None:
            return
        due = self.events.get(j.end)
        if due is None:
            due = self.events[j.end] = Due()
        if job not in due.end:
            due.end.append(job)

    def move_end_event(self, job, old):
        """Moves `job`'s end event from `old` to its end time (nothing if
        they are the same, as ElasticFlow does, event or not)."""
        j = self.jobs.get(job)
        if j is None or j.end == old:
            return
        due = self.events.get(old)
        if due is not None:
            due.end = [x for x in due.end if x != job]
            if not due.start and not due.end:
                del self.events[old]
        self.add_end_event(job)

    def advance(self, t):
        """After a round at `t`: the next one. Everything due within a slot
        is taken together a slot after `t`, unless it is the only thing
        left; later things keep their times."""
        keys = sorted(self.events)
        times = keys[:2]
        arrivals = 0
        for s in self.arrival_times():
            if s not in times:
                if arrivals == 2:
                    break
                times.append(s)
                arrivals += 1
        times.sort()
        if not times:
            self.next = None
            return
        first = times[0]
        if first - t > SLOT or len(times) < 2:
            self.next = first
            return
        edge = t + SLOT
        merged = Due()
        due = [k for k in keys if k <= edge]
        # The arrivals due by `edge`: the built-in takes them now; here
        # they come later, so markers keep their places (only if there
        # are any, so that the list is empty exactly when the built-in's is).
        ahead = self.next_arrival()
        some = ahead is not None and ahead <= edge
        if self.untaken:
            raise Failed("arrivals left untaken at %d" % t)
        for k in due:
            d = self.events.pop(k)
            if some:
                merged.start.append(("lt", k))
            merged.start.extend(d.start)
            if some:
                merged.start.append(("eq", k))
            merged.end.extend(d.end)
        if some:
            merged.start.append(("rest", edge))
        self.events[edge] = merged
        self.next = edge
