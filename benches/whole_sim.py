#!/usr/bin/env python3
"""The whole `tracetui sim` command timed from outside, builds alternated.

Usage: python3 benches/whole_sim.py RUNS BINARY...

Runs `BINARY sim itp TRACE --gpus 6744 --policy first-fit --placement pack
--format json` RUNS times per binary, alternating their order each round,
and prints each binary's median wall time, quartiles and range in ms.
TRACE is $TRACE, else target/bench-data/itp-1260000-seed1-6744-0.9.csv
(written by `cargo bench --bench reference`, or by
`tracetui gen itp --jobs 1260000 --seed 1 --gpus 6744 --load 0.9`).
"""
import collections
import os
import statistics
import subprocess
import sys
import time

runs, bins = int(sys.argv[1]), sys.argv[2:]
trace = os.environ.get("TRACE", "target/bench-data/itp-1260000-seed1-6744-0.9.csv")
args = ["sim", "itp", trace, "--gpus", "6744", "--policy", "first-fit",
        "--placement", "pack", "--format", "json"]
times = collections.defaultdict(list)
for i in range(runs):
    for b in (bins if i % 2 == 0 else bins[::-1]):
        t = time.perf_counter()
        subprocess.run([b] + args, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        times[b].append(time.perf_counter() - t)
for b in bins:
    v = sorted(times[b])
    q = statistics.quantiles(v, n=4) if len(v) > 1 else [v[0]] * 3
    print(f"{b}: median {statistics.median(v) * 1000:.1f} ms, "
          f"quartiles {q[0] * 1000:.1f} - {q[2] * 1000:.1f}, "
          f"range {v[0] * 1000:.1f} - {v[-1] * 1000:.1f} ({len(v)} runs)")
