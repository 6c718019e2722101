package solver_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-air/gini"
	"github.com/go-air/gini/z"

	"github.com/isocheck/isocheck/digraph"
	"github.com/isocheck/isocheck/encode"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/prune"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/solver"
	"github.com/isocheck/isocheck/workload"
)

// encoded runs the checker's pipeline on h up to the solver: the problem
// it would solve, or nil when pruning decides or the input is rejected.
// With noPrune, pruning only checks the known edges (as check's --no-prune)
// and more problems, unsatisfiable ones among them, reach the solver.
func encoded(t testing.TB, h *history.History, l level.Level, noPrune bool) *solver.Problem {
	ctx := context.Background()
	r, err := resolve.Resolve(ctx, h)
	if err != nil {
		return nil
	}
	p, err := polygraph.BuildResolved(ctx, r, polygraph.Options{Level: l})
	if err != nil || len(p.Anomalies) > 0 || p.TooLarge {
		return nil
	}
	pr, err := prune.PruneWith(ctx, p, prune.Options{NoDecide: noPrune})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Violation != nil || len(pr.Remaining) == 0 {
		return nil
	}
	enc, err := encode.EncodeGraph(ctx, p, pr.Known, pr.Remaining, pr.Graph, pr.Order)
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

func compareEngines(t *testing.T, name string, p *solver.Problem, chrono int32) (lazy, cdcl time.Duration, lres, cres *solver.Result) {
	t.Helper()
	// Each engine has ISOCHECK_CDCL_TIMEOUT, if set.
	limit := func() (context.Context, context.CancelFunc) {
		if d, err := time.ParseDuration(os.Getenv("ISOCHECK_CDCL_TIMEOUT")); err == nil {
			return context.WithTimeout(context.Background(), d)
		}
		return context.WithCancel(context.Background())
	}
	ctx, cancel := limit()
	defer cancel()
	t0 := time.Now()
	lres, err := solver.Solve(ctx, p)
	lazy = time.Since(t0)
	if err != nil {
		t.Fatalf("%s: lazy: %v", name, err)
	}
	ctx, cancel = limit()
	defer cancel()
	t0 = time.Now()
	cres, err = solver.SolveCDCLChronoT(ctx, p, chrono)
	cdcl = time.Since(t0)
	if err != nil {
		t.Fatalf("%s: cdcl: %v after %v", name, err, cdcl)
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
	if !cres.Sat {
		checkCore(t, name, p, cres.Core)
	}
	return
}

// checkCore checks that every cycle of core is closed and that the
// clauses forbidding them are unsatisfiable (gini decides).
func checkCore(t *testing.T, name string, p *solver.Problem, core []solver.Cycle) {
	t.Helper()
	nf := int32(p.NumFixed())
	ends := make(map[int32]digraph.Edge)
	if p.Fixed != nil {
		for i, e := range p.Fixed {
			ends[int32(i)] = e
		}
	} else {
		g := p.FixedGraph
		for u := int32(0); int(u) < g.N; u++ {
			for j := g.OutStart[u]; j < g.OutStart[u+1]; j++ {
				id := j // a graph without ids names an edge by its place
				if g.OutID != nil {
					id = g.OutID[j]
				}
				ends[id] = digraph.Edge{From: u, To: g.Out[j]}
			}
		}
	}
	edge := func(id int32) digraph.Edge {
		if id >= nf {
			c := p.Cond[id-nf]
			return digraph.Edge{From: c.From, To: c.To}
		}
		e, ok := ends[id]
		if !ok {
			t.Fatalf("%s: core names fixed edge %d, which does not exist", name, id)
		}
		return e
	}
	g := gini.New()
	for i := 0; i < p.Vars; i++ {
		g.Lit()
	}
	for _, c := range core {
		for i, id := range c {
			if edge(id).To != edge(c[(i+1)%len(c)]).From {
				t.Fatalf("%s: core cycle %v is not closed", name, c)
			}
			if id >= nf {
				g.Add(z.Dimacs2Lit(-int(p.Cond[id-nf].Lit)))
			}
		}
		g.Add(z.LitNull)
	}
	if g.Solve() != -1 {
		t.Fatalf("%s: some assignment avoids every cycle of the core", name)
	}
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
	n := testsize.N(600, 3000)
	if testing.Short() {
		n = 300
	}
	solved := map[bool]int{}
	for i := 0; i < n; i++ {
		h := histgen.Small(rng, histgen.SmallConfig{Sessions: 4, MaxTxns: 14, Keys: 3, MaxOps: 4, Times: true})
		for _, l := range []level.Level{level.SER, level.SI, level.SSER} {
			for _, noPrune := range []bool{false, true} {
				p := encoded(t, h, l, noPrune)
				if p == nil {
					continue
				}
				_, _, lres, _ := compareEngines(t, fmt.Sprintf("history %d %v noPrune=%v", i, l, noPrune), p, solver.DefaultCDCLChronoT)
				solved[lres.Sat]++
			}
		}
	}
	t.Logf("problems reaching the solver, by satisfiability: %v", solved)
}

// TestCDCLOnLargeHistories compares the engines' verdicts and times on
// benchmark histories; set ISOCHECK_CDCL_LARGE=1 to run it (minutes), or
// to a part of the names of the histories to run (such as si-zipf-50k).
func TestCDCLOnLargeHistories(t *testing.T) {
	if os.Getenv("ISOCHECK_CDCL_LARGE") == "" {
		t.Skip("set ISOCHECK_CDCL_LARGE=1")
	}
	type cfg struct {
		name    string
		c       histgen.LargeConfig
		l       level.Level
		noPrune bool
	}
	zipf50k := histgen.LargeConfig{Store: histgen.SnapshotIsolation, Sessions: 25, TxnsPerSession: 2000, OpsPerTxn: 8, Keys: 10000, ReadProportion: 0.5, Dist: workload.Zipf, Seed: 1}
	var cfgs []cfg
	cfgs = append(cfgs, cfg{"si-zipf-50k", zipf50k, level.SI, false})
	for _, st := range []histgen.Store{histgen.SnapshotIsolation, histgen.SnapshotNoFCW, histgen.Serializable, histgen.Causal, histgen.Random} {
		for _, dist := range []workload.Distribution{workload.Zipf, workload.Uniform, workload.Hotspot} {
			for _, l := range []level.Level{level.SI, level.SER} {
				c := histgen.LargeConfig{Store: st, Sessions: 20, TxnsPerSession: 500, OpsPerTxn: 8, Keys: 2000, ReadProportion: 0.5, Dist: dist, Seed: 2}
				cfgs = append(cfgs, cfg{fmt.Sprintf("%v-%v-10k-%v", st, dist, l), c, l, false})
				// Pruning decides the invalid ones: without it
				// the solver sees them, unsatisfiable.
				if st != histgen.Serializable && (st != histgen.SnapshotIsolation || l == level.SER) {
					c.Sessions, c.TxnsPerSession = 10, 200
					cfgs = append(cfgs, cfg{fmt.Sprintf("%v-%v-2k-%v-noprune", st, dist, l), c, l, true})
				}
			}
		}
	}
	for _, seed := range []int64{2, 3} {
		c := zipf50k
		c.Seed = seed
		cfgs = append(cfgs, cfg{fmt.Sprintf("si-zipf-50k-seed%d", seed), c, level.SI, false})
		c.ReadProportion = 0.2
		cfgs = append(cfgs, cfg{fmt.Sprintf("si-zipf-50k-writeheavy-seed%d", seed), c, level.SI, false})
	}
	chrono := solver.DefaultCDCLChronoT
	if v, err := strconv.Atoi(os.Getenv("ISOCHECK_CDCL_CHRONO")); err == nil {
		chrono = int32(v)
	}
	only := os.Getenv("ISOCHECK_CDCL_LARGE")
	for _, c := range cfgs {
		if only != "1" && !strings.Contains(c.name, only) {
			continue
		}
		h := histgen.Large(c.c)
		p := encoded(t, h, c.l, c.noPrune)
		if p == nil {
			t.Logf("%-42s decided before the solver", c.name)
			continue
		}
		lt, ct, lres, cres := compareEngines(t, c.name, p, chrono)
		// ISOCHECK_CDCL_REPS runs take the fastest of each engine.
		reps, _ := strconv.Atoi(os.Getenv("ISOCHECK_CDCL_REPS"))
		for r := 1; r < reps; r++ {
			lt2, ct2, _, _ := compareEngines(t, c.name, p, chrono)
			lt, ct = min(lt, lt2), min(ct, ct2)
		}
		t.Logf("%-42s vars=%6d cond=%7d sat=%-5v lazy %8.1fms (rounds %d, clauses %d, core %d)  cdcl %8.1fms (conflicts %d, cycles %d, core %d)",
			c.name, p.Vars, len(p.Cond), lres.Sat, ms(lt), lres.Rounds, lres.Clauses, len(lres.Core), ms(ct), cres.Rounds, cres.Clauses, len(cres.Core))
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
