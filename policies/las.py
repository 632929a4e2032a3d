"""las: Tiresias's discretised 2D-LAS (tracetui's `las`), preemptive.

A job's key is its queue: how many of the thresholds (GPU-seconds, from
tracetui's --las-thresholds) its attained service has passed. A running job
is demoted the moment it crosses the next threshold (a wake-up asked for
that second); a preempted job that has waited `las_starve` times what it
has held goes back to the first queue for good (the starvation guard).
The preemptive walk lets a job of lower key take the GPUs of higher ones.
"""

import math

from tracetui_policy import Policy, run

DEMOTE, PROMOTE = 0, 1


class Las(Policy):
    name = "las"
    walk = "preemptive"
    describe = "Tiresias 2D-LAS: least attained GPU-service first, discretised queues"
    notify = True   # demotions are timed from the moment a job starts
    ask = "arrivals"   # keys change at arrivals, wake-ups and after passes only

    def on_start(self, view):
        self.bounds = [t * 1000 for t in view.las_thresholds]
        self.wakeups = set()   # (time, job, DEMOTE | PROMOTE)
        for j in view.running.values():
            self.set_priority(j, self.queue_of(j, view.time, True))
            self.demotion(j, view.time)

    def queue_of(self, j, now, running):
        if j.promoted:
            return 0
        att = j.attained_now(now) if running else j.attained
        return sum(1 for b in self.bounds if att >= b)

    def demotion(self, j, now):
        """A wake-up for when a running job crosses its next threshold."""
        milli = j.held_milli()
        if milli == 0 or j.promoted:
            return
        att = j.attained_now(now)
        nxt = next((b for b in self.bounds if b > att), None)
        if nxt is not None:
            dt = -(-(nxt - att) // milli)
            self.wakeups.add((now + max(min(dt, 2**63 // 4), 1), j.job, DEMOTE))

    def starve_time(self, j):
        s = self.view.las_starve
        if s > 0 and j.held > 0:
            return j.preempted_at + max(math.ceil(j.held * s), 1)
        return None

    def on_arrival(self, view, j):
        self.set_priority(j, self.queue_of(j, view.time, False))

    def on_event(self, view, kind, j, at):
        if kind == "started":
            self.demotion(j, at)
        elif kind == "preempted":
            self.set_priority(j, self.queue_of(j, at, False))
            t = self.starve_time(j)
            if t is not None:
                self.wakeups.add((max(t, at + 1), j.job, PROMOTE))

    def schedule(self, view):
        now = view.time
        for w in sorted(w for w in self.wakeups if w[0] == now):
            _, job, kind = w
            j = view.jobs[job]
            if kind == DEMOTE and job in view.running:
                self.set_priority(j, self.queue_of(j, now, True))
                self.demotion(j, now)
            elif kind == PROMOTE and job in view.queue:
                if self.starve_time(j) == now and not j.promoted:
                    j.promoted = True
                    self.set_priority(j, 0)
        self.wakeups = {w for w in self.wakeups if w[0] > now}
        return self.passed(view)

    def passed(self, view):
        return {"wakeup": min(self.wakeups)[0]} if self.wakeups else None


if __name__ == "__main__":
    run(Las())
