package solver_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/isocheck/isocheck/encode"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/digraph"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/prune"
	"github.com/isocheck/isocheck/solver"
	"github.com/isocheck/isocheck/workload"
)

// encoded runs the checker's pipeline on h up to the solver: the problem
// it would solve, or nil when pruning decides or the input is rejected.
// With noPrune, pruning only checks the known edges (as check's --no-prune)
// and more problems, unsatisfiable ones among them, reach the solver.
func encoded(t testing.TB, h *history.History, l level.Level, noPrune bool) *solver.Problem {
	ctx := context.Background()
	r, err := polygraph.Resolve(ctx, h)
	if err != nil {
		return nil
	}
	p, err := polygraph.BuildResolved(ctx, r, polygraph.Options{Level: l})
	if err != nil || len(p.Anomalies) > 0 || p.TooLarge {
		return nil
	}
	pr, err := prune.PruneWith(ctx, p, l, prune.Options{NoDecide: noPrune})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Violation != nil || len(pr.Remaining) == 0 {
		return nil
	}
	enc, err := encode.EncodeGraph(ctx, p, l, pr.Known, pr.Remaining, pr.Graph, pr.Order)
	if err != nil {
		t.Fatal(err)
	}
	return &enc.Problem
}

// chosenAcyclic checks a model of p.
func chosenAcyclic(p *solver.Problem, model []bool) bool {
	g := p.FixedGraph
	if g == nil {
		g = digraph.New(p.Nodes, p.Fixed)
	}
	var edges []digraph.Edge
	for u := int32(0); int(u) < p.Nodes; u++ {
		for _, v := range g.Succ(u) {
			edges = append(edges, digraph.Edge{From: u, To: v})
		}
	}
	for _, c := range p.Cond {
		if (c.Lit > 0) == model[c.Lit.Var()-1] {
			edges = append(edges, digraph.Edge{From: c.From, To: c.To})
		}
	}
	_, ok := digraph.New(p.Nodes, edges).TopoOrder()
	return ok
}

func compareEngines(t *testing.T, name string, p *solver.Problem) (lazy, cdcl time.Duration, lres, cres *solver.Result) {
	t.Helper()
	t0 := time.Now()
	lres, err := solver.Solve(context.Background(), p)
	lazy = time.Since(t0)
	if err != nil {
		t.Fatalf("%s: lazy: %v", name, err)
	}
	t0 = time.Now()
	cres, err = solver.SolveCDCL(context.Background(), p)
	cdcl = time.Since(t0)
	if err != nil {
		t.Fatalf("%s: cdcl: %v", name, err)
	}
	if lres.Sat != cres.Sat {
		t.Fatalf("%s: lazy says Sat=%v, cdcl %v", name, lres.Sat, cres.Sat)
	}
	if cres.Sat && !chosenAcyclic(p, cres.Model) {
		t.Fatalf("%s: cdcl's model chooses a cycle", name)
	}
	if !cres.Sat && len(cres.Core) == 0 {
		t.Fatalf("%s: cdcl: no core", name)
	}
	if !cres.Sat && p.Vars <= 14 && !coreForbidsAll(p, cres.Core) {
		t.Fatalf("%s: cdcl: some assignment avoids every cycle of the core", name)
	}
	return
}

// coreForbidsAll reports whether every assignment chooses every guarded
// edge of some cycle of core.
func coreForbidsAll(p *solver.Problem, core []solver.Cycle) bool {
	nf := int32(p.NumFixed())
	for mask := 0; mask < 1<<p.Vars; mask++ {
		hit := false
		for _, c := range core {
			all := true
			for _, id := range c {
				if id >= nf {
					l := p.Cond[id-nf].Lit
					if (l > 0) != (mask>>(l.Var()-1)&1 == 1) {
						all = false
						break
					}
				}
			}
			if all {
				hit = true
				break
			}
		}
		if !hit {
			return false
		}
	}
	return true
}

// TestCDCLOnSmallHistories: on the problems the checker poses for random
// small histories of every store, at SER, SI and SSER, the engines agree.
func TestCDCLOnSmallHistories(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := 3000
	if testing.Short() {
		n = 300
	}
	solved := map[bool]int{}
	for i := 0; i < n; i++ {
		h := workload.Small(rng, workload.SmallConfig{Sessions: 4, MaxTxns: 14, Keys: 3, MaxOps: 4, Times: true})
		for _, l := range []level.Level{level.SER, level.SI, level.SSER} {
			for _, noPrune := range []bool{false, true} {
				p := encoded(t, h, l, noPrune)
				if p == nil {
					continue
				}
				_, _, lres, _ := compareEngines(t, fmt.Sprintf("history %d %v noPrune=%v", i, l, noPrune), p)
				solved[lres.Sat]++
			}
		}
	}
	t.Logf("problems reaching the solver, by satisfiability: %v", solved)
}

// TestCDCLOnLargeHistories compares the engines' verdicts and times on
// benchmark histories; set ISOCHECK_CDCL_LARGE=1 to run it (minutes), or
// ISOCHECK_CDCL_LARGE=50k for the 50k-transaction zipfian SI history only.
func TestCDCLOnLargeHistories(t *testing.T) {
	if os.Getenv("ISOCHECK_CDCL_LARGE") == "" {
		t.Skip("set ISOCHECK_CDCL_LARGE=1")
	}
	type cfg struct {
		name string
		c    workload.LargeConfig
		l    level.Level
	}
	zipf50k := workload.LargeConfig{Store: workload.SnapshotIsolation, Sessions: 25, TxnsPerSession: 2000, OpsPerTxn: 8, Keys: 10000, ReadProportion: 0.5, Dist: workload.Zipf, Seed: 1}
	var cfgs []cfg
	cfgs = append(cfgs, cfg{"si-zipf-50k", zipf50k, level.SI})
	for _, st := range []workload.Store{workload.SnapshotIsolation, workload.SnapshotNoFCW, workload.Serializable, workload.Causal, workload.Random} {
		for _, dist := range []workload.Distribution{workload.Zipf, workload.Uniform, workload.Hotspot} {
			for _, l := range []level.Level{level.SI, level.SER} {
				c := workload.LargeConfig{Store: st, Sessions: 20, TxnsPerSession: 500, OpsPerTxn: 8, Keys: 2000, ReadProportion: 0.5, Dist: dist, Seed: 2}
				cfgs = append(cfgs, cfg{fmt.Sprintf("%v-%v-10k-%v", st, dist, l), c, l})
			}
		}
	}
	for _, seed := range []int64{2, 3} {
		c := zipf50k
		c.Seed = seed
		cfgs = append(cfgs, cfg{fmt.Sprintf("si-zipf-50k-seed%d", seed), c, level.SI})
		c.ReadProportion = 0.2
		cfgs = append(cfgs, cfg{fmt.Sprintf("si-zipf-50k-writeheavy-seed%d", seed), c, level.SI})
	}
	if os.Getenv("ISOCHECK_CDCL_LARGE") == "50k" {
		cfgs = cfgs[:1]
	}
	for _, c := range cfgs {
		h := workload.Large(c.c)
		p := encoded(t, h, c.l, false)
		if p == nil {
			t.Logf("%-40s decided before the solver", c.name)
			continue
		}
		lt, ct, lres, cres := compareEngines(t, c.name, p)
		t.Logf("%-40s vars=%6d cond=%7d sat=%-5v lazy %8.1fms (rounds %d, clauses %d)  cdcl %8.1fms (conflicts %d, cycles %d)",
			c.name, p.Vars, len(p.Cond), lres.Sat, ms(lt), lres.Rounds, lres.Clauses, ms(ct), cres.Rounds, cres.Clauses)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
