package saturate

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/reference"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/verdict"
	"github.com/isocheck/isocheck/workload"
)

var weakLevels = []level.Level{level.RC, level.RA, level.CC}

// TestWorkersAgreeWithReference runs the forcing pass split over several
// goroutines (which Check does only on large histories) on small random
// histories, and requires the brute-force reference's verdict.
func TestWorkersAgreeWithReference(t *testing.T) {
	cfg := histgen.SmallConfig{Sessions: 4, MaxTxns: 9, Keys: 3, MaxOps: 4, AbortProb: 0.1, UnknownProb: 0.1, FaultProb: 0.1}
	violated := map[level.Level]int{}
	runs := 2000
	if testing.Short() {
		runs = 300
	}
	for seed := range runs {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x5a7))
		h := histgen.Small(rng, cfg)
		r, err := resolve.Resolve(context.Background(), h)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, histgen.Describe(h))
		}
		for _, l := range weakLevels {
			want, err := reference.Check(h, l)
			if err != nil {
				t.Fatalf("seed %d: reference: %v", seed, err)
			}
			for _, workers := range []int{2, 3, 5} {
				got, err := check(context.Background(), r, l, workers)
				if err != nil {
					t.Fatalf("seed %d, %v, %d workers: %v", seed, l, workers, err)
				}
				if (got.Verdict == verdict.Satisfied) != want {
					t.Fatalf("seed %d, %v, %d workers: satisfied = %v, reference says %v\n%s", seed, l, workers, got.Verdict, want, histgen.Describe(h))
				}
				if got.Verdict != verdict.Satisfied && len(got.Cycle) == 0 && got.Conflict == nil && got.Core == nil && len(got.Anomalies) == 0 {
					t.Fatalf("seed %d, %v, %d workers: violated without evidence", seed, l, workers)
				}
				cycles := append([][]polygraph.Edge{got.Cycle}, got.Core...)
				if c := got.Conflict; c != nil {
					cycles = [][]polygraph.Edge{c.EitherCycle, c.OrCycle}
				}
				for _, cycle := range cycles {
					for i, e := range cycle {
						if next := cycle[(i+1)%len(cycle)]; e.To != next.From {
							t.Fatalf("seed %d, %v: the cycle %v breaks after edge %d", seed, l, cycle, i)
						}
						if !holds(r, e) {
							t.Fatalf("seed %d, %v: the cycle %v has edge %v, which the history does not show\n%s", seed, l, cycle, e, histgen.Describe(h))
						}
					}
				}
			}
			if !want {
				violated[l]++
			}
		}
	}
	// The test means little unless both verdicts are common.
	for _, l := range weakLevels {
		if violated[l] < runs/20 || violated[l] > runs*19/20 {
			t.Errorf("%v violated in %d of %d histories: too lopsided to test anything", l, violated[l], runs)
		}
	}
}

// TestWorkersAgree checks medium histories from stores of each weak level,
// too large for the reference, on one goroutine and on several: the
// verdict and the number of edges forced must not depend on the split.
func TestWorkersAgree(t *testing.T) {
	stores := []histgen.Store{histgen.ReadCommitted, histgen.ReadAtomic, histgen.Causal, histgen.SnapshotIsolation}
	violated := 0
	for _, store := range stores {
		for seed := range 4 {
			h := histgen.Large(histgen.LargeConfig{Sessions: 7, TxnsPerSession: 300, OpsPerTxn: 8, Keys: 50, ReadProportion: 0.5, Dist: workload.Zipf, Seed: int64(seed), Store: store})
			r, err := resolve.Resolve(context.Background(), h)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range weakLevels {
				one, err := check(context.Background(), r, l, 1)
				if err != nil {
					t.Fatal(err)
				}
				if one.Verdict != verdict.Satisfied {
					violated++
				}
				for _, workers := range []int{2, 3, 7} {
					many, err := check(context.Background(), r, l, workers)
					if err != nil {
						t.Fatal(err)
					}
					if many.Verdict != one.Verdict || many.Edges != one.Edges || len(many.Anomalies) != len(one.Anomalies) {
						t.Errorf("%v store, seed %d, %v: one goroutine gives satisfied=%v with %d edges, %d give satisfied=%v with %d edges",
							store, seed, l, one.Verdict, one.Edges, workers, many.Verdict, many.Edges)
					}
				}
			}
		}
	}
	if violated == 0 {
		t.Error("no history violated a level: the split was never tested on a cycle")
	}
	t.Logf("%d of %d checks violated", violated, len(stores)*4*len(weakLevels))
}

// holds reports whether the history shows edge e: session order, a read
// of e.From's write, an anti-dependency (a read of Key from another writer,
// which e.To overwrote) or a forced order of two writers of Key.
func holds(r *resolve.Resolution, e polygraph.Edge) bool {
	h := r.History
	t0 := int32(len(h.Txns))
	writes := func(t int32) bool {
		if t == t0 {
			return true
		}
		tx := h.Txns[t]
		for i := tx.OpStart; i < tx.OpEnd; i++ {
			if r.IsFinalWrite(i) && h.Ops[i].Key == e.Key {
				return true
			}
		}
		return false
	}
	switch e.Kind {
	case verdict.SO:
		if e.From == t0 {
			return true
		}
		a, b := h.Txns[e.From], h.Txns[e.To]
		return a.Session == b.Session && slices.Index(h.Sessions[a.Session], e.From) < slices.Index(h.Sessions[a.Session], e.To)
	case verdict.WR:
		for _, rd := range r.Reads {
			if rd.Writer == e.From && rd.Reader == e.To && rd.Key == e.Key {
				return true
			}
		}
	case verdict.RW:
		for _, rd := range r.Reads {
			if rd.Reader == e.From && rd.Key == e.Key && rd.Writer != e.To && writes(e.To) {
				return true
			}
		}
	case verdict.WW:
		return writes(e.From) && writes(e.To)
	}
	return false
}

// TestCore checks the evidence for a cycle of three forced edges: three
// readers each observed one writer and read an older version from the
// next, so every commit order makes one of them miss a write. Each of the
// three cycles must close and show only what the history shows.
func TestCore(t *testing.T) {
	b := history.NewBuilder(history.Null)
	x, y, z := b.Key("x"), b.Key("y"), b.Key("z")
	for _, tx := range []struct {
		session string
		ops     []history.Op
	}{
		{"w1", []history.Op{w(x, 1), w(y, 1)}},
		{"w2", []history.Op{w(y, 2), w(z, 2)}},
		{"w3", []history.Op{w(z, 3), w(x, 3)}},
		{"ra", []history.Op{r(x, 1), r(y, 2)}},
		{"rb", []history.Op{r(y, 2), r(z, 3)}},
		{"rc", []history.Op{r(z, 3), r(x, 1)}},
	} {
		b.AddTxn(history.Txn{Session: b.Session(tx.session), Start: history.NoTime, End: history.NoTime}, tx.ops)
	}
	res, err := resolve.Resolve(context.Background(), b.History())
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range weakLevels {
		got, err := Check(context.Background(), res, l)
		if err != nil {
			t.Fatal(err)
		}
		if got.Verdict == verdict.Satisfied || len(got.Core) != 3 {
			t.Fatalf("%v: satisfied=%v, core %v, cycle %v", l, got.Verdict, got.Core, got.Cycle)
		}
		for _, cycle := range got.Core {
			for i, e := range cycle {
				if next := cycle[(i+1)%len(cycle)]; e.To != next.From || !holds(res, e) {
					t.Fatalf("%v: cycle %v: edge %v does not hold or does not lead on", l, cycle, e)
				}
			}
		}
	}
}
