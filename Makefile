# relaxgo Makefile. `make quickstart` builds the CLI and runs it on an example
# model; `make test` is what CI runs.
GO ?= go
SHARED ?= $(abspath ../shared)
FUZZTIME ?= 5s

.PHONY: all build quickstart test test-noasm lint fuzz bench

all: build

build:
	$(GO) build -o bin/relaxgo ./cmd/relaxgo

quickstart: build
	./bin/relaxgo print examples/models/mlp.py

# test: lint, the whole suite in both asm and pure-Go builds, then short fuzz runs.
test: lint
	RELAXGO_SHARED=$(SHARED) $(GO) test -count=1 ./...
	RELAXGO_SHARED=$(SHARED) $(GO) test -count=1 -tags noasm ./...
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
