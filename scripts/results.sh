#!/usr/bin/env bash
# make results: regenerate the result blocks of docs/*.md (the evaluation
# tables of docs/models.md) by running the coloc command written in each
# block's marker, in process, and recording the hash of its inputs (see
# cmd/coloc/results_test.go). TestDocResults, part of `make test`, fails
# when a block is stale. The new-job evaluation dominates the run: 55 of its
# 69 minutes on 2026-12-01, on two cores shared with other work.
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_CFLAGS=${CGO_CFLAGS:--O2 -g -Wno-deprecated-declarations}
${GO:-go} test ./cmd/coloc -run '^TestDocResults$' -count=1 -timeout 3h -v -args -results
git --no-pager diff --stat -- docs
