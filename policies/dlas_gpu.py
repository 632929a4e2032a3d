"""dlas-gpu: a port of tracetui's built-in `dlas-gpu` policy (Tiresias'
2D-LAS as ElasticFlow's simulator runs it), over protocol version 2 — the
same rounds, the same starts on the same GPUs, the same ends.

    tracetui sim itp elasticVpollux_e.csv --cluster cluster_specs/n16g4.csv \\
        --policy 'exec:python3 policies/dlas_gpu.py'

The rules are the built-in's (engine/src/policies/dlas_gpu/, whose module
notes say them step by step, with ElasticFlow's citations): three queues
cut at 3,250 and 7,200 GPU-seconds served; each round the queues are
scanned in order, running jobs first, and every job whose trace GPUs are
still free runs, the rest wait or are preempted; a job runs its trace
duration, less ElasticFlow's overhead at each start and in every slot-th
round; rounds at arrivals, at the first end and at the next queue jump, a
slot (`--rounds`, the start message's `rounds`) apart. Results name it
`dlas-gpu-ext` (the built-in has the name).

What the built-in reads off the engine comes from the messages: each
job's recorded run time (`recorded`, else `runtime`) and GPUs, the arrival times to come (`coming`,
lookahead 64: a round merges the arrivals within a slot of it). Taking over
mid-run, a waiting or running job arrives at once with the run time it
has left by the seconds it has held GPUs — the built-in takes the
engine's own count, which differs on a trace run from throughput tables.
"""

import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from tracetui_policy import Policy, run  # noqa: E402

LIMITS = (3250, 7200)   # GPU-seconds served to leave queue 0, then queue 1
QUEUES = 3


def overhead(n, g, restart):
    """ElasticFlow's overhead without its cache (`estimate_overhead`)."""
    big = n >= 256
    o = 7.0 if big else 2.0
    if restart:
        o += 47.0 if big else 27.0
    return o + (math.log2(max(g, 1)) + 1.0) * 2.0


def duration(vj):
    """The run time the trace recorded (with throughput tables `runtime`
    is theirs; ElasticFlow's baselines run the recorded one)."""
    if vj.recorded is not None:
        return vj.recorded
    return vj.runtime or 0


class Job:
    __slots__ = ("gpus", "duration", "total", "executed", "overhead",
                 "last_check", "queue", "running", "end")

    def __init__(self, gpus, duration, submit):
        self.gpus = gpus
        self.duration = duration
        self.total = 0
        self.executed = 0
        self.overhead = 0.0
        self.last_check = submit
        self.queue = 0
        self.running = False
        self.end = 0


class Books:
    """The built-in's `round.rs`, with the arrivals learnt as they come."""

    def __init__(self, n, slot, lookahead):
        self.n = n
        self.slot = max(slot, 1)
        self.lookahead = lookahead
        self.jobs = {}          # job -> Job, for every job that arrived and fits
        self.untaken = []       # (submit, job) arrived and not yet in a round
        self.coming = []
        self.runnable = []
        self.queues = [[] for _ in range(QUEUES)]
        # Arrival events: [at, last submit time it covers, ends folded in].
        self.events = []
        self.covered = None
        self.end_event = None   # (time, [job, ...])
        self.next_jump = None
        self.lingering = []     # (end, gpus) of jobs ended before their end
        self.counted = 0

    # The arrival events, materialised from the submit times as needed.
    def _time_after(self, x):
        times = [s for s, _ in self.untaken if x is None or s > x]
        times += [s for s in self.coming if x is None or s > x]
        if times:
            return min(times)
        if len(self.coming) >= self.lookahead:
            # Every time it was told of is behind: more may come after.
            sys.exit("dlas-gpu: needs more than %d submit times ahead" % self.lookahead)
        return None

    def _fill(self, k):
        while len(self.events) < k:
            s = self._time_after(self.covered)
            if s is None:
                return
            self.events.append([s, s, []])
            self.covered = s

    def next(self):
        self._fill(1)
        if not self.events and self.end_event is None:
            return None
        due = [e for e in (self.events[0][0] if self.events else None,
                           self.end_event[0] if self.end_event else None,
                           self.next_jump) if e is not None]
        return min(due)

    def round(self, t):
        """The round at `t`: (arrivals to drop, [(job, end)] holding GPUs,
        [(job, end)] ended before their end)."""
        refused, early = [], []
        ends, arrivals = self._take_event(t)
        for j in ends:
            self._end(j, t, early)
        self.lingering = [x for x in self.lingering if x[0] > t]
        for j in arrivals:
            if j in self.jobs:
                self.runnable.append(j)
                self.queues[0].append(j)
            else:
                refused.append(j)
        self._progress(t)
        restart = self.counted > 0 and self.counted % self.slot == 0
        self.counted += 1
        self._schedule(restart)
        hold = self._set_ends(t, restart)
        self._set_jump(t)
        self._merge(t)
        return refused, hold, early

    def _take_event(self, t):
        self._fill(1)
        big = sys.maxsize
        start = self.events[0][0] if self.events else big
        end = self.end_event[0] if self.end_event else big
        if end == start and end != big:
            self.events[0][2] = list(self.end_event[1])
        at = min(start, end)
        if (self.next_jump is not None and self.next_jump < at) or at != t:
            return [], []
        if end < start:
            ends = self.end_event[1]
            self.end_event = None
            return ends, []
        _, hi, ends = self.events.pop(0)
        taken = [j for s, j in self.untaken if s <= hi]
        self.untaken = [(s, j) for s, j in self.untaken if s > hi]
        return ends, taken

    def _end(self, j, t, early):
        job = self.jobs.pop(j, None)
        if job is None:
            return
        if job.running and job.end > t:
            self.lingering.append((job.end, job.gpus))
            early.append((j, job.end))
        self.runnable.remove(j)
        self.queues[job.queue].remove(j)

    def _progress(self, t):
        for j in self.runnable:
            job = self.jobs[j]
            since = t - job.last_check
            job.last_check = t
            if not job.running:
                continue
            ran = max(float(since) - job.overhead, 0.0)
            job.total = int(float(job.total) + ran)
            job.executed = int(float(job.executed) + ran)
            job.overhead = 0.0
            q = job.queue
            if q + 1 < QUEUES and job.executed * job.gpus >= LIMITS[q]:
                job.queue = q + 1
                self.queues[q + 1].append(j)
                self.queues[q].remove(j)

    def _schedule(self, restart):
        free = self.n - sum(g for _, g in self.lingering)
        start, stop = [], []
        for queue in self.queues:
            for j in queue:
                job = self.jobs[j]
                if free >= job.gpus:
                    if not job.running:
                        start.append(j)
                    free -= job.gpus
                elif job.running:
                    stop.append(j)
        for j in stop:
            self.jobs[j].running = False
        for j in start:
            job = self.jobs[j]
            job.running = True
            job.overhead = overhead(self.n, job.gpus, restart)
        self.runnable.sort(key=lambda j: -self.jobs[j].gpus)
        for i, queue in enumerate(self.queues):
            self.queues[i] = ([j for j in queue if self.jobs[j].running]
                              + [j for j in queue if not self.jobs[j].running])

    def _set_ends(self, t, restart):
        first = None
        hold = []
        for j in self.runnable:
            job = self.jobs[j]
            if not job.running:
                continue
            left = float(job.duration - job.total)
            if restart:
                job.overhead = overhead(self.n, job.gpus, True)
                left += job.overhead
            end = int(float(t) + left)
            due = max(t + self.slot, end)
            if first is not None and due == first[0]:
                job.end = end
                first[1].append(j)
            elif first is None or due < first[0]:
                job.end = end
                first = (due, [j])
            hold.append((j, end))
        self.end_event = first
        return hold

    def _set_jump(self, t):
        jumps = [math.ceil(float(LIMITS[job.queue] - job.executed) / float(max(job.gpus, 1))) + t
                 for job in (self.jobs[j] for j in self.runnable)
                 if job.running and job.queue + 1 < QUEUES]
        self.next_jump = max(min(jumps), t + self.slot) if jumps else None

    def _merge(self, t):
        self._fill(2)
        while len(self.events) > 1 and self.events[0][0] - t <= self.slot:
            self.events[0][0] = t + self.slot
            if self.events[1][0] - t > self.slot:
                break
            more = self.events.pop(1)
            self.events[0][1] = more[1]
            self._fill(2)


def place(view, job, busy):
    """Where a starting gang goes, as the built-in's `place`: one machine
    where it fits (the fullest that does), else whole free machines and the
    rest on the fullest it fits, else any free GPUs in machine order."""
    machines = view.machines
    frees = [[g for g in range(m["gpus"]) if (i, g) not in busy]
             for i, m in enumerate(machines)]

    def fullest_fit(want, skip):
        fits = [i for i in range(len(frees)) if len(frees[i]) >= want and i not in skip]
        return min(fits, key=lambda i: len(frees[i])) if fits else None

    want = job.gpus
    picks = []
    m = fullest_fit(want, ())
    if m is not None:
        picks.append((m, want))
    else:
        left = want
        for i, m in enumerate(machines):
            k = len(frees[i])
            if m["gpus"] > 0 and k == m["gpus"] and k <= left:
                picks.append((i, k))
                left -= k
        rest = fullest_fit(left, [p[0] for p in picks]) if left else None
        if left and rest is not None:
            picks.append((rest, left))
        elif left:
            picks, left = [], want
            for i, f in enumerate(frees):
                k = min(len(f), left)
                if k > 0:
                    picks.append((i, k))
                    left -= k
    grants = []
    for m, k in picks:
        for g in frees[m][:k]:
            busy.add((m, g))
            grants.append([m, g, 1000])
    return grants


class DlasGpu(Policy):
    name = "dlas-gpu"
    walk = "explicit"
    ask = "always"
    protocol = 2
    lookahead = 64
    rounds = True   # it keeps ElasticFlow's rounds itself: --rounds gives the slot
    describe = ("Tiresias' 2D-LAS as ElasticFlow runs it (Python port of the built-in): "
                "three queues by GPU-seconds served, each job its trace GPUs")

    def on_start(self, view):
        n = sum(m["gpus"] for m in view.machines)
        self.books = Books(n, view.rounds, self.lookahead)
        # A waiting or running job of the snapshot arrives now, with the
        # run time it has left: a running one's to the end its run gives,
        # a waiting one's from a start now (its restart cost counted).
        there = list(view.queue.values()) + list(view.running.values())
        for vj in sorted(there, key=lambda j: (j.submit, j.job)):
            left = duration(vj) - vj.held
            if vj.run_from is not None:
                left += vj.overhead - (view.time - vj.run_from)
            elif vj.preemptions:
                left += view.preempt_cost
            self._arrive(vj, view.time, left)

    def on_arrival(self, view, job):
        if job.job not in self.books.jobs and all(j != job.job for _, j in self.books.untaken):
            self._arrive(job, job.submit, duration(job))

    def _arrive(self, vj, at, duration):
        gpus = (vj.milli + 999) // 1000
        if gpus <= self.books.n:
            self.books.jobs[vj.job] = Job(gpus, duration, at)
        self.books.untaken.append((at, vj.job))
        self.books.untaken.sort()

    def schedule(self, view):
        b = self.books
        now = view.time
        b.coming = view.coming
        answer = {}
        if b.next() == now:
            refused, hold, early = b.round(now)
            hold += early
            runs = {j for j, _ in hold}
            drop = [j for j in refused if j in view.queue]
            preempt = sorted(j for j in view.running
                             if j not in runs and view.jobs[j].preemptable)
            busy = {(m, g) for j, vj in view.running.items() if j not in preempt
                    for m, g, milli in vj.gpus_held}
            start, ends = [], []
            for j, end in hold:
                if j in view.queue:
                    vj = view.jobs[j]
                    if vj.gpus is not None and vj.instances is None:
                        start.append({"job": j, "gpus": place(view, vj, busy)})
                    else:
                        start.append(j)
                elif j not in view.running:
                    continue
                ends.append([j, max(end, now)])
            for key, value in (("drop", drop), ("preempt", preempt),
                               ("start", start), ("ends", ends)):
                if value:
                    answer[key] = value
        nxt = b.next()
        if nxt is not None and nxt > now:
            answer["wakeup"] = nxt
        return answer


if __name__ == "__main__":
    run(DlasGpu())
