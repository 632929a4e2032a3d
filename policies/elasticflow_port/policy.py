"""The protocol glue (the built-in's `mod.rs`): the books at the start
message, arrivals from the messages, and each round's outcome as a
`schedule` answer — `resize` + `ends` (the jobs it holds), `preempt` (jobs
planned to hold none), `drop` (arrivals declined) and `deadline_admitted`
(its own count) — with a `wakeup` at the next round.
"""

import sys

from tracetui_policy import Policy

from .grow import Grow
from .round import Round
from .state import Failed, State


class Books(Round, Grow, State):
    """The books: the state (`state.py`), its rounds and its hand-out."""


class ElasticFlow(Policy):
    name = "elasticflow"
    walk = "explicit"
    ask = "always"
    protocol = 2
    lookahead = 8
    rounds = True   # its own rounds, at ElasticFlow's 60-s slot (maps.SLOT)
    describe = ("ElasticFlow (Python port of the built-in): admits a job only if every "
                "deadline still holds; each job its least GPUs to meet it, spare GPUs "
                "where they gain most")

    def on_start(self, view):
        if view.rounds != 60:
            sys.exit("elasticflow (port): keeps ElasticFlow's 60-s slot; --rounds %d is not for it "
                     "(the built-in elasticflow takes any)" % view.rounds)
        # Every job of the snapshot counts as admitted, not started; those
        # waiting are passed to on_arrival too, and are not arrivals.
        self.snapshot = set(view.queue)
        self.state = Books(view, self.lookahead)

    def on_arrival(self, view, job):
        if job.job not in self.snapshot:
            self.state.arrived(job)

    def schedule(self, view):
        s = self.state
        now = view.time
        s.coming = view.coming
        if not s.next_known:
            s.next = s.next_arrival()
            s.next_known = True
        answer = {}
        if s.next == now:
            try:
                out = s.round(now)
            except Failed as e:
                sys.exit("elasticflow at %d: %s" % (now, e))
            drop = [j for j in out.declined if j in view.queue]
            preempt = [j for j in out.idle
                       if j in view.running and view.jobs[j].preemptable]
            if drop:
                answer["drop"] = drop
            if preempt:
                answer["preempt"] = preempt
            if out.hold:
                answer["resize"] = [[j, g] for j, g, _ in out.hold]
                answer["ends"] = [[j, e] for j, _, e in out.hold]
            on = max(s.accepted, 0)
            answer["deadline_admitted"] = [on, on + s.declined]
        if s.next is not None and s.next > now:
            answer["wakeup"] = s.next
        elif s.next is not None and s.next < now:
            print("elasticflow: round at %d missed (now %d)" % (s.next, now), file=sys.stderr)
        return answer
