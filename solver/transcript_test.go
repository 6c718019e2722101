package solver_test

// Transcripts of the solver: testdata/*.txt hold small histories and the
// solver's answer on what pruning left of their polygraphs. The command
//
//	solve level=SER|SI|SSER [allpairs] [witness] [noprune] [engine=lazy|cdcl]
//
// builds, prunes and encodes the case's history as the checker does (see
// stagetest.Encode, which says why where the check ends before the
// solver; noprune sends every constraint to the solver), solves the problem with the engine (the default one unless
// named) and prints the answer. Satisfiable: the side each constraint
// takes, the writer each read whose value several transactions wrote reads
// from, and an order of the transactions that every chosen edge agrees
// with (the first topological order of the chosen graph, smallest node
// first; for SI that of the graph lowered for it, a commit order).
// Unsatisfiable: the cycles of the core, every assignment closing one.
//
// Rewrite the expected outputs with
//
//	go test ./solver -run TestTranscript -rewrite
//
// and read every changed line against its history (see package
// internal/stagetest).

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/isocheck/isocheck/digraph"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/stagetest"
	"github.com/isocheck/isocheck/solver"
)

func TestTranscript(t *testing.T) {
	stagetest.Run(t, func(t *testing.T, td *datadriven.TestData, h *history.History) string {
		if td.Cmd != "solve" {
			return stagetest.Unknown(t, td)
		}
		var engine string
		td.MaybeScanArgs(t, "engine", &engine)
		e := stagetest.Encode(t, td, h)
		if e.Enc == nil {
			return e.Stop
		}
		p, enc := e.P, e.Enc
		n := stagetest.NewNamer(p)
		res, err := solver.SolveWith(context.Background(), &enc.Problem, solver.Engine(engine))
		if err != nil {
			td.Fatalf(t, "solve: %v", err)
		}
		var b strings.Builder
		if !res.Sat {
			fmt.Fprintf(&b, "unsatisfiable: %d cycles in the core\n", len(res.Core))
			for _, c := range res.Core {
				fmt.Fprintf(&b, "  %s\n", n.Cycle(enc.Edges(c)))
			}
			return b.String()
		}
		b.WriteString("satisfiable\n")
		for v, ci := range enc.Constraints {
			c := p.Constraints[ci]
			first, second := c.A, c.B
			if !res.Model[v] {
				first, second = second, first
			}
			fmt.Fprintf(&b, "c%d %s: %s before %s\n", ci, h.FormatKey(c.Key), n.Node(first), n.Node(second))
		}
		for _, pk := range enc.Picks(p, res.Model) {
			fmt.Fprintf(&b, "%s reads from %s\n", n.TxnOp(pk.Op), n.Node(pk.Writer))
		}
		order, ok := chosenOrder(&enc.Problem, res.Model)
		if !ok {
			b.WriteString("error: the chosen edges close a cycle\n")
			return b.String()
		}
		var names []string
		for _, u := range order {
			if int(u) < p.NumNodes && (p.IsTxn(u) || u == p.T0) {
				names = append(names, n.Node(u))
			}
		}
		fmt.Fprintf(&b, "order: %s\n", strings.Join(names, ", "))
		return b.String()
	})
}

// chosenOrder returns the first topological order (smallest node first)
// of the fixed edges of pr and the guarded edges model chooses, or false
// if they close a cycle.
func chosenOrder(pr *solver.Problem, model []bool) ([]int32, bool) {
	var edges []digraph.Edge
	if pr.Fixed != nil {
		edges = append(edges, pr.Fixed...)
	} else {
		g := pr.FixedGraph
		for u := range g.N {
			for _, v := range g.Succ(int32(u)) {
				edges = append(edges, digraph.Edge{From: int32(u), To: v})
			}
		}
	}
	for _, c := range pr.Cond {
		if v := c.Lit.Var(); model[v-1] == (c.Lit > 0) {
			edges = append(edges, digraph.Edge{From: c.From, To: c.To})
		}
	}
	indeg := make([]int, pr.Nodes)
	for _, e := range edges {
		indeg[e.To]++
	}
	done := make([]bool, pr.Nodes)
	var order []int32
	for len(order) < pr.Nodes {
		next := int32(-1)
		for u := range pr.Nodes {
			if !done[u] && indeg[u] == 0 {
				next = int32(u)
				break
			}
		}
		if next < 0 {
			return nil, false
		}
		done[next] = true
		order = append(order, next)
		for _, e := range edges {
			if e.From == next {
				indeg[e.To]--
			}
		}
	}
	return order, true
}
