#!/bin/bash
# The full PAI trace's first frame (issue 61, item 7): ROUNDS rounds of
#   cold   - `tracetui bench pai DIR --no-cache` (the tables parsed; the
#            files in the page cache, as on a second look at a trace),
#   write  - the same with an empty load cache (the tables parsed, then
#            the cache written before the process ends),
#   reopen - the same again (the trace read back from the cache);
# plus, when run as root, DISKCOLD rounds of `cold` after dropping the page
# cache. Each line: the first frame (seconds from the start, load + app +
# one 120x40 frame) and the peak RSS of the whole run (side index included).
# usage: benches/pai_first_frame.sh ROUNDS [DIR] [BINARY]
# The trace: `tracetui gen pai --jobs 1260000 --seed 7 --out /tmp/pai-full`.
set -eu
ROUNDS=$1
DIR=${2:-/tmp/pai-full}
BIN=${3:-target/x86_64-unknown-linux-gnu/release/tracetui}
CACHE=$(mktemp -d)
export XDG_CACHE_HOME=$CACHE
OUT=$(mktemp)
one() {
  "$BIN" bench pai "$DIR" --drill 0 --policies recorded "${@:2}" 2>&1 |
    awk -v k="$1" '/^first frame/{f=$4} /^peak RSS/{m=$3} END{print k, f, m}'
}
for _ in $(seq "$ROUNDS"); do
  one cold --no-cache
  rm -rf "$CACHE"/*
  one write
  one reopen
done > "$OUT"
if [ "$(id -u)" = 0 ]; then
  for _ in $(seq "${DISKCOLD:-2}"); do
    sync; echo 3 > /proc/sys/vm/drop_caches
    one diskcold --no-cache
  done >> "$OUT"
fi
python3 - "$OUT" <<'PY'
import collections, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    k, f, m = line.split()
    d[k].append((float(f), float(m)))
for k in ["cold", "write", "reopen", "diskcold"]:
    if k not in d:
        continue
    f = [x[0] for x in d[k]]; m = [x[1] for x in d[k]]
    print(f"{k:9s} first frame median {statistics.median(f):.2f} s  range {min(f):.2f} - {max(f):.2f}  "
          f"peak RSS median {statistics.median(m):.0f} MiB  range {min(m):.0f} - {max(m):.0f}  n={len(f)}")
PY
rm -rf "$OUT" "$CACHE"
