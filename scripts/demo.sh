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

printf '\nDemo finished. Datasets: %s/data/{gavel,pollux}; exports: %s/pairs.{csv,parquet}\n' "$out" "$out"
