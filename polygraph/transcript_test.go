package polygraph_test

// Transcripts of the polygraph: testdata/*.txt hold small histories and
// what this stage makes of them (read resolution has its own, in package
// resolve). The command:
//
//	build level=SER|SI|SSER [allpairs] [witness]
//	    the polygraph built for the level: its known edges and its
//	    constraints (one either/or pair of edge sets per pair of write
//	    chains whose order the history leaves open), the writers each
//	    choice brings, and the anomalies. allpairs makes a constraint for
//	    every pair of chains, as PolySI does; witness lets the build guess
//	    a version order that witnesses the level, as the checker does
//	    (without it the constraints are always built).
//
// Rewrite the expected outputs with
//
//	go test ./polygraph -run TestTranscript -rewrite
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
	"github.com/isocheck/isocheck/polygraph"
)

func TestTranscript(t *testing.T) {
	stagetest.Run(t, func(t *testing.T, td *datadriven.TestData, h *history.History) string {
		if td.Cmd != "build" {
			return stagetest.Unknown(t, td)
		}
		return printPolygraph(stagetest.Build(t, td, h))
	})
}

func printPolygraph(p *polygraph.Polygraph) string {
	n := stagetest.NewNamer(p)
	var b strings.Builder
	for _, f := range []struct {
		set  bool
		what string
	}{
		{p.Witnessed, "witnessed: a version order keeps the known edges acyclic, no constraints needed"},
		{p.Relaxed, "relaxed: only the keys of the failed guess's cycles are ordered"},
		{p.TooLarge, "too large"},
	} {
		if f.set {
			b.WriteString(f.what + "\n")
		}
	}
	if len(p.Anomalies) > 0 {
		b.WriteString("anomalies:\n")
		n.Anomalies(&b, "  ", p.Anomalies)
	}
	fmt.Fprintf(&b, "known: %d edges\n", len(p.Known))
	n.Edges(&b, "  ", p.Known)
	fmt.Fprintf(&b, "constraints: %d\n", len(p.Constraints))
	for i, c := range p.Constraints {
		fmt.Fprintf(&b, "  c%d %s\n", i, n.Constraint(c))
	}
	if len(p.ChoiceEdges) > 0 {
		b.WriteString("choices:\n")
	}
	for _, ce := range p.ChoiceEdges {
		fmt.Fprintf(&b, "  %s, writers of %s: %s", n.TxnOp(ce.Choice.Op), p.History.FormatKey(ce.Choice.Key), n.Nodes(ce.Writers))
		if ce.Known {
			b.WriteString(" (one option left)")
		}
		b.WriteString("\n")
		for _, o := range ce.Options {
			fmt.Fprintf(&b, "    from %s: {%s}", n.Node(o.Writer), n.EdgeList(o.Edges))
			for _, g := range o.After {
				side := "or"
				if g.Either {
					side = "either"
				}
				fmt.Fprintf(&b, " if c%d %s {%s}", g.Constraint, side, n.Edge(g.Edge))
			}
			b.WriteString("\n")
		}
	}
	for _, pk := range p.Picks {
		fmt.Fprintf(&b, "pick: %s <- %s\n", n.TxnOp(pk.Op), n.Node(pk.Writer))
	}
	return b.String()
}
