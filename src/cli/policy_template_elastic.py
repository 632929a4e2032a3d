#!/usr/bin/env python3
"""{{NAME}}: an elastic tracetui scheduling policy (protocol 2), written by
`tracetui policy new --elastic`.

Elastic earliest-deadline-first: at every scheduling point, jobs in
deadline order (best-effort jobs last) each get the fewest GPUs from their
throughput table that still finish them by their deadline — running jobs
first, resized where that count changed, then waiting ones while GPUs are
left. A waiting job no count can finish in time is dropped. Run it on a
trace with throughput tables (ElasticFlow's schema):

    tracetui sim itp TRACE.csv --cluster SPEC.csv --throughputs TABLES \\
        --policy 'exec:python3 {{NAME}}.py'
    tracetui compare itp TRACE.csv --cluster SPEC.csv --throughputs TABLES \\
        --policies 'edf-elastic,elasticflow,exec:python3 {{NAME}}.py'

stdout is the protocol: print diagnostics to stderr,
print(..., file=sys.stderr); tracetui shows them as this policy's output.
"""

import os
import sys

# The helper is beside this file: found whatever the working directory.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tracetui_policy import Policy, run  # noqa: E402


class ElasticEdf(Policy):
    name = "{{NAME}}"
    walk = "explicit"           # only the jobs `schedule` starts run
    protocol = 2
    describe = "elastic EDF: each job on the fewest GPUs that meet its deadline"

    def fewest(self, view, job):
        """The fewest of `job`'s GPU counts that finish it by its deadline
        (its smallest without one); None if none can."""
        left = job.work_left_now(view.time)
        for gpus in job.levels:
            rate = job.rate(gpus)
            if job.deadline is None:
                return gpus
            if rate and view.time + view.rescale_cost + left / rate <= job.deadline:
                return gpus
        return None

    def schedule(self, view):
        free = sum(m["gpus"] for m in view.machines)
        by_deadline = lambda j: (j.deadline is None, j.deadline or 0, j.submit, j.job)
        resize, drop, preempt = [], [], []
        for job in sorted(view.running.values(), key=by_deadline):
            held = job.held_milli() // 1000
            if not job.levels:
                free -= held    # no table row: it keeps its GPUs
                continue
            gpus = self.fewest(view, job) or job.levels[-1]
            fits = [g for g in job.levels if g <= min(gpus, free)]
            if not fits:
                preempt.append(job.job)
                continue
            if fits[-1] != held:
                resize.append([job.job, fits[-1]])
            free -= fits[-1]
        for job in sorted(view.queue.values(), key=by_deadline):
            if not job.levels:
                continue        # no table row: this policy runs table jobs only
            gpus = self.fewest(view, job)
            if gpus is None:
                drop.append(job.job)
            elif gpus <= free:
                resize.append([job.job, gpus])
                free -= gpus
        return {"resize": resize, "drop": drop, "preempt": preempt, "shrink_to_fit": True}


run(ElasticEdf())
