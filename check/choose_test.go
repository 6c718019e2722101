package check_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/verdict"
	"github.com/isocheck/isocheck/workload"
)

// TestCasesCoverEveryChoice checks the explanation of a violation that
// hinges on which writers reads read from: every assignment of writers
// to the choices the cases name takes the picks of some case, each pick
// names one of its read's candidates, and each case is a violation whose
// cycles read from the case's writers.
func TestCasesCoverEveryChoice(t *testing.T) {
	cfg := histgen.SmallConfig{Sessions: 3, MaxTxns: 8, Keys: 3, MaxOps: 4, FaultProb: 0.1}
	withCases, runs := 0, testsize.N(800, 4000)
	for seed := 0; seed < runs; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 0xca5e))
		h := fold(rng, histgen.Small(rng, cfg))
		for _, l := range level.All() {
			res, err := check.CheckWith(context.Background(), h, l, check.Options{Cases: true})
			if err != nil {
				t.Fatalf("seed %d, %v: %v", seed, l, err)
			}
			if res.Verdict != verdict.Violated || len(res.Cases) == 0 {
				continue
			}
			withCases++
			choices := map[int32][]int32{} // read operation: candidates
			for _, c := range res.Choices {
				choices[c.Op] = c.Writers
			}
			for i, c := range res.Cases {
				if c.Result.Verdict != verdict.Violated {
					t.Fatalf("seed %d, %v: case %d is %v", seed, l, i, c.Result.Verdict)
				}
				for _, p := range c.Picks {
					if !slices.Contains(choices[p.Op], p.Writer) {
						t.Fatalf("seed %d, %v: case %d picks %d for the read at %d, not among %v", seed, l, i, p.Writer, p.Op, choices[p.Op])
					}
				}
				for _, cy := range c.Result.Core {
					checkCycleReads(t, h, c.Picks, cy)
				}
				checkCycleReads(t, h, c.Picks, c.Result.Cycle)
			}
			// Every assignment of the choices' writers extends a case.
			ops := make([]int32, 0, len(choices))
			for op := range choices {
				ops = append(ops, op)
			}
			slices.Sort(ops)
			pick := make(map[int32]int32)
			var walk func(i int)
			walk = func(i int) {
				if i == len(ops) {
					for _, c := range res.Cases {
						if !slices.ContainsFunc(c.Picks, func(p resolve.Pick) bool { return pick[p.Op] != p.Writer }) {
							return
						}
					}
					t.Fatalf("seed %d, %v: the assignment %v takes no case's picks: %+v", seed, l, pick, res.Cases)
				}
				for _, w := range choices[ops[i]] {
					pick[ops[i]] = w
					walk(i + 1)
				}
			}
			walk(0)
		}
	}
	if withCases < runs/40 {
		t.Errorf("only %d violations hinged on writer choices: too few to test", withCases)
	}
	t.Logf("%d violations explained case by case", withCases)
}

// checkCycleReads fails when a WR edge of cycle contradicts picks: its
// reader's every read of its key is picked, from other writers.
func checkCycleReads(t *testing.T, h *history.History, picks []resolve.Pick, cycle []polygraph.Edge) {
	t.Helper()
	picked := map[int32]int32{}
	for _, p := range picks {
		picked[p.Op] = p.Writer
	}
	for _, e := range cycle {
		if e.Kind != verdict.WR || e.To < 0 || int(e.To) >= len(h.Txns) {
			continue
		}
		all, agree := true, false
		tx := h.Txns[e.To]
		for i := tx.OpStart; i < tx.OpEnd; i++ {
			if op := h.Ops[i]; op.Kind == history.Read && op.Key == e.Key {
				w, ok := picked[i]
				all = all && ok
				agree = agree || ok && w == e.From
			}
		}
		if all && !agree {
			t.Fatalf("the cycle's %v contradicts the picks %v", e, picks)
		}
	}
}

// TestChoicesOrderedByReachability checks that a check whose writes are
// ordered by reachability (the default on histories of many writers a
// key) gives the verdicts of one that orders every pair, on histories
// whose values repeat, from stores that keep and break the levels.
func TestChoicesOrderedByReachability(t *testing.T) {
	stores := []histgen.Store{histgen.Serializable, histgen.SnapshotIsolation, histgen.SnapshotNoFCW, histgen.Causal}
	verdicts := map[verdict.Verdict]int{}
	fewer := 0
	for seed := range 30 {
		cfg := histgen.LargeConfig{Sessions: 6, TxnsPerSession: 40, OpsPerTxn: 6, Keys: 12, ReadProportion: 0.5,
			Dist: workload.Uniform, Seed: int64(seed), Store: stores[seed%len(stores)]}
		h := histgen.Repeat(histgen.Large(cfg), histgen.RepeatConfig{Fraction: 1, Writers: 2 + seed%2, Seed: uint64(seed)})
		for _, l := range []level.Level{level.SER, level.SI, level.PC} {
			fast, err := check.Check(context.Background(), h, l)
			if err != nil {
				t.Fatal(err)
			}
			all, err := check.CheckWith(context.Background(), h, l, check.Options{AllPairs: true})
			if err != nil {
				t.Fatal(err)
			}
			if fast.Verdict != all.Verdict || fast.Verdict == verdict.Unknown {
				t.Fatalf("seed %d, %v: by reachability %v, every pair %v", seed, l, fast.Verdict, all.Verdict)
			}
			verdicts[fast.Verdict]++
			if fast.Stats.Choices > 0 && fast.Stats.Constraints < all.Stats.Constraints {
				fewer++
			}
		}
	}
	if fewer < 3 {
		t.Errorf("only %d checks with choices ordered writes with fewer constraints than every pair: the test compares too little", fewer)
	}
	if verdicts[verdict.Satisfied] < 5 || verdicts[verdict.Violated] < 5 {
		t.Errorf("verdicts %v: too lopsided to compare", verdicts)
	}
}

// TestPicksWitness checks that the writers a satisfied check reports
// satisfy the level: the history with just those writers passes.
func TestPicksWitness(t *testing.T) {
	cfg := histgen.SmallConfig{Sessions: 3, MaxTxns: 8, Keys: 3, MaxOps: 4}
	witnessed, runs := 0, testsize.N(500, 1500)
	for seed := 0; seed < runs; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x91c5))
		h := fold(rng, histgen.Small(rng, cfg))
		r, err := resolve.Resolve(context.Background(), h)
		if err != nil || len(r.Choices) == 0 {
			continue
		}
		for _, l := range level.All() {
			if l == level.PC {
				continue // it chooses on the history split in two
			}
			res, err := check.CheckResolved(context.Background(), r, l)
			if err != nil || res.Verdict != verdict.Satisfied {
				continue
			}
			sub, err := r.Choose(context.Background(), res.Picks)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Picks) != len(r.Choices) {
				t.Fatalf("seed %d, %v: %d picks for %d choices", seed, l, len(res.Picks), len(r.Choices))
			}
			got, err := check.CheckResolved(context.Background(), sub, l)
			if err != nil || got.Verdict != verdict.Satisfied {
				t.Fatalf("seed %d, %v: the picks %v give %v", seed, l, res.Picks, got.Verdict)
			}
			witnessed++
		}
	}
	if witnessed < runs/3 {
		t.Errorf("only %d witnesses checked", witnessed)
	}
}
