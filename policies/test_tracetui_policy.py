"""Unit checks for tracetui_policy.py (protocol versions 1 and 2) and for
the entry of the elasticflow port. Standard library only:

    python3 -m unittest discover -s policies -p 'test_*.py'   (from the repo)
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import tracetui_policy as tp  # noqa: E402
from tracetui_policy import Job, Policy, View  # noqa: E402

HELLO = {"type": "hello", "protocol": 2, "command": "x"}


def job(j, **kw):
    d = {"job": j, "id": "j%d" % j, "submit": 0, "gpus": 2, "milli": 2000}
    d.update(kw)
    return d


def sped(j, **kw):
    """A job with a speed: 1000 iterations, rows on types A and B."""
    d = job(j, work=1000.0, work_left=1000.0, batch_size=64, levels=[1, 2, 4],
            rates={"A": [[1, 10.0], [2, 18.0], [4, 30.0]],
                   "B": [[1, 5.0], [2, 9.0], [4, 16.0]]})
    d.update(kw)
    return d


START = {
    "type": "start", "time": 100, "format": "itp", "source": "t.csv", "zone": "relative",
    "jobs": 3, "placement": "consolidate", "preempt_cost": 30, "las_thresholds": [3600],
    "las_starve": 2.0, "fair_by": "user", "gpu_types": ["A", "B"], "params": {},
    "machines": [{"name": "n0", "gpu_type": "A", "gpus": 4},
                 {"name": "n1", "gpu_type": "B", "gpus": 4}],
    "rescale_cost": 5, "per_node": 4, "switches": 1,
    "speeds": {"tables": [{"gpu_type": "A", "table": "throughputs_T4"},
                          {"gpu_type": "B", "table": "B"}], "factors": None},
    "queue": [sped(0)],
    "running": [],
}


def schedule(t, events=(), arrived=(), coming=None):
    m = {"type": "schedule", "time": t, "events": list(events), "arrived": list(arrived),
         "wakeup": False}
    if coming is not None:
        m["coming"] = coming
    return m


class Recorder(Policy):
    def __init__(self):
        self.seen = []

    def on_event(self, view, kind, j, at):
        self.seen.append((kind, j.job, at))


class RateRule(unittest.TestCase):
    row = [[1, 2.0], [2, 3.0], [4, 5.0], [8, 6.0]]

    def test_the_rule(self):
        j = Job(job(0, rates={"A": self.row}))
        self.assertEqual(j.rate(1, "A"), 2.0)
        self.assertEqual(j.rate(4, "A"), 5.0)
        self.assertEqual(j.rate(3, "A"), 4.0)     # the line between 2 and 4
        self.assertEqual(j.rate(6, "A"), 5.5)
        self.assertEqual(j.rate(64, "A"), 6.0)    # flat past the last
        self.assertIsNone(j.rate(0, "A"))
        self.assertIsNone(j.rate(2, "C"))         # no row for the type
        k = Job(job(0, rates={"A": self.row[2:]}))
        self.assertEqual(k.rate(2, "A"), 2.5)     # proportional below the first

    def test_float_order_is_rusts(self):
        # lr + (hr - lr) * ((g - lc) / (hc - lc)), in that order; below the
        # first, hr * g / hc.
        j = Job(job(0, rates={"A": [[1, 1.5], [4, 4.0]]}))
        self.assertEqual(j.rate(2, "A"), 2.333333333333333)   # not ...35
        self.assertEqual(j.rate(2, "A"), 1.5 + (4.0 - 1.5) * (1.0 / 3.0))
        self.assertNotEqual(j.rate(2, "A"), 1.5 + (4.0 - 1.5) * 1.0 / 3.0)
        j = Job(job(0, rates={"A": [[1, 0.1], [8, 0.7]]}))
        self.assertEqual(j.rate(3, "A"), 0.2714285714285714)  # not ...46
        j = Job(job(0, rates={"A": [[7, 0.1], [8, 0.7]]}))
        self.assertEqual(j.rate(1, "A"), 0.014285714285714287)  # 0.1 * 1 / 7, not ...85
        self.assertEqual(tp.rate_on([(1, 1.5), (4, 4.0)], 2), 2.333333333333333)   # tuples too

    def test_slowest_type_by_default(self):
        j = Job(job(0, rates={"A": [[1, 10.0], [2, 18.0]], "B": [[1, 5.0], [2, 19.0]]}))
        self.assertEqual(j.rate(1), 5.0)
        self.assertEqual(j.rate(2), 18.0)
        self.assertIsNone(Job(job(1)).rate(1))

    def test_no_speed(self):
        j = Job(job(0))
        self.assertIsNone(j.work)
        self.assertIsNone(j.work_left)
        self.assertEqual(j.levels, [])
        self.assertIsNone(j.work_left_now(500))


class Events(unittest.TestCase):
    def setUp(self):
        self.p = Recorder()
        self.v = View(START)
        self.p.view = self.v

    def test_start_fields(self):
        v = self.v
        self.assertEqual((v.rescale_cost, v.per_node, v.switches), (5, 4, 1))
        self.assertEqual(v.speeds["tables"][0]["table"], "throughputs_T4")
        self.assertEqual(v.coming, [])
        j = v.jobs[0]
        self.assertEqual((j.work, j.work_left, j.work_left_at, j.batch_size, j.levels),
                         (1000.0, 1000.0, 100, 64, [1, 2, 4]))
        self.assertEqual(j.overhead, 0)

    def test_started_resized_preempted_dropped(self):
        v, p = self.v, self.p
        v.apply(schedule(110, [{"event": "started", "job": 0, "at": 110,
                                "gpus": [[0, 0, 1000], [0, 1, 1000]],
                                "work_left": 1000.0, "overhead": 30}],
                         arrived=[job(1, submit=110, work=50.0, work_left=50.0)],
                         coming=[200, 300]), p)
        j = v.jobs[0]
        self.assertIn(0, v.running)
        self.assertIn(1, v.queue)
        self.assertEqual(v.jobs[1].work_left_at, 110)
        self.assertEqual(v.coming, [200, 300])
        self.assertEqual((j.run_from, j.overhead, j.work_left_at), (110, 30, 110))
        self.assertEqual(v.free_gpus(0), 2)
        self.assertEqual(j.work_left_now(130), 1000.0)            # in its overhead
        self.assertEqual(j.work_left_now(150), 1000.0 - 10 * 18.0)
        self.assertEqual(j.work_left_now(10**6), 0.0)             # never below 0
        # Resized onto 4 GPUs of machine 1 (type B).
        v.apply(schedule(200, [{"event": "resized", "job": 0, "at": 200, "from": 2,
                                "gpus": [[1, g, 1000] for g in range(4)],
                                "work_left": 200.0, "overhead": 5}], coming=[300]), p)
        self.assertEqual((j.run_from, j.overhead, j.work_left, j.work_left_at),
                         (200, 5, 200.0, 200))
        self.assertEqual((v.free_gpus(0), v.free_gpus(1)), (4, 0))
        self.assertEqual(j.attained, 2000 * 90)
        self.assertEqual(j.held_types, ["B"])
        self.assertEqual(j.work_left_now(215), 200.0 - 10 * 16.0)
        self.assertEqual(j.attained_now(215), 2000 * 90 + 4000 * 15)
        # Preempted; job 1 dropped.
        v.apply(schedule(220, [{"event": "preempted", "job": 0, "at": 220, "work_left": 10.0},
                               {"event": "dropped", "job": 1, "at": 220}]), p)
        self.assertIn(0, v.queue)
        self.assertNotIn(1, v.queue)
        self.assertIn(1, v.dropped)
        self.assertEqual(v.coming, [])              # absent: []
        self.assertEqual((j.work_left, j.work_left_at, j.run_from, j.overhead),
                         (10.0, 220, None, 0))
        self.assertEqual(j.work_left_now(999), 10.0)
        self.assertEqual((v.free_gpus(0), v.free_gpus(1)), (4, 4))
        # Finished after a start again.
        v.apply(schedule(300, [{"event": "started", "job": 0, "at": 230,
                                "gpus": [[0, 0, 1000]], "work_left": 10.0, "overhead": 0},
                               {"event": "finished", "job": 0, "at": 231}]), p)
        self.assertIn(0, v.done)
        self.assertEqual((j.start, j.end, j.preemptions, v.free_gpus(0)), (110, 231, 1, 4))
        self.assertEqual(p.seen, [("started", 0, 110), ("resized", 0, 200),
                                  ("preempted", 0, 220), ("dropped", 1, 220),
                                  ("started", 0, 230), ("finished", 0, 231)])

    def test_snapshot_running_job(self):
        def snap(overhead):
            d = dict(sped(2, work_left=700.0, rates={"A": [[2, 10.0]]}, levels=[2]),
                     start=400, run_from=450, gpus_held=[[0, 0, 1000], [0, 1, 1000]],
                     preemptable=False, overhead=overhead)
            return View(dict(START, time=500, queue=[], running=[d])).jobs[2]
        # Its overhead ended before the snapshot: work_left counts the run
        # to the snapshot's time; progress on from there.
        j = snap(20)
        self.assertFalse(j.preemptable)
        self.assertEqual((j.overhead, j.run_from, j.work_left_at), (20, 450, 500))
        self.assertEqual(j.work_left_now(500), 700.0)
        self.assertEqual(j.work_left_now(510), 600.0)
        # Still in its overhead at the snapshot: no progress until 530.
        j = snap(80)
        self.assertEqual(j.work_left_now(520), 700.0)
        self.assertEqual(j.work_left_now(530), 700.0)
        self.assertEqual(j.work_left_now(540), 600.0)
        # Version 1 has no overhead: 0.
        d = dict(job(3), start=400, run_from=450, gpus_held=[[0, 2, 1000]], preemptable=True)
        self.assertEqual(View(dict(START, queue=[], running=[d])).jobs[3].overhead, 0)

    def test_v1_started_again_moves_gpus(self):
        # Version 1 tells a resize as a start of a running job.
        v, p = self.v, self.p
        v.apply(schedule(110, [{"event": "started", "job": 0, "at": 110,
                                "gpus": [[0, 0, 1000], [0, 1, 1000]]}]), p)
        v.apply(schedule(120, [{"event": "started", "job": 0, "at": 120,
                                "gpus": [[1, 0, 1000]]}]), p)
        self.assertEqual((v.free_gpus(0), v.free_gpus(1)), (4, 3))
        self.assertEqual(v.jobs[0].start, 110)
        self.assertEqual(v.jobs[0].attained, 2000 * 10)


class Conversation(unittest.TestCase):
    """Programs run as tracetui runs them, fed whole conversations."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def policy(self, body):
        path = os.path.join(self.tmp.name, "p%d.py" % len(os.listdir(self.tmp.name)))
        with open(path, "w") as f:
            f.write("import sys\nsys.path.insert(0, %r)\n"
                    "from tracetui_policy import Policy, run\n%s" % (HERE, body))
        return path

    def talk(self, script, lines):
        out = subprocess.run([sys.executable, script],
                             input="".join(json.dumps(x) + "\n" for x in lines),
                             capture_output=True, text=True, cwd=self.tmp.name, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)
        return [json.loads(x) for x in out.stdout.splitlines()]

    def test_hello_v2_and_v1(self):
        a = self.talk(os.path.join(HERE, "fifo.py"), [HELLO])[0]
        self.assertEqual((a["name"], a["protocol"], a["lookahead"]), ("fifo", 2, 0))
        a = self.talk(self.policy("class P(Policy):\n    protocol = 1\nrun(P())\n"), [HELLO])[0]
        self.assertEqual(a["protocol"], 1)
        self.assertNotIn("lookahead", a)

    def test_answer_keys_pass_through(self):
        p = self.policy(
            "class P(Policy):\n    walk = 'explicit'\n"
            "    def schedule(self, v):\n"
            "        return {'resize': [[0, 4]], 'shrink_to_fit': True, 'drop': [1],\n"
            "                'ends': [[0, 1860]], 'deadline_admitted': [1, 2], 'wakeup': 200}\n"
            "run(P())\n")
        a = self.talk(p, [HELLO, START, schedule(100, coming=[200])])
        self.assertEqual(a[1], {})
        self.assertEqual(a[2], {"resize": [[0, 4]], "shrink_to_fit": True, "drop": [1],
                                "ends": [[0, 1860]], "deadline_admitted": [1, 2],
                                "wakeup": 200})

    def test_snapshot_queue_then_arrivals_reach_on_arrival(self):
        p = self.policy("class P(Policy):\n"
                        "    def priority(self, j):\n        return j.job + 1\n"
                        "run(P())\n")
        a = self.talk(p, [HELLO, START, schedule(100, arrived=[sped(1, submit=100)])])
        self.assertEqual(a[2], {"priority": [[0, 1], [1, 2]]})

    def test_elasticflow_answers_from_anywhere(self):
        a = self.talk(os.path.join(HERE, "elasticflow.py"), [HELLO])[0]
        self.assertEqual((a["name"], a["walk"], a["protocol"], a["lookahead"]),
                         ("elasticflow", "explicit", 2, 8))

    def test_floats_round_trip(self):
        for x in (0.1, 1 / 3, 2.5e-308, 1.7976931348623157e308, 120000.00000000001):
            self.assertEqual(json.loads(tp._dumps({"x": x}))["x"], x)


if __name__ == "__main__":
    unittest.main()
