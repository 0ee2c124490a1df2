#!/usr/bin/env bash
# Writes cmd/coloc/default.pgo, the CPU profile from which the Go
# toolchain optimizes coloc's build (profile-guided optimization: go build
# and go install take a default.pgo in the main package's directory by
# themselves, and inline and lay out the hot calls it names). It profiles
# where users wait on coloc's CPU: the simulator at trace scale, through
# BenchmarkSimulate on one core: the decision core (coloc on 100,000 jobs
# and 1,024 GPUs, a trace whose second half fills the cluster) and the
# published peers (gavel-las, gavel-las-packed and tiresias on 50,000
# jobs), the two profiles merged into one. About 3 minutes on two cores.
# Rerun it after a change that moves where the simulator spends its time:
# a stale profile still builds and decides the same, it only speeds less.
# Usage: scripts/pgo-profile.sh [coloc binary, to fit the models]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-./bin/coloc}
go=${GO:-go}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" fit --data datasets/reference/gavel -o "$tmp/models" >/dev/null
export COLOC_MODELS=$tmp/models
# -pgo=off: the profile describes the code as written, not as the last
# profile optimized it.
"$go" test -pgo=off ./sim/policies -run '^$' -bench 'Simulate/^100000$/^coloc$' -benchtime 1x -cpu 1 \
    -cpuprofile "$tmp/core.pprof" -o "$tmp/policies.test"
"$go" test -pgo=off ./sim/policies -run '^$' -bench 'Simulate/^50000$/^(gavel-las|gavel-las-packed|tiresias)$' \
    -benchtime 1x -cpu 1 -cpuprofile "$tmp/peers.pprof" -o "$tmp/policies.test"
"$go" tool pprof -proto "$tmp/core.pprof" "$tmp/peers.pprof" >"$tmp/default.pgo"
mv "$tmp/default.pgo" cmd/coloc/default.pgo
echo "wrote cmd/coloc/default.pgo ($(wc -c <cmd/coloc/default.pgo) bytes)"
