package polygraph_test

// Transcripts of read resolution and of the polygraph: testdata/*.txt hold
// small histories and what this stage makes of them. The commands:
//
//	resolve
//	    which transactions count, the writer of every external read (rmw:
//	    the reader writes the key later; repeat: it read the key before),
//	    the reads whose value several transactions wrote with their
//	    candidate writers, the version orders list reads reveal, and the
//	    anomalies found without looking for cycles.
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
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/stagetest"
	"github.com/isocheck/isocheck/polygraph"
)

func TestTranscript(t *testing.T) {
	stagetest.Run(t, func(t *testing.T, td *datadriven.TestData, h *history.History) string {
		ctx := context.Background()
		switch td.Cmd {
		case "resolve":
			res, err := polygraph.Resolve(ctx, h)
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			return printResolution(res)
		case "build":
			return printPolygraph(stagetest.Build(t, td, h))
		}
		return stagetest.Unknown(t, td)
	})
}

func printResolution(res *polygraph.Resolution) string {
	h := res.History
	n := stagetest.NewNamer(polygraph.Bare(res))
	var b strings.Builder
	for t := range h.Txns {
		tx := &h.Txns[t]
		switch {
		case !res.Included[t]:
			fmt.Fprintf(&b, "left out: %s (%s)\n", n.Node(int32(t)), tx.Status)
		case tx.Status != history.Committed:
			fmt.Fprintf(&b, "included: %s (%s", n.Node(int32(t)), tx.Status)
			if !res.Installs(int32(t)) {
				b.WriteString(", its writes took no effect")
			}
			b.WriteString(")\n")
		}
	}
	if len(res.Reads) > 0 {
		b.WriteString("reads:\n")
	}
	for _, r := range res.Reads {
		fmt.Fprintf(&b, "  %s <- %s", n.TxnOp(r.Op), n.Node(r.Writer))
		if r.RMW {
			b.WriteString(" rmw")
		}
		if r.Repeat {
			b.WriteString(" repeat")
		}
		b.WriteString("\n")
	}
	if len(res.Choices) > 0 {
		b.WriteString("choices:\n")
	}
	for _, c := range res.Choices {
		ws := make([]string, len(c.Writers))
		for i, w := range c.Writers {
			ws[i] = n.Node(w)
		}
		fmt.Fprintf(&b, "  %s <- one of %s\n", n.TxnOp(c.Op), strings.Join(ws, ", "))
	}
	for _, o := range res.Orders {
		vals := make([]string, len(o.Values))
		for i, v := range o.Values {
			vals[i] = h.FormatValue(v)
		}
		from := "stated order"
		if o.Op >= 0 {
			from = n.TxnOp(o.Op)
		}
		fmt.Fprintf(&b, "order %s: [%s] by %s (from %s)\n", h.FormatKey(o.Key), strings.Join(vals, " "), n.Nodes(o.Writers), from)
	}
	if len(res.Anomalies) > 0 {
		b.WriteString("anomalies:\n")
		n.Anomalies(&b, "  ", res.Anomalies)
	}
	if b.Len() == 0 {
		b.WriteString("no reads\n")
	}
	return b.String()
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
