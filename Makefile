# The README's two commands are `make run` and `make test`; .ci/run calls `make test`.
GO ?= go
BIN := bin/spdylab

.PHONY: run test build deps bench fuzz screenshot clean

run: deps build
	$(BIN) run $(ARGS)

test: deps
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 75m ./...

build:
	$(GO) build -o $(BIN) ./cmd/spdylab

deps:
	bash scripts/deps.sh

bench: deps build
	bash bench/run.sh

clean:
	rm -rf bin
	-$(BIN) clean 2>/dev/null || true
