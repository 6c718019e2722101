package shrink

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/historytest"
	"github.com/isocheck/isocheck/level"
)

// TestSub checks that a sub-history keeps names, sessions, statuses and
// times, and drops exactly the reads of writes left out.
func TestSub(t *testing.T) {
	h := historytest.JSONL(t, `
{"session": "a", "id": "T1", "ops": [["w", "x", 1], ["w", "y", 1]], "start": 1, "end": 2}
{"session": "b", "id": "T2", "status": "unknown", "ops": [["r", "x", 1], ["r", "y", null], ["w", "y", 2], ["r", "y", 2]]}
{"session": "a", "id": "T3", "ops": [["r", "y", 2], ["r", "z", 9]]}`)
	s := NewSubject(h)
	tests := []struct {
		name string
		sel  Selection
		want string
	}{
		{"all", Selection{Txns: []int32{0, 1, 2}}, histgen.Describe(h)},
		{"without T1", Selection{Txns: []int32{1, 2}}, "init=null\nsb T2 unknown: r(y)=null w(y)=2 r(y)=2\nsa T3 committed: r(y)=2 r(z)=9\n"},
		{"without T2", Selection{Txns: []int32{0, 2}}, "init=null\nsa T1 committed [1,2]: w(x)=1 w(y)=1\nsa T3 committed: r(z)=9\n"},
		{"T2's write dropped", Selection{Txns: []int32{1, 2}, DropOps: map[int32]bool{4: true}}, "init=null\nsb T2 unknown: r(y)=null\nsa T3 committed: r(z)=9\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := histgen.Describe(s.Sub(tt.sel)); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestReduce checks that reduce finds a 1-minimal subset.
func TestReduce(t *testing.T) {
	items := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	// Holds while 3 and 7 are both kept, or 5 is.
	test := func(s []int32) bool {
		return slices.Contains(s, 3) && slices.Contains(s, 7) || slices.Contains(s, 5)
	}
	got := reduce(items, test, nil)
	if !test(got) {
		t.Fatalf("reduce returned %v, which fails the test", got)
	}
	for i := range got {
		if test(append(slices.Clone(got[:i]), got[i+1:]...)) {
			t.Errorf("%v is not 1-minimal: %d can go", got, got[i])
		}
	}
}

// TestMinimize shrinks a lost update hidden among unrelated transactions.
func TestMinimize(t *testing.T) {
	h := historytest.JSONL(t, `
{"session": 1, "id": "A", "ops": [["w", "x", 1], ["w", "q", 1]]}
{"session": 2, "id": "B", "ops": [["r", "q", 1], ["w", "z", 1]]}
{"session": 1, "id": "C", "ops": [["r", "x", 1], ["r", "z", null], ["w", "x", 2]]}
{"session": 3, "id": "D", "ops": [["r", "x", 1], ["w", "x", 3]]}
{"session": 3, "id": "E", "ops": [["r", "z", 1]]}`)
	sel, s, ok := Minimize(context.Background(), h, level.SI, []int32{2, 3}, []history.Key{0})
	if !ok {
		t.Fatal("no violation found")
	}
	got := histgen.Describe(s.Sub(sel))
	want := "init=null\ns1 A committed: w(x)=1\ns1 C committed: r(x)=1 w(x)=2\ns3 D committed: r(x)=1 w(x)=3\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestMinimizeStopped: on a context that has ended, Minimize makes no
// check and says it found no violation.
func TestMinimizeStopped(t *testing.T) {
	h := historytest.JSONL(t, `
{"session": "a", "id": "T1", "ops": [["w", "x", 1]]}
{"session": "b", "id": "T2", "ops": [["r", "x", 7]]}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if sel, _, ok := Minimize(ctx, h, level.SER, []int32{1}, nil); ok || len(sel.Txns) != 0 {
		t.Errorf("Minimize on a cancelled context: %v, %v", sel, ok)
	}
	if _, _, ok := Minimize(context.Background(), h, level.SER, []int32{1}, nil); !ok {
		t.Errorf("Minimize found no violation")
	}
}

// TestMinimizeCutShort: a Minimize whose context ends on the way returns
// promptly what it has, a violating selection, and says it was cut
// short: not minimal. One that runs to the end says it was not.
func TestMinimizeCutShort(t *testing.T) {
	h := historytest.JSONL(t, `
{"session": 1, "id": "A", "ops": [["w", "x", 1], ["w", "q", 1]]}
{"session": 2, "id": "B", "ops": [["r", "q", 1], ["w", "z", 1]]}
{"session": 1, "id": "C", "ops": [["r", "x", 1], ["r", "z", null], ["w", "x", 2]]}
{"session": 3, "id": "D", "ops": [["r", "x", 1], ["w", "x", 3]]}
{"session": 3, "id": "E", "ops": [["r", "z", 1]]}`)
	all := []int32{0, 1, 2, 3, 4}
	if _, s, ok := Minimize(context.Background(), h, level.SI, all, nil); !ok || s.CutShort() {
		t.Fatalf("Minimize to the end: ok %v, cut short %v", ok, s.CutShort())
	}
	// The context ends after the first check, which found the region.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	checks := 0
	keep := func(sub *history.History) bool {
		checks++
		if checks == 1 {
			defer cancel()
		}
		return Violates(ctx, level.SI)(sub)
	}
	sel, s, ok := MinimizeWith(ctx, h, level.SI, all, nil, keep)
	if !ok || !s.CutShort() {
		t.Fatalf("Minimize stopped after a check: ok %v, cut short %v", ok, s.CutShort())
	}
	if checks > 2 {
		t.Errorf("%d checks after the context ended, want at most one", checks-1)
	}
	if !Violates(context.Background(), level.SI)(s.Sub(sel)) {
		t.Errorf("the selection of a cut short Minimize does not violate SI: %v", sel)
	}

	// An ended context: no check, no selection, cut short.
	ctx, cancel = context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	if sel, s, ok := Minimize(ctx, h, level.SI, all, nil); ok || len(sel.Txns) != 0 || !s.CutShort() {
		t.Errorf("Minimize past its deadline: %v, ok %v, cut short %v", sel, ok, s.CutShort())
	}
}

// TestSubRepeated checks the rule for reads of a value several
// transactions wrote: Sub keeps a read while one of its writers stays,
// and Closed leaves it out once any of them goes.
func TestSubRepeated(t *testing.T) {
	h := historytest.JSONL(t, `
{"session": "a", "id": "T1", "ops": [["w", "x", 1], ["w", "y", 5]]}
{"session": "b", "id": "T2", "ops": [["w", "x", 1]]}
{"session": "c", "id": "T3", "ops": [["r", "x", 1], ["r", "y", 5], ["r", "z", null]]}`)
	s := NewSubject(h)
	tests := []struct {
		name        string
		txns        []int32
		sub, closed string
	}{
		{"all", []int32{0, 1, 2}, histgen.Describe(h), histgen.Describe(h)},
		{"without T1", []int32{1, 2},
			"init=null\nsb T2 committed: w(x)=1\nsc T3 committed: r(x)=1 r(z)=null\n",
			"init=null\nsb T2 committed: w(x)=1\nsc T3 committed: r(z)=null\n"},
		{"without T2", []int32{0, 2},
			"init=null\nsa T1 committed: w(x)=1 w(y)=5\nsc T3 committed: r(x)=1 r(y)=5 r(z)=null\n",
			"init=null\nsa T1 committed: w(x)=1 w(y)=5\nsc T3 committed: r(y)=5 r(z)=null\n"},
		{"reader alone", []int32{2},
			"init=null\nsc T3 committed: r(z)=null\n",
			"init=null\nsc T3 committed: r(z)=null\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel := Selection{Txns: tt.txns}
			if got := histgen.Describe(s.Sub(sel)); got != tt.sub {
				t.Errorf("Sub: got\n%s\nwant\n%s", got, tt.sub)
			}
			if got := histgen.Describe(s.Sub(s.Closed(sel))); got != tt.closed {
				t.Errorf("Sub of Closed: got\n%s\nwant\n%s", got, tt.closed)
			}
		})
	}
}

// TestMinimality checks Minimality on a fractured read whose value two
// transactions wrote: each writer is kept for the choice, and without
// either the rest still violates read atomic.
func TestMinimality(t *testing.T) {
	h := historytest.JSONL(t, `
{"session": "a", "id": "T1", "ops": [["w", "s", 1], ["w", "i", 1]]}
{"session": "b", "id": "T2", "ops": [["w", "s", 1], ["w", "r", 1]]}
{"session": "c", "id": "T3", "ops": [["r", "s", 1], ["r", "i", null], ["r", "r", null]]}
{"session": "d", "id": "T4", "ops": [["w", "i", 2]]}`)
	s := NewSubject(h)
	ctx := context.Background()
	tests := []struct {
		name      string
		txns      []int32
		violates  bool
		removable []int32
		choices   bool
	}{
		{"writers kept for the choice", []int32{0, 1, 2}, true, []int32{0, 1}, true},
		{"one more", []int32{0, 1, 2, 3}, true, []int32{0, 1, 3}, false},
		{"one writer", []int32{1, 2}, false, nil, false},
		{"no violation", []int32{0, 3}, false, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := s.Minimality(ctx, tt.txns, level.RA)
			if err != nil {
				t.Fatal(err)
			}
			var removable []int32
			for _, r := range m.Removable {
				removable = append(removable, r.Txn)
			}
			if m.Violates != tt.violates || !slices.Equal(removable, tt.removable) || m.ForChoices() != tt.choices {
				t.Errorf("got violates %v, removable %v, for choices %v; want %v, %v, %v", m.Violates, removable, m.ForChoices(), tt.violates, tt.removable, tt.choices)
			}
			if m.Minimal() {
				t.Errorf("called minimal")
			}
		})
	}
}
