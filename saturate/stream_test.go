package saturate

import (
	"context"
	"math/rand/v2"
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

// TestStreamAgreesWithReference checks CC (causalStream) on small random
// histories, with the knobs turned so that every path runs, and requires
// the brute-force reference's verdict and evidence that closes a cycle of
// edges the history shows.
func TestStreamAgreesWithReference(t *testing.T) {
	cfg := histgen.SmallConfig{Sessions: 4, MaxTxns: 9, Keys: 3, MaxOps: 4, AbortProb: 0.1, UnknownProb: 0.1, FaultProb: 0.1}
	runs := 3000
	if testing.Short() {
		runs = 500
	}
	violated := 0
	var stats guessStats
	for seed := range runs {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x57e))
		h := histgen.Small(rng, cfg)
		r, err := resolve.Resolve(context.Background(), h)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, histgen.Describe(h))
		}
		want, err := reference.Check(h, level.CC)
		if err != nil {
			t.Fatalf("seed %d: reference: %v", seed, err)
		}
		// One worker with whole batches, and several with batches of a
		// few transactions, so that batches end everywhere and the axiom
		// sees writers visited after the reader; with every key dense
		// (the histories have 4 sessions) and none.
		// Each with a commit order tried first (guess.go), and without;
		// and with a random order tried first, not repaired by RA's
		// axiom, so that the clocks find edges and the orders repaired
		// are checked by the recheck (recheck.go), or by the clocks.
		for _, c := range []options{
			{workers: 1},
			{workers: 3, batch: 2},
			{workers: 1, shuffle: uint64(seed) + 1, noRA: true, guessStats: &stats},
			{workers: 2, batch: 3, shuffle: uint64(seed) + 1, noRA: true, noRecheck: true},
			{workers: 1, noGuess: true},
			{workers: 3, batch: 2, noGuess: true},
			{workers: 2, batch: 5, denseShare: -1, noGuess: true},
			{workers: 1, denseShare: -1, noGuess: true},
		} {
			got, err := checkWith(context.Background(), r, level.CC, c)
			if err != nil {
				t.Fatalf("seed %d, %+v: %v", seed, c, err)
			}
			if (got.Verdict == verdict.Satisfied) != want {
				t.Fatalf("seed %d, %+v: satisfied = %v, reference says %v\n%s", seed, c, got.Verdict, want, histgen.Describe(h))
			}
			if !want {
				checkEvidence(t, seed, r, got)
			}
		}
		if !want {
			violated++
		}
	}
	if violated < runs/20 || violated > runs*19/20 {
		t.Errorf("CC violated in %d of %d histories: too lopsided to test anything", violated, runs)
	}
	if stats.rechecks < runs/50 || stats.recheckEdges == 0 {
		t.Errorf("%d rechecks found %d edges in %d histories: too few to test them", stats.rechecks, stats.recheckEdges, runs)
	}
	if stats.disagree > 0 {
		t.Errorf("%d of %d rechecks found other edges than the clocks of every session", stats.disagree, stats.rechecks)
	}
}

// checkEvidence fails t unless got, a violation, has evidence: cycles
// that close and show only edges the history shows.
func checkEvidence(t *testing.T, seed int, r *resolve.Resolution, got *Result) {
	t.Helper()
	if len(got.Cycle) == 0 && got.Conflict == nil && got.Core == nil && len(got.Anomalies) == 0 {
		t.Fatalf("seed %d: violated without evidence", seed)
	}
	cycles := append([][]polygraph.Edge{got.Cycle}, got.Core...)
	if c := got.Conflict; c != nil {
		cycles = [][]polygraph.Edge{c.EitherCycle, c.OrCycle}
	}
	for _, cycle := range cycles {
		for i, e := range cycle {
			if next := cycle[(i+1)%len(cycle)]; e.To != next.From || !holds(r, e) {
				t.Fatalf("seed %d: cycle %v: edge %v does not hold or does not lead on\n%s", seed, cycle, e, histgen.Describe(r.History))
			}
		}
	}
}

// TestStreamAgrees checks medium histories, too large for the reference,
// with clocks for every transaction (fullCausal) and streamed ones, with
// and without dense keys: the verdicts and the numbers of edges forced
// must be the same, since both force, per read and per session writing
// the key, the last write in the reader's past that is not in the
// writer's. Half the histories have a few reads turned to older versions,
// which breaks causality.
func TestStreamAgrees(t *testing.T) {
	stores := []histgen.Store{histgen.ReadCommitted, histgen.ReadAtomic, histgen.Causal, histgen.SnapshotIsolation}
	violated, checked := 0, 0
	var stats guessStats
	for _, store := range stores {
		for seed := range 4 {
			h := histgen.Large(histgen.LargeConfig{Sessions: 9, TxnsPerSession: 300, OpsPerTxn: 8, Keys: 50, ReadProportion: 0.5, Dist: workload.Zipf, Seed: int64(seed), Store: store})
			if seed%2 == 1 {
				staleReads(h, rand.New(rand.NewPCG(uint64(seed), 0x01d)), 3)
			}
			r, err := resolve.Resolve(context.Background(), h)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Anomalies) > 0 {
				continue // fullCausal does not look for them
			}
			checked++
			satisfied, edges, err := fullCausal(r, 2)
			if err != nil {
				t.Fatal(err)
			}
			if !satisfied {
				violated++
			}
			for _, opt := range []options{{}, {workers: 3, batch: 100}, {workers: 2, batch: 7}, {noGuess: true}, {workers: 3, batch: 100, noGuess: true}, {workers: 2, denseShare: -1, noGuess: true},
				{shuffle: uint64(seed) + 1, noRA: true, guessStats: &stats}, {shuffle: uint64(seed) + 1}} {
				got, err := checkWith(context.Background(), r, level.CC, opt)
				if err != nil {
					t.Fatal(err)
				}
				// A commit order that satisfies the axiom settles CC
				// without forcing every edge.
				if (got.Verdict == verdict.Satisfied) != satisfied || opt.noGuess && got.Edges != edges {
					t.Errorf("%v store, seed %d: full clocks give satisfied=%v with %d edges, streamed ones (%+v) satisfied=%v with %d edges",
						store, seed, satisfied, edges, opt, got.Verdict, got.Edges)
				}
			}
		}
	}
	t.Logf("%d of %d histories without anomalies violate CC; %d rechecks found %d edges", violated, checked, stats.rechecks, stats.recheckEdges)
	if stats.rechecks == 0 || stats.recheckEdges == 0 {
		t.Errorf("%d rechecks found %d edges: none to test", stats.rechecks, stats.recheckEdges)
	}
	if stats.disagree > 0 {
		t.Errorf("%d of %d rechecks found other edges than the clocks of every session", stats.disagree, stats.rechecks)
	}
	if violated == 0 || violated == checked {
		t.Errorf("%d of %d histories without anomalies violate CC: the comparison needs both verdicts", violated, checked)
	}
}

// staleReads turns n reads of h, at random, into reads of the first
// version of their key that a transaction wrote last (or of the initial
// one), if they did not read it.
func staleReads(h *history.History, rng *rand.Rand, n int) {
	first := map[history.Key]history.Value{}
	for _, tx := range h.Txns {
		if tx.Status != history.Committed {
			continue
		}
		last := map[history.Key]history.Value{}
		for _, op := range h.Ops[tx.OpStart:tx.OpEnd] {
			if op.Kind == history.Write {
				last[op.Key] = op.Value
			}
		}
		for k, v := range last {
			if _, ok := first[k]; !ok {
				first[k] = v
			}
		}
	}
	for changed := 0; changed < n; {
		op := &h.Ops[rng.IntN(len(h.Ops))]
		if op.Kind != history.Read {
			continue
		}
		v, ok := first[op.Key]
		if !ok {
			v = h.Init
		}
		if op.Value != v {
			op.Value = v
			changed++
		}
	}
}

// TestStreamLimit: a history whose live clocks need more entries than the
// limit, or that forces more edges than the limit, is refused with an
// error, not allowed to exhaust memory.
func TestStreamLimit(t *testing.T) {
	h := histgen.Large(histgen.LargeConfig{Sessions: 200, TxnsPerSession: 20, OpsPerTxn: 4, Keys: 1000, ReadProportion: 0.5, Seed: 1, Store: histgen.Causal})
	r, err := resolve.Resolve(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	s := newSaturator(r)
	s.indexGroups()
	if _, _, err := s.causalStream(nil, newOrderer(s), 10*200); err == nil {
		t.Error("room for 10 clocks of 200 sessions: no error")
	}
	ok, runs, err := s.causalStream(nil, newOrderer(s), int64(s.n+1)*200)
	if err != nil || !ok || runs.edges == 0 {
		t.Fatalf("room for every clock: acyclic %v, error %v", ok, err)
	}
	s.maxEdges = runs.edges - 1
	if _, _, err := s.causalStream(nil, newOrderer(s), int64(s.n+1)*200); err == nil {
		t.Errorf("room for %d edges of %d: no error", s.maxEdges, runs.edges)
	}
	s.maxEdges = runs.edges
	if _, _, err := s.causalStream(nil, newOrderer(s), int64(s.n+1)*200); err != nil {
		t.Errorf("room for every edge: %v", err)
	}
}

// BenchmarkManySessions checks CC on a history of 200,000 transactions in
// 2,000 sessions, where clocks for every transaction would take 400
// million entries.
func BenchmarkManySessions(b *testing.B) {
	h := histgen.Large(histgen.LargeConfig{Sessions: 2000, TxnsPerSession: 100, OpsPerTxn: 4, Keys: 100000, ReadProportion: 0.5, Dist: workload.Zipf, Seed: 3, Store: histgen.Causal})
	r, err := resolve.Resolve(context.Background(), h)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		res, err := Check(context.Background(), r, level.CC)
		if err != nil {
			b.Fatal(err)
		}
		if res.Verdict != verdict.Satisfied {
			b.Fatal("a causal store's history violates CC")
		}
	}
}
