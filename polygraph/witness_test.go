package polygraph

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/isocheck/isocheck/digraph"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/verdict"
)

// TestWitnessSettlesGoodHistories: a history from a store that keeps its
// level is settled by the guessed order of writes, with no constraint,
// where the search would have needed thousands; the same history checked
// at a level its store breaks is not.
func TestWitnessSettlesGoodHistories(t *testing.T) {
	for _, tc := range []struct {
		store    histgen.Store
		level    level.Level
		witnessd bool
	}{
		{histgen.SnapshotIsolation, level.SI, true},
		{histgen.StrictSerializable, level.SER, true},
		{histgen.StrictSerializable, level.SSER, true},
		{histgen.SnapshotIsolation, level.SER, false},
	} {
		h := histgen.Large(histgen.LargeConfig{Sessions: 20, TxnsPerSession: 100, Keys: 200, ReadProportion: 0.5, Seed: 3, Store: tc.store})
		res, err := resolve.Resolve(context.Background(), h)
		if err != nil {
			t.Fatal(err)
		}
		guessed, err := BuildResolved(context.Background(), res, Options{Level: tc.level})
		if err != nil {
			t.Fatal(err)
		}
		searched, err := BuildResolved(context.Background(), res, Options{Level: tc.level, NoWitness: true})
		if err != nil {
			t.Fatal(err)
		}
		if guessed.Witnessed != tc.witnessd {
			t.Errorf("store %v at %v: witnessed %v, want %v", tc.store, tc.level, guessed.Witnessed, tc.witnessd)
		}
		if tc.witnessd && (len(guessed.Constraints) != 0 || len(searched.Constraints) < 100) {
			t.Errorf("store %v at %v: %d constraints with the guess, %d without; want none and a hundred or more", tc.store, tc.level, len(guessed.Constraints), len(searched.Constraints))
		}
		if searched.Witnessed {
			t.Errorf("store %v at %v: witnessed with NoWitness", tc.store, tc.level)
		}
	}
}

// TestWitnessRepaired: a reader that saw the second write of x before the
// first contradicts the guess (no times, so the order of the history
// decides, which puts the first write first); the cycle it closes moves
// the second write first, which is a witness. With a second reader that
// saw them the other way round no order is one: no witness, and the
// search gets the constraint.
func TestWitnessRepaired(t *testing.T) {
	build := func(reads ...[2]history.Value) *Polygraph {
		b := history.NewBuilder(history.Null)
		x := b.Key("x")
		none := func(s string) history.Txn {
			return history.Txn{Session: b.Session(s), Start: history.NoTime, End: history.NoTime}
		}
		b.AddTxn(none("a"), []history.Op{{Kind: history.Write, Key: x, Value: 1}})
		b.AddTxn(none("b"), []history.Op{{Kind: history.Write, Key: x, Value: 2}})
		for i, r := range reads {
			for _, v := range r {
				b.AddTxn(none(fmt.Sprint("r", i)), []history.Op{{Kind: history.Read, Key: x, Value: v}})
			}
		}
		p, err := Build(context.Background(), b.History(), Options{Level: level.SER})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if p := build([2]history.Value{2, 1}); !p.Witnessed || len(p.Constraints) != 0 {
		t.Errorf("2 then 1: witnessed %v, %d constraints; want a witness", p.Witnessed, len(p.Constraints))
	}
	if p := build([2]history.Value{2, 1}, [2]history.Value{1, 2}); p.Witnessed || len(p.Constraints) != 1 {
		t.Errorf("2 then 1, and 1 then 2: witnessed %v, %d constraints; want the constraint", p.Witnessed, len(p.Constraints))
	}
}

// TestRelaxedOrdersOnlyTheSuspects: when no guess is a witness, only the
// keys the guess's cycles ran through are ordered. Here 2,000 concurrent
// blind writes of x (two million pairs) lie on no cycle; a long fork on
// y and z does, and its two keys alone are ordered.
func TestRelaxedOrdersOnlyTheSuspects(t *testing.T) {
	h := forkBesideWriters(2000)
	for _, relax := range []bool{true, false} {
		p, err := Build(context.Background(), h, Options{Level: level.SER, NoRelax: !relax})
		if err != nil {
			t.Fatal(err)
		}
		if p.Witnessed || p.Relaxed != relax {
			t.Fatalf("relax %v: witnessed %v, relaxed %v", relax, p.Witnessed, p.Relaxed)
		}
		keys := map[history.Key]bool{}
		for _, c := range p.Constraints {
			keys[c.Key] = true
		}
		x := history.Key(0)
		if relax && keys[x] {
			t.Errorf("relaxed: %d constraints, on keys %v; want none on x", len(p.Constraints), keys)
		}
		if !relax && (!keys[x] || len(p.Constraints) < 1000) {
			t.Errorf("not relaxed: %d constraints, on keys %v; want thousands on x", len(p.Constraints), keys)
		}
	}
}

// forkBesideWriters is n sessions of one blind write of x each, beside a
// long fork: two writers of y and z and two readers that saw them in
// opposite orders (PC broken, CC kept).
func forkBesideWriters(n int) *history.History {
	b := history.NewBuilder(history.Null)
	x, y, z := b.Key("x"), b.Key("y"), b.Key("z")
	none := func(s string) history.Txn {
		return history.Txn{Session: b.Session(s), Start: history.NoTime, End: history.NoTime}
	}
	for i := range n {
		b.AddTxn(none(fmt.Sprint("w", i)), []history.Op{{Kind: history.Write, Key: x, Value: history.Value(i + 1)}})
	}
	b.AddTxn(none("wy"), []history.Op{{Kind: history.Write, Key: y, Value: 1}})
	b.AddTxn(none("wz"), []history.Op{{Kind: history.Write, Key: z, Value: 1}})
	b.AddTxn(none("r1"), []history.Op{{Kind: history.Read, Key: y, Value: 1}, {Kind: history.Read, Key: z, Value: history.Null}})
	b.AddTxn(none("r2"), []history.Op{{Kind: history.Read, Key: z, Value: 1}, {Kind: history.Read, Key: y, Value: history.Null}})
	return b.History()
}

// TestForwardSnapshotsSound: the test SI's guess passes without the
// doubled graph never passes a guess whose doubled graph has a cycle, and
// passes most guesses of a store that keeps SI. The histories come from
// stores that keep and break SI, with few keys so that the guessed orders
// of writes are often wrong. A long fork is a cycle whose every
// dependency edge goes forward in the guessed commit order, which only
// the test of the RW edges rejects.
func TestForwardSnapshotsSound(t *testing.T) {
	type outcome struct{ passed, acyclic, depForward bool }
	guess := func(h *history.History) (outcome, bool) {
		res, err := resolve.Resolve(context.Background(), h)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Anomalies) > 0 {
			return outcome{}, false
		}
		// BuildResolved up to the guess of witnessOrder, and the guess
		// made again: the commit order of the dependencies, and each
		// key's chains sorted by it.
		p := &Polygraph{History: h, T0: int32(len(h.Txns)), NumNodes: len(h.Txns) + 1, Included: res.Included, level: level.SI}
		p.addSessionOrder(res)
		keys, err := p.buildChains(progress.Start(context.Background(), "build", 0, "keys"), res, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Anomalies) > 0 {
			return outcome{}, false
		}
		dep := &digraph.Graph{}
		dep.ResetChunksOut(p.NumNodes, dependencyChunks(p.Known))
		rank := p.commitOrder(dep)
		if rank == nil {
			return outcome{}, false
		}
		orders := newChainOrders(keys)
		for ki, kc := range keys {
			sortByRank(p, kc.chains, orders.of(ki), rank)
		}
		lw := p.Lowering()
		g := &digraph.Graph{}
		g.ResetChunksOut(lw.Nodes(), guessedChunks(lw, p.Known, p.readers, keys, orders.of))
		_, acyclic := g.TopoOrder()
		depForward := true
		for _, edges := range guessedEdges(p.readers, keys, orders.of) {
			for _, e := range edges {
				if e.Kind != verdict.RW && rank[e.From] >= rank[e.To] {
					depForward = false
				}
			}
		}
		of := func() func(int) []int32 { return orders.of }
		passed := forwardSnapshots(p.Known, p.readers, keys, of, rank, 1)
		// Workers side by side, each a share of the edges and keys,
		// decide as one.
		for _, workers := range []int{2, 3, 7} {
			if got := forwardSnapshots(p.Known, p.readers, keys, of, rank, workers); got != passed {
				t.Fatalf("forwardSnapshots on %d workers: %v, on one: %v", workers, got, passed)
			}
		}
		return outcome{passed, acyclic, depForward}, true
	}

	if o, ok := guess(forkBesideWriters(1)); !ok || o.passed || o.acyclic || !o.depForward {
		t.Errorf("long fork: %+v (checked %v); want a cycle with its dependencies forward, not passed", o, ok)
	}
	passed, cyclic := 0, 0
	for seed := range int64(300) {
		store := []histgen.Store{histgen.SnapshotIsolation, histgen.Causal, histgen.ReadAtomic}[seed%3]
		h := histgen.Large(histgen.LargeConfig{Sessions: 4, TxnsPerSession: 8, Keys: 8 + int(seed%5)*4, ReadProportion: 0.7, Seed: seed, Store: store})
		o, ok := guess(h)
		if !ok {
			continue
		}
		if o.passed && !o.acyclic {
			t.Fatalf("seed %d (%v): forwardSnapshots passed a guess whose doubled graph has a cycle", seed, store)
		}
		if o.passed {
			passed++
		}
		if !o.acyclic {
			cyclic++
		}
	}
	if passed < 50 || cyclic < 10 {
		t.Errorf("%d guesses passed, %d cyclic: want both kinds among the histories", passed, cyclic)
	}
}

// TestRecordedOrderGuessesAsTheGraph checks the commit order taken from
// the order in which a history lists its transactions (recordedOrder)
// against the one commitOrder finds in the graph of the known edges: on
// histories from every store, listed as their transactions completed,
// at SER and SI, the guess witnesses the level as often, and the
// constraints left when it does not are the same. The listed order is
// taken for most of them, and refused where the history lists them in
// another order (by session, here).
func TestRecordedOrderGuessesAsTheGraph(t *testing.T) {
	recorded, refused := 0, 0
	for seed, store := range histgen.Stores() {
		for _, bySession := range []bool{false, true} {
			h := histgen.Large(histgen.LargeConfig{Sessions: 8, TxnsPerSession: 40, Keys: 30, Seed: int64(seed), Store: store})
			if bySession {
				h = listBySession(h)
			}
			res, err := resolve.Resolve(context.Background(), h)
			if err != nil || len(res.Anomalies) > 0 {
				continue
			}
			for _, l := range []level.Level{level.SER, level.SI} {
				listed, err := BuildResolved(context.Background(), res, Options{Level: l})
				if err != nil {
					t.Fatal(err)
				}
				graph, err := BuildResolved(context.Background(), res, Options{Level: l, graphOrder: true})
				if err != nil {
					t.Fatal(err)
				}
				if listed.Witnessed != graph.Witnessed || !reflect.DeepEqual(listed.Constraints, graph.Constraints) {
					t.Errorf("store %v at %v (by session %v): witnessed %v with the listed order, %v with the graph's; %d and %d constraints",
						store, l, bySession, listed.Witnessed, graph.Witnessed, len(listed.Constraints), len(graph.Constraints))
				}
				switch rank := listed.recordedOrder(listed.Lowering()); {
				case rank != nil && bySession:
					t.Errorf("store %v at %v: a history listed by session taken as a commit order", store, l)
				case rank != nil:
					recorded++
				case bySession:
					refused++
				}
			}
		}
	}
	t.Logf("the listed order taken %d times, refused %d", recorded, refused)
	if recorded < 8 || refused < 8 {
		t.Errorf("the listed order taken %d times, refused %d: the test means little", recorded, refused)
	}
}

// listBySession returns h with its transactions listed session by
// session.
func listBySession(h *history.History) *history.History {
	b := history.NewBuilder(h.Init)
	for s, txns := range h.Sessions {
		for _, t := range txns {
			tx := h.Txns[t]
			tx.Session = b.Session(h.SessionNames[s])
			b.AddTxn(tx, h.Ops[tx.OpStart:tx.OpEnd])
		}
	}
	out := b.History()
	out.KeyNames = h.KeyNames
	return out
}
