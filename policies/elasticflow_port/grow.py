"""ElasticFlow's hand-out of the GPUs its plans leave free now (its
`allocate_free_gpus`; the built-in's `grow.rs`): one level at a time, to
the job whose plan gains most per GPU added — the drop in its planned
GPU-seconds — with jobs holding none first; every job is weighed again
after each step.
"""

from .job import Probe
from .maps import I64_MAX, given_back, gpu_secs, wrap64
from .plan import plan
from .round import no_plan

MAX = float(I64_MAX)           # ElasticFlow's sentinel weights (its sys.maxsize)


class Grow:
    """`State`'s hand-out (a part of the books, as `grow.rs` is an `impl
    State`)."""

    def hand_out(self, t):
        """Hands out the GPUs free at `t` after the plans."""
        used = 0
        jobs = self.jobs
        for j in self.runnable:
            job = jobs[j]
            job.probe.next = job.next_level(job.gpus)
            used += job.gpus
        free = self.n - used
        if free <= 0:
            return
        for j in list(self.runnable):
            self.weigh(j, free, t)
        self.sort_by_gain()
        grew = True
        while free > 0 and grew:
            grew = False
            for j in list(self.runnable):
                job = jobs[j]
                more = job.probe.next - job.gpus
                if more > free or more == 0:
                    continue
                p = job.probe
                job.probe = Probe()
                job.probe.marginal = p.marginal
                old_gpus, old_end = job.gpus, job.end
                job.alloc = p.alloc
                job.gpus = p.next
                job.end = p.end
                job.real_end = p.real_end
                job.probe.next = job.next_level(job.gpus)
                self.free = p.free
                if j in self.pending:
                    self.start_job(j)
                self.move_end_event(j, old_end)
                free -= p.next - old_gpus
                grew = True
                break
            for j in list(self.runnable):
                job = jobs[j]
                if job.probe.next > job.gpus:
                    self.weigh(j, free, t)
            self.sort_by_gain()

    def sort_by_gain(self):
        """Most gain first; ties keep their order."""
        jobs = self.jobs
        self.runnable.sort(key=lambda j: -jobs[j].probe.marginal)

    def weigh(self, j, free, t):
        """Weighs growing `j` one level with `free` GPUs free now
        (ElasticFlow's `get_marginal`): its plan with the GPUs it holds
        given back, probed from the next level now."""
        n = self.n
        job = self.jobs[j]
        more = job.probe.next - job.gpus
        if more > free or more == 0:
            job.probe.marginal = -MAX
            return
        tmp = given_back(self.free, job.alloc, job.end, n)
        p = plan(job, t, n, tmp, job.probe.next)
        if p is None:
            raise no_plan(j, t)
        if job.gpus == 0:
            marginal = MAX
        elif p.beyond and more == 0:
            marginal = -MAX
        else:
            diff = wrap64(gpu_secs(p.alloc, p.end) - gpu_secs(job.alloc, job.end))
            marginal = float(diff) / float(more)
        job.probe.marginal = marginal
        job.probe.alloc = p.alloc
        job.probe.free = p.free
        job.probe.end = p.end
        job.probe.real_end = p.real_end

    def start_job(self, j):
        """A pending job starts (the engine keeps its start time)."""
        self.pending = [x for x in self.pending if x != j]
        self.running.append(j)
        if not self.jobs[j].best_effort():
            self.accepted += 1
