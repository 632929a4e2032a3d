"""sjf: shortest run time first, with oracle run times (tracetui's `sjf`).

A job's key is the run time it will have; a job whose run time is unknown
goes last. The greedy walk starts every job that fits, in key order.
"""

from tracetui_policy import Policy, run

UNKNOWN = 2**63 - 1   # the largest key: after every known run time


class Sjf(Policy):
    name = "sjf"
    ask = "arrivals"   # it decides nothing when a job only finishes
    walk = "greedy"
    describe = "shortest run time first (oracle)"

    def priority(self, job):
        return UNKNOWN if job.runtime is None else max(job.runtime, 0)


if __name__ == "__main__":
    run(Sjf())
