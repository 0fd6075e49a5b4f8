# relaxgo Makefile. `make quickstart` builds the CLI and runs it on an example
# model; `make test` is what CI runs.
GO ?= go
SHARED ?= $(abspath ../shared)
FUZZTIME ?= 5s

.PHONY: all build quickstart examples test lint fuzz bench

all: build

build:
	$(GO) build -o bin/relaxgo ./cmd/relaxgo

# quickstart: generate the example MLP's Go package from its TVMScript and
# weights, then run it in both execution modes.
quickstart:
	$(GO) generate ./examples/mlp
	$(GO) run ./examples/mlp

# examples: regenerate every example package (checked in; a test keeps them fresh).
examples:
	$(GO) generate ./examples/...

# test: lint, the whole suite in both asm and pure-Go builds, the runtime under the
# race detector (VMs sharing an executable, goroutines sharing a model), then short fuzz runs.
test: lint
	RELAXGO_SHARED=$(SHARED) $(GO) test -count=1 ./...
	RELAXGO_SHARED=$(SHARED) $(GO) test -count=1 -tags noasm ./...
	$(GO) test -count=1 -race ./runtime/ ./examples/transformer/
	$(MAKE) fuzz

lint:
	@out=$$(gofmt -l $$(find . -name '*.go' -not -path './.git/*')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# fuzz: each fuzz target for a few seconds (seeds live under testdata/fuzz).
fuzz:
	@$(GO) list -f '{{.ImportPath}} {{.Dir}}' ./... | while read pkg dir; do \
		for t in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/func //'); do \
			echo "fuzz $$pkg $$t"; \
			$(GO) test -run='^$$' -fuzz="^$$t\$$" -fuzztime=$(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./...

# asm: regenerate the avo SIMD kernels (asm/kernels_amd64.s, asm/stubs_amd64.go).
# The generator is a module of its own (asm/gen) so avo stays out of go.mod.
.PHONY: asm bench-openblas
asm:
	cd asm/gen && $(GO) run . -out ../kernels_amd64.s -stubs ../stubs_amd64.go -pkg asm

# bench-openblas: relaxgo Sgemm against OpenBLAS cblas_sgemm in one run
# (bench/openblas is a separate cgo module; the library stays cgo-free).
BENCHCOUNT ?= 5
BENCHTIME ?= 0.3s
bench-openblas:
	@dpkg -s libopenblas-dev >/dev/null 2>&1 || { apt-get update && apt-get install -y libopenblas-dev; }
	cd bench/openblas && CGO_ENABLED=1 $(GO) test -run='^$$' -bench='^BenchmarkSgemm$$' -benchtime=$(BENCHTIME) -count=$(BENCHCOUNT) . | tee /tmp/relaxgo-bench-openblas.txt
	awk -f bench/openblas/summary.awk /tmp/relaxgo-bench-openblas.txt
