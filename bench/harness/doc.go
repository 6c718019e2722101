// Package harness reproduces, on the machine it runs on, the shape of the
// experiments of Huang, Liu, Chen, Wei, Basin, Li and Pan, "Efficient
// Black-box Checking of Snapshot Isolation in Databases" (PolySI,
// PVLDB 16(6), 2023), Section 5; of Wei, Xiao, Yang, Liu, Yin, Chen and
// Pan, "Boosting End-to-End Database Isolation Checking via
// Mini-Transactions" (MTC, ICDE 2025), Section V; of Bouajjani, Enea and
// Román-Calvo, "On the Complexity of Checking Mixed Isolation Levels for
// SQL Transactions" (CAV 2025), §6; and of Bouajjani, Enea and Román-Calvo,
// "Dynamic Partial Order Reduction for Checking Correctness against
// Transaction Isolation Levels" (PLDI 2023), §7.3. It writes their results
// as CSV files, plots (PNG and SVG) and a Markdown summary.
//
// Every measurement runs the isocheck command in a child process,
//
//	isocheck check --json --stats --level L [--no-prune] [--all-pairs] [--solver E] FILE
//
// and reads the time of each stage, the sizes of the problem before and
// after pruning and the verdict from its JSON output, and the peak memory
// from the child's resource usage. A run that outlives its timeout has its
// whole process group killed and is recorded as "timeout". Other checkers
// given as comparisons run the same way on the same generated histories,
// written in the format they read.
//
// The experiments are:
//
//   - fig5: the time of each stage as one workload parameter varies around
//     the defaults (20 sessions × 100 transactions × 15 operations, 50%
//     reads, 10k keys, zipfian), as in Figure 5 of Huang et al.
//     (PVLDB 2023);
//   - table3: constraints and unknown dependencies before and after pruning
//     for GeneralRH, GeneralRW, GeneralWH and the RUBiS, TPC-C and Twitter
//     histories of the corpus, as in their Table 3;
//   - fig9: the ablations (no pruning, all pairs of write chains, both, and
//     every solver engine the command lists) on the same benchmarks, as in
//     their Figure 9;
//   - scaling: time and peak memory as the history grows from 10k
//     transactions to 1M (10M with the full scale);
//   - scale: time and peak memory of each stage from 100k to 10M
//     transactions of long soak tests' shape (uniform over as many keys
//     as transactions), at SI, SER and CC, beside the peers' figures;
//     and violating histories of 200k and 1M transactions from a store
//     that loses updates (si-no-fcw), at every level and --level all;
//   - mini: histories of mini-transactions against general ones of the same
//     size, at SER, SI and SSER, in the manner of Figure 9 of Wei et al.
//     (ICDE 2025);
//   - repeat: time and peak memory of checking histories whose written
//     values repeat per key (histgen.Repeat: a share of the reads with
//     2, 4 or 16 candidate writers) beside the same history with unique
//     values, at SER, SI, CC (and RA, RC at the paper's scale).
//
// The cmd/isobench command runs them.
package harness
