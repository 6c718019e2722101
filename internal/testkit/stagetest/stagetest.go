// Package stagetest holds what the transcript tests of the checker's stages
// (resolve, polygraph, prune, encode, solver, shrink, saturate) share:
// reading the testdata files, parsing the history of a case, and printing
// transactions, operations, edges, cycles, constraints and anomalies in one
// stable, readable form. It is for tests only.
//
// A transcript file (a package's testdata/*.txt) is a list of cases in the
// format of github.com/cockroachdb/datadriven:
//
//	# What the case shows.
//	build level=SI
//	{"session": 1, "id": "T1", "ops": [["w", "x", 1]]}
//	{"session": 2, "id": "T2", "ops": [["r", "x", 1]]}
//	----
//	the stage's output
//
// The input of a command, between it and "----", is a history in the
// native JSONL format (docs/formats.md): one transaction a line. A command
// without input takes the history of the case before it in the same file,
// so that one history can be shown at several levels. The expected output
// is rewritten from what the stage prints by
//
//	go test ./STAGE -run TestTranscript -rewrite
//
// after which every changed line must be read and checked against the
// history by hand: the transcript is the specification.
//
// Transactions are named by their ids in the history (T<index> where they
// have none), the initial transaction "init"; lists of edges are sorted by
// their nodes in history order, then kind and key, so that the output does
// not depend on the order a stage happens to find them in.
package stagetest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/isocheck/isocheck/encode"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/historytest"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/prune"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/verdict"
)

// Run runs every transcript file of the package's testdata folder with f,
// each as a subtest named after its file. f gets the case's history (its
// input, or the previous case's when it has none) and returns the output.
func Run(t *testing.T, f func(t *testing.T, td *datadriven.TestData, h *history.History) string) {
	t.Helper()
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var last *history.History
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			if strings.TrimSpace(td.Input) != "" {
				last = historytest.JSONL(t, td.Input)
			}
			if last == nil {
				td.Fatalf(t, "%s: no history given, in this case or one before it", td.Cmd)
			}
			return f(t, td, last)
		})
	})
}

// Level returns the level the command names with level=..., or def when
// it names none.
func Level(t testing.TB, td *datadriven.TestData, def level.Level) level.Level {
	t.Helper()
	var s string
	if !td.MaybeScanArgs(t, "level", &s) {
		return def
	}
	l, err := level.Parse(s)
	if err != nil {
		td.Fatalf(t, "%v", err)
	}
	return l
}

// Build builds the polygraph of h for the command's level (SER when it
// names none), as the checker does with its option NoWitness: the
// constraints are built even where a guess of a version order would
// settle the level. The command's arguments change that: allpairs makes a
// constraint for every pair of write chains (polygraph.Options.AllPairs,
// PolySI's polygraph), witness lets the build guess a witness (the
// checker's default).
func Build(t testing.TB, td *datadriven.TestData, h *history.History) *polygraph.Polygraph {
	t.Helper()
	witness := td.HasArg("witness")
	opts := polygraph.Options{
		Level:     Level(t, td, level.SER),
		AllPairs:  td.HasArg("allpairs"),
		NoWitness: !witness,
		NoRelax:   !witness,
	}
	p, err := polygraph.Build(context.Background(), h, opts)
	if err != nil {
		td.Fatalf(t, "building the polygraph: %v", err)
	}
	return p
}

// Unknown fails the test for a command the test does not know.
func Unknown(t testing.TB, td *datadriven.TestData) string {
	t.Helper()
	td.Fatalf(t, "unknown command %q", td.Cmd)
	return ""
}

// Namer names the nodes of a history's graphs: transactions by their ids,
// node len(h.Txns) "init", and the nodes a polygraph adds (time nodes) as
// the polygraph names them. A lowered graph's second copy of node v (SI's
// v°, see polygraph.Lowering) is named after v with a "°".
type Namer struct {
	H *history.History
	// P, when not nil, names the nodes beyond the transactions and init.
	P *polygraph.Polygraph
}

// NewNamer returns the namer of p's nodes.
func NewNamer(p *polygraph.Polygraph) Namer { return Namer{H: p.History, P: p} }

// Node names node u.
func (n Namer) Node(u int32) string {
	nt := int32(len(n.H.Txns))
	if n.P != nil && n.P.NumNodes > 0 && u >= int32(n.P.NumNodes) {
		return n.Node(u-int32(n.P.NumNodes)) + "°"
	}
	switch {
	case u >= 0 && u < nt:
		return n.H.Name(int(u))
	case u == nt:
		return "init"
	case u < 0:
		return "none"
	case n.P != nil:
		return n.P.NodeName(u)
	}
	return fmt.Sprintf("node %d", u)
}

// Nodes names the nodes of us, in history order, comma-separated.
func (n Namer) Nodes(us []int32) string {
	us = slices.Clone(us)
	slices.Sort(us)
	names := make([]string, len(us))
	for i, u := range us {
		names[i] = n.Node(u)
	}
	return strings.Join(names, ", ")
}

// Edge prints e as "T1 -WR(x)-> T2", or "T1 -SO-> T2" for an edge of no
// key.
func (n Namer) Edge(e polygraph.Edge) string {
	return fmt.Sprintf("%s -%s-> %s", n.Node(e.From), n.Label(e), n.Node(e.To))
}

// Label is an edge's kind and key: "WR(x)", or "SO".
func (n Namer) Label(e polygraph.Edge) string {
	if e.Key == polygraph.NoKey {
		return e.Kind.String()
	}
	return fmt.Sprintf("%s(%s)", e.Kind, n.H.FormatKey(e.Key))
}

// SortEdges sorts edges in place by their nodes, kinds and keys.
func SortEdges(edges []polygraph.Edge) {
	slices.SortFunc(edges, func(a, b polygraph.Edge) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To),
			cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Key, b.Key))
	})
}

// Edges writes each edge of edges on a line of its own, indented, sorted
// (a copy: edges is left as it is).
func (n Namer) Edges(b *strings.Builder, indent string, edges []polygraph.Edge) {
	edges = slices.Clone(edges)
	SortEdges(edges)
	for _, e := range edges {
		fmt.Fprintf(b, "%s%s\n", indent, n.Edge(e))
	}
}

// EdgeList prints edges sorted, separated by commas.
func (n Namer) EdgeList(edges []polygraph.Edge) string {
	edges = slices.Clone(edges)
	SortEdges(edges)
	parts := make([]string, len(edges))
	for i, e := range edges {
		parts[i] = n.Edge(e)
	}
	return strings.Join(parts, ", ")
}

// Cycle prints a cycle (or path) as its steps in the order given:
// "T1 -WR(x)-> T2 -RW(y)-> T1". Where a step does not start where the one
// before ended, it says so with " | ".
func (n Namer) Cycle(edges []polygraph.Edge) string {
	if len(edges) == 0 {
		return "(empty)"
	}
	var b strings.Builder
	b.WriteString(n.Node(edges[0].From))
	for i, e := range edges {
		if i > 0 && edges[i-1].To != e.From {
			fmt.Fprintf(&b, " | %s", n.Node(e.From))
		}
		fmt.Fprintf(&b, " -%s-> %s", n.Label(e), n.Node(e.To))
	}
	return b.String()
}

// Constraint prints c: its key and chains, then its two sides.
func (n Namer) Constraint(c polygraph.Constraint) string {
	return fmt.Sprintf("%s: %s before %s {%s} or %s before %s {%s}",
		n.H.FormatKey(c.Key), n.Node(c.A), n.Node(c.B), n.EdgeList(c.Either),
		n.Node(c.B), n.Node(c.A), n.EdgeList(c.Or))
}

// TxnOf returns the transaction of operation op.
func TxnOf(h *history.History, op int32) int32 {
	i, _ := slices.BinarySearchFunc(h.Txns, op, func(t history.Txn, op int32) int {
		switch {
		case op < t.OpStart:
			return 1
		case op >= t.OpEnd:
			return -1
		}
		return 0
	})
	return int32(i)
}

// Op prints operation op as "r(x)=1", with its list for a list read.
func Op(h *history.History, op int32) string {
	o := h.Ops[op]
	if h.Lists && o.Kind == history.Read {
		vals := h.ListOf(op)
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = h.FormatValue(v)
		}
		return fmt.Sprintf("r(%s)=[%s]", h.FormatKey(o.Key), strings.Join(parts, " "))
	}
	kind := o.Kind.String()
	if h.Lists {
		kind = "a"
	}
	return fmt.Sprintf("%s(%s)=%s", kind, h.FormatKey(o.Key), h.FormatValue(o.Value))
}

// TxnOp prints operation op with its transaction: "T2 r(x)=1".
func (n Namer) TxnOp(op int32) string {
	return n.Node(TxnOf(n.H, op)) + " " + Op(n.H, op)
}

// Anomaly prints a: its kind, the read and what it read from; a lost
// update (which sets Txn, Writer, OtherTxn and Key only) as the two
// transactions that overwrote the same version.
func (n Namer) Anomaly(a resolve.Anomaly) string {
	if a.Kind == verdict.LostUpdate {
		return fmt.Sprintf("%s: %s and %s both overwrote %s's version of %s",
			a.Kind, n.Node(a.OtherTxn), n.Node(a.Txn), n.Node(a.Writer), n.H.FormatKey(a.Key))
	}
	var b strings.Builder
	b.WriteString(a.Kind.String())
	b.WriteString(": ")
	if a.Op >= 0 {
		b.WriteString(n.TxnOp(a.Op))
	} else {
		fmt.Fprintf(&b, "%s=%s", n.H.FormatKey(a.Key), n.H.FormatValue(a.Value))
	}
	if a.Writer >= 0 {
		fmt.Fprintf(&b, ", writer %s", n.Node(a.Writer))
	}
	if a.OtherOp >= 0 {
		fmt.Fprintf(&b, ", other %s", n.TxnOp(a.OtherOp))
	}
	return b.String()
}

// Anomalies writes each anomaly on a line of its own, indented, in the
// order given (a stage's anomalies come in history order).
func (n Namer) Anomalies(b *strings.Builder, indent string, as []resolve.Anomaly) {
	for _, a := range as {
		fmt.Fprintf(b, "%s%s\n", indent, n.Anomaly(a))
	}
}

// Encoded is a polygraph built (by Build), pruned and encoded as the
// checker does it, for the transcripts of the encoding and the solver.
type Encoded struct {
	P *polygraph.Polygraph
	// Known counts the polygraph's known edges before pruning.
	Known int
	Prune *prune.Result
	// Enc is the problem for the solver: nil when the check ends before
	// it (Stop says why).
	Enc *encode.Encoding
	// Stop, when Enc is nil, says why nothing was encoded: the anomalies,
	// or the violation pruning proved, or that pruning decided every
	// constraint.
	Stop string
}

// Encode builds the polygraph of h for the command (see Build), prunes it
// and encodes what is left, with the choices of writers of a history
// whose values repeat (encode.Encoding.AddChoices, with no preferred
// writer: the hint takes none). It stops where the checker does: on
// anomalies, on a violation pruning proved, and when no constraint and no
// choice is left. The argument noprune has pruning only check that the
// known edges are acyclic (prune.Options.NoDecide, the checker's NoPrune),
// so that every constraint goes to the solver.
func Encode(t testing.TB, td *datadriven.TestData, h *history.History) *Encoded {
	t.Helper()
	ctx := context.Background()
	p := Build(t, td, h)
	n := NewNamer(p)
	e := &Encoded{P: p, Known: len(p.Known)}
	var b strings.Builder
	if len(p.Anomalies) > 0 {
		b.WriteString("anomalies, nothing to encode:\n")
		n.Anomalies(&b, "  ", p.Anomalies)
		e.Stop = b.String()
		return e
	}
	pr, err := prune.PruneWith(ctx, p, prune.Options{NoDecide: td.HasArg("noprune")})
	if err != nil {
		td.Fatalf(t, "prune: %v", err)
	}
	e.Prune = pr
	switch v := pr.Violation; {
	case v != nil && v.Constraint < 0:
		fmt.Fprintf(&b, "pruning found a cycle of known edges, nothing to encode:\n  %s\n", n.Cycle(v.Cycle))
	case v != nil:
		fmt.Fprintf(&b, "pruning found both sides of c%d close a cycle, nothing to encode:\n  either: %s\n  or: %s\n",
			v.Constraint, n.Cycle(v.EitherCycle), n.Cycle(v.OrCycle))
	case len(pr.Remaining) == 0 && len(p.ChoiceEdges) == 0:
		b.WriteString("no constraint or choice left after pruning: satisfied without the solver\n")
	}
	if b.Len() > 0 {
		e.Stop = b.String()
		return e
	}
	enc, err := encode.EncodeGraph(ctx, p, pr.Known, pr.Remaining, pr.Graph, pr.Order)
	if err != nil {
		td.Fatalf(t, "encode: %v", err)
	}
	enc.AddChoices(p, pr.Resolved, nil)
	e.Enc = enc
	return e
}
