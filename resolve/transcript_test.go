package resolve_test

// Transcripts of read resolution: testdata/*.txt hold small histories and
// what this stage makes of them. The command:
//
//	resolve
//	    which transactions count, the writer of every external read (rmw:
//	    the reader writes the key later; repeat: it read the key before),
//	    the reads whose value several transactions wrote with their
//	    candidate writers, the version orders list reads reveal, and the
//	    anomalies found without looking for cycles.
//
// Rewrite the expected outputs with
//
//	go test ./resolve -run TestTranscript -rewrite
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
	"github.com/isocheck/isocheck/resolve"
)

func TestTranscript(t *testing.T) {
	stagetest.Run(t, func(t *testing.T, td *datadriven.TestData, h *history.History) string {
		if td.Cmd != "resolve" {
			return stagetest.Unknown(t, td)
		}
		res, err := resolve.Resolve(context.Background(), h)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		return printResolution(res)
	})
}

func printResolution(res *resolve.Resolution) string {
	h := res.History
	n := stagetest.Namer{H: h}
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
