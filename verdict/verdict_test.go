package verdict

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestZeroIsNoPass(t *testing.T) {
	var o Outcome
	if o.Verdict != Unknown || o.OK() || o.Summary().Satisfied != nil {
		t.Fatalf("the zero Outcome reads %v (OK %v, satisfied %v): want no verdict", o.Verdict, o.OK(), o.Summary().Satisfied)
	}
}

func TestString(t *testing.T) {
	for _, c := range []struct {
		o    Outcome
		want string
	}{
		{Outcome{}, "no verdict"},
		{Outcome{Reason: "timed out"}, "no verdict: timed out"},
		{Outcome{Verdict: Satisfied}, "satisfied"},
		{Outcome{Verdict: Violated}, "violated"},
		{Outcome{Verdict: Verdict(9)}, "no verdict"},
	} {
		if got := c.o.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.o, got, c.want)
		}
	}
}

// TestSummaryJSON: the bytes every JSON report prints for an outcome.
func TestSummaryJSON(t *testing.T) {
	for _, c := range []struct {
		o    Outcome
		want string
	}{
		{Outcome{Verdict: Satisfied}, `{"satisfied":true,"verdict":"satisfied"}`},
		{Outcome{Verdict: Violated}, `{"satisfied":false,"verdict":"violated"}`},
		{Outcome{Reason: "timed out", Stage: "solve", Stopped: true}, `{"satisfied":null,"verdict":"no verdict","reason":"timed out"}`},
	} {
		b, err := json.Marshal(c.o.Summary())
		if err != nil || string(b) != c.want {
			t.Errorf("%+v: %s, %v; want %s", c.o, b, err, c.want)
		}
	}
}

// Every edge kind has a short name of its own, the one text, JSON and
// pictures print.
func TestEdgeKindNames(t *testing.T) {
	seen := map[string]EdgeKind{}
	for k := SO; k <= Supposed; k++ {
		name := k.String()
		if prev, dup := seen[name]; dup || name == "" || strings.HasPrefix(name, "EdgeKind(") {
			t.Errorf("%d is named %q (as %d is)", k, name, prev)
		}
		seen[name] = k
	}
	if got := (Supposed + 1).String(); got != "EdgeKind(7)" {
		t.Errorf("an unknown kind is named %q", got)
	}
}
