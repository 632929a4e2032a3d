"""timeslice: Gandiva-style time slicing, a policy tracetui does not have built in.

Jobs take turns on the GPUs. A job that starts keeps its GPUs for at least
one quantum (TIMESLICE_QUANTUM seconds, 3600 by default); after that it
yields to any job that has been waiting since before it started, which
takes its GPUs (the preemptive walk; the preempted job pays tracetui's
--preempt-cost when it resumes). The queue is ordered by how long each job
has waited: since it was submitted, or since it was last preempted.

    tracetui compare itp trace.csv --policies 'fifo,las,exec:python3 policies/timeslice.py'
"""

import os

from tracetui_policy import Policy, run

QUANTUM = int(os.environ.get("TIMESLICE_QUANTUM", "3600"))
PROTECTED = -(2**63)   # the lowest key: no waiting job outranks it


class TimeSlice(Policy):
    name = "timeslice"
    walk = "preemptive"
    describe = "Gandiva-style time slicing: after a quantum, a job yields to those waiting longer"
    notify = True   # quanta are timed from the moment a job starts

    def on_start(self, view):
        self.expiries = set()   # (time, job): a running job's quantum ends
        for j in view.running.values():
            self.started(j, j.run_from, view.time)

    def started(self, j, at, now):
        if at + QUANTUM > now:
            self.set_priority(j, PROTECTED)
            self.expiries.add((at + QUANTUM, j.job))
        else:
            self.set_priority(j, j.run_from)

    def on_arrival(self, view, j):
        self.set_priority(j, j.submit)           # waiting since it was submitted

    def on_event(self, view, kind, j, at):
        if kind == "started":
            self.started(j, at, at)
        elif kind == "preempted":
            self.set_priority(j, at)             # waiting since now

    def schedule(self, view):
        now = view.time
        for t, job in sorted(e for e in self.expiries if e[0] == now):
            j = view.jobs[job]
            if job in view.running:
                # Its quantum is over: it ranks by when it started, so jobs
                # waiting since earlier may take its GPUs.
                self.set_priority(j, j.run_from)
        self.expiries = {e for e in self.expiries if e[0] > now}
        return self.passed(view)

    def passed(self, view):
        return {"wakeup": min(self.expiries)[0]} if self.expiries else None


if __name__ == "__main__":
    run(TimeSlice())
