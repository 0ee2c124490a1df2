#!/usr/bin/env bash
# Measures what the multi-GPU pair assumption (--assume-multi-gpu-pairs)
# changes: first what the data say of it ('coloc simulate assumption': the
# one-GPU value against pairs measured on several GPUs, where the data
# have any), then every shipped trace on the 16-, 48- and 108-GPU
# clusters in both degree modes, with the assumption off and on, under
# backfill, greedy-pack, coloc and oracle (models fitted on Gavel).
# Prints Markdown: per cluster and degree mode, the geometric mean over
# traces of on/off for each policy's average JCT and makespan, coloc's
# average JCT over backfill's with the assumption off and on, and the jobs
# that shared on assumed rates. With a document as second argument the
# output replaces what lies between its assume-sim markers; without, it
# goes to stdout.
# Usage: scripts/assume-sim.sh [coloc binary] [document]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-./coloc}
doc=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
data=datasets/reference/gavel
"$bin" fit --data "$data" -o "$tmp/models" --models iasp,iapp >/dev/null 2>&1
{
    echo "\`coloc simulate assumption --data $data\`:"
    echo
    "$bin" simulate assumption --data "$data"
    echo
} >"$tmp/head.md"
for c in examples/cluster-gavel-16.yaml examples/cluster-gavel-48.yaml examples/cluster-gavel.yaml; do
    for t in examples/traces/msr/*.trace examples/traces/physical_cluster/*.trace; do
        for d in trace policy; do
            for a in false true; do
                "$bin" simulate --trace "$t" --cluster "$c" --data "$data" --models "$tmp/models" \
                    --policy backfill,greedy-pack,coloc,oracle --degree "$d" --assume-multi-gpu-pairs="$a" --json 2>/dev/null |
                    sed "s|^|$(basename "$c" .yaml)\t$(basename "$t" .trace)\t$d\t$a\t|"
            done
        done
    done
done >"$tmp/runs.tsv"
/usr/bin/python3 - "$tmp/runs.tsv" >"$tmp/table.md" <<'PY'
import json, math, sys
runs = {}
for line in open(sys.argv[1]):
    cluster, trace, degree, assume, js = line.rstrip("\n").split("\t", 4)
    r = json.loads(js)
    runs[(cluster, trace, degree, assume, r["policy"])] = r
def gm(xs):
    xs = [x for x in xs if x > 0 and math.isfinite(x)]
    return "%.3f" % math.exp(sum(map(math.log, xs)) / len(xs)) if xs else ""
clusters = sorted({k[0] for k in runs}, key=lambda c: int(c.rsplit("-", 1)[-1]) if c[-1].isdigit() else 108)
pols = ["backfill", "greedy-pack", "coloc", "oracle"]
print("| cluster | degree | traces | " + " | ".join("%s avg JCT on/off" % p for p in pols) +
      " | coloc makespan on/off | coloc/backfill avg JCT off | on | coloc jobs on assumed rates | coloc shared jobs off / on |")
print("|---|---|---:|" + "---:|" * (len(pols) + 5))
def ratio(c, key, p):
    on, off = runs[c + ("true", p)][key], runs[c + ("false", p)][key]
    return on / off if off > 0 else float("nan")
def rows(name, degree, cases):
    cells = [gm([ratio(c, "avg_jct_s", p) for c in cases]) for p in pols]
    cells.append(gm([ratio(c, "makespan_s", "coloc") for c in cases]))
    for a in ("false", "true"):
        cells.append(gm([runs[c + (a, "coloc")]["avg_jct_s"] / runs[c + (a, "backfill")]["avg_jct_s"] for c in cases if runs[c + (a, "backfill")]["avg_jct_s"] > 0]))
    cells.append(str(sum(runs[c + ("true", "coloc")]["assumed_jobs"] for c in cases)))
    cells.append("%d / %d" % (sum(runs[c + ("false", "coloc")]["shared_jobs"] for c in cases), sum(runs[c + ("true", "coloc")]["shared_jobs"] for c in cases)))
    print("| %s | %s | %d | %s |" % (name, degree, len(cases), " | ".join(cells)))
every = sorted({k[:3] for k in runs if (k[:3] + ("true", "coloc")) in runs and (k[:3] + ("false", "coloc")) in runs})
for degree in ("trace", "policy"):
    for cl in clusters:
        rows(cl, degree, [c for c in every if c[0] == cl and c[2] == degree])
    rows("all", degree, [c for c in every if c[2] == degree])
worst = max(every, key=lambda c: ratio(c, "avg_jct_s", "coloc"))
best = min(every, key=lambda c: ratio(c, "avg_jct_s", "coloc"))
print()
print("coloc's avg JCT on/off ranges from %.3f (%s, %s, degree %s) to %.3f (%s, %s, degree %s) over the %d cases." %
      (ratio(best, "avg_jct_s", "coloc"), best[1], best[0], best[2], ratio(worst, "avg_jct_s", "coloc"), worst[1], worst[0], worst[2], len(every)))
PY
cat "$tmp/head.md" "$tmp/table.md" >"$tmp/out.md"
if [ -z "$doc" ]; then
    cat "$tmp/out.md"
    exit 0
fi
/usr/bin/python3 scripts/splice.py "$doc" assume-sim "$tmp/out.md"
