#!/usr/bin/env bash
# Regenerates docs/results/traces.md: the first MAX_JOBS (200) jobs of every
# shipped trace (16 minutes on two cores on 2026-12-05), on the 16-, 48-
# and 108-GPU clusters
# under the peers, the baselines and coloc at its defaults (durations
# unknown), PARALLEL (2) cases at a time. The oracle is left out of the
# default list (POLICIES) for its cost: it decides as coloc does.
# With documents after the output file, the goal table read from the page
# (scripts/goals.py) replaces what lies between each one's goals-shipped
# markers (make results-sim does this for docs/simulation.md and the
# summary page docs/results.md).
# Usage: scripts/results-sim.sh [coloc binary] [output file] [document...]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-./coloc}
out=${2:-docs/results/traces.md}
docs=("${@:3}")
models=$(mktemp -d)
trap 'rm -rf "$models"' EXIT
# coloc and the oracle decide with iasp and iapp, the similarity policy
# with similarity: the other models would only cost fitting time.
"$bin" fit --data datasets/reference/gavel -o "$models" --models iasp,iapp,similarity >/dev/null 2>&1
traces=$(ls examples/traces/msr/*.trace examples/traces/physical_cluster/*.trace | paste -sd, -)
"$bin" simulate sweep --traces "$traces" \
    --clusters examples/cluster-gavel-16.yaml,examples/cluster-gavel-48.yaml,examples/cluster-gavel.yaml \
    --data datasets/reference/gavel --models "$models" --max-jobs "${MAX_JOBS:-200}" \
    --policy "${POLICIES:-fifo,backfill,gavel-las,gavel-las-packed,tiresias,srtf-known,coloc,coloc-no-sharing,coloc-estimate,coloc-known}" \
    --parallel "${PARALLEL:-2}" --title "Simulation results, shipped traces" --markdown "$out"
if [ ${#docs[@]} -gt 0 ]; then
    scripts/goals.py "$out" >"$models/goals.md"
    for doc in "${docs[@]}"; do
        scripts/splice.py "$doc" goals-shipped "$models/goals.md"
    done
fi
