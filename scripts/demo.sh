#!/usr/bin/env bash
# make demo: the whole pipeline on the bundled reference data, no GPU
# needed. Usage: scripts/demo.sh BIN OUTDIR
set -euo pipefail
bin=${1:-bin/coloc}
out=${2:-out/demo}
ref=datasets/reference
rm -rf "$out"
mkdir -p "$out"

step() { printf '\n== %s\n' "$*"; }

step "import Gavel's measured co-located throughputs (k80, p100, v100)"
"$bin" datasets import gavel "$ref/gavel/upstream/simulation_throughputs.json" -o "$out/data/gavel"

step "import Pollux's scaling measurements"
"$bin" datasets import pollux "$ref/pollux/upstream" -o "$out/data/pollux"

step "validate both datasets"
"$bin" datasets validate "$out/data/gavel" "$out/data/pollux"

step "inspect the pairs table"
"$bin" datasets inspect "$out/data/gavel/pairs.arrow"

step "export the pairs table as CSV and Parquet"
"$bin" datasets export --format csv "$out/data/gavel/pairs.arrow" -o "$out/pairs.csv"
"$bin" datasets export --format parquet "$out/data/gavel/pairs.arrow" -o "$out/pairs.parquet"

step "build the feature table"
"$bin" features build --data "$out/data/gavel" -o "$out/features.arrow"

step "fit the standard interference models on all measured pairs, intervals calibrated"
# gbt, forest and stack are comparison models (docs/models.md): fit them by
# name; the demo keeps to the models the report and the policies use.
"$bin" fit --data "$out/data/gavel" -o "$out/models" --models mean,bias,pmf,knn,linear,tree,iapp,iasp,similarity

step "evaluate the models on held-out pairs (protocol pairs, 2 seeds), with the held-out predictions of one split"
"$bin" eval --data "$out/data/gavel" --device k80,p100,v100 --fractions 0.2,0.5 --seeds 2 \
  --quiet --markdown -o "$out/eval.arrow" --predictions "$out/predictions.arrow" > "$out/eval.md"
head -n 13 "$out/eval.md"

step "place the example job list on the example cluster and export the policy file"
"$bin" policy export --cluster examples/cluster.yaml --jobs examples/jobs.yaml --models "$out/models" \
  --data "$out/data/gavel" -o "$out/policy.json"
"$bin" policy validate "$out/policy.json"

step "simulate the policies on a Gavel trace (951 jobs, 48 GPUs) and on a physical-cluster trace"
policies=fifo,backfill,greedy-pack,gavel-las,tiresias,coloc,oracle
"$bin" simulate --trace examples/traces/msr/ed69ec.trace --cluster examples/cluster-gavel-48.yaml \
  --data "$out/data/gavel" --models "$out/models" --policy "$policies" -o "$out/sim-ed69ec.json"
"$bin" simulate --trace examples/traces/physical_cluster/minimize_makespan.trace --cluster examples/cluster-gavel-48.yaml \
  --data "$out/data/gavel" --models "$out/models" --policy "$policies" -o "$out/sim-minimize_makespan.json" > /dev/null

step "write the report from the files of the stages above"
"$bin" report --out "$out/report" --data "$out/data/gavel,$out/data/pollux" \
  --models "$out/models" --eval "$out/eval.arrow" --predictions "$out/predictions.arrow" \
  --sim "$out/sim-ed69ec.json,$out/sim-minimize_makespan.json" --scaling-device k80,p100,v100,t4

printf '\nDemo finished. Datasets: %s/data/{gavel,pollux}; exports: %s/pairs.{csv,parquet};\n' "$out" "$out"
printf 'features: %s/features.arrow; models: %s/models; evaluation: %s/eval.{arrow,md}, %s/predictions.arrow;\n' "$out" "$out" "$out" "$out"
printf 'policy: %s/policy.json; replays: %s/sim-*.json\n' "$out" "$out"
printf 'Report: %s/report/index.html\n' "$out"
