// Package bench holds isocheck's benchmarks: the corpus histories of the
// experiments of Huang, Liu, Chen, Wei, Basin, Li and Pan, "Efficient
// Black-box Checking of Snapshot Isolation in Databases" (PolySI,
// PVLDB 16(6), 2023) (Section 5: the default PostgreSQL history and the
// RUBiS, TPC-C and Twitter Cobra histories) and generated
// snapshot-isolation histories of 10k and 100k transactions.
//
// Run them with `make bench-go` (or go test -bench . ./bench) and compare runs
// with benchstat. Each history is benchmarked twice, Parse and Check, so
// that the ratio of checking to parsing can be read off one run.
//
// The experiments of the papers, with plots, are the harness of
// bench/harness, run by cmd/isobench (`make bench`).
package bench
