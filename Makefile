# The README's two commands are `make run` and `make test`; .ci/run calls `make test`.
GO ?= go
BIN := bin/spdylab

.PHONY: run test build deps bench screenshot clean

# Stamp the source revision into results (GOFLAGS=-buildvcs=false hides Go's own stamp).
REV := $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)
LDFLAGS := -X github.com/spdylab/spdylab/study.Revision=$(REV)

run: deps build
	$(BIN) run $(ARGS)

# Every fuzz target for FUZZTIME (30s) each, then the unit, system and interop tests
# (their summary closes the output).
test: deps
	$(GO) vet ./...
	bash scripts/fuzz.sh
	$(GO) test -count=1 -timeout 75m ./...

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/spdylab

deps:
	bash scripts/deps.sh

bench: deps build
	bash bench/throughput.sh
	bash bench/link/run.sh

# Render the quick study's report in headless Chromium and save a PNG to look at.
screenshot: run
	$(BIN) report out/quick --screenshot out/quick/report.png

# Removes the build and any testbeds a killed run left behind.
clean:
	-[ -x $(BIN) ] && $(BIN) clean
	rm -rf bin
