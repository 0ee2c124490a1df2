#!/usr/bin/env bash
# Measures what risk aversion costs and saves in simulation: coloc deciding
# on the predicted normalized throughputs (--decide expected) against
# coloc deciding on their intervals' lower bounds (--decide lower), every
# shipped trace on the 16-, 48- and 108-GPU clusters, models fitted on
# Gavel. Prints a Markdown table: per cluster and over all cases, the
# geometric mean of lower's metric over expected's, and in how many cases
# lower's average JCT is the lower. With a document as second argument the
# table replaces what lies between its risk-sim markers (make results-sim
# does this for docs/simulation.md); without, it goes to stdout.
# Usage: scripts/risk-sim.sh [coloc binary] [document]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-./coloc}
doc=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" fit --data datasets/reference/gavel -o "$tmp/models" --models iasp,iapp >/dev/null 2>&1
for c in examples/cluster-gavel-16.yaml examples/cluster-gavel-48.yaml examples/cluster-gavel.yaml; do
    for t in examples/traces/msr/*.trace examples/traces/physical_cluster/*.trace; do
        for d in expected lower; do
            printf '%s\t%s\t%s\t' "$(basename "$c" .yaml)" "$(basename "$t" .trace)" "$d"
            "$bin" simulate --trace "$t" --cluster "$c" --data datasets/reference/gavel \
                --models "$tmp/models" --policy coloc --decide "$d" --json 2>/dev/null
        done
    done
done >"$tmp/runs.tsv"
/usr/bin/python3 - "$tmp/runs.tsv" >"$tmp/table.md" <<'PY'
import json, math, sys
runs = {}
for line in open(sys.argv[1]):
    cluster, trace, decide, js = line.rstrip("\n").split("\t", 3)
    runs[(cluster, trace, decide)] = json.loads(js)
metrics = [("avg_jct_s", "avg JCT"), ("p95_jct_s", "p95 JCT"), ("makespan_s", "makespan"),
           ("effective_util", "effective util"), ("shared_jobs", "shared jobs")]
clusters = sorted({k[0] for k in runs}, key=lambda c: int(c.rsplit("-", 1)[-1]) if c[-1].isdigit() else 108)
print("| cluster | cases | " + " | ".join(m[1] + " lower/expected" for m in metrics) + " | cases lower's avg JCT is lower |")
print("|---|---:|" + "---:|" * len(metrics) + "---:|")
def row(name, cases):
    cells = []
    for key, _ in metrics:
        logs = [math.log(runs[c + ("lower",)][key] / runs[c + ("expected",)][key]) for c in cases
                if runs[c + ("expected",)][key] > 0 and runs[c + ("lower",)][key] > 0]
        cells.append("%.3f" % math.exp(sum(logs) / len(logs)) if logs else "")
    better = sum(runs[c + ("lower",)]["avg_jct_s"] < runs[c + ("expected",)]["avg_jct_s"] for c in cases)
    print("| %s | %d | %s | %d |" % (name, len(cases), " | ".join(cells), better))
every = sorted({k[:2] for k in runs})
for cl in clusters:
    row(cl, [c for c in every if c[0] == cl])
row("all", every)
PY
if [ -z "$doc" ]; then
    cat "$tmp/table.md"
    exit 0
fi
/usr/bin/python3 scripts/splice.py "$doc" risk-sim "$tmp/table.md"
