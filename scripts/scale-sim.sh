#!/usr/bin/env bash
# Measures the simulator at trace scale: every policy on seeded traces of
# 10,000, 50,000 and 100,000 jobs (coloc simulate generate, seed 1) on the
# 1,024-GPU example cluster, one run at a time, each alone on one core
# (GOMAXPROCS=1). Prints a Markdown table: CPU seconds (user time of the
# whole command, loading included) per size, the growth exponent from 50k
# to 100k jobs (log2 of the ratio), the peak resident memory at 100k, and
# each policy's average JCT at 100k (so that a change that alters a
# decision shows). CPU times of single runs spread by about a tenth on a
# quiet machine and by up to half beside other work: run it alone. With a
# document as second argument the table replaces what lies between its
# scale-sim markers (make results-scale does this for
# docs/performance.md); without, it goes to stdout. About 15 minutes.
# Usage: scripts/scale-sim.sh [coloc binary] [document]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-./coloc}
doc=${2:-}
policies=${SCALE_POLICIES:-fifo backfill gavel-las gavel-las-packed tiresias srtf-known coloc oracle}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" fit --data datasets/reference/gavel -o "$tmp/models" >/dev/null 2>&1
for n in 10000 50000 100000; do
    "$bin" simulate generate --data datasets/reference/gavel --jobs "$n" --seed 1 -o "$tmp/$n.trace" >/dev/null 2>&1
done
for p in $policies; do
    for n in 10000 50000 100000; do
        /usr/bin/time -o "$tmp/time" -f '%U %M' env GOMAXPROCS=1 "$bin" simulate --trace "$tmp/$n.trace" \
            --cluster examples/cluster-1024.yaml --data datasets/reference/gavel --models "$tmp/models" \
            --policy "$p" --json >"$tmp/out.json" 2>/dev/null
        printf '%s\t%s\t%s\t%s\n' "$p" "$n" "$(cat "$tmp/time")" "$(cat "$tmp/out.json")"
    done
done >"$tmp/runs.tsv"
/usr/bin/python3 - "$tmp/runs.tsv" "$(date -u +%Y-%m-%d)" "$(nproc)" >"$tmp/table.md" <<'PY'
import json, math, sys
runs, order = {}, []
for line in open(sys.argv[1]):
    p, n, times, js = line.rstrip("\n").split("\t", 3)
    user, rss = times.split()
    runs[(p, int(n))] = (float(user), int(rss), json.loads(js))
    if p not in order:
        order.append(p)
print("Measured on %s, %s cores, one run each:" % (sys.argv[2], sys.argv[3]))
print()
print("| policy | 10,000 | 50,000 | 100,000 | growth 50k → 100k | peak at 100k | avg JCT at 100k |")
print("|---|---:|---:|---:|---:|---:|---:|")
for p in order:
    t = [runs[(p, n)][0] for n in (10000, 50000, 100000)]
    growth = math.log2(t[2] / t[1]) if t[1] > 0 and t[2] > 0 else float("nan")
    name = "`coloc`" if p == "coloc" else p
    print("| %s | %.2f | %.1f | %.1f | n^%.2f | %d MB | %.0f s |" % (
        name, t[0], t[1], t[2], growth, runs[(p, 100000)][1] // 1000, runs[(p, 100000)][2]["avg_jct_s"]))
PY
if [ -z "$doc" ]; then
    cat "$tmp/table.md"
    exit 0
fi
/usr/bin/python3 scripts/splice.py "$doc" scale-sim "$tmp/table.md"
