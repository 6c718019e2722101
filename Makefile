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

# A short fuzzing pass over every fuzz target of every package (the
# readers of each format, the command's flag values, ...).
FUZZTIME ?= 30s
fuzz:
	for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test $$pkg -list '^Fuzz' | grep '^Fuzz'); do \
			$(GO) test $$pkg -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) || exit 1; \
		done; \
	done
