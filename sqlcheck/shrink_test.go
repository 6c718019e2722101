package sqlcheck

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/verdict"
)

// checkUnbudgeted is Check but for the time shrinking may take: shrink's
// budget (shrinkBudget) is wall-clock time, which a loaded machine can use
// up before a counterexample is minimal, and then a test that wants the
// minimal one would fail for want of speed. Here the budget only turns a
// hang into a failure.
func checkUnbudgeted(t testing.TB, h *sqlhistory.History, opts Options) *Result {
	t.Helper()
	noShrink := opts
	noShrink.NoShrink = true
	res, err := CheckWith(context.Background(), h, noShrink)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict == verdict.Violated && !opts.NoShrink {
		shrinkWithin(context.Background(), h, opts, res, 10*time.Minute)
		res.Shrunk = true
	}
	return res
}

// TestShrinkPhantomPairs: of 150 phantom write skews, shrinking finds the
// first, two transactions, and the same counterexample on every run,
// however many threads run it.
func TestShrinkPhantomPairs(t *testing.T) {
	h := phantomHistory(t, 150, 0)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var first *Result
	for run, procs := range []int{1, 2, 4, 1, 8, 2} {
		runtime.GOMAXPROCS(procs)
		res := checkUnbudgeted(t, h, Options{})
		if res.Verdict != verdict.Violated {
			t.Fatalf("run %d: %v, want violated", run, res.Verdict)
		}
		var names []string
		for _, i := range res.Txns {
			names = append(names, h.TxnName(i))
		}
		if !slices.Equal(names, []string{"A0", "B0"}) {
			t.Fatalf("run %d (GOMAXPROCS %d): counterexample %v, want [A0 B0]", run, procs, names)
		}
		if res.ShrinkStopped != 0 {
			t.Errorf("run %d: shrinking stopped after %v", run, res.ShrinkStopped)
		}
		if run == 0 {
			first = res
		} else if !reflect.DeepEqual(res.Cycle, first.Cycle) || !reflect.DeepEqual(res.Missed, first.Missed) ||
			res.NoOrder != first.NoOrder || !reflect.DeepEqual(res.Either, first.Either) {
			t.Errorf("run %d (GOMAXPROCS %d): evidence differs from the first run's", run, procs)
		}
	}
}

// TestShrinkSaysWhenCutShort: a budget that ends before shrinking does
// leaves a counterexample that still violates, and says so.
func TestShrinkSaysWhenCutShort(t *testing.T) {
	h := phantomHistory(t, 20, 0)
	res, err := CheckWith(context.Background(), h, Options{NoShrink: true})
	if err != nil {
		t.Fatal(err)
	}
	shrinkWithin(context.Background(), h, Options{}, res, time.Nanosecond)
	if res.Verdict != verdict.Violated {
		t.Fatalf("%v, want violated", res.Verdict)
	}
	if res.ShrinkStopped == 0 {
		t.Errorf("shrinking was cut short, but the result does not say so (%d transactions)", len(res.Txns))
	}
	if len(res.Txns) <= 2 {
		t.Errorf("%d transactions left: the budget did not cut anything short", len(res.Txns))
	}
}

// BenchmarkShrinkPhantomPairs times the check and shrinking of 150
// phantom write skews among 300 transactions.
func BenchmarkShrinkPhantomPairs(b *testing.B) {
	h := phantomHistory(b, 150, 0)
	for b.Loop() {
		res, err := Check(context.Background(), h)
		if err != nil || len(res.Txns) != 2 {
			b.Fatalf("%v: %d transactions", err, len(res.Txns))
		}
	}
}

// BenchmarkShrinkPhantomFillers times 50 phantom write skews among 200
// consistent transactions.
func BenchmarkShrinkPhantomFillers(b *testing.B) {
	h := phantomHistory(b, 50, 200)
	for b.Loop() {
		res, err := Check(context.Background(), h)
		if err != nil || len(res.Txns) != 2 {
			b.Fatalf("%v: %d transactions", err, len(res.Txns))
		}
	}
}

// TestExplainSaysWhenCutShort: the explanation of a counterexample whose
// shrinking stopped early says it may not be minimal.
func TestExplainSaysWhenCutShort(t *testing.T) {
	h := phantomHistory(t, 3, 0)
	res, err := CheckWith(context.Background(), h, Options{NoShrink: true})
	if err != nil {
		t.Fatal(err)
	}
	shrinkWithin(context.Background(), h, Options{}, res, time.Nanosecond)
	var b strings.Builder
	if err := Explain(res).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("this counterexample of %d transactions may not be minimal; a minimal one has at most %d", len(res.Txns), len(res.Txns))
	if !strings.Contains(b.String(), want) {
		t.Errorf("the explanation does not say %q:\n%s", want, b.String())
	}
}
