#!/bin/bash
# FGD's whole evaluation ("Beware of Fragmentation", ATC '23): the 17 openb
# pod lists of its published results × its six placements × seeds 42-51 at
# tune 1.3 — 1,020 runs of the arrival-only experiment — in one
# `tracetui inflate` on every core. Writes OUT/analysis_allo_discrete.csv
# and OUT/analysis_frag_discrete.csv in FGD's own layout (its plot scripts
# draw them) and prints each (variant, placement) beside FGD's published
# mean and spread when OPENB has expected/ (as ../shared/traces/openb has).
# ROUNDS (default 1) times the whole grid that many times: median and range.
#
# OPENB is the directory of openb_pod_list_*.csv and
# openb_node_list_gpu_node.csv (default ../shared/traces/openb; the same
# files as alibaba/clusterdata cluster-trace-gpu-v2023/csv). TRACETUI names
# the binary (default the release build).
# usage: [OPENB=DIR] [TRACETUI=BIN] [ROUNDS=N] benches/fgd.sh OUT
set -eu
OUT=${1:?usage: [OPENB=DIR] [TRACETUI=BIN] [ROUNDS=N] benches/fgd.sh OUT}
BIN=$(realpath "${TRACETUI:-target/x86_64-unknown-linux-gnu/release/tracetui}")
DIR=$(realpath "${OPENB:-../shared/traces/openb}")
ROUNDS=${ROUNDS:-1}
VARIANTS="cpu050 cpu100 cpu200 cpu250 default gpushare100 gpushare40 gpushare60
  gpushare80 gpuspec10 gpuspec20 gpuspec25 gpuspec33 multigpu20 multigpu30
  multigpu40 multigpu50"
FILES=()
for v in $VARIANTS; do
  f="$DIR/openb_pod_list_$v.csv"
  [ -f "$f" ] || { echo "fgd.sh: $f is missing (set OPENB)" >&2; exit 2; }
  FILES+=("$f")
done
AGAINST=()
[ -f "$DIR/expected/analysis_allo_discrete.csv" ] && AGAINST=(--against "$DIR/expected")
mkdir -p "$OUT"
TIMES=$(mktemp)
for r in $(seq "$ROUNDS"); do
  t0=$(date +%s%N)
  "$BIN" inflate "${FILES[@]}" --placement random,dot-product,gpu-clustering,gpu-packing,best-fit,fgd \
    --seeds 42-51 --tune 1.3 --out "$OUT" "${AGAINST[@]}" > "$OUT/summary.txt" 2> "$OUT/log.txt"
  t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000000 )) >> "$TIMES"
done
cat "$OUT/summary.txt"
python3 - "$TIMES" <<'PY'
import statistics, sys
v = [float(t) / 1000 for t in open(sys.argv[1])]
print(f"1020 runs: median {statistics.median(v):.1f} s  range {min(v):.1f} - {max(v):.1f}  n={len(v)}")
PY
rm -f "$TIMES"
