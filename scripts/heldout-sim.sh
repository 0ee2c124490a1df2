#!/usr/bin/env bash
# Regenerates docs/results/heldout.md: coloc at its defaults against every
# policy on traces and cluster sizes that no rule or constant of the
# simulator's policies was chosen on. The traces are drawn by
# `coloc simulate generate` (Gavel's recipe, seeds 21 to 32, 300 to 2,000
# jobs, mean gaps between arrivals from 200 s to 6,000 s, so from a cluster
# that is never full to one that queues for weeks) into out/heldout/; the
# clusters are examples/heldout/ (8 to 256 GPUs, one of V100s only). The
# shipped traces and clusters of docs/results/traces.md are not among them.
#
# Each trace's first MAX_JOBS (200) jobs, PARALLEL (2) cases at a time,
# under the peers, the baselines and coloc's variants (POLICIES). With
# BANDS=1 the page ends with the oracle's band: the same sweep of coloc and
# the oracle with the oracle deciding on measured rates perturbed by up to
# ±1% (--oracle-noise 0.01, seeds 1 to 8), so that a difference between
# coloc and the oracle can be read against what the oracle's own luck moves.
# With documents after the output file, the goal table read from the page
# (scripts/goals.py) replaces what lies between each one's goals-heldout
# markers (make results-sim does this for docs/simulation.md and the
# summary page docs/results.md).
# Usage: scripts/heldout-sim.sh [coloc binary] [output file] [document...]
# MODELS=DIR reuses fitted models (iasp and iapp, what coloc decides with,
# and similarity, the similarity policy's) instead of fitting them on
# datasets/reference/gavel.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-./coloc}
out=${2:-docs/results/heldout.md}
docs=("${@:3}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
models=${MODELS:-$tmp/models}
if [ -z "${MODELS:-}" ]; then
    "$bin" fit --data datasets/reference/gavel -o "$models" --models iasp,iapp,similarity >"$tmp/fit.log" 2>&1 ||
        { cat "$tmp/fit.log" >&2; exit 1; }
fi
dir=out/heldout
mkdir -p "$dir"
gaps=(200 800 2000 6000)
sizes=(300 900 2000)
traces=()
commands=()
for i in $(seq 0 11); do
    seed=$((21 + i))
    gap=${gaps[$((i % 4))]}
    jobs=${sizes[$((i % 3))]}
    t=$dir/g$seed.trace
    cmd="coloc simulate generate --data datasets/reference/gavel --jobs $jobs --seed $seed --mean-gap $gap -o $t"
    "$bin" ${cmd#coloc } >/dev/null
    traces+=("$t")
    commands+=("$cmd")
done
list=$(IFS=,; echo "${traces[*]}")
clusters=$(ls examples/heldout/cluster-*.yaml | paste -sd, -)
# sweep NAME FLAGS...: one sweep, its progress kept in $tmp/NAME.log and
# shown only when it fails
sweep() {
    local name=$1
    shift
    "$bin" simulate sweep --traces "$list" --clusters "$clusters" \
        --data datasets/reference/gavel --models "$models" "$@" 2>"$tmp/$name.log" ||
        { tail -5 "$tmp/$name.log" >&2; return 1; }
}
sweep page --max-jobs "${MAX_JOBS:-200}" --parallel "${PARALLEL:-2}" \
    --policy "${POLICIES:-fifo,backfill,gavel-las,gavel-las-packed,tiresias,srtf-known,coloc,coloc-no-sharing,coloc-estimate,coloc-known}" \
    --title "Simulation results, held out" --markdown "$tmp/page.md"
bands=()
for seed in $([ -n "${BANDS:-}" ] && echo 1 3 5 7); do
    # two at a time: a sweep runs its cases one after another
    sweep band$seed --policy coloc,oracle --oracle-noise 0.01 --seed $seed --markdown "$tmp/band$seed.md" &
    first=$!
    sweep band$((seed + 1)) --policy coloc,oracle --oracle-noise 0.01 --seed $((seed + 1)) --markdown "$tmp/band$((seed + 1)).md"
    wait $first
    bands+=("$tmp/band$seed.md" "$tmp/band$((seed + 1)).md")
done
{
    cat "$tmp/page.md"
    [ ${#bands[@]} -eq 0 ] || cat <<'EOF'

## coloc against the oracle's own luck

The oracle decides as coloc does, on the measured rates instead of
predicted ones, and is a greedy rule, not an optimum: on a loaded cluster
its average JCT moves with small changes of the rates it decides on. Below,
coloc's average JCT over the oracle's (geometric means, as above) for the
true oracle and for the oracle deciding on each pair's measured normalized
throughput times a factor drawn in [0.99, 1.01] (`--oracle-noise 0.01`,
seeds 1 to 8; the jobs still run at the measured rates). A ratio of coloc
to the true oracle inside the range of the perturbed ones is a difference
the oracle's luck alone makes.

EOF
    [ ${#bands[@]} -eq 0 ] || scripts/oracle-band.py "$tmp/page.md" "${bands[@]}"
    echo
    echo "## How the traces were drawn"
    echo
    echo "Each trace is drawn by Gavel's recipe (\`coloc simulate generate --help\`);"
    echo "the same seed gives the same trace. None of them, and none of the clusters"
    echo "in examples/heldout/, was used to choose a rule or constant of the policies."
    echo "Regenerate this page with \`scripts/heldout-sim.sh ./coloc docs/results/heldout.md\`"
    echo "(part of \`make results-sim\`)."
    echo
    for c in "${commands[@]}"; do
        echo "    $c"
    done
} >"$out"
echo "wrote $out"
if [ ${#docs[@]} -gt 0 ]; then
    scripts/goals.py "$out" >"$tmp/goals.md"
    for doc in "${docs[@]}"; do
        scripts/splice.py "$doc" goals-heldout "$tmp/goals.md"
    done
fi
