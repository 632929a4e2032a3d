"""elasticflow: a port of tracetui's built-in `elasticflow` policy, over
protocol version 2 — the same decisions, the same floats, to the digit.

    tracetui sim itp elasticVpollux_e.csv --cluster cluster_specs/n16g4.csv \\
        --throughputs throughputs_T4 --policy 'exec:python3 policies/elasticflow.py'

ElasticFlow's scheduler (`ef-accessctrl` in its simulator): admission
control, each job its minimum satisfactory share as late as possible,
spare GPUs handed out by marginal gain, in rounds at least a 60 s slot
apart. It needs throughput tables (`--throughputs`) and a cluster of alike
machines (`--cluster SPEC`), as the built-in does. Results name it
`elasticflow-ext` (the built-in has the name).

The rules are the built-in's, in src/sim/policies/elasticflow/ (read its
module notes for what they mean); this program changes none of them. It
only takes what the built-in reads off the engine from the protocol
instead: each job's work left, rate rows and levels from the messages,
the arrival times to come from `coming`. The package elasticflow_port/
beside this file has one module per file there:

    maps.py   maps.rs    step maps, slot grid, Rust's integer/float rules
    job.py    job.rs     one job as it plans it
    admit.py  admit.rs   which jobs it can plan, on which GPU counts
    plan.py   plan.rs    one job's plan (minimum satisfactory share)
    grow.py   grow.rs    the hand-out of GPUs free now
    nodes.py  nodes.rs   placement, for the overheads it decides
    state.py  state.rs   the books, the arrivals, the next round
    round.py  round.rs   one round
    policy.py mod.rs     the protocol glue (answers, wake-ups)

As the built-in's books, the `start` snapshot's jobs (waiting or running:
a switch mid-run) count as admitted, not started; every job after it,
those of a run's first instant too, arrives. Python plans some hundred
times slower than the built-in: a round with a hundred jobs on 512 GPUs
takes a few seconds; raise `--policy-timeout` (10 s a round by default)
for larger clusters.
"""

import os
import sys

# Python puts this file's directory first on sys.path (it is how every
# policy here finds tracetui_policy); said again for `python3 -P`.
HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from elasticflow_port import ElasticFlow  # noqa: E402
from tracetui_policy import run  # noqa: E402

if __name__ == "__main__":
    run(ElasticFlow())
