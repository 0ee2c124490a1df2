# coloc — see README.md. `make demo` runs the pipeline on the bundled
# reference data; `make test` runs every test.
GO       ?= go
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS  := -X github.com/coloc-dev/coloc/internal/version.Override=$(VERSION)
BIN      := bin/coloc

.PHONY: build test demo vet fmt bench clean

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/coloc

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }

test: vet
	$(GO) test -count=1 ./...

demo: build
	./scripts/demo.sh $(BIN) out/demo

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf bin out
