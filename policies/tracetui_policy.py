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

Version 2 (the default; set `protocol = 1` to speak version 1 exactly as
before) adds, for traces run from throughput tables:

- on each `Job`: `work`, `work_left` (iterations, as of `work_left_at`),
  `batch_size`, `recorded` (the trace's own run time, where `runtime` is
  the tables'), `levels` (GPU counts it may hold), `rates` ({GPU type:
  [[gpus, iterations/s], ...]}) and `overhead` (seconds without progress
  from `run_from`), with `job.rate(gpus, gpu_type=None)` (tracetui's rule
  between profiled counts; no type: the slowest) and
  `job.work_left_now(now)`. All None (levels []) for a job without a speed.
- on the `View`: `rescale_cost`, `rounds` (`--rounds`), `per_node`, `switches`, `speeds` (the
  start message's dict, or None), `coming` (the next submit times, with
  `lookahead = N` on the policy) and `dropped` (declined jobs, by index).
  Events `resized` (a running job's GPUs changed) and `dropped` are
  applied and passed to `on_event` like the others. The snapshot is the
  state when the policy took over: the jobs of a run's first instant are
  not in it but arrive at the first `schedule` (`on_arrival` hears the
  snapshot's waiting jobs there too, first).
- in `schedule`'s answer: `resize` ([[job, gpus], ...]: resize a running
  job, or start a waiting one on that many GPUs), `shrink_to_fit`,
  `drop` ([job, ...]), `ends` ([[job, time], ...]) and
  `deadline_admitted` ([on_time, of]); they are sent as given.

Floats (work, rates) come and go through `json` unchanged: exact doubles.
"""

import json
import sys

PROTOCOL = 2   # the newest version this module speaks


def rate_on(row, gpus):
    """Iterations per second at `gpus` GPUs on a profiled row [[count,
    rate], ...] (counts ascending), by tracetui's rule: a profiled count
    gives its rate; between two, the straight line; above the last, the
    last rate; below the first, the first scaled by gpus / count. None for
    0 GPUs or an empty row."""
    if not gpus or not row:
        return None
    at = 0
    while at < len(row) and row[at][0] < gpus:
        at += 1
    if at < len(row) and row[at][0] == gpus:
        return row[at][1]
    if at > 0 and at < len(row):
        lc, lr = row[at - 1]
        hc, hr = row[at]
        return lr + (hr - lr) * (float(gpus - lc) / float(hc - lc))
    if at > 0:
        return row[at - 1][1]
    hc, hr = row[0]
    return hr * float(gpus) / float(hc)


class Job:
    """A job as the policy sees it. `job` is its index in the trace (what
    answers name); `id` the trace's own id; `milli` its demand in
    milli-GPUs; `runtime` the run time it will have (None if unknown).
    Version 2: `work`, `work_left` (as of `work_left_at`), `batch_size`,
    `levels`, `rates` and `overhead` (see the module notes)."""

    __slots__ = (
        "job", "id", "user", "group", "submit", "gpus", "instances", "milli",
        "gpu_type", "runtime", "deadline", "model", "priority",
        "start", "run_from", "gpus_held", "attained", "held",
        "preemptions", "preempted_at", "promoted", "end",
        "work", "work_left", "work_left_at", "batch_size", "levels", "rates",
        "overhead", "preemptable", "held_types", "recorded",
    )

    def __init__(self, d, at=None):
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
        self.held_types = []       # GPU types of the machines it holds
        c = d.get("carried") or {}
        self.attained = c.get("attained", 0)    # milli-GPU-seconds before this run
        self.held = c.get("held", 0)            # seconds held before this run
        self.preemptions = c.get("preemptions", 0)
        self.preempted_at = c.get("preempted_at")
        self.promoted = c.get("promoted", False)
        self.end = None
        # Version 2 (None, and levels [], for a job without a speed).
        self.work = d.get("work")
        self.work_left = d.get("work_left")
        self.work_left_at = at if self.work_left is not None else None
        self.batch_size = d.get("batch_size")
        self.levels = d.get("levels") or []
        self.rates = d.get("rates")
        self.recorded = d.get("recorded")   # the trace's own run time
        self.overhead = 0          # seconds without progress from run_from
        self.preemptable = d.get("preemptable", True)

    def held_milli(self):
        return sum(g[2] for g in self.gpus_held)

    def attained_now(self, now):
        """Service so far in milli-GPU-seconds, the current run included."""
        if self.run_from is None:
            return self.attained
        return self.attained + self.held_milli() * (now - self.run_from)

    def rate(self, gpus, gpu_type=None):
        """Iterations per second on `gpus` GPUs of `gpu_type` (None: the
        slowest type it has a row for); None without a speed."""
        if not self.rates:
            return None
        if gpu_type is not None:
            return rate_on(self.rates.get(gpu_type), gpus)
        best = None
        for row in self.rates.values():
            r = rate_on(row, gpus)
            if r is not None and (best is None or r < best):
                best = r
        return best

    def held_rate(self):
        """Its rate on the GPUs it holds (the slowest of their types), as
        tracetui runs it; 0.0 where a type has no rate; None when idle."""
        if not self.gpus_held or not self.rates:
            return None
        gpus = max(self.held_milli() // 1000, 1)
        rate = float("inf")
        for t in self.held_types:
            r = rate_on(self.rates.get(t), gpus)
            if r is None:
                return 0.0
            rate = min(rate, r)
        return rate

    def work_left_now(self, now):
        """Iterations left at `now`, the current run counted: `work_left`
        less the rate on the GPUs held times the seconds of progress since
        it was told (none during `overhead` from `run_from`), never below
        0. None without a speed."""
        if self.work_left is None:
            return None
        if self.run_from is None or not self.gpus_held:
            return self.work_left
        # Progress from the end of the overhead; a snapshot's work_left,
        # told after that, has the progress up to its time counted.
        since = self.run_from + self.overhead
        if self.work_left_at is not None and self.work_left_at > since:
            since = self.work_left_at
        ran = max(now - since, 0)
        return max(0.0, self.work_left - float(ran) * self.held_rate())

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
        self.gpu_types = start.get("gpu_types") or []
        # The key=value parameters it was named with: `--policy 'mine[age=2]'`.
        self.params = start.get("params") or {}
        self.machines = start["machines"]      # [{"name", "gpu_type", "gpus"}]
        # Version 2: the cluster's shape and speed tables (see the module notes).
        self.rescale_cost = start.get("rescale_cost", 0)
        self.rounds = start.get("rounds", 60)   # --rounds: ElasticFlow's slot
        self.per_node = start.get("per_node")
        self.switches = start.get("switches", 0)
        self.speeds = start.get("speeds")
        self.coming = []    # the next submit times (with a lookahead)
        # free[m][g]: milli-GPUs free on GPU g of machine m.
        self.free = [[1000] * m["gpus"] for m in self.machines]
        self.jobs = {}      # every job seen, by index
        self.queue = {}     # waiting jobs, by index
        self.running = {}   # running jobs, by index
        self.done = {}      # finished jobs, by index
        self.dropped = {}   # jobs declined (version 2), by index
        at = self.time
        for d in start["queue"]:
            j = Job(d, at)
            self.jobs[j.job] = self.queue[j.job] = j
        for d in start["running"]:
            j = Job(d, at)
            j.start, j.run_from = d["start"], d["run_from"]
            j.overhead = d.get("overhead") or 0   # version 2
            self._hold(j, d["gpus_held"])
            self.jobs[j.job] = self.running[j.job] = j

    def _hold(self, j, gpus):
        j.gpus_held = gpus
        types = []
        for m, g, milli in gpus:
            self.free[m][g] -= milli
            t = self.machines[m]["gpu_type"]
            if t not in types:
                types.append(t)
        j.held_types = types

    def _release(self, j):
        for m, g, milli in j.gpus_held:
            self.free[m][g] += milli
        j.gpus_held = []
        j.held_types = []

    def _close_run(self, j, at):
        """Counts the run so far into attained service and time held."""
        ran = at - j.run_from
        j.attained += j.held_milli() * ran
        j.held += ran

    def apply(self, msg, policy):
        """One message's changes, in the order they happened; the policy's
        `on_event` sees each with the view as of that moment."""
        self.time = msg["time"]
        if msg.get("type") == "schedule":
            self.coming = msg.get("coming") or []
        for ev in msg["events"]:
            j = self.jobs[ev["job"]]
            at, kind = ev["at"], ev["event"]
            if kind == "started":
                self.queue.pop(j.job, None)
                if j.job in self.running:   # already running: its GPUs changed
                    self._close_run(j, at)
                    self._release(j)
                self.running[j.job] = j
                if j.start is None:
                    j.start = at
                j.run_from = at
                self._hold(j, ev["gpus"])
                if "work_left" in ev:
                    j.work_left, j.work_left_at = ev["work_left"], at
                j.overhead = ev.get("overhead") or 0
            elif kind == "resized":
                self._close_run(j, at)
                self._release(j)
                j.run_from = at
                self._hold(j, ev["gpus"])
                j.work_left, j.work_left_at = ev.get("work_left"), at
                j.overhead = ev.get("overhead") or 0
            elif kind == "preempted":
                self._close_run(j, at)
                j.preemptions += 1
                j.preempted_at = at
                j.run_from = None
                j.overhead = 0
                if "work_left" in ev:
                    j.work_left, j.work_left_at = ev["work_left"], at
                self._release(j)
                del self.running[j.job]
                self.queue[j.job] = j
            elif kind == "finished":
                self._release(j)
                j.run_from = None
                j.end = at
                del self.running[j.job]
                self.done[j.job] = j
            elif kind == "dropped":
                self.queue.pop(j.job, None)
                self.dropped[j.job] = j
            policy.on_event(self, kind, j, at)
        arrived = []
        for d in msg.get("arrived", ()):
            j = Job(d, self.time)
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
    protocol = PROTOCOL   # 1 to speak version 1 exactly as before
    lookahead = 0         # version 2: how many coming submit times to be sent
    rounds = False        # version 2: it keeps ElasticFlow's rounds itself (view.rounds)

    def priority(self, job):
        """A new job's key (lower first), or None to leave it at 0."""
        return None

    def on_arrival(self, view, job):
        """A job arrived (or waits in the snapshot): by default it gets `priority(job)`."""
        k = self.priority(job)
        if k is not None:
            self.set_priority(job, k)

    def on_event(self, view, kind, job, at):
        """`kind` ("started", "preempted", "finished"; version 2 also
        "resized" and "dropped") happened to `job` at `at`."""

    def schedule(self, view):
        """More of the answer at a scheduling point: `start`,
        `start_if_fits`, `preempt`, `wakeup` (keys set with `set_priority`
        are sent for you); version 2 also `resize`, `shrink_to_fit`,
        `drop`, `ends` and `deadline_admitted`. Under the "explicit" walk, return
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
                      "describe": policy.describe, "protocol": policy.protocol,
                      "notify": policy.notify, "ask": policy.ask}
            if policy.protocol >= 2:
                answer["lookahead"] = policy.lookahead
                if policy.rounds:
                    answer["rounds"] = True
        else:
            print("unknown message type %r" % kind, file=sys.stderr)
            answer = {}
        write(_dumps(answer) + "\n")
        flush()
