#!/bin/bash
# ElasticFlow's Figures 9 and 10 (ASPLOS '23) with the schedulers tracetui
# has built (edf-elastic = its edf, elasticflow = its ef-accessctrl, ef):
# each run's deadline ratio beside its own simulator's (the known answers in
# tests/fixtures/elasticflow/runs.csv, made with its scheduler.py) and the
# paper's plotted value, and the wall time of the whole set.
# usage: benches/elasticflow_figures.sh [TRACES]   (TRACES: ../shared/traces)
# TRACETUI: the binary (default: the release build). edf-accessctrl,
# dlas-gpu and themis (the rest of these figures) are not built yet.
set -eu
T=${1:-../shared/traces}
A=$T/elasticflow-artifact
BIN=${TRACETUI:-target/x86_64-unknown-linux-gnu/release/tracetui}
[ -x "$BIN" ] || BIN=target/release/tracetui
OUT=$(mktemp)
START=$(date +%s.%N)
run() { # figure cluster trace peer-name policy
  local r
  r=$("$BIN" sim itp "$3" --cluster "$A/cluster_specs/$2.csv" \
      --throughputs "$A/throughputs_A100" --policy "$5" --rounds 240 \
      --format json 2>/dev/null)
  echo "$1 $2 $4 $(echo "$r" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r.get("deadline_admitted") or r.get("deadline_met"))')" >> "$OUT"
}
for c in n8g8 n16g8 n32g8; do
  for p in edf:edf-elastic ef-accessctrl:elasticflow ef:ef; do
    run fig9 "$c" "$A/generated/1000job_1500lam.csv" "${p%%:*}" "${p##*:}"
  done
done
for p in edf:edf-elastic ef-accessctrl:elasticflow ef:ef; do
  run fig10 n16g8 "$A/generated/100jobs_1500lam.csv" "${p%%:*}" "${p##*:}"
done
END=$(date +%s.%N)
python3 - "$OUT" tests/fixtures/elasticflow/runs.csv "$START" "$END" <<'PY'
import csv, sys
ours = [l.split() for l in open(sys.argv[1])]
ours_name = {"edf": "edf", "ef-accessctrl": "elasticflow", "ef": "ef"}
sim = {}
for r in csv.DictReader(open(sys.argv[2])):
    if r["slot"] == "240" and r["accepted"]:
        fig, _, spec = r["run"].partition("-")
        sim[(fig, spec or r["cluster_spec"], r["schedule"])] = int(r["accepted"]) / int(r["jobs"])
# The paper's plotted values (plot/plot_fig9.py; Figure 10 plots cluster
# efficiency over time, no ratio).
paper = {("fig9", "n8g8"): {"edf": 0.026, "ef": 0.452, "ef-accessctrl": 0.926},
         ("fig9", "n16g8"): {"edf": 0.118, "ef": 0.835, "ef-accessctrl": 0.949},
         ("fig9", "n32g8"): {"edf": 0.118, "ef": 0.939, "ef-accessctrl": 0.944}}
print(f"{'figure':7s} {'cluster':8s} {'scheduler':14s} {'tracetui':>9s} {'simulator':>10s} {'paper':>6s}")
for fig, spec, peer, ratio in ours:
    s = sim.get((fig, spec, ours_name[peer]))
    p = paper.get((fig, spec), {}).get(peer)
    fmt = lambda x: "-" if x is None else f"{x:.3f}"
    print(f"{fig:7s} {spec:8s} {peer:14s} {float(ratio):9.3f} {fmt(s):>10s} {fmt(p):>6s}")
print(f"{len(ours)} runs in {float(sys.argv[4]) - float(sys.argv[3]):.1f} s")
PY
rm -f "$OUT"
