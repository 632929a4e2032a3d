#!/bin/bash
# ElasticFlow's evaluation (ASPLOS '23: Figures 8a, 8b, 9, 10, 11) with
# every scheduler of its figures but Chronus (a commercial solver) — edf
# (edf-elastic), edf-accessctrl, gandiva, dlas-gpu (Tiresias), themis,
# ef-accessctrl (elasticflow), ef — each run's deadline ratio beside its
# own simulator's and the paper's plotted value, and the wall time of the
# whole set, run LANES (2) at a time, longest first. The simulator's
# ratios: the fixtures' tests/fixtures/elasticflow/runs.csv (traces in
# ../shared) and benches/elasticflow_simulator.csv (the others), all made
# with its scheduler.py (how: tests/fixtures/elasticflow/README.md).
#
# usage: benches/elasticflow_figures.sh [TRACES]      (TRACES: ../shared/traces)
#   TRACETUI=BIN            the binary (default: the release build)
#   ELASTICFLOW_TRACES=DIR  ITP clusters 06-10 of Figure 8b: data/elasticflow-traces.tar.gz
#                           of github.com/microsoft/elasticflow-traces, extracted (skipped,
#                           and said, without it)
#   LANES=N                 runs at a time (default 2)
set -eu
T=${1:-../shared/traces}
A=$T/elasticflow-artifact
G=$A/generated
BIN=${TRACETUI:-target/x86_64-unknown-linux-gnu/release/tracetui}
[ -x "$BIN" ] || BIN=target/release/tracetui
OUT=$(mktemp)
LIST=$(mktemp)
export BIN A OUT
n=0
add() { # figure run trace spec gpu-type slot scheduler: one run, in table order
  n=$((n + 1))
  echo "$n $*" >> "$LIST"
}
# Figure 8a: 195 jobs, n16g4, T4, 60-s slot.
for s in edf gandiva dlas-gpu themis ef-accessctrl; do
  add 8a - "$A/elasticVpollux_e.csv" n16g4 T4 60 $s
done
# Figure 8b: ten ITP clusters and Philly, A100, 60-s slot.
spec_of() {
  case $1 in cluster04|cluster07|cluster08|cluster09) echo n128g8 ;;
    cluster10|philly) echo n32g8 ;; *) echo n64g8 ;; esac
}
for c in cluster01 cluster02 cluster03 cluster04 cluster05 cluster06 cluster07 \
         cluster08 cluster09 cluster10 philly; do
  case $c in
    philly) t=$A/philly_103959.csv ;;
    cluster0[1-5]) t=$T/itp/elasticflow/$c.csv ;;
    *) t=${ELASTICFLOW_TRACES:-/nonexistent}/$c.csv ;;
  esac
  if [ ! -f "$t" ]; then
    echo "8b $c: skipped, no $t (set ELASTICFLOW_TRACES)" >&2
    continue
  fi
  for s in edf gandiva dlas-gpu themis ef-accessctrl; do
    add 8b "$c" "$t" "$(spec_of $c)" A100 60 $s
  done
done
# Figure 9: admission control and elasticity, 1,000 jobs, 240-s slot.
for c in n8g8 n16g8 n32g8; do
  for s in edf edf-accessctrl ef ef-accessctrl; do
    add 9 - "$G/1000job_1500lam.csv" $c A100 240 $s
  done
done
# Figure 10: 100 jobs, n16g8, 240-s slot (its plot is cluster efficiency over time).
for s in edf gandiva dlas-gpu themis ef-accessctrl ef edf-accessctrl; do
  add 10 - "$G/100jobs_1500lam.csv" n16g8 A100 240 $s
done
# Figure 11: best-effort shares 10-90 %, 200 jobs, n8g8, 240-s slot.
for p in 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9; do
  for s in edf gandiva dlas-gpu themis ef-accessctrl; do
    add 11 "$p" "$G/200jobs_900lam_$p.csv" n8g8 A100 240 $s
  done
done
one() { # index figure run trace spec gpu-type slot scheduler
  local p=$8 r
  case $p in edf) p=edf-elastic ;; ef-accessctrl) p=elasticflow ;; esac
  r=$("$BIN" sim itp "$4" --cluster "$A/cluster_specs/$5.csv" \
      --throughputs "$A/throughputs_$6" --policy "$p" --rounds "$7" \
      --format json 2>/dev/null)
  # (sed, not a Python per run: its start-up was a fifth of the set's time.)
  local own met
  own=$(sed -n 's/^ *"deadline_admitted": \([0-9][0-9.e+-]*\),\{0,1\}$/\1/p' <<< "$r")
  met=$(sed -n 's/^ *"deadline_met": \([0-9][0-9.e+-]*\),\{0,1\}$/\1/p' <<< "$r")
  echo "$1 $2 $3 $5 $8 ${own:-$met}" >> "$OUT"
}
export -f one
# The long runs first (ef-accessctrl and themis on the big traces), so the
# lanes end together.
START=$(date +%s.%N)
awk '{ w = ($8 == "ef-accessctrl" || $8 == "themis") && ($2 == "8b" || $2 == "8a") ? 0 : 1;
       print w, $0 }' "$LIST" | sort -s -k1,1n | cut -d' ' -f2- |
  xargs -P "${LANES:-2}" -L 1 bash -c 'one "$@"' _
END=$(date +%s.%N)
sort -n "$OUT" | cut -d' ' -f2- > "$OUT.sorted"
python3 benches/elasticflow_table.py "$OUT.sorted" "$START" "$END"
rm -f "$OUT" "$OUT.sorted" "$LIST"
