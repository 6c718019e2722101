// Package workload makes the workloads isocheck runs against real
// databases: a Plan says what each client session will ask, transaction by
// transaction, for the general, mini-transaction, lightweight-transaction
// and list-append workloads, with keys drawn from a Distribution, and a
// plan file holds a plan as JSON. Package run executes a plan on a
// database and records what it answered.
//
// A plan says nothing about what reads return. Histories of a known
// isolation level, made without a database for tests and benchmarks, come
// from package histgen; package db/sim is an in-process database to run
// plans on.
package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// A Plan is a workload to run against a real database: what each client
// session will ask, transaction by transaction. It says nothing about
// what reads return: package run executes it and records what the
// database answered.
//
// Every value a plan writes is unique, unless it has Values: session s
// writes s·Stride + 1, s·Stride + 2, ... in order, so the value a read
// returns names its writer.
type Plan struct {
	// Workload is the kind of workload the plan was made as.
	Workload Kind `json:"workload"`
	// Seed is the seed it was made with.
	Seed int64 `json:"seed"`
	// Keys is the number of keys, 0 to Keys-1.
	Keys int `json:"keys"`
	// Lists says the plan appends and reads whole lists (ListAppend).
	Lists bool `json:"lists,omitempty"`
	// Stride separates the values of sessions (see Plan).
	Stride int64 `json:"stride"`
	// Values, when positive, is how many values each key takes: writes
	// draw theirs from 1 to Values at random, so that values repeat as a
	// counter's, a flag's or a status column's do, and a read's value
	// may have several writers (registers only). Stride is then 0.
	Values int64 `json:"values,omitempty"`
	// Sessions holds each session's transactions in order.
	Sessions [][]TxnPlan `json:"sessions"`
}

// A TxnPlan is one transaction of a plan.
type TxnPlan struct {
	Ops []OpPlan `json:"ops"`
}

// An OpPlan is one operation of a planned transaction.
type OpPlan struct {
	Kind  OpKind `json:"kind"`
	Key   int64  `json:"key"`
	Value int64  `json:"value,omitempty"` // written, appended or swapped in
}

// OpKind is what a planned operation does.
type OpKind string

const (
	// ReadOp reads a register, or a whole list in a list plan.
	ReadOp OpKind = "r"
	// WriteOp writes a register.
	WriteOp OpKind = "w"
	// AppendOp appends to a list.
	AppendOp OpKind = "append"
	// CASOp is a compare-and-set of a register inside its transaction: it
	// reads the key and writes Value only if the read returned the value
	// the session last saw of the key (or no value, if it saw none).
	CASOp OpKind = "cas"
)

// Kind names a workload.
type Kind string

const (
	// General is the general workload of Huang, Liu, Chen, Wei, Basin, Li
	// and Pan, "Efficient Black-box Checking of Snapshot Isolation in
	// Databases" (PolySI, PVLDB 16(6), 2023), §5.1: transactions of reads
	// and writes of keys drawn from a distribution, some of them long.
	General Kind = "general"
	// MiniTxn is the mini-transaction workload of Wei, Xiao, Yang, Liu,
	// Yin, Chen and Pan, "Boosting End-to-End Database Isolation Checking
	// via Mini-Transactions" (MTC, ICDE 2025), Section III: at most four
	// operations, every write preceded by a read of its key, so that reads
	// reveal every version order.
	MiniTxn Kind = "mini"
	// LWT is lightweight transactions: one compare-and-set on one key
	// each, or a read of it.
	LWT Kind = "lwt"
	// ListAppend is Elle's list-append workload: appends of unique
	// elements and reads of whole lists, so that reads reveal the version
	// order.
	ListAppend Kind = "append"
)

// Kinds returns the workloads, in the order the command lists them.
func Kinds() []Kind { return []Kind{General, MiniTxn, LWT, ListAppend} }

// ParseKind reads a workload's name.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds() {
		if s == string(k) {
			return k, nil
		}
	}
	names := make([]string, 0, 4)
	for _, k := range Kinds() {
		names = append(names, string(k))
	}
	return "", fmt.Errorf("unknown workload %q (want %s)", s, strings.Join(names, ", "))
}

// PlanConfig describes a plan. Zero sizes take the defaults in brackets
// (the default workload of Huang et al., PVLDB 2023).
type PlanConfig struct {
	Workload       Kind // [General]
	Sessions       int  // sessions [20]
	TxnsPerSession int  // transactions per session [100]
	OpsPerTxn      int  // operations per transaction [15]; General and ListAppend only
	Keys           int  // keys [10000]
	// ReadProportion is the probability that an operation is a read
	// (General, ListAppend) or that a transaction is read-only (MiniTxn,
	// LWT). Negative means the default: 0.5 of operations, 0.2 of
	// transactions.
	ReadProportion float64
	// Dist draws keys; the zero value is Uniform (the command's default is
	// Zipf).
	Dist Distribution
	// LongProportion is the share of transactions that are long, with
	// LongOps operations each [0: none]; General only.
	LongProportion float64
	LongOps        int // operations of a long transaction [10 × OpsPerTxn]
	// Values, when positive, makes writes draw their values from 1 to
	// Values, so that they repeat (see Plan.Values); General and MiniTxn
	// only. 0: every value is unique.
	Values int64
	Seed   int64
}

// MaxPlanOps bounds the operations of a plan, which is held in memory.
const MaxPlanOps = 1 << 27

func (cfg *PlanConfig) withDefaults() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	if cfg.Workload == "" {
		cfg.Workload = General
	}
	def(&cfg.Sessions, 20)
	def(&cfg.TxnsPerSession, 100)
	def(&cfg.OpsPerTxn, 15)
	def(&cfg.Keys, 10000)
	def(&cfg.LongOps, 10*cfg.OpsPerTxn)
	if cfg.ReadProportion < 0 {
		cfg.ReadProportion = 0.5
		if cfg.Workload == MiniTxn || cfg.Workload == LWT {
			cfg.ReadProportion = 0.2 // read-only transactions
		}
	}
}

// Validate says whether NewPlan can make the plan cfg describes.
func (cfg PlanConfig) Validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"sessions", cfg.Sessions}, {"transactions per session", cfg.TxnsPerSession},
		{"operations per transaction", cfg.OpsPerTxn}, {"keys", cfg.Keys}, {"operations of a long transaction", cfg.LongOps}} {
		if f.v < 0 {
			return fmt.Errorf("%s must be positive, not %d", f.name, f.v)
		}
	}
	if _, err := ParseKind(string(cfg.Workload)); cfg.Workload != "" && err != nil {
		return err
	}
	cfg.withDefaults()
	if cfg.Keys > MaxKeys {
		return fmt.Errorf("%d keys is more than the %d a history can have", cfg.Keys, MaxKeys)
	}
	if p := cfg.ReadProportion; !(p >= 0 && p <= 1) {
		return fmt.Errorf("the proportion of reads must be within [0, 1], not %v", p)
	}
	if p := cfg.LongProportion; !(p >= 0 && p <= 1) {
		return fmt.Errorf("the proportion of long transactions must be within [0, 1], not %v", p)
	}
	if cfg.Values < 0 {
		return fmt.Errorf("the number of values per key must not be negative, not %d", cfg.Values)
	}
	if cfg.Values > 0 && (cfg.Workload == LWT || cfg.Workload == ListAppend) {
		return fmt.Errorf("values repeat only in the general and mini workloads, not %s", cfg.Workload)
	}
	if cfg.Dist > Hotspot {
		return fmt.Errorf("unknown key distribution %v", cfg.Dist)
	}
	perTxn := float64(cfg.OpsPerTxn)
	if cfg.LongProportion > 0 {
		perTxn = math.Max(perTxn, float64(cfg.LongOps))
	}
	if cfg.Workload == MiniTxn || cfg.Workload == LWT {
		perTxn = 4
	}
	if ops := float64(cfg.Sessions) * float64(cfg.TxnsPerSession) * perTxn; ops > MaxPlanOps {
		return fmt.Errorf("%d sessions × %d transactions × %g operations is %.3g operations, more than the %d a plan can have",
			cfg.Sessions, cfg.TxnsPerSession, perTxn, ops, MaxPlanOps)
	}
	return nil
}

// NewPlan makes the plan cfg describes, the same for the same cfg.
func NewPlan(cfg PlanConfig) (*Plan, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.withDefaults()
	seed := uint64(cfg.Seed)
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed91a7))
	key := cfg.Dist.Drawer(rng, cfg.Keys)
	p := &Plan{Workload: cfg.Workload, Seed: cfg.Seed, Keys: cfg.Keys, Lists: cfg.Workload == ListAppend,
		Values: cfg.Values, Sessions: make([][]TxnPlan, cfg.Sessions)}
	for s := range p.Sessions {
		g := planGen{rng: rng, key: key, cfg: &cfg, next: 1}
		txns := make([]TxnPlan, cfg.TxnsPerSession)
		for t := range txns {
			txns[t].Ops = g.txn()
		}
		p.Sessions[s] = txns
		p.Stride = max(p.Stride, g.next)
	}
	if p.Values > 0 {
		p.Stride = 0
		return p, nil
	}
	// The stride is a power of ten above every session's count of writes,
	// so that values read as "session, then counter" in decimal.
	stride := int64(10)
	for stride <= p.Stride {
		stride *= 10
	}
	p.Stride = stride
	for s, txns := range p.Sessions {
		for _, t := range txns {
			for i := range t.Ops {
				if t.Ops[i].Kind != ReadOp {
					t.Ops[i].Value += int64(s+1) * stride
				}
			}
		}
	}
	return p, nil
}

// planGen makes one session's transactions; values count from 1 and are
// moved into the session's range once the stride is known.
type planGen struct {
	rng  *rand.Rand
	key  func() int64
	cfg  *PlanConfig
	next int64
}

func (g *planGen) value() int64 {
	if v := g.cfg.Values; v > 0 {
		return 1 + g.rng.Int64N(v)
	}
	g.next++
	return g.next - 1
}

func (g *planGen) txn() []OpPlan {
	cfg := g.cfg
	switch cfg.Workload {
	case MiniTxn:
		return g.mini()
	case LWT:
		k := g.key()
		if g.rng.Float64() < cfg.ReadProportion {
			return []OpPlan{{Kind: ReadOp, Key: k}}
		}
		return []OpPlan{{Kind: CASOp, Key: k, Value: g.value()}}
	}
	n := cfg.OpsPerTxn
	if cfg.LongProportion > 0 && g.rng.Float64() < cfg.LongProportion {
		n = cfg.LongOps
	}
	write := WriteOp
	if cfg.Workload == ListAppend {
		write = AppendOp
	}
	ops := make([]OpPlan, n)
	for i := range ops {
		ops[i] = OpPlan{Kind: ReadOp, Key: g.key()}
		if g.rng.Float64() >= cfg.ReadProportion {
			ops[i].Kind, ops[i].Value = write, g.value()
		}
	}
	return ops
}

// mini makes a mini-transaction (Wei et al., ICDE 2025, Section III): one
// or two keys, each read and, unless the transaction is read-only, written
// right after, so that every write is preceded by a read of its key. These
// are the templates R, RW, RR, RWR (read one key, write it, read another),
// RRW... of the paper reduced to their two shapes per key.
func (g *planGen) mini() []OpPlan {
	k1 := g.key()
	keys := []int64{k1}
	if g.rng.IntN(2) == 1 && g.cfg.Keys > 1 {
		k2 := g.key()
		for k2 == k1 {
			k2 = int64(g.rng.IntN(g.cfg.Keys))
		}
		keys = append(keys, k2)
	}
	readOnly := g.rng.Float64() < g.cfg.ReadProportion
	ops := make([]OpPlan, 0, 4)
	for i, k := range keys {
		ops = append(ops, OpPlan{Kind: ReadOp, Key: k})
		// A write of the second key only: RRW and RW shapes as well as
		// RWRW.
		if !readOnly && (i == len(keys)-1 || g.rng.IntN(2) == 0) {
			ops = append(ops, OpPlan{Kind: WriteOp, Key: k, Value: g.value()})
		}
	}
	return ops
}

// Txns returns the number of transactions of the plan.
func (p *Plan) Txns() int {
	n := 0
	for _, s := range p.Sessions {
		n += len(s)
	}
	return n
}
