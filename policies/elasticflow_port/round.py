"""One elasticflow round (the built-in's `round.rs`), in ElasticFlow's
order (`scheduler.py` `ef_sim_jobs_access_control`): progress since the
last round; the jobs whose planned end is due end; the arrivals due are
admitted all together if every admitted job and every arrival can still
be planned to meet its deadline, else all declined; every job is planned
again in deadline order; jobs planned to run now start; the GPUs left free
now are handed out (`grow.py`); the jobs are placed, and each pays this
round's overhead, which moves its end; then the next round is set.
"""

from .admit import job_of
from .maps import SLOT, Steps, ceil_secs, fdiv
from .nodes import overhead
from .plan import plan
from .state import Due, Failed


class Outcome:
    """What a round decided: the arrivals declined, the jobs that hold GPUs
    with their counts and planned ends, and those planned to hold none."""

    __slots__ = ("declined", "hold", "idle")

    def __init__(self):
        self.declined = []
        self.hold = []     # (job, gpus, end)
        self.idle = []


def no_plan(j, t):
    """ElasticFlow's planner failed for job `j` at `t`."""
    return Failed("no plan for job %d at %d: its last planned step holds no GPU "
                  "(ElasticFlow's own simulator stops there)" % (j, t))


class Round:
    """`State`'s rounds (a part of the books, as `round.rs` is an `impl
    State`)."""

    def round(self, t):
        """The round at `t` (the books' next round): what it decided."""
        first = self.rounds == 0
        self.progress(t, t - self.last)
        out = Outcome()
        had = t in self.events
        due = self.events.pop(t, None) or Due()
        due.start = self.resolve(due.start)
        due.start.extend(self.take_arrivals(t))
        found = had or bool(due.start) or first
        idle = not self.pending and not self.running
        if found and not first and idle and not due.start and not due.end:
            self.advance(t)
            self.last = t
            return out
        if found:
            for j in due.end:
                self.complete(j)
            admit, cannot = [], []
            for j in due.start:
                (admit if self.arrive(j) else cannot).append(j)
            self.declined += len(cannot)
            out.declined = cannot
            old = {j: self.jobs[j].end for j in self.runnable}
            admitted = False
            if admit:
                every = self.runnable + admit
                if self.plan_all(every, t):
                    admitted = True
                    self.pending.extend(admit)
                    self.runnable.extend(admit)
                else:
                    for j in admit:
                        if self.jobs[j].best_effort():
                            self.pending.append(j)
                            self.runnable.append(j)
                        else:
                            del self.jobs[j]
                            self.declined += 1
                            out.declined.append(j)
            if not admitted:
                every = self.runnable
                self.runnable = []
                try:
                    self.plan_all(every, t)
                finally:
                    self.runnable = every
            jobs = self.jobs
            self.runnable.sort(key=lambda j: jobs[j].ddl)
            for j in list(self.runnable):
                job = self.jobs[j]
                job.gpus = job.planned_at(t)
                self.move_end_event(j, old.get(j, 0))
        # Only while a GPU is free, as ElasticFlow's check_free_gpu() > 0.
        change = None
        if self.nodes.free_gpus() > 0:
            self.start_planned(t)
            self.hand_out(t)
            change = self.place(t)
        self.mark_change(change)
        self.charge_overheads()
        self.advance(t)
        self.last = t
        return self.outcome(t, out)

    def progress(self, t, td):
        """Progress since the last round, `td` seconds ago, at the GPUs
        held since, less the overhead charged then, up to the planned
        finish; a job whose work ran out before its end has its end moved
        here."""
        for j in list(self.runnable):
            job = self.jobs[j]
            early = None
            if job.gpus > 0:
                tp = job.tp(job.gpus)
                it = float(ran(td, t, job.real_end, job.overhead)) * tp
                if job.iter_left <= it and job.end > t:
                    early = (job.end, (t - td) + ceil_secs(fdiv(job.iter_left, tp)))
                    it = float(job.end - t + td) * tp
                job.iter_left -= it
            job.overhead = 0
            if early is not None:
                old, ran_out = early
                job.end = t
                self.move_end_event(j, old)
                self.jobs[j].end = ran_out

    def complete(self, j):
        """A job whose end is due: it ends if it held GPUs last round."""
        job = self.jobs.get(j)
        if job is None or job.node_set is None:
            return
        g, late = job.gpus, job.real_end > job.ddl
        self.nodes.release(job.node_set, j, g)
        self.running = [x for x in self.running if x != j]
        self.runnable = [x for x in self.runnable if x != j]
        del self.jobs[j]
        if late:
            self.declined += 1
            self.accepted -= 1

    def arrive(self, j):
        """An arrival's books; False if it cannot be planned."""
        job = job_of(self.view.jobs[j], self.table)
        if job is None:
            return False
        self.jobs[j] = job
        return True

    def plan_all(self, lst, t):
        """Plans every job of `lst` (sorted in place by deadline) on an
        empty reservation map; whether each meets its deadline."""
        self.free = Steps([t], [self.n])
        jobs = self.jobs
        lst.sort(key=lambda j: jobs[j].ddl)
        for j in lst:
            job = jobs[j]
            if job.node_set is not None:
                sid, job.node_set = job.node_set, None
                self.nodes.release(sid, j, job.gpus)
        ok = True
        for j in lst:
            job = jobs[j]
            p = plan(job, t, self.n, self.free, None)
            if p is None:
                raise no_plan(j, t)
            ok = ok and p.real_end <= job.ddl
            job.alloc = p.alloc
            job.end = p.end
            job.real_end = p.real_end
            self.free = p.free
        return ok

    def start_planned(self, t):
        """Pending jobs whose plan gives them GPUs now start."""
        starts = []
        for p in self.pending:
            job = self.jobs[p]
            later = False
            for k, g in job.alloc.items():
                if g != 0:
                    later = k > t
                    break
            job.gpus = job.planned_at(t)
            if job.gpus <= self.n and not later:
                starts.append(p)
        for j in starts:
            self.start_job(j)
            self.add_end_event(j)

    def place(self, t):
        """Places every job holding GPUs, largest first; the earliest
        change any plan makes after `t`."""
        jobs = self.jobs
        self.runnable.sort(key=lambda j: -jobs[j].gpus)
        change = None
        small = []
        for j in list(self.runnable):
            job = jobs[j]
            k = job.alloc.key_after(t)
            if k is not None:
                change = k if change is None else min(change, k)
            if job.gpus >= self.gpn:
                self.put(j)
            elif job.gpus > 0:
                small.append(j)
        sizes = sorted({jobs[j].gpus for j in small}, reverse=True)
        for g in sizes:
            for j in small:
                if jobs[j].gpus == g:
                    self.put(j)
        for j, hit in self.nodes.cache_hits():
            job = jobs.get(j)
            if job is not None:
                job.in_cache = hit
        return change

    def put(self, j):
        g = self.jobs[j].gpus
        sid = self.nodes.place(j, g)
        if sid is None:
            raise Failed("no node set holds job %d on %d GPUs" % (j, g))
        self.jobs[j].node_set = sid

    def mark_change(self, c):
        """A round at the earliest plan change, when nothing else is due by
        then."""
        if c is None:
            return
        cands = [x for x in (min(self.events) if self.events else None,
                             self.next_arrival()) if x is not None]
        if not cands or c < min(cands):
            if c not in self.events:
                self.events[c] = Due()

    def charge_overheads(self):
        """Every job holding GPUs pays this round's overhead: its end
        moves."""
        restart = self.rounds > 0 and self.rounds % SLOT == 0
        self.rounds += 1
        if restart:
            self.nodes.clear_cache()
        # In the order they started (ElasticFlow's running_jobs): the order
        # their end events take where several move to one time.
        for j in list(self.running):
            job = self.jobs[j]
            if job.gpus == 0:
                job.overhead = 0
                continue
            job.overhead = overhead(self.n, job.gpus, restart, job.in_cache)
            old = job.end
            job.end += job.overhead
            self.move_end_event(j, old)

    def outcome(self, t, out):
        """What the engine is to do; a job whose work will have run out by
        the next round, before its end, ends when it runs out."""
        for j in self.runnable:
            job = self.jobs[j]
            if job.gpus == 0:
                out.idle.append(j)
                continue
            end = job.end
            if self.next is not None:
                tp = job.tp(job.gpus)
                it = float(ran(self.next - t, self.next, job.real_end, job.overhead)) * tp
                if job.iter_left <= it and job.end > self.next:
                    end = max(t + ceil_secs(fdiv(job.iter_left, tp)), t + 1)
            out.hold.append((j, job.gpus, end))
        return out


def ran(td, t, real_end, ovh):
    """Seconds of progress in the `td` seconds to round `t`: up to the
    planned finish, less the overhead charged."""
    run_ = td
    if t > real_end:
        run_ -= t - real_end
    return 0 if run_ < ovh else run_ - ovh
