#!/usr/bin/env bash
# What the oracle's rates are worth on the shipped traces, and how much of
# coloc's average JCT against the oracle's is luck. The sweep of
# docs/results/traces.md (the first MAX_JOBS (200) jobs of every shipped
# trace on the 16-, 48- and 108-GPU clusters, both degree modes), coloc
# and the oracle only:
#   - coloc deciding with IASP and IAPP fit with seeds 1 to 4 (the models
#     of a fit differ only by the seed of their random choices);
#   - the oracle deciding on each pair's measured normalized throughput
#     times a factor drawn in [1-A, 1+A] per pair (--oracle-noise A, seeds
#     1 to 4), for A = 1%, 10% and 40%; the jobs still run at the measured
#     rates.
# scripts/oracle-worth.py prints the tables; with a document as second
# argument they replace what lies between its oracle-worth markers (make
# results-oracle does this for docs/simulation.md). Whole traces
# (MAX_JOBS=0) take hours under the decision core; the 200-job cuts, about
# 20 minutes on two cores.
# Usage: scripts/oracle-worth.sh [coloc binary] [document]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-./coloc}
doc=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
traces=$(ls examples/traces/msr/*.trace examples/traces/physical_cluster/*.trace | paste -sd, -)
clusters=examples/cluster-gavel-16.yaml,examples/cluster-gavel-48.yaml,examples/cluster-gavel.yaml
seeds=(1 2 3 4)
levels=(0.01 0.1 0.4)
# fit SEED: IASP and IAPP, what coloc decides with, into $tmp/m$SEED
fit() {
    "$bin" fit --data datasets/reference/gavel -o "$tmp/m$1" --models iasp,iapp --seed "$1" >"$tmp/fit$1.log" 2>&1 ||
        { cat "$tmp/fit$1.log" >&2; return 1; }
}
# sweep NAME MODELS FLAGS...: coloc and the oracle, the page in $tmp/NAME.md
sweep() {
    local name=$1 models=$2
    shift 2
    "$bin" simulate sweep --traces "$traces" --clusters "$clusters" \
        --data datasets/reference/gavel --models "$models" --policy coloc,oracle \
        --max-jobs "${MAX_JOBS:-200}" \
        --markdown "$tmp/$name.md" "$@" 2>"$tmp/$name.log" ||
        { tail -5 "$tmp/$name.log" >&2; return 1; }
}
# Two at a time: a failed job fails the script at its wait.
pids=()
run() {
    "$@" &
    pids+=($!)
    if [ ${#pids[@]} -ge 2 ]; then
        wait "${pids[0]}"
        pids=("${pids[@]:1}")
    fi
}
drain() {
    for p in "${pids[@]}"; do wait "$p"; done
    pids=()
}
for s in "${seeds[@]}"; do run fit "$s"; done
drain
args=(models)
for s in "${seeds[@]}"; do
    run sweep "model$s" "$tmp/m$s"
    args+=("$tmp/model$s.md")
done
for a in "${levels[@]}"; do
    args+=(noise "$a")
    for s in "${seeds[@]}"; do
        run sweep "noise$a-$s" "$tmp/m1" --oracle-noise "$a" --seed "$s"
        args+=("$tmp/noise$a-$s.md")
    done
done
drain
scripts/oracle-worth.py "${args[@]}" >"$tmp/worth.md"
if [ -n "$doc" ]; then
    scripts/splice.py "$doc" oracle-worth "$tmp/worth.md"
else
    cat "$tmp/worth.md"
fi
