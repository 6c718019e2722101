package report

import (
	"fmt"

	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/lwt"
)

// What a report calls a history of registers that is not linearizable.
const (
	// Linearizability is the Level of an Anomaly of lwt.
	Linearizability = lwt.Model
	// NotLinearizable is its Name.
	NotLinearizable = "NotLinearizable"
	notLinearizable = "not linearizable: no order of the operations on a register both fits real time (each takes effect between its call and its return) and explains every value read and every compare-and-set's outcome"
)

// FromLWT is the violation a linearizability check of ops found: its
// reason, the history drawn as a timeline, and as rows the operation
// that cannot be linearized followed by the operations the reason names,
// each with its process and its place. It returns the zero Anomaly when
// r found no violation.
func FromLWT(r *lwt.Result, ops []lwt.Op) Anomaly {
	v := r.Violation
	if v == nil || v.Op < 0 || v.Op >= len(ops) {
		return Anomaly{}
	}
	a := Anomaly{Level: Linearizability, Name: NotLinearizable, Description: notLinearizable,
		Summary: v.Reason, Timeline: r.Timeline(ops),
		Shown: "The operations listed are the one that cannot take effect and those its reason names; the timeline shows their register's operations around them."}
	for _, i := range append([]int{v.Op}, v.Related...) {
		if i < 0 || i >= len(ops) {
			continue
		}
		a.Txns = append(a.Txns, opRow(ops, i, i == v.Op))
	}
	return a
}

// opRow is operation i of ops as a row of a counterexample: named by the
// line it was read from (or, without one, its place among ops, from 1),
// placed by its process and its rank among that process's operations by
// call.
func opRow(ops []lwt.Op, i int, violating bool) Txn {
	o := ops[i]
	pos := 1
	for j, p := range ops {
		if j != i && p.Process == o.Process && (p.Call < o.Call || p.Call == o.Call && j < i) {
			pos++
		}
	}
	name := fmt.Sprintf("op %d", i+1)
	if o.Line > 0 {
		name = fmt.Sprintf("line %d", o.Line)
	}
	row := Txn{Name: name, Session: fmt.Sprintf("process %d", o.Process), Position: pos,
		Status: o.Outcome.String(), Ops: []draw.Line{{{Text: o.String(), Mark: violating}}}}
	if o.Process < 0 {
		row.Session = "process unknown"
	}
	if o.Line > 0 {
		row.Where = fmt.Sprintf("line %d", o.Line)
	}
	return row
}
