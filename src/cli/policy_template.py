#!/usr/bin/env python3
"""{{NAME}}: a tracetui scheduling policy, written by `tracetui policy new`.

Smallest GPU demand first, with aging: a job's key is its demand in
milli-GPUs less `age_weight` times the seconds it has waited, so a big job
is not passed over for ever. Change `priority` (or `schedule`) and run:

    tracetui sim itp TRACE.csv --policy 'exec:python3 {{NAME}}.py'
    tracetui sim itp TRACE.csv --policy 'exec:python3 {{NAME}}.py[age_weight=2]'
    tracetui compare itp TRACE.csv --policies 'fifo,sjf,exec:python3 {{NAME}}.py'

Lower keys go first. The walk says how the engine starts jobs between your
answers: "strict" (in key order, stopping at the first that does not fit),
"greedy" (every job that fits, in key order), "preemptive" or "explicit"
(only the jobs `schedule` starts). tracetui_policy.py beside this file
speaks the protocol (docs/policy-protocol.md) and keeps the view: the
queue, the running jobs, the free GPUs of each machine.

stdout is the protocol: print diagnostics to stderr,
print(..., file=sys.stderr); tracetui shows them in its log.
"""

import os
import sys

# The helper is beside this file: found whatever the working directory.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tracetui_policy import Policy, run  # noqa: E402


class SmallestFirstAging(Policy):
    name = "{{NAME}}"
    walk = "greedy"
    describe = "smallest GPU demand first, with aging"

    def priority(self, job):
        # Called once, when the job arrives. `job.milli` is its demand
        # (1000 = one GPU); `job.runtime`, `job.user`, `job.submit` … too.
        return job.milli

    def schedule(self, view):
        # Called at every scheduling point: re-key the waiting jobs for their
        # age (only with age_weight > 0: keys that do not change cost nothing).
        age_weight = self.param("age_weight", 0.0)
        if age_weight > 0:
            for job in view.queue.values():
                self.set_priority(job, job.milli - age_weight * (view.time - job.submit))
        return None


run(SmallestFirstAging())
