#!/bin/bash
# ElasticFlow's Figure 8b, as far as the shared traces go: one `compare`
# per ITP cluster (01-05 are released) with the schedulers tracetui has of
# those the figure compares (ElasticFlow = elasticflow, EDF = edf-elastic,
# Gandiva = gandiva, Tiresias = las; themis is not built), the A100 tables
# and the spec ElasticFlow's run_fig8b.sh gives each cluster. ROUNDS
# rounds; per cluster the median wall time and its range, and the median
# of the rounds' totals.
# usage: benches/fig8b.sh ROUNDS [BINARY]   (BINARY: target/release/tracetui)
set -eu
ROUNDS=$1; BIN=${2:-target/release/tracetui}
A=${ARTIFACT:-../shared/traces/elasticflow-artifact}
T=${ITP:-../shared/traces/itp/elasticflow}
POLICIES=${POLICIES:-elasticflow,edf-elastic,gandiva,las}
OUT=$(mktemp)
for r in $(seq "$ROUNDS"); do
  for c in 01 02 03 04 05; do
    case $c in 01|02|03|05|06) s=n64g8;; 04|07|08|09) s=n128g8;; *) s=n32g8;; esac
    t0=$(date +%s%N)
    "$BIN" compare itp "$T/cluster$c.csv" --cluster "$A/cluster_specs/$s.csv" \
      --throughputs "$A/throughputs_A100" --policies "$POLICIES" >/dev/null 2>&1
    t1=$(date +%s%N)
    echo "$r $c $(( (t1 - t0) / 1000000 ))"
  done
done > "$OUT"
python3 - "$OUT" <<'PY'
import collections, statistics, sys
per, tot = collections.defaultdict(list), collections.defaultdict(float)
for line in open(sys.argv[1]):
    r, c, t = line.split()
    per[c].append(float(t) / 1000); tot[r] += float(t) / 1000
for c, v in sorted(per.items()):
    print(f"cluster{c}  median {statistics.median(v):7.1f} s  range {min(v):.1f} - {max(v):.1f}  n={len(v)}")
v = list(tot.values())
print(f"all       median {statistics.median(v):7.1f} s  range {min(v):.1f} - {max(v):.1f}  n={len(v)}")
PY
rm -f "$OUT"
