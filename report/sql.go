package report

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/sqlcheck"
)

// maxTxnOps is how many statements a transaction of a SQL counterexample
// lists in full before the page keeps only those the violation rests on.
const maxTxnOps = 20

// FromSQL is the anomaly a SQL check found: named as Explain names it,
// with the counterexample drawn, the transactions the picture shows with
// their statements (the rows that matter marked), and every dependency
// with its reason. It returns the zero Anomaly when r found no violation.
func FromSQL(r *sqlcheck.Result) Anomaly {
	if r == nil {
		return Anomaly{}
	}
	rep := sqlcheck.Explain(r).Anomaly
	if rep == nil {
		return Anomaly{}
	}
	a := fromFinding(rep.Level, rep.Finding)
	a.Graph = r.Graph()
	h := r.History
	for _, t := range r.Shown() {
		txn := &h.Txns[t]
		tr := rep.Transactions[t]
		row := Txn{Name: tr.Name, Session: string(tr.Session), Position: slices.Index(h.Sessions[txn.Session], t) + 1,
			Status: tr.Status, Where: where(h.File, txn.Line)}
		for _, l := range r.Statements(t) {
			if len(txn.Events) > maxTxnOps && !marked(l) {
				row.OmittedOps++
				continue
			}
			row.Ops = append(row.Ops, l)
		}
		a.Txns = append(a.Txns, row)
	}
	for _, d := range r.Dependencies() {
		a.Edges = append(a.Edges, Edge{From: h.TxnName(d.From), To: h.TxnName(d.To), Kind: d.Kind, Key: d.Key,
			Reason: d.Why, Because: strings.Join(d.Because, "; "), Assumed: d.Assumed})
	}
	return a
}

// where is a transaction's place in its input: "file.jsonl:3", or "" when
// its line is not known.
func where(file string, line int) string {
	switch {
	case line <= 0:
		return ""
	case file == "":
		return fmt.Sprintf("line %d", line)
	}
	return fmt.Sprintf("%s:%d", filepath.Base(file), line)
}

// marked reports whether l has a marked span.
func marked(l draw.Line) bool {
	return slices.ContainsFunc(l, func(s draw.Span) bool { return s.Mark })
}
