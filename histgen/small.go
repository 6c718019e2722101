package histgen

import (
	"math/rand/v2"
	"strings"

	"github.com/isocheck/isocheck/history"
)

// SmallConfig bounds the histories Small generates. Zero sizes take the
// defaults in brackets; zero probabilities are zero.
type SmallConfig struct {
	Sessions int // at most this many sessions [3]
	MaxTxns  int // at most this many transactions, aborted ones included [8]
	Keys     int // at most this many keys [3]
	MaxOps   int // at most this many operations per transaction [4], before faults
	// AbortProb is the probability that a client aborts a transaction.
	AbortProb float64
	// RollBack records the transactions the client aborts as
	// history.RolledBack, whose reads are checked, rather than
	// history.Aborted (those the store refuses stay Aborted).
	RollBack bool
	// UnknownProb is the probability that a finished transaction (committed
	// or aborted) is reported as unknown.
	UnknownProb float64
	// FaultProb is the probability that a fault (see Inject) is injected
	// into a committed transaction.
	FaultProb float64
	// Times records start and end times.
	Times bool
	// Stores are the stores to choose from; nil means all.
	Stores []Store
	// Lists makes a list history (history.History.Lists, Elle's
	// list-append): the stores hold a list per key, every write appends a
	// value unique to its key, and every read returns the whole list.
	// The stores keep their levels (see Small).
	Lists bool
	// OrderProb, in list mode, is the probability that the history states
	// the version order of a key (history.History.Orders): a prefix of
	// the key's committed list that ends after some writer's appends.
	OrderProb float64
	// OrderFaultProb, in list mode, is the probability that a stated
	// order is wrong: its last two writers' runs swapped, cut inside a
	// run, or an element left out (see stateOrders).
	OrderFaultProb float64
}

func (c SmallConfig) withDefaults() SmallConfig {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.Sessions, 3)
	def(&c.MaxTxns, 8)
	def(&c.Keys, 3)
	def(&c.MaxOps, 4)
	if len(c.Stores) == 0 {
		c.Stores = Stores()
	}
	return c
}

// Small returns a random small history from a store chosen at random among
// cfg.Stores, for property tests: 1 to cfg.Sessions sessions, up to
// cfg.MaxTxns transactions over 1 to cfg.Keys keys, 1 to cfg.MaxOps
// operations each.
//
// Small aims at the classic anomalies, not noise. Most histories contain
// the transactions of one (lost update, write skew, long fork, causality
// violation, fractured or non-repeatable read; mostly the one the store's
// level allows), started in an order that lets it happen, and the others
// follow patterns that make anomalies likely (read-modify-write, read two
// keys and write one, write two keys, read one key and write another, ...).
// The simulation interleaves the sessions' operations, with clients of
// random speeds and pauses and, for the replicated stores, links of random
// delays. Whether an anomaly happens is up to the store. With
// cfg.FaultProb, a fault is injected (see Inject). The result depends only
// on rng's state and cfg.
//
// With cfg.Lists, the history is a list history built with
// history.Builder.AddListTxn, from the same stores, which keep their
// levels under the list semantics of internal/reference: each store keeps
// one committed list per key, to which a transaction's appends are added
// at commit, and shows a transaction a prefix of it (the prefix its
// version of the key says: the whole list at the latest commit for the
// serial and read-committed stores, the list at the snapshot for the
// snapshot stores, the longest applied at the replica for the replicated
// ones). A read after the transaction's own appends to the key returns
// the committed list and those appends, and the store aborts the
// transaction if another appended to the key before it commits. Random
// draws each list from one of two random orders of the key's writers, cut
// after any of them. Transactions then often read after appending, as
// Elle's do.
func Small(rng *rand.Rand, cfg SmallConfig) *history.History {
	cfg = cfg.withDefaults()
	kind := cfg.Stores[rng.IntN(len(cfg.Stores))]
	nSess := 1 + rng.IntN(cfg.Sessions)
	if cfg.Sessions > 1 && nSess == 1 && rng.IntN(4) > 0 {
		nSess = 2 + rng.IntN(cfg.Sessions-1) // one session is rarely interesting
	}
	nTxns := max(1+rng.IntN(cfg.MaxTxns), 1+rng.IntN(cfg.MaxTxns))
	profile := &profiles[rng.IntN(len(profiles))]
	weights := profile
	if cfg.Lists {
		w := *profile
		w[patAppendRead] = 2
		weights = &w
	}
	nKeys := 1 + rng.IntN(cfg.Keys)
	if profile != &profiles[0] && cfg.Keys >= 2 && rng.IntN(4) > 0 {
		nKeys = 2 // the anomalies need two keys, and two collide more
	}

	var waiting []int
	var plans [][]planTxn
	if rng.IntN(5) < 3 {
		// Plant the skeleton of an anomaly, then add random transactions.
		sk := skeletons[pickSkeleton(rng, kind)]
		if sk.sessions <= cfg.Sessions && cfg.Keys >= 2 && len(sk.txns) <= cfg.MaxTxns {
			nSess = max(nSess, sk.sessions)
			nKeys = max(nKeys, 2)
			plans = make([][]planTxn, nSess)
			x := history.Key(rng.IntN(nKeys))
			y := history.Key((int(x) + 1 + rng.IntN(nKeys-1)) % nKeys)
			perm := rng.Perm(nSess)
			for _, st := range sk.txns {
				var ops []planOp
				for _, op := range st.ops {
					k := x
					if op.key == 1 {
						k = y
					}
					ops = append(ops, planOp{op.kind, k})
				}
				if len(ops) > cfg.MaxOps {
					ops = ops[:cfg.MaxOps]
				}
				s := perm[st.session]
				plans[s] = append(plans[s], planTxn{ops: ops, abort: rng.Float64() < cfg.AbortProb, stage: st.stage})
				for len(waiting) <= st.stage {
					waiting = append(waiting, 0)
				}
				waiting[st.stage]++
			}
			nTxns = rng.IntN(max(nTxns, len(sk.txns)) - len(sk.txns) + 1)
		}
	}
	if plans == nil {
		plans = make([][]planTxn, nSess)
	}
	for range nTxns {
		s := rng.IntN(nSess)
		i := len(plans[s])
		if rng.IntN(2) == 0 {
			i = rng.IntN(len(plans[s]) + 1)
		}
		p := planTxn{
			ops:   smallOps(rng, weights, nKeys, cfg.MaxOps),
			abort: rng.Float64() < cfg.AbortProb,
		}
		plans[s] = append(plans[s][:i], append([]planTxn{p}, plans[s][i:]...)...)
	}
	st := newStore(rng, kind, nKeys, nSess)
	if rs, ok := st.(*replicatedStore); ok {
		rs.setDelays(rng, []float64{2, 5, 20}[rng.IntN(3)], 20, 0.5)
	}
	s := newSim(rng, nKeys, nSess, st)
	if cfg.Lists {
		s.lists = true
		s.global = make([][]history.Value, nKeys)
	}
	for i, p := range plans {
		s.left[i] = len(p)
	}
	s.gen = func(sess int) planTxn {
		p := plans[sess][0]
		plans[sess] = plans[sess][1:]
		return p
	}
	s.peek = func(sess int) *planTxn { return &plans[sess][0] }
	s.waiting = waiting
	s.doneAt = make([]int64, len(waiting))
	s.gap = []int64{5, 15, 30}[rng.IntN(3)]
	s.times = cfg.Times
	s.atomic = kind == Serializable || kind == StrictSerializable
	s.stick = []float64{0, 0, 0.3, 0.6}[rng.IntN(4)]
	s.think = []float64{0, 0, 0.5}[rng.IntN(3)]
	s.pace = make([]float64, nSess)
	for i := range s.pace {
		s.pace[i] = []float64{1, 0.2}[rng.IntN(2)] // slow clients run long transactions
	}
	s.unknown = cfg.UnknownProb
	s.rollBack = cfg.RollBack
	h := s.execute()
	h = finish(rng, h, kind)
	if cfg.Lists && cfg.OrderProb > 0 {
		h = stateOrders(rng, h, s.global, cfg.OrderProb, cfg.OrderFaultProb)
	}
	if cfg.FaultProb > 0 && rng.Float64() < cfg.FaultProb {
		// Try the faults from a random one on; some need what h lacks.
		first := rng.IntN(len(faults))
		for i := range len(faults) {
			if h2, ok := Inject(rng, h, faults[(first+i)%len(faults)]); ok {
				h = h2
				break
			}
		}
	}
	return h
}

// Transaction patterns of Small.
const (
	patAny        = iota // 1 to MaxOps random operations
	patRMW               // r(x) w(x): lost update
	patSkew              // r(x) r(y) w(x): write skew
	patWriteTwo          // w(x) w(y): fractured read, long fork
	patReadTwo           // r(x) r(y)
	patWrite             // w(x)
	patChain             // r(x) w(y): causality violation
	patReread            // r(x) r(y) r(x): non-repeatable read
	patAppendRead        // [r(x)] w(x) r(x): read after append (list mode only)
	numPatterns
)

// profiles weigh the patterns: every pattern alike, conflicting writers
// (lost update, write skew), and visibility (long fork, causality,
// fractured and non-repeatable reads). Small picks one per history.
var profiles = [][numPatterns]int{
	{patAny: 3, patRMW: 1, patSkew: 1, patWriteTwo: 1, patReadTwo: 1, patWrite: 1, patChain: 1, patReread: 1},
	{patAny: 1, patRMW: 3, patSkew: 4, patReadTwo: 1},
	{patAny: 1, patWriteTwo: 3, patReadTwo: 3, patWrite: 2, patChain: 3, patReread: 1},
}

// skeletons are the transactions of the classic anomalies, planted in
// some of Small's histories: whether the anomaly happens is up to the
// store and the interleaving. Keys 0 and 1 stand for two distinct keys.
var skeletons = []struct {
	name     string
	store    Store // the store whose level allows it and the next forbids
	sessions int
	txns     []skelTxn
}{
	{"lost update", SnapshotNoFCW, 2, []skelTxn{{0, 1, ops("rx wx")}, {1, 1, ops("rx wx")}}},
	{"write skew", SnapshotIsolation, 2, []skelTxn{{0, 1, ops("rx ry wx")}, {1, 1, ops("rx ry wy")}}},
	{"long fork", Causal, 3, []skelTxn{{0, 1, ops("wx")}, {1, 1, ops("wy")}, {2, 2, ops("rx ry")}, {1, 2, ops("rx ry")}}},
	{"causality violation", ReadAtomic, 3, []skelTxn{{0, 1, ops("wx")}, {1, 2, ops("rx wy")}, {2, 3, ops("ry rx")}}},
	{"causality violation through session", ReadAtomic, 2, []skelTxn{{0, 1, ops("wx")}, {0, 1, ops("wy")}, {1, 2, ops("ry rx")}}},
	{"fractured read", ReadCommitted, 2, []skelTxn{{0, 1, ops("wx wy")}, {1, 1, ops("rx ry")}}},
	{"non-repeatable read", ReadCommitted, 2, []skelTxn{{0, 1, ops("wx")}, {1, 1, ops("rx rx")}}},
}

// skelTxn is a transaction of a skeleton: its session, its stage (see
// planTxn; a session's stages must not decrease) and its operations.
type skelTxn struct {
	session, stage int
	ops            []planOp
}

// ops reads operations like "rx wy": x is key 0, y key 1.
func ops(s string) []planOp {
	var out []planOp
	for _, f := range strings.Fields(s) {
		op := planOp{kind: history.Read, key: history.Key(f[1] - 'x')}
		if f[0] == 'w' {
			op.kind = history.Write
		}
		out = append(out, op)
	}
	return out
}

// pickSkeleton returns the index of a skeleton, favouring those of the
// anomalies kind allows.
func pickSkeleton(rng *rand.Rand, kind Store) int {
	var idx []int
	for i, sk := range skeletons {
		idx = append(idx, i)
		if sk.store == kind {
			idx = append(idx, i, i, i)
		}
	}
	return idx[rng.IntN(len(idx))]
}

// smallOps returns the operations of a transaction of Small that follows
// a pattern drawn from weights.
func smallOps(rng *rand.Rand, weights *[numPatterns]int, nKeys, maxOps int) []planOp {
	total := 0
	for _, w := range weights {
		total += w
	}
	pat, n := 0, rng.IntN(total)
	for n >= weights[pat] {
		n -= weights[pat]
		pat++
	}
	x := history.Key(rng.IntN(nKeys))
	y := x
	if nKeys > 1 {
		y = history.Key((int(x) + 1 + rng.IntN(nKeys-1)) % nKeys)
	}
	r := func(k history.Key) planOp { return planOp{history.Read, k} }
	w := func(k history.Key) planOp { return planOp{history.Write, k} }
	var ops []planOp
	switch pat {
	case patAny:
		for range 1 + rng.IntN(maxOps) {
			k := history.Key(rng.IntN(nKeys))
			if rng.IntN(2) == 0 {
				ops = append(ops, r(k))
			} else {
				ops = append(ops, w(k))
			}
		}
	case patRMW:
		ops = []planOp{r(x), w(x)}
	case patSkew:
		ops = []planOp{r(x), r(y), w(x)}
	case patWriteTwo:
		ops = []planOp{w(x), w(y)}
	case patReadTwo:
		ops = []planOp{r(x), r(y)}
	case patWrite:
		ops = []planOp{w(x)}
	case patChain:
		ops = []planOp{r(x), w(y)}
	case patReread:
		ops = []planOp{r(x), r(y), r(x)}
	case patAppendRead:
		ops = []planOp{r(x), w(x), r(x)}
		if rng.IntN(2) == 0 {
			ops = []planOp{w(x), r(x)}
		}
	}
	if len(ops) > maxOps {
		ops = ops[:maxOps]
	}
	return ops
}
