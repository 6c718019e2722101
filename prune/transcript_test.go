package prune_test

// Transcripts of pruning: testdata/*.txt hold small histories and what
// pruning decides on their polygraphs. The command
//
//	prune level=SER|SI|SSER [allpairs] [witness]
//
// builds the polygraph of the case's history for the level (allpairs: a
// constraint for every pair of write chains, as PolySI makes them, so that
// pruning has more to decide; witness: let the build guess a witness, as
// the checker does) and prunes it. It prints the size of the polygraph, the
// constraints pruning decided (the side that became known and the edge of
// the other side that closed a cycle), the edges that joined the known
// ones, the constraints left for the solver, and the violation pruning
// proved: a cycle of known edges, or a constraint both of whose sides
// close one. For the reads whose value several transactions wrote it
// prints the writers pruning left each, and whether that made the read
// known (one writer left). A polygraph with anomalies is not pruned: they are printed
// instead.
//
// Rewrite the expected outputs with
//
//	go test ./prune -run TestTranscript -rewrite
//
// and read every changed line against its history (see package
// internal/stagetest).

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/stagetest"
	"github.com/isocheck/isocheck/prune"
)

func TestTranscript(t *testing.T) {
	stagetest.Run(t, func(t *testing.T, td *datadriven.TestData, h *history.History) string {
		if td.Cmd != "prune" {
			return stagetest.Unknown(t, td)
		}
		p := stagetest.Build(t, td, h)
		n := stagetest.NewNamer(p)
		var b strings.Builder
		if len(p.Anomalies) > 0 {
			b.WriteString("anomalies, not pruned:\n")
			n.Anomalies(&b, "  ", p.Anomalies)
			return b.String()
		}
		known := len(p.Known)
		fmt.Fprintf(&b, "polygraph: %d known edges, %d constraints\n", known, len(p.Constraints))
		if p.Witnessed {
			b.WriteString("witnessed: nothing to prune\n")
		}
		res, err := prune.Prune(context.Background(), p)
		if err != nil {
			td.Fatalf(t, "prune: %v", err)
		}
		if res.Skipped {
			b.WriteString("skipped: too large for reachability clocks\n")
		}
		fmt.Fprintf(&b, "rounds: %d\n", res.Rounds)
		for _, r := range res.Resolved {
			c := p.Constraints[r.Constraint]
			first, second := c.A, c.B
			if !r.Either {
				first, second = second, first
			}
			fmt.Fprintf(&b, "decided c%d %s: %s before %s, as %s would close a cycle\n",
				r.Constraint, p.History.FormatKey(c.Key), n.Node(first), n.Node(second), n.Edge(r.Blocked))
		}
		if added := res.Known[known:]; len(added) > 0 {
			fmt.Fprintf(&b, "known edges added: %d\n", len(added))
			n.Edges(&b, "  ", added)
		}
		fmt.Fprintf(&b, "remaining: %d\n", len(res.Remaining))
		for _, ci := range res.Remaining {
			fmt.Fprintf(&b, "  c%d %s\n", ci, n.Constraint(p.Constraints[ci]))
		}
		for _, ce := range p.ChoiceEdges {
			ws := make([]int32, len(ce.Options))
			for i, o := range ce.Options {
				ws[i] = o.Writer
			}
			state := "open"
			if ce.Known {
				state = "known"
			}
			fmt.Fprintf(&b, "choice %s: %s from %s\n", n.TxnOp(ce.Choice.Op), state, n.Nodes(ws))
		}
		switch v := res.Violation; {
		case v == nil:
			b.WriteString("no violation\n")
		case v.Constraint < 0:
			fmt.Fprintf(&b, "violation: cycle of known edges\n  %s\n", n.Cycle(v.Cycle))
		default:
			fmt.Fprintf(&b, "violation: both sides of c%d %s close a cycle\n", v.Constraint, n.Constraint(p.Constraints[v.Constraint]))
			fmt.Fprintf(&b, "  either: %s\n  or: %s\n", n.Cycle(v.EitherCycle), n.Cycle(v.OrCycle))
		}
		return b.String()
	})
}
