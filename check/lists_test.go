package check_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

// listHistory builds a list history from lines "session status: ops",
// ops separated by commas: "a x 1" appends 1 to x, "r x 1 2" reads the
// list [1 2] ("r x" the empty list). status is c (committed), a
// (aborted) or u (unknown).
func listHistory(t *testing.T, lines ...string) *history.History {
	t.Helper()
	b := history.NewBuilder(history.Null)
	for i, line := range lines {
		head, body, ok := strings.Cut(line, ":")
		f := strings.Fields(head)
		if !ok || len(f) != 2 {
			t.Fatalf("bad line %q", line)
		}
		tx := history.Txn{ID: fmt.Sprintf("T%d", i+1), Session: b.Session(f[0]), Start: history.NoTime, End: history.NoTime}
		switch f[1] {
		case "a":
			tx.Status = history.Aborted
		case "u":
			tx.Status = history.Unknown
		}
		var ops []history.Op
		var lists [][]history.Value
		for _, o := range strings.Split(body, ",") {
			w := strings.Fields(o)
			op := history.Op{Key: b.Key(w[1])}
			var list []history.Value
			for _, v := range w[2:] {
				n, err := strconv.Atoi(v)
				if err != nil {
					t.Fatalf("bad value in %q", line)
				}
				list = append(list, history.Value(n))
			}
			if w[0] == "a" {
				op.Kind, op.Value = history.Write, list[0]
				list = nil
			}
			ops = append(ops, op)
			lists = append(lists, list)
		}
		b.AddListTxn(tx, ops, lists)
	}
	return b.History()
}

// TestLists checks hand-made list histories, one per way lists can go
// wrong, at every level: the verdict, and the anomaly found without a
// cycle where there is one.
func TestLists(t *testing.T) {
	ser := []level.Level{level.SSER, level.SER, level.SI, level.PC, level.CC, level.RA, level.RC}
	tests := []struct {
		name    string
		lines   []string
		violate []level.Level // the levels the history violates
		anomaly verdict.Anomaly
	}{
		{name: "appends read in order", lines: []string{
			"p c: a x 1", "q c: r x 1, a x 2", "p c: r x 1 2"}},
		{name: "incompatible orders", lines: []string{
			"p c: a x 1", "q c: a x 2", "p c: r x 1 2", "q c: r x 2 1"},
			violate: ser, anomaly: verdict.IncompatibleOrder},
		{name: "duplicate elements", lines: []string{
			"p c: a x 1", "q c: r x 1 1"},
			violate: ser, anomaly: verdict.DuplicateElements},
		{name: "element nobody appended", lines: []string{
			"p c: a x 1", "q c: r x 7 1"},
			violate: ser, anomaly: verdict.ThinAirRead},
		{name: "element of an aborted append", lines: []string{
			"p a: a x 1", "q c: a x 2", "r c: r x 1 2"},
			violate: ser, anomaly: verdict.AbortedRead},
		{name: "intermediate list", lines: []string{
			"p c: a x 1, a x 2", "q c: r x 1"},
			violate: ser, anomaly: verdict.IntermediateRead},
		{name: "appends of two transactions interleaved", lines: []string{
			"p c: a x 1, a x 3", "q c: a x 2", "r c: r x 1 2 3"},
			violate: ser, anomaly: verdict.SplitAppends},
		{name: "a transaction's appends swapped", lines: []string{
			"p c: a x 1, a x 2", "q c: r x 2 1"},
			violate: ser, anomaly: verdict.SplitAppends},
		{name: "read after own append misses it", lines: []string{
			"p c: a x 1", "q c: a x 2, r x 1"},
			violate: ser, anomaly: verdict.NotMyOwnWrite},
		{name: "read after own append shows the order", lines: []string{
			"p c: a x 1", "q c: a x 2, r x 1 2", "r c: r x 1 2"}},
		{name: "unknown append read is committed", lines: []string{
			"p u: a x 1", "q c: r x 1"}},
		{name: "unknown append in the middle of a list", lines: []string{
			"p u: a x 1", "q c: a x 2", "r c: r x 1 2"}},
		{name: "unknown append never read", lines: []string{
			"p u: a x 1", "q c: r x"}},
		{
			// Lost update: both read [1] and appended, so one of them
			// overwrote a version it never saw. The list shows which.
			name: "lost update shown by the list", lines: []string{
				"p c: a x 1", "q c: r x 1, a x 2", "r c: r x 1, a x 3", "p c: r x 1 2 3"},
			violate: []level.Level{level.SSER, level.SER, level.SI}, anomaly: verdict.LostUpdate,
		},
		{
			// The order [1 2] puts T2 first; T1 read T2's version before
			// appending, which no order of appends explains (G1c).
			name: "read from a later version", lines: []string{
				"p c: r x 2, a x 1", "q c: a x 2", "r c: r x 1 2"},
			violate: ser,
		},
		{
			// Long fork made visible by lists: each reader sees one
			// append and not the other, on two keys.
			name: "long fork", lines: []string{
				"p c: a x 1", "q c: a y 1", "r c: r x 1, r y", "s c: r y 1, r x"},
			violate: []level.Level{level.SSER, level.SER, level.SI, level.PC},
		},
		{
			// Write skew on lists: each read the other's key empty, then
			// appended; lists show each other's appends later.
			name: "write skew", lines: []string{
				"p c: r x, a y 1", "q c: r y, a x 1", "r c: r x 1, r y 1"},
			violate: []level.Level{level.SSER, level.SER},
		},
		{
			// Fractured read: a reader sees one of a transaction's appends
			// but not the other, then the lists show both. RC is broken
			// too: after seeing x=[1], seeing y empty goes back (the RC of
			// Biswas and Enea, "On the Complexity of Checking Transactional
			// Consistency" (OOPSLA 2019)).
			name: "fractured read", lines: []string{
				"p c: a x 1, a y 1", "q c: r x 1, r y", "r c: r y 1"},
			violate: ser,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := listHistory(t, tc.lines...)
			for _, l := range ser {
				res, err := check.Check(context.Background(), h, l)
				if err != nil {
					t.Fatalf("%v: %v", l, err)
				}
				want := verdict.Satisfied
				for _, v := range tc.violate {
					if v == l {
						want = verdict.Violated
					}
				}
				if res.Verdict != want {
					t.Errorf("%v: %v, want %v (anomalies %v, cycle %v)", l, res.Verdict, want, res.Anomalies, res.Cycle)
					continue
				}
				if want == verdict.Violated && tc.anomaly != 0 && l != level.PC {
					found := false
					for _, a := range res.Anomalies {
						found = found || a.Kind == tc.anomaly
					}
					if !found {
						t.Errorf("%v: anomalies %v, want one %v", l, res.Anomalies, tc.anomaly)
					}
				}
			}
		})
	}
}
