#!/bin/bash
# Peak memory of tracetui reading one huge policy answer, against the
# answer's size: a policy answers its first question with MB megabytes of
# `priority` pairs (refused at the check, after parsing), of spaces, or of
# `start_if_fits` ids; /usr/bin/time's maximum RSS per run, ROUNDS rounds,
# median and range, and the ratio to the answer.
# usage: benches/huge_answer.sh ROUNDS [BINARY] [MB]   (e.g. 3 target/x86_64-unknown-linux-gnu/release/tracetui 250)
set -eu
ROUNDS=$1; BIN=$(realpath "${2:-target/x86_64-unknown-linux-gnu/release/tracetui}"); MB=${3:-250}
DIR=$(mktemp -d)
cat > "$DIR/big.py" <<'PY'
import json, sys
kind, size = sys.argv[1], int(sys.argv[2]) * 1_000_000
first = True
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"name": "big", "walk": "greedy"}), flush=True)
    elif m["type"] == "schedule" and first:
        first = False
        if kind == "priority":
            sys.stdout.write('{"priority":[' + ",".join(["[1,5]"] * (size // 6)) + ']}\n')
        elif kind == "spaces":
            sys.stdout.write('{' + ' ' * size + '}\n')
        else:
            sys.stdout.write('{"start_if_fits":[' + ",".join(["1"] * (size // 2)) + ']}\n')
        sys.stdout.flush()
    else:
        print("{}", flush=True)
PY
for kind in priority spaces start_if_fits; do
  for _ in $(seq "$ROUNDS"); do
    /usr/bin/time -f "%M" -o "$DIR/rss" "$BIN" sim itp sample-traces/itp/sample.csv \
      --policy "exec:python3 $DIR/big.py $kind $MB" >/dev/null 2>&1 || true
    echo "$kind $(tail -1 "$DIR/rss")"
  done
done | python3 -c "
import collections, statistics, sys
d = collections.defaultdict(list)
for line in sys.stdin:
    k, kb = line.split(); d[k].append(int(kb) / 1024)
for k, v in d.items():
    m = statistics.median(v)
    print(f'{k:14} peak RSS median {m:7.0f} MB  range {min(v):.0f}-{max(v):.0f}  = {m / $MB:.1f}x the answer  n={len(v)}')
"
rm -rf "$DIR"
