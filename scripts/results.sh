#!/usr/bin/env bash
# make results: regenerate the result blocks of docs/*.md (the evaluation
# tables of docs/models.md) by running the coloc command written in each
# block's marker, in process, and recording the hash of its inputs (see
# cmd/coloc/results_test.go). TestDocResults, part of `make test`, fails
# when a block is stale. The new-job and cross-device evaluations dominate
# the run: of its 68 minutes on 2026-12-02 (two cores, gbt-sums among the
# models; short probes ran beside it in its first quarter hour), Gavel's
# new-job took 37, the counters dataset's new-job 13, cross-device 10, the
# seven other blocks 9. On 2026-12-03, nothing beside it: 53 minutes (Gavel's
# new-job 30, the counters new-job 8, cross-device 7); later that day, once
# the committee chose its unseen seat's weights (five more fits of four
# models whenever a job is unseen), 78 minutes (Gavel's new-job 41, the
# counters new-job 14, cross-device 11). On 2026-12-05, with other work
# beside it most of the time, 99 minutes (Gavel's new-job 55, the counters
# new-job 16, cross-device 15).
# To share the work between two checkouts of the same commit, pass flags to
# the test: RESULTS_FLAGS="-results-only new-job" in one and
# RESULTS_FLAGS="-results-skip new-job" in the other, then take each one's
# blocks.
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_CFLAGS=${CGO_CFLAGS:--O2 -g -Wno-deprecated-declarations}
${GO:-go} test ./cmd/coloc -run '^TestDocResults$' -count=1 -timeout 3h -v -args -results ${RESULTS_FLAGS:-}
git --no-pager diff --stat -- docs
