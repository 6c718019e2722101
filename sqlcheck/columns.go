package sqlcheck

import (
	"fmt"
	"strings"

	"github.com/isocheck/isocheck/sqlhistory"
)

// Validate reports a WHERE clause that names a column no row of its table
// has anywhere in h (in the initial state or in any version written): a
// typo, which would otherwise read as NULL on every row and let the
// predicate select nothing. A table no row of which appears is not
// checked. The error is a *sqlhistory.InputError with
// the transaction's line.
func Validate(h *sqlhistory.History) error {
	columns := map[string]map[string]bool{} // table → columns some row has
	for i := range h.Versions {
		v := &h.Versions[i]
		table := h.Keys[v.Key].Table
		if columns[table] == nil {
			columns[table] = map[string]bool{}
		}
		for c := range v.Row {
			columns[table][c] = true
		}
	}
	for ti := range h.Txns {
		t := &h.Txns[ti]
		for ei := range t.Events {
			e := &t.Events[ei]
			if columns[e.Table] == nil {
				continue // no row to tell a column from a typo
			}
			var unknown []string
			for _, c := range e.Where.Columns() {
				if !columns[e.Table][c] {
					unknown = append(unknown, c)
				}
			}
			if len(unknown) == 0 {
				continue
			}
			return &sqlhistory.InputError{File: h.File, Line: t.Line, Msg: fmt.Sprintf(
				"transaction %q, event %d: WHERE %s names %s, which no row of table %q has anywhere in the history",
				t.Name, ei+1, e.Where, columnList(unknown), e.Table)}
		}
	}
	return nil
}

// columnList names columns: "column x" or "columns x, y".
func columnList(cs []string) string {
	if len(cs) == 1 {
		return "column " + cs[0]
	}
	return "columns " + strings.Join(cs, ", ")
}
