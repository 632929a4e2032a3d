"""Write a tracetui scheduling policy in Python (standard library only).

tracetui runs your program as `--policy 'exec:python3 my_policy.py'` and
speaks the policy protocol (docs/policy-protocol.md) with it over stdin and
stdout. This module speaks it for you and keeps the whole view up to date
from the changes tracetui sends: the queue, the running jobs with their
GPUs, the free GPUs per machine, and each job's attained service. You write
a subclass of `Policy` with one method:

- `priority(self, job)` for a policy that orders the queue: return a
  number (lower goes first; ties by submit time, then trace order) and the
  engine's walk starts jobs in that order; or
- `schedule(self, view)` for full control: return a dict with any of
  `priority` ([[job, key], ...]), `start` ([job, ...] or
  [{"job": j, "gpus": [[machine, gpu, milli], ...]}]), `start_if_fits`
  ([job, ...]: each started where tracetui's placement puts it if it fits
  then, skipped if not — no need to mirror the placement rules), `preempt`
  ([job, ...]) and `wakeup` (a later trace second to be asked again).

Then end the file with `run(MyPolicy())`. Print diagnostics to stderr
(tracetui shows them in its log); stdout belongs to the protocol.
"""

import json
import sys

PROTOCOL = 1


class Job:
    """A job as the policy sees it. `job` is its index in the trace (what
    answers name); `id` the trace's own id; `milli` its demand in
    milli-GPUs; `runtime` the run time it will have (None if unknown)."""

    __slots__ = (
        "job", "id", "user", "group", "submit", "gpus", "instances", "milli",
        "gpu_type", "runtime", "deadline", "model", "priority",
        "start", "run_from", "gpus_held", "attained", "held",
        "preemptions", "preempted_at", "promoted", "end",
    )

    def __init__(self, d):
        self.job = d["job"]
        self.id = d["id"]
        self.user = d.get("user")
        self.group = d.get("group")
        self.submit = d["submit"]
        self.gpus = d.get("gpus")
        self.instances = d.get("instances")
        self.milli = d["milli"]
        self.gpu_type = d.get("gpu_type")
        self.runtime = d.get("runtime")
        self.deadline = d.get("deadline")
        self.model = d.get("model")
        self.priority = d.get("priority") or 0
        self.start = None          # first start
        self.run_from = None       # start of the current run
        self.gpus_held = []        # [[machine, gpu, milli], ...] while running
        c = d.get("carried") or {}
        self.attained = c.get("attained", 0)    # milli-GPU-seconds before this run
        self.held = c.get("held", 0)            # seconds held before this run
        self.preemptions = c.get("preemptions", 0)
        self.preempted_at = c.get("preempted_at")
        self.promoted = c.get("promoted", False)
        self.end = None

    def held_milli(self):
        return sum(g[2] for g in self.gpus_held)

    def attained_now(self, now):
        """Service so far in milli-GPU-seconds, the current run included."""
        if self.run_from is None:
            return self.attained
        return self.attained + self.held_milli() * (now - self.run_from)

    def __repr__(self):
        return "Job(%d %s)" % (self.job, self.id)


class View:
    """Everything tracetui has told the policy, kept current."""

    def __init__(self, start):
        self.time = start["time"]
        self.format = start["format"]
        self.zone = start["zone"]
        self.placement = start["placement"]
        self.preempt_cost = start["preempt_cost"]
        self.las_thresholds = start["las_thresholds"]
        self.las_starve = start["las_starve"]
        self.fair_by = start["fair_by"]
        # The key=value parameters it was named with: `--policy 'mine[age=2]'`.
        self.params = start.get("params") or {}
        self.machines = start["machines"]      # [{"name", "gpu_type", "gpus"}]
        # free[m][g]: milli-GPUs free on GPU g of machine m.
        self.free = [[1000] * m["gpus"] for m in self.machines]
        self.jobs = {}      # every job seen, by index
        self.queue = {}     # waiting jobs, by index
        self.running = {}   # running jobs, by index
        self.done = {}      # finished jobs, by index
        for d in start["queue"]:
            j = Job(d)
            self.jobs[j.job] = self.queue[j.job] = j
        for d in start["running"]:
            j = Job(d)
            j.start, j.run_from = d["start"], d["run_from"]
            self._hold(j, d["gpus_held"])
            self.jobs[j.job] = self.running[j.job] = j

    def _hold(self, j, gpus):
        j.gpus_held = gpus
        for m, g, milli in gpus:
            self.free[m][g] -= milli

    def _release(self, j):
        for m, g, milli in j.gpus_held:
            self.free[m][g] += milli
        j.gpus_held = []

    def apply(self, msg, policy):
        """One message's changes, in the order they happened; the policy's
        `on_event` sees each with the view as of that moment."""
        self.time = msg["time"]
        for ev in msg["events"]:
            j = self.jobs[ev["job"]]
            at, kind = ev["at"], ev["event"]
            if kind == "started":
                self.queue.pop(j.job, None)
                self.running[j.job] = j
                if j.start is None:
                    j.start = at
                j.run_from = at
                self._hold(j, ev["gpus"])
            elif kind == "preempted":
                ran = at - j.run_from
                j.attained += j.held_milli() * ran
                j.held += ran
                j.preemptions += 1
                j.preempted_at = at
                j.run_from = None
                self._release(j)
                del self.running[j.job]
                self.queue[j.job] = j
            elif kind == "finished":
                self._release(j)
                j.run_from = None
                j.end = at
                del self.running[j.job]
                self.done[j.job] = j
            policy.on_event(self, kind, j, at)
        arrived = []
        for d in msg.get("arrived", ()):
            j = Job(d)
            self.jobs[j.job] = self.queue[j.job] = j
            arrived.append(j)
        return arrived

    def queued_in_arrival_order(self):
        return sorted(self.queue.values(), key=lambda j: (j.submit, j.job))

    def free_gpus(self, m):
        """Whole free GPUs on machine m."""
        return sum(1 for f in self.free[m] if f == 1000)


class Policy:
    """Subclass this. `name` and `walk` say who you are: the walk is how the
    engine starts jobs between your answers — "strict" (in your order,
    stopping at the first that does not fit), "greedy" (in your order, every
    job that fits), "preemptive" (greedy, and a job that does not fit may
    preempt running jobs of higher key) or "explicit" (only the jobs you
    start). Set `notify = True` to hear of starts and preemptions right
    after each pass (to ask for a wake-up in time, as `las` does), and
    `ask = "arrivals"` to be asked only where jobs arrive and at your
    wake-ups (fewer round trips; right for a policy that decides nothing
    when a job only finishes)."""

    name = "my-policy"
    walk = "greedy"
    view = None
    describe = ""
    notify = False
    ask = "always"

    def priority(self, job):
        """A new job's key (lower first), or None to leave it at 0."""
        return None

    def on_arrival(self, view, job):
        """A job arrived (or waits in the snapshot): by default it gets `priority(job)`."""
        k = self.priority(job)
        if k is not None:
            self.set_priority(job, k)

    def on_event(self, view, kind, job, at):
        """`kind` ("started", "preempted", "finished") happened to `job` at `at`."""

    def schedule(self, view):
        """More of the answer at a scheduling point: `start`,
        `start_if_fits`, `preempt`, `wakeup` (keys set with `set_priority`
        are sent for you). Under the "explicit" walk, return
        {"start_if_fits": [j.job for j in jobs_in_your_order]} to start
        what fits where tracetui would place it."""
        return None

    def passed(self, view):
        """More of the answer after a pass (with `notify`): `wakeup`."""
        return None

    def on_start(self, view):
        """The snapshot arrived (the policy takes over at view.time)."""

    def param(self, key, default):
        """The parameter `key` it was named with (`--policy 'mine[key=2]'`),
        read as the type of `default` (int, float, bool or str), or
        `default` when it was not given. A value that does not read as that
        type stops the policy with a message naming it."""
        params = self.view.params if self.view is not None else {}
        if key not in params:
            return default
        text = params[key]
        try:
            if isinstance(default, bool):
                if text.lower() in ("1", "true", "yes", "on"):
                    return True
                if text.lower() in ("0", "false", "no", "off"):
                    return False
                raise ValueError(text)
            return type(default)(text)
        except ValueError:
            sys.exit("parameter %s=%s: expected a %s" % (key, text, type(default).__name__))

    def set_priority(self, job, key):
        """Gives `job` a new key, sent with this answer (a number, rounded
        down to an integer: keys are 64-bit integers)."""
        key = int(key // 1)
        if key != job.priority:
            job.priority = key
            self._keys[job.job] = key


def _dumps(obj):
    return json.dumps(obj, separators=(",", ":"))


def _answer(policy, extra):
    answer = dict(extra or {})
    keys = dict(policy._keys)
    for j, k in answer.get("priority", ()):   # keys given directly win
        keys[j] = int(k // 1)
    if keys:
        answer["priority"] = [[j, k] for j, k in keys.items()]
    policy._keys = {}
    return answer


def run(policy):
    """Serves the protocol on stdin/stdout until tracetui closes it."""
    read = sys.stdin.buffer.readline
    write = sys.stdout.write
    flush = sys.stdout.flush
    policy.view = None
    policy._keys = {}
    fresh = []
    while True:
        line = read()
        if not line:
            return
        msg = json.loads(line)
        kind = msg["type"]
        view = policy.view
        if kind == "schedule":
            # Jobs waiting in the snapshot count as arriving at the first point.
            for j in fresh + view.apply(msg, policy):
                policy.on_arrival(view, j)
            fresh = []
            answer = _answer(policy, policy.schedule(view))
        elif kind == "passed":
            view.apply(msg, policy)
            answer = _answer(policy, policy.passed(view))
        elif kind == "start":
            policy.view = View(msg)
            fresh = policy.view.queued_in_arrival_order()
            policy.on_start(policy.view)
            answer = {}
        elif kind == "hello":
            answer = {"name": policy.name, "walk": policy.walk,
                      "describe": policy.describe, "protocol": PROTOCOL,
                      "notify": policy.notify, "ask": policy.ask}
        else:
            print("unknown message type %r" % kind, file=sys.stderr)
            answer = {}
        write(_dumps(answer) + "\n")
        flush()
