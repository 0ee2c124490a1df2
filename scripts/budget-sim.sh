#!/usr/bin/env bash
# Regenerates docs/profiling-budget.md and its figure
# (docs/profiling-budget.{svg,png,csv}): what profiling a GPU type's pairs
# buys in coloc's decisions (coloc simulate budget). The cases are the
# first MAX_JOBS (200) jobs of the first five shipped msr traces (by name,
# not chosen by result) on the 16- and 48-GPU clusters in both degree
# modes, SEEDS (2) random orders per type, PARALLEL (2) cases at a time:
# 3 to 25 minutes on two cores. WORK (out/budget) keeps the points, so an
# interrupted run resumes; remove it after changing coloc.
# Usage: scripts/budget-sim.sh [coloc binary] [output page]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-./coloc}
out=${2:-docs/profiling-budget.md}
traces=$(ls examples/traces/msr/*.trace | head -5 | paste -sd, -)
"$bin" simulate budget --traces "$traces" \
    --clusters examples/cluster-gavel-16.yaml,examples/cluster-gavel-48.yaml \
    --data datasets/reference/gavel --max-jobs "${MAX_JOBS:-200}" --seeds "${SEEDS:-2}" \
    --parallel "${PARALLEL:-2}" --work "${WORK:-out/budget}" \
    --markdown "$out" --figure "${out%.md}"
