package encode_test

// Transcripts of the encoding: testdata/*.txt hold small histories and the
// acyclicity problem posed for the solver. The command
//
//	encode level=SER|SI|SSER [allpairs] [witness] [noprune]
//
// builds the polygraph of the case's history for the level (allpairs: a
// constraint for every pair of write chains, as PolySI makes them;
// witness: let the build guess a witness, as the checker does), prunes it
// and encodes what pruning left, as the checker does (see
// stagetest.Encode; noprune leaves every constraint to the solver; where the check ends before encoding, it says why). It
// prints the problem's size: nodes (doubled for SI, whose second copy of a
// node v is v°), fixed edges (the known ones, lowered), variables, guarded
// edges and clauses. Then each variable: for a constraint's, the order of
// the chains its values choose; for every variable, the lowered edges each
// of its literals guards, with the typed edge each comes from; then the
// clauses (from the choices of writers of a history whose values repeat)
// and the hint, the first assignment the solver tries.
//
// Rewrite the expected outputs with
//
//	go test ./encode -run TestTranscript -rewrite
//
// and read every changed line against its history (see package
// internal/stagetest).

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/stagetest"
	"github.com/isocheck/isocheck/solver"
)

func TestTranscript(t *testing.T) {
	stagetest.Run(t, func(t *testing.T, td *datadriven.TestData, h *history.History) string {
		if td.Cmd != "encode" {
			return stagetest.Unknown(t, td)
		}
		e := stagetest.Encode(t, td, h)
		if e.Enc == nil {
			return e.Stop
		}
		p, enc := e.P, e.Enc
		pr := &enc.Problem
		n := stagetest.NewNamer(p)
		var b strings.Builder
		fmt.Fprintf(&b, "problem: %d nodes, %d fixed edges, %d variables, %d guarded edges, %d clauses\n",
			pr.Nodes, pr.NumFixed(), pr.Vars, len(pr.Cond), len(pr.Clauses))
		guarded := map[solver.Lit][]string{}
		for i, c := range pr.Cond {
			typed := enc.Edges(solver.Cycle{int32(pr.NumFixed() + i)})[0]
			guarded[c.Lit] = append(guarded[c.Lit], fmt.Sprintf("%s -> %s from %s", n.Node(c.From), n.Node(c.To), n.Edge(typed)))
		}
		for v := 1; v <= pr.Vars; v++ {
			if v <= len(enc.Constraints) {
				ci := enc.Constraints[v-1]
				c := p.Constraints[ci]
				fmt.Fprintf(&b, "v%d: c%d %s, true: %s before %s, false: %s before %s\n", v, ci,
					h.FormatKey(c.Key), n.Node(c.A), n.Node(c.B), n.Node(c.B), n.Node(c.A))
			} else {
				fmt.Fprintf(&b, "v%d:\n", v)
			}
			for _, lit := range []solver.Lit{solver.Lit(v), -solver.Lit(v)} {
				for _, g := range guarded[lit] {
					fmt.Fprintf(&b, "  %s: %s\n", litName(lit), g)
				}
			}
		}
		if len(pr.Clauses) > 0 {
			b.WriteString("clauses:\n")
		}
		for _, cl := range pr.Clauses {
			lits := make([]string, len(cl))
			for i, l := range cl {
				lits[i] = litName(l)
			}
			fmt.Fprintf(&b, "  %s\n", strings.Join(lits, " or "))
		}
		if pr.Hint != nil {
			hint := make([]string, len(pr.Hint))
			for i, v := range pr.Hint {
				hint[i] = fmt.Sprintf("v%d=%t", i+1, v)
			}
			fmt.Fprintf(&b, "hint: %s\n", strings.Join(hint, " "))
		}
		return b.String()
	})
}

// litName prints a literal as v1 or !v1.
func litName(l solver.Lit) string {
	if l < 0 {
		return fmt.Sprintf("!v%d", l.Var())
	}
	return fmt.Sprintf("v%d", l.Var())
}
