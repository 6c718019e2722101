# The README's commands, and the longer jobs behind them:
#
#	make build       build every package
#	make test        the README's test command
#	make test-long   the same tests at their full counts
#	make lint        staticcheck, at a pinned version
#	make test-race   every test under the race detector
#	make bench       the benchmark harness at a reduced scale (bench-full,
#	                 bench-scale, bench-explore and bench-go for more)
#	make fuzz        a short pass over every fuzz target
#	make sql-demo    TPC-C on embedded SQLite, recorded and checked
#	make screenshots the report pages, as Chromium shows them, into
#	                 docs/screenshots
#
# CI (.ci/run) runs vet, gofmt, lint, test, test-long and test-race.
GO ?= go

.PHONY: all build test test-long lint test-race bench bench-full bench-scale bench-explore bench-go fuzz sql-demo screenshots

all: build test

build:
	$(GO) build ./...

# The test command of the README: unit, property (against the brute-force
# reference checker) and corpus tests. The tests that draw many cases run
# a smaller count that still reaches every verdict (internal/testkit/testsize: a
# few hundred random histories or programs against the reference rather
# than thousands, smaller explorations and scale runs). About 2 minutes on
# 2 cores once built; the first run compiles for about 3 minutes more.
test:
	$(GO) test ./...

# The same tests at their full counts (ISOCHECK_LONG=1, read by
# internal/testkit/testsize): thousands of random histories and programs against
# the reference, more programs explored exhaustively, every fold of the
# repeat experiment, Porcupine on the 16-client histories, the largest
# corpus round trips, the 5 s dial timeout. About 5 minutes on 2 cores
# once built, 2.5 of them explore's 2,000 programs a level; CI runs it
# after test.
test-long:
	ISOCHECK_LONG=1 $(GO) test -timeout 60m ./...

# staticcheck (honnef.co/go/tools) at the version below, built by go run
# outside the module so that it adds nothing to go.mod: any finding fails.
# A finding that is wrong is silenced where it is, with a
# //lint:ignore CHECK reason comment. About a minute on 2 cores.
STATICCHECK_VERSION = v0.8.2
lint:
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

# Every test under the race detector, as the README's test command runs
# them (not -short): the database adapters' tests run db/dbtest's
# concurrent sessions against a server where ISOCHECK_POSTGRES_DSN,
# ..._MYSQL_DSN or ..._ETCD_DSN names one (CI has PostgreSQL). About 10
# minutes on 2 cores, a third of it building with -race; the longest are
# cmd/isocheck, explore and polygraph.
test-race:
	$(GO) test -race -count=1 -timeout 30m ./...

# The benchmark harness (cmd/isobench, bench/harness): the experiments of
# Huang, Liu, Chen, Wei, Basin, Li and Pan, "Efficient Black-box Checking of
# Snapshot Isolation in Databases" (PolySI, PVLDB 16(6), 2023): Figure 5,
# Table 3, Figure 9, growth to 100k transactions; mini-transactions, after
# Wei, Xiao, Yang, Liu, Yin, Chen and Pan, "Boosting End-to-End Database
# Isolation Checking via Mini-Transactions" (MTC, ICDE 2025); and the SQL
# experiments of Bouajjani, Enea and Román-Calvo, "On the Complexity of
# Checking Mixed Isolation Levels for SQL Transactions" (CAV 2025):
# Figures 6 and 7, the naive baseline, with histories recorded on
# $ISOCHECK_POSTGRES_DSN when set, else on an embedded SQLite file; and
# repeat: histories whose written values repeat per key (histgen.Repeat:
# 10% to all of the reads with 2, 4 or 16 candidate writers), 10k
# transactions at SER, SI and CC (bench-full: 10k and 100k at SER, SI,
# CC, RA and RC); and online: streams into check --follow at 50,000
# transactions a second, without fences and with them, and a stream with
# fences generated as it is written for a minute (bench-full: 30
# minutes). At a
# reduced scale, one repetition (2 clients a SQL point), each check in a
# child process with a 60 s limit (5 s for SQL histories, where the naive
# baseline reaches it); CSV files, plots and summary.md in bench/results.
# 6 to 7 minutes on 2 cores. The model-checking experiments are
# bench-explore's.
BENCH_EXPERIMENTS = fig5,table3,fig9,scaling,mini,repeat,online,sql-sessions,sql-txns,sql-naive
bench:
	$(GO) run ./cmd/isobench --scale quick --timeout 60s --sql-timeout 5s --experiments $(BENCH_EXPERIMENTS) --out bench/results

# The same at the paper's sizes, 3 repetitions, histories up to 10M
# transactions, 10 minutes a run at most: expect 1 to 2 hours on 2 cores
# (a 1M-transaction history checks in about 100 s and 4.5 GiB), much of it
# in ablations that reach the limit; summary.md says how long the run took.
# The 10M history needs more memory than 24 GiB allow, and is then
# recorded as no-verdict. `--scale paper` stops at 1M. The SQL experiments
# run at the sizes of Bouajjani et al. (CAV 2025), 5 clients a point, 60 s
# a check as in the paper.
bench-full:
	$(GO) run ./cmd/isobench --scale full --timeout 10m --sql-timeout 60s --experiments $(BENCH_EXPERIMENTS) --out bench/results/full

# Scale (bench/results/scale): histories of 100k to 4M transactions of the
# shape long soak tests have (20 sessions, 15 operations a transaction,
# as many keys as transactions, uniform), checked at SI, SER and CC: wall
# time and peak memory against size beside the peers' points, and each
# stage's time and memory per transaction (scale-stages.csv, flat lines
# are linear growth). One repetition (REPS=3 for medians). About 7
# minutes on 2 cores and 4 GB; SCALE=full adds 10M transactions, which
# needs about 8 GB and 5 minutes more (12 minutes in all, measured).
SCALE ?= paper
REPS ?= 1
bench-scale:
	$(GO) run ./cmd/isobench --scale $(SCALE) --reps $(REPS) --timeout 20m --experiments scale --out bench/results/scale

# The model checking of Bouajjani, Enea and Román-Calvo, "Dynamic Partial
# Order Reduction for Checking Correctness against Transaction Isolation
# Levels" (PLDI 2023), §7.3 (`isocheck explore`): Figure 14's 25 programs in
# every configuration (explore-ce 1 min a run, its baselines 15 s) and
# Figure 15's growing TPC-C and Wikipedia programs (1 min a run), into
# bench/results/explore, as committed: about half an hour on 2 cores.
# `--scale full` gives every run 10 minutes (the paper's target for
# explore-ce) and Figure 15 its fifth size: hours.
bench-explore:
	$(GO) run ./cmd/isobench --scale quick --experiments explore-fig14,explore-fig15 --out bench/results/explore

# TPC-C on embedded SQLite, recorded as a SQL history (tpcc.jsonl, replaced
# if it exists) and checked: 3 sessions of 10 transactions, under a second.
# SQLite runs every transaction at SER, so the demo asks for SER: a mix of
# levels (--levels random) is refused on SQLite. For mixed levels on
# PostgreSQL, see the README.
SQL_DEMO_DB ?= $(or $(TMPDIR),/tmp)/isocheck-tpcc.db
sql-demo:
	$(GO) run ./cmd/isocheck run --workload tpcc --db sqlite://$(SQL_DEMO_DB) --levels ser --sessions 3 --txns 10 -o tpcc.jsonl --force --check

# Go benchmarks of the checker on the corpus and on generated histories.
# Compare runs with benchstat.
bench-go:
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

# The first screen of every page the browser test looks at (the shipped
# examples, a run, an lwt run, an exploration, a generated history and a
# sample of the corpus), at a desktop's width and at a phone's, as
# docs/screenshots holds them: look at them after changing a picture or
# the page. Needs Chromium; about a minute.
screenshots:
	rm -f docs/screenshots/*.jpg
	ISOCHECK_SCREENSHOTS=$(CURDIR)/docs/screenshots ISOCHECK_BROWSER_REQUIRED=1 $(GO) test ./cmd/isocheck -run 'TestHTMLInBrowser' -count=1
