// Package encode poses what pruning left of a polygraph as an acyclicity
// problem for the solver (Huang, Liu, Chen, Wei, Basin, Li and Pan,
// "Efficient Black-box Checking of Snapshot Isolation in Databases"
// (PolySI, PVLDB 16(6), 2023), Section 4.4): one boolean variable per
// remaining constraint, true choosing its Either side; each side's edges,
// lowered for the level, guarded by that variable's literal; the known
// edges fixed. It also maps the solver's answer back to typed edges.
package encode

import (
	"context"
	"slices"

	"github.com/isocheck/isocheck/digraph"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/solver"
)

// Encoding is a solver problem with the way back to the polygraph.
type Encoding struct {
	Problem solver.Problem
	// Constraints[v-1] is the polygraph constraint of variable v.
	Constraints []int
	lw          polygraph.Lowering
	known       []polygraph.Edge
	fixedFrom   []int32          // index in known of each fixed edge, by id; made by Edges
	condFrom    []polygraph.Edge // typed edge of each guarded lowered edge
	choiceVars  [][]solver.Lit   // the variable of each writer of each choice (AddChoices)
}

// Encode builds the problem for the level p was built for from the known edges and the
// remaining constraints (indices into p.Constraints). The hint chooses, for
// each constraint, the side that agrees with a topological order of the
// known edges. It runs as the stage "encode", counting the known edges and
// constraints done, and returns the reason (context.Cause) if ctx ends
// first.
func Encode(ctx context.Context, p *polygraph.Polygraph, known []polygraph.Edge, remaining []int) (*Encoding, error) {
	return EncodeGraph(ctx, p, known, remaining, nil, nil)
}

// EncodeGraph is Encode given the graph of the known edges, lowered for
// p's level in their order (as Lowering.LowerAll gives them), and a
// topological order of it, as pruning leaves them: the problem then has
// that graph and no list of fixed edges (solver.Problem.Fixed is nil),
// which would take as much memory again. With g nil it lowers the known edges and
// builds the graph.
func EncodeGraph(ctx context.Context, p *polygraph.Polygraph, known []polygraph.Edge, remaining []int, g *digraph.Graph, order []int32) (*Encoding, error) {
	m := progress.Start(ctx, "encode", int64(len(known)+len(remaining)), "known edges and constraints")
	lw := p.Lowering()
	enc := &Encoding{Constraints: remaining, lw: lw, known: known}
	pr := &enc.Problem
	pr.Nodes = lw.Nodes()
	if g != nil && (g.N != pr.Nodes || len(order) != pr.Nodes || len(g.Out) != lowered(lw, known)) {
		g = nil // not the graph of known
	}
	if g == nil {
		pr.Fixed = make([]digraph.Edge, 0, 2*len(known))
		for i, e := range known {
			if i&(progress.Every-1) == progress.Every-1 {
				if err := m.Add(progress.Every); err != nil {
					return nil, err
				}
			}
			pr.Fixed = lw.Lower(e, pr.Fixed)
		}
	}
	var buf []digraph.Edge
	pr.Vars = len(remaining)
	addSide := func(side []polygraph.Edge, lit solver.Lit) {
		for _, e := range side {
			buf = lw.Lower(e, buf[:0])
			for _, le := range buf {
				pr.Cond = append(pr.Cond, solver.CondEdge{From: le.From, To: le.To, Lit: lit})
				enc.condFrom = append(enc.condFrom, e)
			}
		}
	}
	if err := m.Set(int64(len(known))); err != nil {
		return nil, err
	}
	for i, ci := range remaining {
		if i&(progress.Every/16-1) == progress.Every/16-1 {
			if err := m.Add(progress.Every / 16); err != nil {
				return nil, err
			}
		}
		c := &p.Constraints[ci]
		v := solver.Lit(i + 1)
		addSide(c.Either, v)
		addSide(c.Or, -v)
	}
	if err := m.Err(); err != nil {
		return nil, err
	}
	// One graph of the fixed edges serves the hint and the solver.
	if g == nil {
		g = digraph.New(pr.Nodes, pr.Fixed)
		if err := m.Err(); err != nil {
			return nil, err
		}
		var ok bool
		if order, ok = g.TopoOrder(); !ok {
			// Pruning checked the known edges: the solver reports it.
			return enc, nil
		}
	}
	pr.FixedGraph = g
	pr.FixedOrder = order
	pr.Hint = hint(p, order, remaining)
	m.Set(int64(len(known) + len(remaining)))
	return enc, nil
}

// lowered returns the number of edges that lowering known with lw gives.
func lowered(lw polygraph.Lowering, known []polygraph.Edge) int {
	n := 0
	var buf [2]digraph.Edge
	for _, e := range known {
		n += len(lw.Lower(e, buf[:0]))
	}
	return n
}

// hint orders each constraint's chains as a topological order of the known
// edges orders their first transactions.
func hint(p *polygraph.Polygraph, order []int32, remaining []int) []bool {
	if len(remaining) == 0 {
		return nil
	}
	pos := make([]int32, len(order))
	for i, u := range order {
		pos[u] = int32(i)
	}
	h := make([]bool, len(remaining))
	txns := p.History.Txns
	for i, ci := range remaining {
		c := &p.Constraints[ci]
		h[i] = pos[c.A] < pos[c.B]
		if p.ChoiceEdges != nil && p.IsTxn(c.A) && p.IsTxn(c.B) && txns[c.A].HasTime() && txns[c.B].HasTime() && txns[c.A].End != txns[c.B].End {
			// Where reads may have read from several writers, known
			// edges order the writes less: the order they ended in is
			// the better guess of the order they committed in.
			h[i] = txns[c.A].End < txns[c.B].End
		}
	}
	return h
}

// Edges returns the typed edges of a solver cycle.
func (enc *Encoding) Edges(c solver.Cycle) []polygraph.Edge {
	if enc.fixedFrom == nil {
		enc.fixedFrom = enc.fixedKnown()
	}
	out := make([]polygraph.Edge, 0, len(c))
	for _, id := range c {
		if int(id) < len(enc.fixedFrom) {
			out = append(out, enc.known[enc.fixedFrom[id]])
		} else {
			out = append(out, enc.condFrom[int(id)-len(enc.fixedFrom)])
		}
	}
	return out
}

// fixedKnown maps each fixed edge id to the index in known of the edge it
// lowers, once: only the evidence of a violation needs it. An id is the
// edge's index in the lowered known edges or, when the graph came without
// edge ids, its place in the graph's Out, which the counting sort that
// built it gives: the edges of each node in the order they were lowered.
func (enc *Encoding) fixedKnown() []int32 {
	from := make([]int32, enc.Problem.NumFixed())
	var buf [2]digraph.Edge
	g := enc.Problem.FixedGraph
	if enc.Problem.Fixed != nil || g == nil || g.OutID != nil {
		id := 0
		for i, e := range enc.known {
			for range enc.lw.Lower(e, buf[:0]) {
				from[id] = int32(i)
				id++
			}
		}
		return from
	}
	at := slices.Clone(g.OutStart[:g.N])
	for i, e := range enc.known {
		for _, le := range enc.lw.Lower(e, buf[:0]) {
			from[at[le.From]] = int32(i)
			at[le.From]++
		}
	}
	return from
}
