# coloc — see README.md. `make demo` runs the pipeline on the bundled
# reference data; `make test` runs every test.
GO       ?= go
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS  := -X github.com/coloc-dev/coloc/internal/version.Override=$(VERSION)
BIN      := bin/coloc
# go-nvml's cgo headers use functions NVML marks deprecated; the warnings
# are noise for us.
export CGO_CFLAGS ?= -O2 -g -Wno-deprecated-declarations

.PHONY: build test demo paper screenshot vet bench clean interop-deps test-workloads

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/coloc

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }

# The interop test reads our Arrow files with apache-arrow under node; its
# package is installed here (npm ci) when node is present.
test: vet interop-deps
	$(GO) test -count=1 -p 1 ./...
	@$(MAKE) --no-print-directory test-workloads

# The workload scripts' own tests need PyTorch (Debian's python3-torch).
PYTHON_TORCH ?= /usr/bin/python3
test-workloads:
	@if $(PYTHON_TORCH) -c 'import torch' 2>/dev/null; then \
	  cd benchmarks/workloads && $(PYTHON_TORCH) -m unittest -q test_workloads; \
	elif [ "$$COLOC_REQUIRE_TORCH" = 1 ]; then \
	  echo "COLOC_REQUIRE_TORCH=1 but $(PYTHON_TORCH) cannot import torch"; exit 1; \
	else echo "skipping the workload script tests: $(PYTHON_TORCH) has no torch (apt-get install python3-torch)"; fi

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
	  --virtual-time-budget=10000 --window-size=1000,1600 --screenshot=docs/report.png \
	  file://$(CURDIR)/out/paper/index.html 2>/dev/null; rm -rf $$profile

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf bin out
