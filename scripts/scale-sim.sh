#!/usr/bin/env bash
# Measures the simulator at trace scale: every policy on seeded traces of
# 10,000, 50,000 and 100,000 jobs (coloc simulate generate, seed 1) and on
# the 50,000-job trace played twice (the copy's arrivals shifted by the
# first's last arrival and 150 s: twice the jobs at the same load), on the
# 1,024-GPU example cluster, one run at a time, each alone on one core
# (GOMAXPROCS=1). Prints a Markdown table: CPU seconds (user time of the
# whole command, loading included) per trace, the growth exponents from
# 50k to 100k jobs and from 50k to 50k twice, the peak resident memory at
# 100k, and each policy's average JCT at 100k (so that a change that
# alters a decision shows). The 50k, 100k and twice-50k runs of a policy
# are made in rounds, one after another ($SCALE_ROUNDS rounds, 3 by
# default; the 10k trace once): each figure is the median over the
# rounds and each growth exponent the median of log2 of the round's
# ratio, so that the machine's drift, which moves single runs by a tenth
# to a third, mostly cancels within a round; a policy whose average JCT
# at 100k differs from one round to the next stops the script (its
# decisions would not be the same code's). Run it alone. With a document
# as second argument the table replaces what lies between its scale-sim
# markers (make results-scale does this for docs/performance.md);
# without, it goes to stdout. About 50 minutes with 3 rounds.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-./coloc}
doc=${2:-}
policies=${SCALE_POLICIES:-fifo backfill gavel-las gavel-las-packed tiresias srtf-known coloc oracle}
rounds=${SCALE_ROUNDS:-3}
if ! [[ $rounds =~ ^[1-9][0-9]*$ ]]; then
    echo "scale-sim: SCALE_ROUNDS must be a whole number of rounds, 1 or more, not '$rounds'" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" fit --data datasets/reference/gavel -o "$tmp/models" >/dev/null 2>&1
for n in 10000 50000 100000; do
    "$bin" simulate generate --data datasets/reference/gavel --jobs "$n" --seed 1 -o "$tmp/$n.trace" >/dev/null 2>&1
done
# The arrival is the sixth of the msr layout's tab-separated fields.
awk -F'\t' 'BEGIN { OFS = "\t" } NR == FNR { print; last = $6; next } { $6 = sprintf("%.6f", $6 + last + 150); print }' \
    "$tmp/50000.trace" "$tmp/50000.trace" >"$tmp/50000x2.trace"
run() { # policy trace round
    /usr/bin/time -o "$tmp/time" -f '%U %M' env GOMAXPROCS=1 "$bin" simulate --trace "$tmp/$2.trace" \
        --cluster examples/cluster-1024.yaml --data datasets/reference/gavel --models "$tmp/models" \
        --policy "$1" --json >"$tmp/out.json" 2>/dev/null
    printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$(cat "$tmp/time")" "$(cat "$tmp/out.json")"
}
for p in $policies; do
    run "$p" 10000 1
    for r in $(seq "$rounds"); do
        for n in 50000 100000 50000x2; do
            run "$p" "$n" "$r"
        done
    done
done >"$tmp/runs.tsv"
/usr/bin/python3 - "$tmp/runs.tsv" "$(date -u +%Y-%m-%d)" "$(nproc)" >"$tmp/table.md" <<'PY'
import json, math, sys
from statistics import median
runs, order = {}, []
for line in open(sys.argv[1]):
    p, n, r, times, js = line.rstrip("\n").split("\t", 4)
    user, rss = times.split()
    runs.setdefault((p, n), {})[int(r)] = (float(user), int(rss), json.loads(js)["avg_jct_s"])
    if p not in order:
        order.append(p)
rounds = max(len(v) for v in runs.values())

def growth(p, a, b):
    ra, rb = runs[(p, a)], runs[(p, b)]
    return median(math.log2(rb[r][0] / ra[r][0]) for r in ra if r in rb and ra[r][0] > 0 and rb[r][0] > 0)

print("Measured on %s, %s cores; medians of %d rounds (the 10k trace once):" % (sys.argv[2], sys.argv[3], rounds))
print()
print("| policy | 10,000 | 50,000 | 100,000 | growth 50k → 100k | 50k twice | growth at the same load | peak at 100k | avg JCT at 100k |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for p in order:
    t = [median(x[0] for x in runs[(p, n)].values()) for n in ("10000", "50000", "100000", "50000x2")]
    jcts = {x[2] for x in runs[(p, "100000")].values()}
    if len(jcts) > 1:
        sys.exit("scale-sim: %s gave different average JCTs at 100k from one round to the next: %s" % (p, sorted(jcts)))
    name = "`coloc`" if p == "coloc" else p
    print("| %s | %.2f | %.1f | %.1f | n^%.2f | %.1f | n^%.2f | %d MB | %.0f s |" % (
        name, t[0], t[1], t[2], growth(p, "50000", "100000"), t[3], growth(p, "50000", "50000x2"),
        median(x[1] for x in runs[(p, "100000")].values()) // 1000, jcts.pop()))
PY
if [ -z "$doc" ]; then
    cat "$tmp/table.md"
    exit 0
fi
/usr/bin/python3 scripts/splice.py "$doc" scale-sim "$tmp/table.md"
