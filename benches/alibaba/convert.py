#!/usr/bin/env python3
"""ITP raw CSV (job_id,submission_time,duration,num_gpu) -> the input CSV of
the Alibaba PAI simulator (clusterdata, cluster-trace-gpu-v2020/simulator).

Its utils._add_job reads: job_id, user, submit_time, duration, num_gpu,
num_cpu, num_inst (GPUs and CPUs per instance, in whole units: it multiplies
them by 100 itself). Ids become the row number, so the simulator's tie order
(submit_time, job_id) is the file order, as tracetui's default `--ties file`.
CPU demand is 0, so only GPUs bind. One user for all (ITP has none).

With --gpus-per-node G, a job asking for more than G GPUs becomes a gang of
num_gpu/G instances of G GPUs (the simulator places one instance on one node
and never fits one larger than a node); it must divide evenly.

Usage: convert.py ITP.csv OUT.csv [--gpus-per-node G]
"""
import argparse
import csv


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--gpus-per-node", type=int, default=0)
    a = ap.parse_args()
    g_node = a.gpus_per_node
    n = gangs = 0
    with open(a.src, newline="") as f, open(a.out, "w", newline="") as o:
        w = csv.writer(o)
        w.writerow(["job_id", "user", "submit_time", "duration", "num_gpu", "num_cpu", "num_inst"])
        for row in csv.DictReader(f):
            gpus = int(row["num_gpu"])
            inst = 1
            if g_node and gpus > g_node:
                if gpus % g_node:
                    raise SystemExit(f"{row['job_id']}: {gpus} GPUs do not split into nodes of {g_node}")
                inst, gpus = gpus // g_node, g_node
                gangs += 1
            w.writerow([n, "u", int(float(row["submission_time"])), int(float(row["duration"])), gpus, 0, inst])
            n += 1
    print(f"convert: {n} jobs -> {a.out} ({gangs} split into gangs of {g_node} GPUs)" if g_node else
          f"convert: {n} jobs -> {a.out}")


if __name__ == "__main__":
    main()
