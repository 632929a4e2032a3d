#!/usr/bin/env python3
"""A plain reference simulator for the speed ratio in BENCHMARKS.md.

Standard library only: the csv module and an event heap. One pool of GPUs
(tracetui's `--placement pack` on 8-GPU machines gives the same starts for
gang jobs), `fifo` (the head blocks the queue) or `first-fit` (every job
that fits starts, in arrival order). At one instant: completions, then
arrivals, then one scheduling pass, as in tracetui. Prints the mean JCT.

    python3 benches/reference_sim.py TRACE.csv GPUS [fifo|first-fit]
"""
import csv
import heapq
import sys
from collections import deque


def load(path):
    with open(path, newline="") as f:
        rows = csv.DictReader(f)
        jobs = [(int(r["submission_time"]), int(r["duration"]), int(r["num_gpu"])) for r in rows]
    # Arrival order: submit time, then file order (tracetui's default ties).
    order = sorted(range(len(jobs)), key=lambda i: jobs[i][0])
    return [jobs[i] for i in order]


def simulate(jobs, gpus, policy):
    free = gpus
    queue = deque()
    running = []  # (end, gpus)
    jct_sum = 0
    done = 0
    i = 0
    n = len(jobs)
    while i < n or queue or running:
        now = min(
            running[0][0] if running else float("inf"),
            jobs[i][0] if i < n else float("inf"),
        )
        if now == float("inf"):
            break  # jobs larger than the pool never start
        while running and running[0][0] == now:
            _, g = heapq.heappop(running)
            free += g
        while i < n and jobs[i][0] == now:
            if jobs[i][2] <= gpus:
                queue.append(jobs[i])
            i += 1
        if policy == "fifo":
            while queue and queue[0][2] <= free:
                submit, run, g = queue.popleft()
                free -= g
                heapq.heappush(running, (now + run, g))
                jct_sum += now + run - submit
                done += 1
        else:
            kept = deque()
            for job in queue:
                submit, run, g = job
                if g <= free:
                    free -= g
                    heapq.heappush(running, (now + run, g))
                    jct_sum += now + run - submit
                    done += 1
                else:
                    kept.append(job)
            queue = kept
    return jct_sum / max(done, 1), done


def main():
    path, gpus = sys.argv[1], int(sys.argv[2])
    policy = sys.argv[3] if len(sys.argv) > 3 else "fifo"
    mean, done = simulate(load(path), gpus, policy)
    print(f"reference {policy}: {done} jobs done, mean JCT {mean:.6f} s")


if __name__ == "__main__":
    main()
