package main

import (
	"fmt"
	"io"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/workload"
)

var storeNames = map[string]histgen.Store{
	"si":        histgen.SnapshotIsolation,
	"ser":       histgen.Serializable,
	"sser":      histgen.StrictSerializable,
	"si-no-fcw": histgen.SnapshotNoFCW,
	"causal":    histgen.Causal,
	"ra":        histgen.ReadAtomic,
	"rc":        histgen.ReadCommitted,
	"random":    histgen.Random,
}

func runGenerate(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("generate", stderr)
	store := fs.String("store", "si", "simulated store: si, ser, sser, si-no-fcw, causal, ra, rc or random")
	cfg := histgen.LargeConfig{}
	fs.IntVar(&cfg.Sessions, "sessions", 20, "sessions")
	fs.IntVar(&cfg.TxnsPerSession, "txns", 100, "transactions per session")
	fs.IntVar(&cfg.OpsPerTxn, "ops", 15, "operations per transaction")
	fs.IntVar(&cfg.Keys, "keys", 10000, "keys")
	fs.Float64Var(&cfg.ReadProportion, "reads", 0.5, "proportion of reads, within [0, 1]")
	dist := fs.String("dist", "zipf", "key distribution: uniform, zipf, or hotspot (80% of operations on 20% of keys)")
	fs.Int64Var(&cfg.Seed, "seed", 1, "random seed")
	repeat := histgen.RepeatConfig{Seed: 1}
	fs.Float64Var(&repeat.Fraction, "repeat", 0, "share of the reads, within [0, 1], on keys whose written values repeat (each value written by up to --repeat-writers transactions); 0 keeps values unique")
	fs.IntVar(&repeat.Writers, "repeat-writers", 4, "with --repeat: how many transactions write each value of a key, at most (at least 2)")
	maxMemory := byteSize(defaultMaxMemory())
	fs.Var(&maxMemory, "max-memory", "refuse sizes that would need more memory than this: a size with its unit, such as 4GiB (default: GOMEMLIMIT if set, else 80% of the memory free as the run starts, or of what its cgroup leaves)")
	pos, help, err := parse(fs, args)
	if err != nil {
		return parseStatus(help)
	}
	st, ok := storeNames[*store]
	if !ok {
		return usageError(stderr, "generate", "unknown --store %q", *store)
	}
	if len(pos) != 1 {
		return usageError(stderr, "generate", "want one OUT, got %d", len(pos))
	}
	if cfg.Dist, err = workload.ParseDistribution(*dist); err != nil {
		return usageError(stderr, "generate", "--dist: %v", err)
	}
	if cfg.Sessions <= 0 || cfg.TxnsPerSession <= 0 || cfg.OpsPerTxn <= 0 || cfg.Keys <= 0 {
		return usageError(stderr, "generate", "--sessions, --txns, --ops and --keys must be positive")
	}
	if repeat.Fraction < 0 || repeat.Fraction > 1 || repeat.Fraction > 0 && repeat.Writers < 2 {
		return usageError(stderr, "generate", "--repeat must be within [0, 1] and --repeat-writers at least 2")
	}
	if err := cfg.Validate(); err != nil {
		return usageError(stderr, "generate", "%v", err)
	}
	if need := cfg.MemoryEstimate(); maxMemory > 0 && need > int64(maxMemory) {
		return usageError(stderr, "generate", "this history would need about %s of memory, more than --max-memory %s", formatBytes(need), maxMemory.String())
	}
	cfg.Store = st
	h := histgen.Large(cfg)
	if repeat.Fraction > 0 {
		repeat.Seed = uint64(cfg.Seed)
		h = histgen.Repeat(h, repeat)
	}
	if err := writeFile(pos[0], stdout, func(w io.Writer) error { return format.Write(w, h, format.JSONL) }); err != nil {
		fmt.Fprintf(stderr, "isocheck generate: %v\n", err)
		return exitBadInput
	}
	return exitSatisfied
}
