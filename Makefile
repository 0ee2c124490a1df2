# coloc — see README.md. `make demo` runs the pipeline on the bundled
# reference data; `make test` runs every test.
GO       ?= go
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS  := -X github.com/coloc-dev/coloc/internal/version.Override=$(VERSION)
BIN      := bin/coloc
# go-nvml's cgo headers use functions NVML marks deprecated; the warnings
# are noise for us.
export CGO_CFLAGS ?= -O2 -g -Wno-deprecated-declarations

.PHONY: install build test test-short demo paper screenshot vet bench clean interop-deps test-workloads toolchain test-optional results results-sim results-heldout results-scale results-oracle results-budget fuzz pgo

# toolchain says what is missing before a build fails obscurely: Go on
# PATH, and the C compiler cgo needs for go-nvml (without it the build
# fails with "undefined: Return" in go-nvml).
toolchain:
	@command -v $(GO) >/dev/null 2>&1 || { echo "coloc needs Go 1.26 or later on PATH (e.g. export PATH=/usr/local/go/bin:\$$PATH); GO=$(GO) was not found"; exit 1; }
	@cc=$$($(GO) env CC); [ "$$($(GO) env CGO_ENABLED)" = 1 ] && command -v "$${cc%% *}" >/dev/null 2>&1 || { \
	  echo "coloc needs a C compiler for cgo (the NVML bindings, go-nvml): '$$cc' was not found or cgo is disabled (CGO_ENABLED=$$($(GO) env CGO_ENABLED)); install one (apt-get install gcc) and keep CGO_ENABLED=1"; exit 1; }

build: toolchain
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/coloc

# install puts coloc on PATH: go install writes it to $(go env GOBIN), or
# $(go env GOPATH)/bin when GOBIN is unset (add that directory to PATH).
install: toolchain
	$(GO) install -ldflags "$(LDFLAGS)" ./cmd/coloc
	@echo "installed coloc in $$(d=$$($(GO) env GOBIN); [ -n "$$d" ] || d=$$($(GO) env GOPATH)/bin; echo $$d)"

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }

# `make test` runs vet, then every package's tests one package at a time,
# then the workload scripts' tests; it goes on past a failure, names every
# part that failed at the end and exits non-zero if any did. Each package
# has its own time limit with headroom: the end-to-end packages (profile:
# the tiny suite on PyTorch CPU, about 3 min on a busy 2-core machine;
# cmd/coloc: the Slurm fleet, the README examples) TEST_TIMEOUT_E2E, every
# other (each well under a minute) TEST_TIMEOUT. The interop test reads our
# Arrow files with apache-arrow under node; its package is installed here
# (npm ci) when node is present. Last it lists the optional parts the
# tests skipped because their tools are missing: each such test records
# its skip (package internal/optional) in the file COLOC_SKIP_LOG names.
TEST_TIMEOUT     ?= 10m
TEST_TIMEOUT_E2E ?= 30m
# integrations/kubernetes is a module of its own, tested after the loop;
# its end-to-end test builds kube-apiserver (about 12 minutes on two cores
# with a cold Go build cache, seconds with a warm one).
TEST_TIMEOUT_KUBE ?= 40m
E2E_PKGS         := github.com/coloc-dev/coloc/profile github.com/coloc-dev/coloc/cmd/coloc
SKIP_LOG := $(CURDIR)/.make-test-skipped
test: toolchain interop-deps
	@rm -f $(SKIP_LOG); export COLOC_SKIP_LOG=$(SKIP_LOG); failed=""; \
	$(MAKE) --no-print-directory vet || failed="$$failed vet"; \
	for pkg in $$($(GO) list ./...); do \
	  case " $(E2E_PKGS) " in *" $$pkg "*) to=$(TEST_TIMEOUT_E2E) ;; *) to=$(TEST_TIMEOUT) ;; esac; \
	  $(GO) test -count=1 -timeout $$to $$pkg || failed="$$failed $$pkg"; \
	done; \
	(cd integrations/kubernetes && $(GO) test -count=1 -timeout $(TEST_TIMEOUT_KUBE) ./...) || failed="$$failed integrations/kubernetes"; \
	$(MAKE) --no-print-directory test-workloads || failed="$$failed test-workloads"; \
	$(MAKE) --no-print-directory test-optional; rm -f $(SKIP_LOG); \
	if [ -n "$$failed" ]; then echo "make test: FAILED:$$failed"; exit 1; fi; \
	echo "make test: every part passed"

# test-short is the quick loop: every package's tests in -short mode
# (the end-to-end, browser, load and multi-fit tests skip), packages in
# parallel, no vet. make test stays the full suite.
test-short: toolchain
	$(GO) test -short -count=1 ./...

# test-optional lists the skips the tests recorded in COLOC_SKIP_LOG (the
# COLOC_REQUIRE_* variables of .ci/run turn those skips into failures).
test-optional:
	@if [ -s "$(SKIP_LOG)" ]; then echo "make test: optional parts skipped:"; sort -u "$(SKIP_LOG)" | sed 's/^/  /'; \
	else echo "make test: no optional part skipped"; fi

# The workload scripts' own tests need PyTorch (Debian's python3-torch).
PYTHON_TORCH ?= /usr/bin/python3
test-workloads:
	@if $(PYTHON_TORCH) -c 'import torch' 2>/dev/null; then \
	  cd benchmarks/workloads && $(PYTHON_TORCH) -m unittest -q test_workloads; \
	elif [ "$$COLOC_REQUIRE_TORCH" = 1 ]; then \
	  echo "COLOC_REQUIRE_TORCH=1 but $(PYTHON_TORCH) cannot import torch"; exit 1; \
	else echo "skipping the workload script tests: $(PYTHON_TORCH) has no torch (apt-get install python3-torch)"; \
	  [ -z "$$COLOC_SKIP_LOG" ] || echo "torch: test-workloads: $(PYTHON_TORCH) cannot import torch (apt-get install python3-torch)" >>"$$COLOC_SKIP_LOG"; fi

interop-deps:
	@if command -v npm >/dev/null 2>&1; then \
	  [ -d tests/interop/node_modules/apache-arrow ] && [ -d tests/interop/node_modules/hyparquet-compressors ] || (cd tests/interop && npm ci --no-audit --no-fund --silent); \
	else echo "npm not found: the Arrow and Parquet interop tests will be skipped"; fi

demo: build
	./scripts/demo.sh $(BIN) out/demo

# The paper figures from the shipped reference data.
paper: build
	$(BIN) report paper --out out/paper

# docs/report.png: the top of the paper report in headless Chromium
# (Debian's chromium and fonts-liberation).
CHROMIUM ?= chromium
screenshot: paper
	profile=$$(mktemp -d) && $(CHROMIUM) --headless --no-sandbox --disable-gpu --disable-background-networking \
	  --disable-component-update --disable-sync --no-first-run --user-data-dir=$$profile --hide-scrollbars \
	  --virtual-time-budget=10000 --window-size=1200,1600 --screenshot=docs/report.png \
	  file://$(CURDIR)/out/paper/index.html 2>/dev/null; rm -rf $$profile

# The result tables of docs/*.md, regenerated from the coloc commands
# written in their markers (about 10 minutes of one core); make test fails
# (TestDocResults) when one is stale.
results:
	./scripts/results.sh

# docs/results/traces.md: every shipped trace on the 16-, 48- and 108-GPU clusters
# under every policy, coloc at its defaults (coloc simulate sweep; 16
# minutes on two cores on 2026-12-05); and docs/results/heldout.md: generated traces on
# cluster sizes no rule was chosen on (results-heldout alone: about 6
# minutes on two cores). What the oracle's rates are worth is apart
# (results-oracle): 16 sweeps of coloc and the oracle on the same 200-job
# cuts, 18 minutes on two cores on 2026-12-07 (MAX_JOBS=0 replays whole
# traces, which under the decision core takes hours).
results-sim: build results-heldout
	./scripts/results-sim.sh $(BIN) docs/results/traces.md docs/simulation.md docs/results.md
	./scripts/risk-sim.sh $(BIN) docs/simulation.md
	./scripts/assume-sim.sh $(BIN) docs/simulation.md

results-heldout: build
	./scripts/heldout-sim.sh $(BIN) docs/results/heldout.md docs/simulation.md docs/results.md

# docs/performance.md's table of the simulator at trace scale: every policy
# on 10k, 50k and 100k jobs and the 50k trace twice on 1,024 GPUs, CPU
# seconds on one core, medians of three rounds (about 50 minutes; run it
# alone, as timings are).
results-scale: build
	./scripts/scale-sim.sh $(BIN) docs/performance.md

results-oracle: build
	./scripts/oracle-worth.sh $(BIN) docs/simulation.md

# docs/profiling-budget.md and its figure: coloc's average JCT with the
# models fit on a share of one GPU type's pairs over every pair's (about
# 25 minutes on two cores when the page was first generated, 3.5 minutes on
# 2026-12-06; out/budget keeps the points done).
results-budget: build
	./scripts/budget-sim.sh $(BIN) docs/profiling-budget.md

# pgo rewrites cmd/coloc/default.pgo, the CPU profile go build optimizes
# the binary from (profile-guided optimization), from the simulator at
# trace scale (about 3 minutes; docs/development.md).
pgo: build
	GO=$(GO) ./scripts/pgo-profile.sh $(BIN)

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# make fuzz: every fuzz target of the readers (docs/safety.md), one after
# another, each for FUZZTIME; a new input is minimized for at most
# FUZZMINIMIZE (runs of the target: without a bound, minimizing one large
# input can take the whole budget). A failure writes its input under the
# package's testdata/fuzz/<Target>: keep that file with the fix. The list
# is every Fuzz function of the module (a test in tests/hostile checks it).
FUZZTIME     ?= 60s
FUZZMINIMIZE ?= 100x
FUZZ_TARGETS := datasets:FuzzRead datasets:FuzzImportCSV datasets:FuzzImportGavel datasets:FuzzParseShape \
  place/cluster:FuzzParse place/jobs:FuzzParse policy:FuzzDecode profile:FuzzParseSuite \
  sim:FuzzReadTrace internal/jsonkeys:FuzzCheck serve:FuzzRequests
fuzz:
	@failed=""; for t in $(FUZZ_TARGETS); do pkg=./$${t%%:*}; fn=$${t##*:}; \
	  echo "== $$fn in $$pkg for $(FUZZTIME)"; \
	  $(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) $$pkg || failed="$$failed $$pkg:$$fn"; \
	done; \
	if [ -n "$$failed" ]; then echo "make fuzz: FAILED:$$failed"; exit 1; fi; \
	echo "make fuzz: every target ran its budget without a failure"

clean:
	rm -rf bin out
