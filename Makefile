# The README's commands, and the longer jobs behind them.
GO ?= go

.PHONY: all build test bench fuzz

all: build test

build:
	$(GO) build ./...

# The test command of the README: unit, property (against the brute-force
# reference checker) and corpus tests.
test:
	$(GO) test ./...

# Benchmarks of the checker on the corpus and on generated histories.
# Compare runs with benchstat.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./bench/ | tee bench.txt

# A short fuzzing pass over every reader.
FUZZTIME ?= 30s
fuzz:
	for f in FuzzJSONL FuzzText FuzzDBCop FuzzCobra FuzzAuto; do \
		$(GO) test ./format -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) || exit 1; \
	done
	for f in FuzzReadEDN FuzzReadJSONL; do \
		$(GO) test ./lwt -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) || exit 1; \
	done
