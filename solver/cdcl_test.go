package solver

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/go-air/gini"
	"github.com/go-air/gini/z"

	"github.com/isocheck/isocheck/digraph"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
)

// polyProblem resembles an encoded polygraph: sessions are chains of
// fixed edges, reads add fixed edges from writers, and each constraint
// variable orders two writers of a key one way (with the anti-dependency
// edges of their readers) or the other. With bad set, some reads come from
// a writer the sessions say is later, so unsatisfiable problems arise.
func polyProblem(rng *rand.Rand, sessions, perSession, keys, constraints int, bad float64) *Problem {
	n := sessions * perSession
	p := &Problem{Nodes: n}
	node := func(s, i int) int32 { return int32(s*perSession + i) }
	for s := 0; s < sessions; s++ {
		for i := 0; i+1 < perSession; i++ {
			p.Fixed = append(p.Fixed, digraph.Edge{From: node(s, i), To: node(s, i+1)})
		}
	}
	// A hidden serial order: a random interleaving of the sessions.
	pos := make([]int, n)
	next := make([]int, sessions)
	for t := 0; t < n; t++ {
		s := rng.IntN(sessions)
		for next[s] >= perSession {
			s = (s + 1) % sessions
		}
		pos[node(s, next[s])] = t
		next[s]++
	}
	// Fixed read edges consistent with the hidden order (or, when bad, not:
	// those are kept only while the fixed edges stay acyclic).
	var badEdges []digraph.Edge
	for i := 0; i < n/3; i++ {
		u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
		if u == v {
			continue
		}
		e := digraph.Edge{From: u, To: v}
		if pos[u] < pos[v] {
			p.Fixed = append(p.Fixed, e)
		} else if rng.Float64() < bad {
			badEdges = append(badEdges, e)
		}
	}
	for _, e := range badEdges {
		try := append(p.Fixed[:len(p.Fixed):len(p.Fixed)], e)
		if _, ok := digraph.New(n, try).TopoOrder(); ok {
			p.Fixed = try
		}
	}
	p.Hint = make([]bool, 0, constraints)
	for c := 0; c < constraints; c++ {
		a, b := int32(rng.IntN(n)), int32(rng.IntN(n))
		if a == b {
			continue
		}
		p.Vars++
		v := Lit(p.Vars)
		p.Cond = append(p.Cond, CondEdge{From: a, To: b, Lit: v}, CondEdge{From: b, To: a, Lit: -v})
		// Anti-dependency edges: readers of a before b, readers of b
		// before a. On the side the hidden order takes, they agree
		// with it, so that without bad edges the problem is
		// satisfiable.
		reader := func(to int32, agree bool) (int32, bool) {
			for range 10 {
				x := int32(rng.IntN(n))
				if x != to && (!agree || pos[x] < pos[to]) {
					return x, true
				}
			}
			return 0, false
		}
		for r := 0; r < rng.IntN(3); r++ {
			if x, ok := reader(b, pos[a] < pos[b]); ok {
				p.Cond = append(p.Cond, CondEdge{From: x, To: b, Lit: v})
			}
		}
		for r := 0; r < rng.IntN(3); r++ {
			if x, ok := reader(a, pos[b] < pos[a]); ok {
				p.Cond = append(p.Cond, CondEdge{From: x, To: a, Lit: -v})
			}
		}
		// The hint follows the hidden order, mostly.
		h := pos[a] < pos[b]
		if rng.IntN(20) == 0 {
			h = !h
		}
		p.Hint = append(p.Hint, h)
	}
	return p
}

// coreHolds reports whether every assignment chooses all guarded edges of
// some cycle of core, and whether each is a closed cycle.
func coreHolds(t *testing.T, p *Problem, core []Cycle) bool {
	t.Helper()
	nf := int32(p.NumFixed())
	for _, c := range core {
		checkCycle(t, p, c)
	}
	model := make([]bool, p.Vars)
	for mask := 0; mask < 1<<p.Vars; mask++ {
		for v := range model {
			model[v] = mask>>v&1 == 1
		}
		hit := false
		for _, c := range core {
			all := true
			for _, id := range c {
				if id >= nf {
					l := p.Cond[id-nf].Lit
					if (l > 0) != model[l.Var()-1] {
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

func checkAnswer(t *testing.T, name string, p *Problem, res *Result, want bool, brute bool) {
	t.Helper()
	if res.Sat != want {
		t.Fatalf("%s: Sat = %v, want %v: %+v", name, res.Sat, want, p)
	}
	if res.Sat {
		if len(res.Model) != p.Vars || !acyclicUnder(p, res.Model) {
			t.Fatalf("%s: the model chooses a cycle", name)
		}
		return
	}
	if len(res.Core) == 0 {
		t.Fatalf("%s: unsatisfiable without a core", name)
	}
	if brute && !coreHolds(t, p, res.Core) {
		t.Fatalf("%s: some assignment avoids every cycle of the core %v", name, res.Core)
	}
}

// TestCDCLAgreesWithBruteForce: on thousands of random small problems the
// cdcl engine, the lazy engine and trying every assignment agree, models
// are acyclic and cores are valid.
func TestCDCLAgreesWithBruteForce(t *testing.T) {
	forTunings(t, []int32{100, 0, 2}, testCDCLAgreesWithBruteForce)
}

// forTunings runs test once per chronological backtracking threshold of
// chronos; past the default, it also reduces the learned clauses and
// restarts often.
func forTunings(t *testing.T, chronos []int32, test func(t *testing.T, seed uint64, tune cdclTuning)) {
	for _, chrono := range chronos {
		t.Run(fmt.Sprintf("chronoT=%d", chrono), func(t *testing.T) {
			tune := cdclTuning{chronoT: chrono}
			if chrono != defaultCDCL.chronoT {
				tune.maxLearnts, tune.restartFirst = 3, 1
			}
			test(t, uint64(chrono), tune)
		})
	}
}

func testCDCLAgreesWithBruteForce(t *testing.T, seed uint64, tune cdclTuning) {
	rng := rand.New(rand.NewPCG(11, 12+seed))
	counts := map[bool]int{}
	trials := testsize.N(2000, 6000)
	if testing.Short() {
		trials = 1000
	}
	for trial := 0; trial < trials; trial++ {
		var p *Problem
		switch trial % 3 {
		case 0:
			p = randomProblem(rng, 8, 6, 10)
		case 1:
			p = randomProblem(rng, 12, 10, 30)
		default:
			p = polyProblem(rng, 1+rng.IntN(4), 1+rng.IntN(4), 0, 1+rng.IntN(10), 0.3)
		}
		want := bruteForce(p)
		counts[want]++
		res, err := solveCDCLTuned(context.Background(), p, tune)
		if err != nil {
			t.Fatal(err)
		}
		checkAnswer(t, fmt.Sprintf("trial %d cdcl", trial), p, res, want, true)
		lres, err := Solve(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		checkAnswer(t, fmt.Sprintf("trial %d lazy", trial), p, lres, want, false)
	}
	t.Logf("sat/unsat: %v", counts)
	if counts[true] < trials/10 || counts[false] < trials/10 {
		t.Errorf("one-sided problems: %v", counts)
	}
}

// TestCDCLAgreesWithLazy: on larger structured problems, beyond brute
// force, the two engines agree; models are checked, and cores are checked
// to be closed cycles whose clauses the lazy engine finds unsatisfiable.
func TestCDCLAgreesWithLazy(t *testing.T) {
	forTunings(t, []int32{100, 0, 5}, testCDCLAgreesWithLazy)
}

// agreeWithLazy solves p with both engines, checks that cdcl's answer is
// lazy's, with a valid model or core, and returns whether p is satisfiable.
func agreeWithLazy(t *testing.T, name string, p *Problem, tune cdclTuning) bool {
	t.Helper()
	lres, err := Solve(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	res, err := solveCDCLTuned(context.Background(), p, tune)
	if err != nil {
		t.Fatal(err)
	}
	checkAnswer(t, name, p, res, lres.Sat, false)
	if !res.Sat {
		checkCoreBySolving(t, p, res.Core)
	}
	return lres.Sat
}

func testCDCLAgreesWithLazy(t *testing.T, seed uint64, tune cdclTuning) {
	rng := rand.New(rand.NewPCG(21, 22+seed))
	counts := map[bool]int{}
	trials := 600
	if testing.Short() {
		trials = 100
	}
	for trial := 0; trial < trials; trial++ {
		var p *Problem
		if trial%2 == 0 {
			p = polyProblem(rng, 2+rng.IntN(6), 2+rng.IntN(30), 0, 5+rng.IntN(150), []float64{0, 0.01, 0.05, 0.2}[rng.IntN(4)])
		} else {
			p = randomProblem(rng, 40, 40, 120)
		}
		counts[agreeWithLazy(t, fmt.Sprintf("trial %d", trial), p, tune)]++
	}
	t.Logf("sat/unsat: %v", counts)
	if counts[true] == 0 || counts[false] == 0 {
		t.Errorf("one-sided problems: %v", counts)
	}
}

// checkCoreBySolving checks a core too large to brute-force: every cycle
// is closed, and the clauses forbidding the cycles are unsatisfiable
// (gini decides, through core()).
func checkCoreBySolving(t *testing.T, p *Problem, c []Cycle) {
	t.Helper()
	s, err := newSession(p)
	if err != nil {
		t.Fatal(err)
	}
	var clauses [][]Lit
	for _, cyc := range c {
		checkCycle(t, p, cyc)
		clauses = append(clauses, s.blockingClause(cyc))
	}
	// core returns all cycles if the clauses are satisfiable; a subset
	// when they are not. Tell the two apart with one more clause set:
	// solve the clauses directly.
	if !unsatClauses(p.Vars, clauses) {
		t.Fatalf("core %v does not forbid every assignment", c)
	}
}

// unsatClauses decides a CNF with gini.
func unsatClauses(vars int, clauses [][]Lit) bool {
	g := gini.New()
	for i := 0; i < vars; i++ {
		g.Lit()
	}
	for _, cl := range clauses {
		for _, l := range cl {
			g.Add(z.Dimacs2Lit(int(l)))
		}
		g.Add(z.LitNull)
	}
	return solve(context.Background(), g) == -1
}

func TestCDCLFixedCycleIsAnError(t *testing.T) {
	p := &Problem{Nodes: 2, Fixed: []digraph.Edge{{From: 0, To: 1}, {From: 1, To: 0}}}
	if _, err := solveCDCL(context.Background(), p); err == nil {
		t.Error("solveCDCL accepted cyclic fixed edges")
	}
}

func TestCDCLStopped(t *testing.T) {
	limit := errors.New("limit")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(limit)
	// A small problem may be solved before any check of ctx: make a
	// large one.
	rng := rand.New(rand.NewPCG(1, 2))
	p := polyProblem(rng, 10, 2000, 0, 30000, 0.01)
	if _, err := solveCDCL(ctx, p); !errors.Is(err, ErrGaveUp) || !errors.Is(err, limit) {
		t.Errorf("solveCDCL: %v, want %v wrapping %v", err, ErrGaveUp, limit)
	}
}

// TestCDCLDeadline: a hard problem stops near its deadline.
func TestCDCLDeadline(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p := polyProblem(rng, 20, 500, 0, 60000, 0.02)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err := solveCDCL(ctx, p)
	if err != nil && !errors.Is(err, ErrGaveUp) {
		t.Fatal(err)
	}
	// A bound for a solver that ignores the deadline, however loaded
	// the machine.
	if d := time.Since(t0); d > time.Minute {
		t.Errorf("took %v after a 50ms deadline", d)
	}
}

func benchProblem(seed uint64, sessions, per, constraints int, bad float64) *Problem {
	return polyProblem(rand.New(rand.NewPCG(seed, 99)), sessions, per, 0, constraints, bad)
}

func benchEngines(b *testing.B, p *Problem) {
	for _, e := range []struct {
		name string
		f    func(context.Context, *Problem) (*Result, error)
	}{{"lazy", Solve}, {"cdcl", solveCDCL}} {
		b.Run(e.name, func(b *testing.B) {
			var res *Result
			for b.Loop() {
				var err error
				res, err = e.f(context.Background(), p)
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.Rounds), "rounds")
			b.ReportMetric(float64(res.Clauses), "clauses")
			if res.Sat {
				b.ReportMetric(1, "sat")
			} else {
				b.ReportMetric(0, "sat")
			}
		})
	}
}

func BenchmarkEnginesStructuredValid(b *testing.B) {
	benchEngines(b, benchProblem(1, 20, 500, 5000, 0))
}

func BenchmarkEnginesStructuredLarge(b *testing.B) {
	benchEngines(b, benchProblem(2, 25, 2000, 20000, 0))
}

func BenchmarkEnginesStructuredInvalid(b *testing.B) {
	benchEngines(b, benchProblem(3, 20, 500, 5000, 0.01))
}

// TestCDCLReduces: on mid-size problems, with few learned clauses kept
// and frequent restarts, so that reductions delete clauses (reasons
// among the candidates), the engines still agree.
func TestCDCLReduces(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	counts := map[bool]int{}
	trials := testsize.N(500, 1500)
	if testing.Short() {
		trials = 200
	}
	for trial := 0; trial < trials; trial++ {
		tune := cdclTuning{chronoT: []int32{100, 0, 3}[trial%3], maxLearnts: 2 + rng.IntN(20), restartFirst: float64(1 + rng.IntN(10))}
		p := pairProblem(rng, 8+rng.IntN(12), 20+rng.IntN(40))
		if trial%2 == 0 {
			p = polyProblem(rng, 3+rng.IntN(5), 10+rng.IntN(40), 0, 50+rng.IntN(300), []float64{0, 0.02, 0.1}[rng.IntN(3)])
		}
		counts[agreeWithLazy(t, fmt.Sprintf("trial %d", trial), p, tune)]++
	}
	t.Logf("sat/unsat: %v", counts)
}

// pairProblem orders pairs of nodes one way or the other, each with an
// extra edge guarded by the same literal or by another variable's: hard
// enough for hundreds of conflicts on a few dozen variables.
func pairProblem(rng *rand.Rand, n, vars int) *Problem {
	p := &Problem{Nodes: n, Vars: vars}
	for v := 1; v <= vars; v++ {
		a, b := int32(rng.IntN(n)), int32(rng.IntN(n))
		for a == b {
			b = int32(rng.IntN(n))
		}
		p.Cond = append(p.Cond, CondEdge{From: a, To: b, Lit: Lit(v)}, CondEdge{From: b, To: a, Lit: -Lit(v)})
		lit := Lit(1 + rng.IntN(vars))
		if rng.IntN(2) == 0 {
			lit = -lit
		}
		p.Cond = append(p.Cond, CondEdge{From: int32(rng.IntN(n)), To: int32(rng.IntN(n)), Lit: lit})
	}
	return p
}
