package histgen

import (
	"fmt"
	"math/rand/v2"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/workload"
)

// LargeConfig describes a benchmark history. Zero sizes take the defaults
// in brackets (the default workload of Huang, Liu, Chen, Wei, Basin, Li and
// Pan, "Efficient Black-box Checking of Snapshot Isolation in Databases"
// (PolySI, PVLDB 16(6), 2023), Section 5).
type LargeConfig struct {
	Sessions       int // sessions [20]
	TxnsPerSession int // transactions per session [100]
	OpsPerTxn      int // operations per transaction [15]
	Keys           int // keys [10000]
	// ReadProportion is the probability that an operation is a read.
	ReadProportion float64
	// Dist is the distribution of keys; the zero value is workload.Uniform.
	Dist workload.Distribution
	// Seed seeds the generator.
	Seed int64
	// Store runs the transactions; the zero value is SnapshotIsolation.
	Store Store
	// KeepAborted keeps the attempts the store aborted (only
	// SnapshotIsolation aborts), marked aborted, in the history; by
	// default they are left out.
	KeepAborted bool
	// Lists makes a list history (Elle's list-append workload): writes
	// append, and reads return the whole list the store shows.
	Lists bool
}

// MaxOps bounds the operations of a generated history, which numbers
// them with 32-bit integers (as it does keys: see workload.MaxKeys).
const MaxOps = 1<<31 - 1

// Validate says whether the generator can make the history cfg describes
// (zero sizes take their defaults).
func (cfg LargeConfig) Validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"sessions", cfg.Sessions}, {"transactions per session", cfg.TxnsPerSession}, {"operations per transaction", cfg.OpsPerTxn}, {"keys", cfg.Keys}} {
		if f.v < 0 {
			return fmt.Errorf("%s must be positive, not %d", f.name, f.v)
		}
	}
	cfg.withDefaults()
	if cfg.Keys > workload.MaxKeys {
		return fmt.Errorf("%d keys is more than the %d a history can have", cfg.Keys, workload.MaxKeys)
	}
	if ops := float64(cfg.Sessions) * float64(cfg.TxnsPerSession) * float64(cfg.OpsPerTxn); ops > MaxOps {
		return fmt.Errorf("%d sessions × %d transactions × %d operations is %.3g operations, more than the %d a history can have",
			cfg.Sessions, cfg.TxnsPerSession, cfg.OpsPerTxn, ops, MaxOps)
	}
	if p := cfg.ReadProportion; !(p >= 0 && p <= 1) {
		return fmt.Errorf("the proportion of reads must be within [0, 1], not %v", p)
	}
	if cfg.Dist > workload.Hotspot {
		return fmt.Errorf("unknown key distribution %v", cfg.Dist)
	}
	return nil
}

// MemoryEstimate is about how many bytes Large needs for cfg, at most:
// the history (its operations and transactions) and the store's versions
// of every key.
func (cfg LargeConfig) MemoryEstimate() int64 {
	cfg.withDefaults()
	txns := int64(cfg.Sessions) * int64(cfg.TxnsPerSession)
	return int64(cfg.Keys)*64 + txns*int64(cfg.OpsPerTxn)*48 + txns*160
}

func (cfg *LargeConfig) withDefaults() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&cfg.Sessions, 20)
	def(&cfg.TxnsPerSession, 100)
	def(&cfg.OpsPerTxn, 15)
	def(&cfg.Keys, 10000)
}

// Large returns a history for benchmarks: cfg.Sessions sessions of
// cfg.TxnsPerSession committed transactions of cfg.OpsPerTxn operations,
// each a read with probability cfg.ReadProportion, on keys drawn from a
// Zipf or uniform distribution over cfg.Keys keys, run by cfg.Store with
// all sessions interleaved at random, operation by operation. Every
// transaction has start and end times. With the default SnapshotIsolation
// store the history satisfies SI: a transaction first-committer-wins
// aborts is retried, as a new transaction with new values, until it
// commits (under the default Zipf workload most attempts abort; see
// KeepAborted). Unlike Small, Large never injects faults nor reports
// unknown statuses.
func Large(cfg LargeConfig) *history.History { return large(cfg, true) }

// large is Large, with the stores dropping versions no running
// transaction can read (compaction) or not.
func large(cfg LargeConfig, compaction bool) *history.History {
	cfg.withDefaults()
	seed := uint64(cfg.Seed)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	draw := cfg.Dist.Drawer(rng, cfg.Keys)
	key := func() history.Key { return history.Key(draw()) }
	st := newStore(rng, cfg.Store, cfg.Keys, cfg.Sessions)
	s := newSim(rng, cfg.Keys, cfg.Sessions, st)
	switch st := st.(type) {
	case *snapshotStore:
		if compaction {
			st.sim = s
		}
	case *replicatedStore:
		if compaction {
			st.sim = s
		}
	}
	for i := range s.left {
		s.left[i] = cfg.TxnsPerSession
	}
	s.gen = func(int) planTxn {
		ops := make([]planOp, cfg.OpsPerTxn)
		for i := range ops {
			ops[i].key = key()
			ops[i].kind = history.Write
			if rng.Float64() < cfg.ReadProportion {
				ops[i].kind = history.Read
			}
		}
		return planTxn{ops: ops}
	}
	if cfg.Lists {
		s.lists = true
		s.global = make([][]history.Value, cfg.Keys)
	}
	s.times = true
	s.atomic = cfg.Store == Serializable || cfg.Store == StrictSerializable
	s.retry = true
	s.dropAborted = !cfg.KeepAborted
	return finish(rng, s.execute(), cfg.Store)
}
