package prune

import (
	"github.com/isocheck/isocheck/digraph"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/verdict"
)

// pruneChoices drops the writers of p.ChoiceEdges that a read cannot have
// read from, as reachability in the known edges (clocks) shows: reading
// from writer w closes a cycle when one of the edges it brings does
// (the reader reaches w, say), or when another writer w2 of the key
// follows w and the reader must precede w2, since w2 then overwrote
// w's version before the read. A choice left with one writer becomes
// known: its edges join the known ones (know), and each After edge the
// side of its constraint, or the known edges when pruning took that side
// already (decided, by constraint). A choice whose every writer closes a
// cycle keeps them all: the solver shows the violation. It reports
// whether it dropped a writer, and how many choices it made known; once
// m reports an error (the stage's context ended), it returns it.
func pruneChoices(m *progress.Meter, p *polygraph.Polygraph, lw polygraph.Lowering, clocks *digraph.Clocks, decided map[int32]bool, know func([]polygraph.Edge)) (changed bool, known int, err error) {
	closes := func(e polygraph.Edge) bool {
		bad, _ := lw.ClosesCycle(clocks, e)
		return bad
	}
	work := 0
	for i := range p.ChoiceEdges {
		ce := &p.ChoiceEdges[i]
		if ce.Known {
			continue
		}
		// A choice costs a question per option, edge and writer of its
		// key: look at m once some thousands have been asked.
		if work += len(ce.Options) * (len(ce.Writers) + 1); work >= progress.Every {
			work = 0
			if err := m.Err(); err != nil {
				return changed, known, err
			}
		}
		r, key := ce.Choice.Reader, ce.Choice.Key
		possible := func(o *polygraph.ChoiceOption) bool {
			for _, e := range o.Edges {
				if closes(e) {
					return false
				}
			}
			for _, g := range o.After {
				if either, ok := decided[g.Constraint]; ok && either == g.Either && closes(g.Edge) {
					return false
				}
			}
			for _, w2 := range ce.Writers {
				if w2 != o.Writer && w2 != r && clocks.Reaches(o.Writer, w2) && closes(polygraph.Edge{From: r, To: w2, Kind: verdict.RW, Key: key}) {
					return false
				}
			}
			return true
		}
		kept := ce.Options[:0:0]
		for j := range ce.Options {
			if possible(&ce.Options[j]) {
				kept = append(kept, ce.Options[j])
			}
		}
		if len(kept) == 0 || len(kept) == len(ce.Options) {
			continue
		}
		changed = true
		ce.Options = kept
		if len(kept) > 1 {
			continue
		}
		ce.Known = true
		known++
		o := &kept[0]
		know(o.Edges)
		for _, g := range o.After {
			either, ok := decided[g.Constraint]
			switch {
			case ok && either == g.Either:
				know([]polygraph.Edge{g.Edge})
			case ok:
			case g.Either:
				c := &p.Constraints[g.Constraint]
				c.Either = append(c.Either, g.Edge)
			default:
				c := &p.Constraints[g.Constraint]
				c.Or = append(c.Or, g.Edge)
			}
		}
	}
	return changed, known, nil
}
