package histgen_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/reference"
	"github.com/isocheck/isocheck/verdict"
	"github.com/isocheck/isocheck/workload"
)

// lvl is an isolation level as the reference checks it.
type lvl struct {
	name string
	ax   reference.Axioms
	rt   bool
}

// levels are the seven levels, weakest first.
var levels = []lvl{
	{"RC", reference.RC, false},
	{"RA", reference.RA, false},
	{"CC", reference.CC, false},
	{"PC", reference.PC, false},
	{"SI", reference.SI, false},
	{"SER", reference.SER, false},
	{"SSER", reference.SER, true},
}

func levelNamed(name string) lvl {
	for _, l := range levels {
		if l.name == name {
			return l
		}
	}
	panic(name)
}

// strongest returns the index in levels of the strongest level h
// satisfies, -1 for none. The levels are totally ordered (the reference's
// own tests check it), so it checks from the weakest up.
func strongest(t *testing.T, h *history.History) int {
	t.Helper()
	best := -1
	for i, l := range levels {
		ok, err := reference.CheckAxioms(h, l.ax, l.rt)
		if err != nil {
			t.Fatalf("%v\n%s", err, histgen.Describe(h))
		}
		if !ok {
			break
		}
		best = i
	}
	return best
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

// storeLevel is the level each store guarantees.
var storeLevel = map[histgen.Store]string{
	histgen.Serializable:       "SER",
	histgen.StrictSerializable: "SSER",
	histgen.SnapshotIsolation:  "SI",
	histgen.SnapshotNoFCW:      "PC",
	histgen.Causal:             "CC",
	histgen.ReadAtomic:         "RA",
	histgen.ReadCommitted:      "RC",
}

// TestStoresProvideTheirLevel checks, with the reference checker, that
// every fault-free history of a store satisfies the store's level.
func TestStoresProvideTheirLevel(t *testing.T) {
	for store, name := range storeLevel {
		t.Run(store.String(), func(t *testing.T) {
			l := levelNamed(name)
			rng := newRand(uint64(store))
			cfg := histgen.SmallConfig{
				AbortProb:   0.1,
				UnknownProb: 0.1,
				Times:       true,
				Stores:      []histgen.Store{store},
			}
			for range 300 {
				h := histgen.Small(rng, cfg)
				ok, err := reference.CheckAxioms(h, l.ax, l.rt)
				if err != nil || !ok {
					t.Fatalf("%s history fails %s (%v):\n%s", store, name, err, histgen.Describe(h))
				}
			}
		})
	}
}

// TestAnomalies runs 2000 seeds over all stores and counts the histories
// by the strongest level they satisfy: each boundary between two levels
// (write skew between SER and SI, lost update between SI and PC, long
// fork between PC and CC, causality violation between CC and RA,
// fractured or non-repeatable read between RA and RC, a real-time
// violation between SSER and SER) must be crossed by some history, and
// each store must produce the anomaly its level allows.
func TestAnomalies(t *testing.T) {
	const seeds = 2000
	// byStore[s][i+1] counts store s's histories whose strongest level is
	// levels[i] (index 0: none).
	byStore := make(map[histgen.Store][]int)
	total := make([]int, len(levels)+1)
	faulty := make([]int, len(levels)+1)
	stores := histgen.Stores()
	for seed := range uint64(seeds) {
		rng := newRand(1000 + seed)
		store := stores[seed%uint64(len(stores))]
		cfg := histgen.SmallConfig{
			AbortProb:   0.1,
			UnknownProb: 0.1,
			Times:       true,
			Stores:      []histgen.Store{store},
		}
		if seed%10 == 0 {
			cfg.FaultProb = 1
		}
		h := histgen.Small(rng, cfg)
		s := strongest(t, h) + 1
		if byStore[store] == nil {
			byStore[store] = make([]int, len(levels)+1)
		}
		if cfg.FaultProb > 0 {
			faulty[s]++
			continue
		}
		byStore[store][s]++
		total[s]++
	}
	logCounts := func(name string, c []int) {
		t.Logf("%-18s none=%-4d RC=%-4d RA=%-4d CC=%-4d PC=%-4d SI=%-4d SER=%-4d SSER=%d",
			name, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7])
	}
	for _, s := range stores {
		logCounts(s.String(), byStore[s])
	}
	logCounts("faults injected", faulty)
	logCounts("fault-free total", total)

	at := func(name string) int { // index in the counts of "strongest is name"
		for i, l := range levels {
			if l.name == name {
				return i + 1
			}
		}
		panic(name)
	}
	// The anomaly at the top of each store's level: histories that satisfy
	// the store's level but not the next one.
	for store, name := range map[histgen.Store]string{
		histgen.Serializable:      "SER",  // real-time violation
		histgen.SnapshotIsolation: "SI",   // write skew
		histgen.SnapshotNoFCW:     "PC",   // lost update
		histgen.Causal:            "CC",   // long fork
		histgen.ReadAtomic:        "RA",   // causality violation
		histgen.ReadCommitted:     "RC",   // fractured, non-repeatable read
		histgen.Random:            "none", // garbage
	} {
		i := 0
		if name != "none" {
			i = at(name)
		}
		if byStore[store][i] == 0 {
			t.Errorf("%s: no history whose strongest level is %s", store, name)
		}
	}
	if faulty[0] == 0 {
		t.Errorf("no injected fault violated RC")
	}
}

// TestFaults checks that every fault injected into a committed transaction
// of a serializable history is caught: all but NonRepeatableRead violate
// read committed, NonRepeatableRead violates read atomic.
func TestFaults(t *testing.T) {
	for _, f := range histgen.Faults() {
		if histgen.ListsOnly(f) {
			continue // TestListFaults
		}
		t.Run(f.String(), func(t *testing.T) {
			rng := newRand(uint64(f) + 77)
			cfg := histgen.SmallConfig{
				AbortProb:   0.2,
				UnknownProb: 0.1,
				Stores:      []histgen.Store{histgen.Serializable, histgen.SnapshotIsolation},
			}
			l := levels[0]
			if f == verdict.NonRepeatableRead {
				l = levels[1]
			}
			injected := 0
			for range 200 {
				h := histgen.Small(rng, cfg)
				before := histgen.Describe(h)
				h2, ok := histgen.Inject(rng, h, f)
				if histgen.Describe(h) != before {
					t.Fatalf("Inject modified its argument")
				}
				if !ok {
					if h2 != h {
						t.Fatalf("Inject failed but returned a new history")
					}
					continue
				}
				injected++
				got, err := reference.CheckAxioms(h2, l.ax, l.rt)
				if err != nil || got {
					t.Fatalf("after %s, %s: got %v, %v; want false, nil\nbefore:\n%safter:\n%s",
						f, l.name, got, err, before, histgen.Describe(h2))
				}
			}
			if injected < 100 {
				t.Errorf("%s injected into only %d of 200 histories", f, injected)
			}
		})
	}
}

// TestSmallShape checks Small's bounds and its value discipline.
func TestSmallShape(t *testing.T) {
	cfg := histgen.SmallConfig{Sessions: 2, MaxTxns: 6, Keys: 2, MaxOps: 3, AbortProb: 0.3, UnknownProb: 0.3}
	rng := newRand(5)
	statuses := make(map[history.Status]int)
	for range 500 {
		h := histgen.Small(rng, cfg)
		checkValues(t, h)
		if len(h.Sessions) < 1 || len(h.Sessions) > cfg.Sessions {
			t.Fatalf("%d sessions", len(h.Sessions))
		}
		if len(h.Txns) < 1 || len(h.Txns) > cfg.MaxTxns {
			t.Fatalf("%d transactions", len(h.Txns))
		}
		if h.NumKeys() < 1 || h.NumKeys() > cfg.Keys {
			t.Fatalf("%d keys", h.NumKeys())
		}
		for i := range h.Txns {
			statuses[h.Txns[i].Status]++
			if n := len(h.OpsOf(i)); n < 1 || n > cfg.MaxOps {
				t.Fatalf("%d operations:\n%s", n, histgen.Describe(h))
			}
			if h.Txns[i].Start != history.NoTime || h.Txns[i].End != history.NoTime {
				t.Fatalf("times without Times:\n%s", histgen.Describe(h))
			}
		}
	}
	for _, s := range []history.Status{history.Committed, history.Aborted, history.Unknown} {
		if statuses[s] == 0 {
			t.Errorf("no %v transaction", s)
		}
	}
}

// checkValues checks that h's written values are unique per key and never
// the initial value, and that its sessions list its transactions.
func checkValues(t *testing.T, h *history.History) {
	t.Helper()
	if h.Init != history.Null {
		t.Fatalf("init %v", h.Init)
	}
	type kv struct {
		k history.Key
		v history.Value
	}
	seen := make(map[kv]bool)
	for i := range h.Txns {
		for _, op := range h.OpsOf(i) {
			if op.Key < 0 || int(op.Key) >= h.NumKeys() {
				t.Fatalf("bad key %d", op.Key)
			}
			if op.Kind != history.Write {
				continue
			}
			if op.Value == h.Init || seen[kv{op.Key, op.Value}] {
				t.Fatalf("value %d written twice to %d or initial:\n%s", op.Value, op.Key, histgen.Describe(h))
			}
			seen[kv{op.Key, op.Value}] = true
		}
	}
	n := 0
	for s, txns := range h.Sessions {
		for _, i := range txns {
			if int(h.Txns[i].Session) != s {
				t.Fatalf("session %d lists %d", s, i)
			}
			n++
		}
	}
	if n != len(h.Txns) {
		t.Fatalf("sessions list %d of %d transactions", n, len(h.Txns))
	}
}

func TestDeterministic(t *testing.T) {
	cfg := histgen.SmallConfig{AbortProb: 0.1, UnknownProb: 0.1, FaultProb: 0.3, Times: true}
	for seed := range uint64(50) {
		a := histgen.Describe(histgen.Small(newRand(seed), cfg))
		b := histgen.Describe(histgen.Small(newRand(seed), cfg))
		if a != b {
			t.Fatalf("seed %d: two different histories:\n%s\n%s", seed, a, b)
		}
	}
	lc := histgen.LargeConfig{Sessions: 4, TxnsPerSession: 20, OpsPerTxn: 5, Keys: 20, ReadProportion: 0.5, Dist: workload.Zipf, Seed: 3}
	first, second := histgen.Describe(histgen.Large(lc)), histgen.Describe(histgen.Large(lc))
	if first != second {
		t.Fatalf("Large is not deterministic")
	}
}

// TestLargeSmallScale runs Large at a size the reference can check, for
// every store with a level.
func TestLargeSmallScale(t *testing.T) {
	for store, name := range storeLevel {
		l := levelNamed(name)
		for seed := range int64(60) {
			h := histgen.Large(histgen.LargeConfig{
				Sessions: 3, TxnsPerSession: 3, OpsPerTxn: 3, Keys: 3,
				ReadProportion: 0.5, Dist: workload.Distribution(seed % 2), Seed: seed, Store: store,
			})
			checkValues(t, h)
			ok, err := reference.CheckAxioms(h, l.ax, l.rt)
			if err != nil || !ok {
				t.Fatalf("%s seed %d fails %s (%v):\n%s", store, seed, name, err, histgen.Describe(h))
			}
		}
	}
}

// TestLargeSI checks a benchmark-size history from the snapshot-isolation
// store against snapshot isolation by timestamps, a sufficient condition
// for SI that is checkable in one pass: every external read of a committed
// transaction returns the final write of the committed transaction with
// the latest end before its start (or the initial value), internal reads
// return the transaction's own last write, and two committed transactions
// that write a common key do not overlap in time.
func TestLargeSI(t *testing.T) {
	cfg := histgen.LargeConfig{Sessions: 10, TxnsPerSession: 50, OpsPerTxn: 8, Keys: 100,
		ReadProportion: 0.5, Dist: workload.Zipf, Seed: 1, KeepAborted: true}
	h := histgen.Large(cfg)
	checkValues(t, h)
	if len(h.Sessions) != cfg.Sessions {
		t.Fatalf("%d sessions", len(h.Sessions))
	}
	aborted := 0
	// Per key, the committed writers' final writes with their end times.
	type w struct {
		end int64
		val history.Value
		txn int
	}
	writes := make(map[history.Key][]w)
	for i := range h.Txns {
		tx := &h.Txns[i]
		if !tx.HasTime() || tx.Start >= tx.End {
			t.Fatalf("transaction %d times [%d,%d]", i, tx.Start, tx.End)
		}
		if len(h.OpsOf(i)) != cfg.OpsPerTxn {
			t.Fatalf("transaction %d has %d operations", i, len(h.OpsOf(i)))
		}
		switch tx.Status {
		case history.Aborted:
			aborted++
			continue
		case history.Unknown:
			t.Fatalf("unknown transaction")
		}
		last := make(map[history.Key]history.Value)
		for _, op := range h.OpsOf(i) {
			if op.Kind == history.Write {
				last[op.Key] = op.Value
			}
		}
		for k, v := range last {
			writes[k] = append(writes[k], w{tx.End, v, i})
		}
	}
	for _, s := range h.Sessions {
		for j := 1; j < len(s); j++ {
			if h.Txns[s[j-1]].End >= h.Txns[s[j]].Start {
				t.Fatalf("session transactions overlap")
			}
		}
	}
	for k, ws := range writes {
		for _, a := range ws {
			for _, b := range ws {
				ta, tb := &h.Txns[a.txn], &h.Txns[b.txn]
				if a.txn < b.txn && ta.Start <= tb.End && tb.Start <= ta.End {
					t.Fatalf("concurrent committed writers %d and %d of key %d", a.txn, b.txn, k)
				}
			}
		}
	}
	for i := range h.Txns {
		tx := &h.Txns[i]
		if tx.Status != history.Committed {
			continue
		}
		own := make(map[history.Key]history.Value)
		for _, op := range h.OpsOf(i) {
			if op.Kind == history.Write {
				own[op.Key] = op.Value
				continue
			}
			want, ok := own[op.Key]
			if !ok {
				want = h.Init
				var latest int64 = -1
				for _, x := range writes[op.Key] {
					if x.end < tx.Start && x.end > latest {
						latest, want = x.end, x.val
					}
				}
			}
			if op.Value != want {
				t.Fatalf("transaction %d read %d=%d, want %d", i, op.Key, op.Value, want)
			}
		}
	}
	if committed := len(h.Txns) - aborted; committed != cfg.Sessions*cfg.TxnsPerSession || aborted == 0 {
		t.Errorf("%d committed and %d aborted transactions, want %d committed and some aborted",
			committed, aborted, cfg.Sessions*cfg.TxnsPerSession)
	}
	t.Logf("%d of %d transactions aborted by first-committer-wins", aborted, len(h.Txns))
}

// TestLargeDefault checks the shape of the default workload of Huang, Liu,
// Chen, Wei, Basin, Li and Pan, "Efficient Black-box Checking of Snapshot
// Isolation in Databases" (PolySI, PVLDB 16(6), 2023), Section 5.
func TestLargeDefault(t *testing.T) {
	h := histgen.Large(histgen.LargeConfig{ReadProportion: 0.5, Dist: workload.Zipf})
	checkValues(t, h)
	if len(h.Txns) != 2000 || len(h.Sessions) != 20 || h.NumKeys() != 10000 {
		t.Fatalf("%d transactions, %d sessions, %d keys", len(h.Txns), len(h.Sessions), h.NumKeys())
	}
	reads := 0
	for i := range h.Txns {
		if h.Txns[i].Status != history.Committed || len(h.OpsOf(i)) != 15 {
			t.Fatalf("transaction %d: %v with %d operations", i, h.Txns[i].Status, len(h.OpsOf(i)))
		}
		for _, op := range h.OpsOf(i) {
			if op.Kind == history.Read {
				reads++
			}
		}
	}
	if frac := float64(reads) / float64(len(h.Ops)); frac < 0.45 || frac > 0.55 {
		t.Errorf("%.2f reads", frac)
	}
}

func TestDescribe(t *testing.T) {
	b := history.NewBuilder(history.Null)
	x := b.Key("x")
	b.AddTxn(history.Txn{Session: b.Session("a"), Status: history.Committed, Start: 1, End: 2},
		[]history.Op{{Kind: history.Read, Key: x, Value: history.Null}, {Kind: history.Write, Key: x, Value: 1}})
	b.AddTxn(history.Txn{ID: "t9", Session: b.Session("b"), Status: history.Aborted, Start: history.NoTime, End: history.NoTime},
		[]history.Op{{Kind: history.Read, Key: x, Value: 1}})
	want := "init=null\nsa T0 committed [1,2]: r(x)=null w(x)=1\nsb t9 aborted: r(x)=1\n"
	if got := histgen.Describe(b.History()); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func BenchmarkLarge(b *testing.B) {
	for b.Loop() {
		histgen.Large(histgen.LargeConfig{ReadProportion: 0.5, Dist: workload.Zipf})
	}
}

func TestLargeDistributions(t *testing.T) {
	share := func(d workload.Distribution) float64 {
		h := histgen.Large(histgen.LargeConfig{Sessions: 4, TxnsPerSession: 200, OpsPerTxn: 5, Keys: 100, ReadProportion: 0.5, Dist: d, Seed: 2, Store: histgen.Serializable})
		hot := 0
		for _, op := range h.Ops {
			if op.Key < 20 {
				hot++
			}
		}
		return float64(hot) / float64(len(h.Ops))
	}
	if s := share(workload.Uniform); s > 0.3 {
		t.Errorf("uniform: %.2f of the operations on the first 20%% of the keys, want about 0.2", s)
	}
	if s := share(workload.Hotspot); s < 0.7 || s > 0.9 {
		t.Errorf("hotspot: %.2f of the operations on the first 20%% of the keys, want about 0.8", s)
	}
	if s := share(workload.Zipf); s < 0.5 {
		t.Errorf("zipf: %.2f of the operations on the first 20%% of the keys, want most", s)
	}
}

func TestLargeConfigValidate(t *testing.T) {
	bad := []histgen.LargeConfig{
		{Keys: 2_000_000_000_0},
		{OpsPerTxn: 2_000_000_000},
		{Sessions: -1},
		{ReadProportion: math.NaN()},
		{ReadProportion: 1.5},
	}
	for _, c := range bad {
		if err := c.Validate(); err == nil {
			t.Errorf("Validate(%+v) accepted it", c)
		}
	}
	if err := (histgen.LargeConfig{ReadProportion: 0.5}).Validate(); err != nil {
		t.Errorf("the default config: %v", err)
	}
	small := histgen.LargeConfig{Sessions: 2, TxnsPerSession: 2, OpsPerTxn: 2, Keys: 2}
	if big := (histgen.LargeConfig{Keys: 2_000_000_000}); big.MemoryEstimate() < 64*small.MemoryEstimate() || big.MemoryEstimate() < 1<<36 {
		t.Errorf("2e9 keys estimated at %d bytes", big.MemoryEstimate())
	}
}
