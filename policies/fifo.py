"""fifo: strict arrival order; the head blocks the queue (tracetui's `fifo`).

Every job keeps key 0, so the queue is in arrival order (submit time, then
trace order), and the strict walk stops at the first job that does not fit.
"""

from tracetui_policy import Policy, run


class Fifo(Policy):
    name = "fifo"
    ask = "arrivals"   # it decides nothing when a job only finishes
    walk = "strict"
    describe = "strict arrival order; the head blocks the queue"


if __name__ == "__main__":
    run(Fifo())
