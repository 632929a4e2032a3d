#!/usr/bin/env python3
"""Run the Alibaba PAI simulator (clusterdata, cluster-trace-gpu-v2020/simulator)
on a CSV from convert.py and time it in CPU seconds (time.process_time).

Usage: drive.py SIMDIR JOBS.csv --nodes N --gpus-per-node G [--alloc 8|0]

SIMDIR is the simulator's directory in a clone of
https://github.com/alibaba/clusterdata (it needs numpy and matplotlib).
One node (--nodes 1) is the simulator's "one big node" (Node(num_gpus=G));
N > 1 nodes are its default Node() of 8 GPUs and 96 CPUs, so G must be 8.
Original submit times (arrival_rate -1), capacity pattern 0 (always full),
no spare node, no GPU-type matching, nodes tried by id (sort_node_policy 0,
run_simulator_fifo.py --pack). Its preemption never fires (preempt_job's
guard compares all(...) >= 0, always true). Prints one JSON line.
"""
import argparse
import csv
import json
import logging
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("simdir")
    ap.add_argument("jobs")
    ap.add_argument("--nodes", type=int, required=True)
    ap.add_argument("--gpus-per-node", type=int, required=True)
    ap.add_argument("--alloc", type=int, default=8, help="8 FIFO (arrival order, skip what does not fit), 0 SJF")
    ap.add_argument("--count-ticks", action="store_true", help="count tic() calls (slightly slower)")
    a = ap.parse_args()
    if a.nodes > 1 and a.gpus_per_node != 8:
        sys.exit("drive.py: the simulator's multi-node cluster is Node() x N, 8 GPUs each")

    logging.basicConfig(level=logging.WARNING, handlers=[logging.NullHandler()])
    sys.path.insert(0, a.simdir)
    from simulator import Simulator  # noqa: E402 (from SIMDIR)

    with open(a.jobs, newline="") as f:
        n_jobs = sum(1 for _ in csv.DictReader(f))

    t0 = time.process_time()
    sim = Simulator(
        csv_file=a.jobs, alloc_policy=a.alloc, preempt_policy=2, sort_node_policy=0,
        num_nodes=a.nodes, num_gpus=a.gpus_per_node * a.nodes, num_cpus=12 * a.gpus_per_node * a.nodes,
        max_time=int(1e12), pattern=0, hetero=False, num_spare_node=0, arrival_rate=-1,
        num_jobs_limit=n_jobs, gpu_type_matching=0, random_seed=42,
        export_job_stats=False, export_cluster_util=False, log_file=None, verbose=0)
    load_s = time.process_time() - t0

    ticks = 0
    if a.count_ticks:
        tic = sim.tic

        def counted(delta=1):
            nonlocal ticks
            ticks += 1
            tic(delta)
        sim.tic = counted

    t1 = time.process_time()
    (done_inst, jct_inst, wait_inst, end_time), = sim.simulator_go(repeat=1)
    go_s = time.process_time() - t1

    # A gang's instances are each a "done job" to the simulator: one per job here.
    jobs = {}
    for j in sim.cluster.job_history.job_done_list:
        prev = jobs.setdefault(j["job_id"], j)
        assert prev["jct"] == j["jct"], f"gang {j['job_id']} instances ended apart"
    jcts = [j["jct"] for j in jobs.values()]
    out = {
        "nodes": a.nodes, "gpus_per_node": a.gpus_per_node, "alloc": a.alloc,
        "jobs": n_jobs, "jobs_done": len(jobs), "instances_done": done_inst,
        "mean_jct_s": sum(jcts) / len(jcts),
        "mean_wait_s": sum(j["jct"] - j["duration"] for j in jobs.values()) / len(jobs),
        "last_end_s": max(j["submit_time"] + j["jct"] for j in jobs.values()),
        "sim_end_time": end_time,
        "load_cpu_s": round(load_s, 3), "go_cpu_s": round(go_s, 3),
    }
    if a.count_ticks:
        out["ticks"] = ticks
    print(json.dumps(out))
    if len(jobs) != n_jobs:
        sys.exit(f"drive.py: only {len(jobs)} of {n_jobs} jobs done")


if __name__ == "__main__":
    main()
