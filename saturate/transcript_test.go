package saturate_test

// Transcripts of the weak levels' check: testdata/*.txt hold small
// histories and what saturation finds. The command
//
//	saturate level=RC|RA|CC
//
// resolves the case's reads and checks the level: it prints the verdict,
// the number of edges of the saturated graph, the anomalies found on
// resolving that the level forbids, and the evidence of a violation: a
// cycle of the edges the level forces (forced commit-order edges have kind
// WW, on the key read), a pair of transactions forced each before the
// other (with the cycle each order closes), or a core of cycles. Reads
// whose value several transactions wrote are left out by this stage (the
// checker chooses their writers, case by case, before it); their count is
// printed.
//
// Rewrite the expected outputs with
//
//	go test ./saturate -run TestTranscript -rewrite
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
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/saturate"
)

func TestTranscript(t *testing.T) {
	stagetest.Run(t, func(t *testing.T, td *datadriven.TestData, h *history.History) string {
		if td.Cmd != "saturate" {
			return stagetest.Unknown(t, td)
		}
		ctx := context.Background()
		l := stagetest.Level(t, td, level.CC)
		r, err := resolve.Resolve(ctx, h)
		if err != nil {
			td.Fatalf(t, "resolve: %v", err)
		}
		res, err := saturate.Check(ctx, r, l)
		if err != nil {
			td.Fatalf(t, "saturate: %v", err)
		}
		n := stagetest.Namer{H: h}
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %d edges\n", res.Verdict, res.Edges)
		if len(r.Choices) > 0 {
			fmt.Fprintf(&b, "reads with several writers left out: %d\n", len(r.Choices))
		}
		if len(res.Anomalies) > 0 {
			b.WriteString("anomalies:\n")
			n.Anomalies(&b, "  ", res.Anomalies)
		}
		if res.Cycle != nil {
			fmt.Fprintf(&b, "cycle: %s\n", n.Cycle(res.Cycle))
		}
		if c := res.Conflict; c != nil {
			fmt.Fprintf(&b, "conflict: %s and %s each forced before the other on %s\n  %s\n  %s\n",
				n.Node(c.Constraint.A), n.Node(c.Constraint.B), h.FormatKey(c.Constraint.Key), n.Cycle(c.EitherCycle), n.Cycle(c.OrCycle))
		}
		for _, c := range res.Core {
			fmt.Fprintf(&b, "core: %s\n", n.Cycle(c))
		}
		return b.String()
	})
}
