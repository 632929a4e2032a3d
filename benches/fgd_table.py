#!/usr/bin/env python3
"""The markdown table BENCHMARKS.md holds for benches/fgd.sh: per openb
variant and placement, tracetui's mean GPU allocation over seeds 42-51 at
100 % and 130 % arrived beside FGD's published mean ± sd, the difference in
FGD's standard deviations, and the empty cluster's fragmentation.
usage: benches/fgd_table.py OUT EXPECTED_DIR"""
import csv, collections, statistics as st, sys

def load(path, col):
    g = collections.defaultdict(list)
    for r in csv.DictReader(open(path)):
        g[(r["workload"].replace("openb_pod_list_", ""), r["sc_policy"])].append(float(r[col]))
    return g

out, exp = sys.argv[1], sys.argv[2]
ours = {x: load(f"{out}/analysis_allo_discrete.csv", x) for x in ("100", "130")}
theirs = {x: load(f"{exp}/analysis_allo_discrete.csv", x) for x in ("100", "130")}
f_ours = load(f"{out}/analysis_frag_discrete.csv", "0")
f_theirs = load(f"{exp}/analysis_frag_discrete.csv", "0")
print("| variant | placement | ours 100 % | FGD 100 % | Δ/sd | ours 130 % | FGD 130 % | Δ/sd | frag 0 % ours / FGD |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
for key in sorted(theirs["100"]):
    cells = []
    for x in ("100", "130"):
        a, b = ours[x][key], theirs[x][key]
        d = st.mean(a) - st.mean(b)
        cells += [f"{st.mean(a):.2f}", f"{st.mean(b):.2f} ± {st.stdev(b):.2f}", f"{d / st.stdev(b):+.1f}"]
    frag = f"{st.mean(f_ours[key]):.2f} / {st.mean(f_theirs[key]):.2f}"
    print(f"| {key[0]} | {key[1][3:]} | " + " | ".join(cells) + f" | {frag} |")
