package encode

import (
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/prune"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/solver"
)

// AddChoices adds to the problem the choices of writers of p.ChoiceEdges
// (the hyper-polygraph of Chen et al., VeriStrong): a variable per
// writer of each choice, and a clause that takes at least one (taking
// two only adds edges, so some model takes exactly one whenever any
// model exists); each writer's Edges guarded by its variable; each of
// its After edges guarded by a variable of its own, which the writer's
// variable and its constraint's side imply, or by the writer's variable
// alone where pruning took that side, or left out where pruning took the
// other. resolved are pruning's decisions. The hint takes writer
// prefer[i] of choice i (when prefer is not nil), and each After edge
// where its writer and side are hinted, so that it satisfies the
// clauses.
func (enc *Encoding) AddChoices(p *polygraph.Polygraph, resolved []prune.Resolution, prefer []int) {
	if len(p.ChoiceEdges) == 0 {
		return
	}
	pr := &enc.Problem
	varOf := make(map[int32]solver.Lit, len(enc.Constraints))
	for i, ci := range enc.Constraints {
		varOf[int32(ci)] = solver.Lit(i + 1)
	}
	decided := make(map[int32]bool, len(resolved))
	for _, r := range resolved {
		decided[int32(r.Constraint)] = r.Either
	}
	hinted := func(l solver.Lit) bool {
		v := l.Var()
		if v > len(pr.Hint) {
			return false
		}
		return pr.Hint[v-1] == (l > 0)
	}
	newVar := func(hint bool) solver.Lit {
		pr.Vars++
		for len(pr.Hint) < pr.Vars-1 {
			pr.Hint = append(pr.Hint, false)
		}
		pr.Hint = append(pr.Hint, hint)
		return solver.Lit(pr.Vars)
	}
	add := func(e polygraph.Edge, lit solver.Lit) {
		for _, le := range enc.lw.Lower(e, nil) {
			pr.Cond = append(pr.Cond, solver.CondEdge{From: le.From, To: le.To, Lit: lit})
			enc.condFrom = append(enc.condFrom, e)
		}
	}
	enc.choiceVars = make([][]solver.Lit, len(p.ChoiceEdges))
	for i, ce := range p.ChoiceEdges {
		if ce.Known {
			continue // pruning made its one writer's edges known
		}
		atLeastOne := make([]solver.Lit, len(ce.Options))
		for j, o := range ce.Options {
			c := newVar(prefer != nil && prefer[i] == j)
			atLeastOne[j] = c
			enc.choiceVars[i] = append(enc.choiceVars[i], c)
			for _, e := range o.Edges {
				add(e, c)
			}
			for _, g := range o.After {
				either, isDecided := decided[g.Constraint]
				switch v, open := varOf[g.Constraint]; {
				case isDecided && either == g.Either:
					add(g.Edge, c)
				case isDecided:
					// The other side holds: not this edge.
				case open:
					side := v
					if !g.Either {
						side = -v
					}
					// a is c and side: the edge is present exactly when
					// both hold, so that the solver adds no edge for
					// nothing.
					a := newVar(hinted(c) && hinted(side))
					pr.Clauses = append(pr.Clauses, []solver.Lit{-c, -side, a}, []solver.Lit{-a, c}, []solver.Lit{-a, side})
					add(g.Edge, a)
				}
			}
		}
		pr.Clauses = append(pr.Clauses, atLeastOne)
		// At most one, too, where that is a few clauses: two writers
		// would only add edges.
		if len(atLeastOne) <= maxPairwise {
			for j, a := range atLeastOne {
				for _, b := range atLeastOne[j+1:] {
					pr.Clauses = append(pr.Clauses, []solver.Lit{-a, -b})
				}
			}
		}
	}
}

// maxPairwise is the most writers of a choice for which AddChoices says
// that the choice takes at most one, pair by pair.
const maxPairwise = 16

// Picks returns the writers a model of the problem chooses for the
// choices of p.ChoiceEdges: the first of each choice's true variables, or
// the one writer pruning left.
func (enc *Encoding) Picks(p *polygraph.Polygraph, model []bool) []resolve.Pick {
	out := make([]resolve.Pick, 0, len(enc.choiceVars))
	for i, vars := range enc.choiceVars {
		if ce := &p.ChoiceEdges[i]; ce.Known {
			out = append(out, resolve.Pick{Op: ce.Choice.Op, Writer: ce.Options[0].Writer})
			continue
		}
		for j, v := range vars {
			if model[int(v)-1] {
				out = append(out, resolve.Pick{Op: p.ChoiceEdges[i].Choice.Op, Writer: p.ChoiceEdges[i].Options[j].Writer})
				break
			}
		}
	}
	return out
}
