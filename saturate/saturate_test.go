package saturate

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/verdict"
)

type txn struct {
	session string
	ops     []history.Op
}

func r(k history.Key, v history.Value) history.Op {
	return history.Op{Kind: history.Read, Key: k, Value: v}
}
func w(k history.Key, v history.Value) history.Op {
	return history.Op{Kind: history.Write, Key: k, Value: v}
}

const x, y = 0, 1

var null = history.Null

// TestLevels checks the classic anomalies of the weak levels, with the
// verdicts the axioms of Biswas and Enea, "On the Complexity of Checking
// Transactional Consistency" (OOPSLA 2019), Figure 2, give.
func TestLevels(t *testing.T) {
	cases := []struct {
		name       string
		txns       []txn
		rc, ra, cc bool
	}{
		{"serial", []txn{{"a", []history.Op{w(x, 1), w(y, 1)}}, {"b", []history.Op{r(x, 1), r(y, 1)}}}, true, true, true},
		// b sees y from before a, then x from a: not atomic, but its reads
		// never go back in commit order.
		{"fractured read", []txn{{"a", []history.Op{w(x, 1), w(y, 1)}}, {"b", []history.Op{r(y, null), r(x, 1)}}}, true, false, false},
		// Reading newer then older goes back in commit order: not RC.
		{"read goes backwards", []txn{{"a", []history.Op{w(x, 1), w(y, 1)}}, {"b", []history.Op{r(y, 1), r(x, null)}}}, false, false, false},
		// c sees b's reply to a's post but not a's post.
		{"causality violation", []txn{
			{"a", []history.Op{w(x, 1)}},
			{"b", []history.Op{r(x, 1), w(y, 1)}},
			{"c", []history.Op{r(y, 1), r(x, null)}},
		}, true, true, false},
		// A later transaction of a's own session misses a's write.
		{"read your writes", []txn{{"a", []history.Op{w(x, 1)}}, {"a", []history.Op{r(x, null)}}}, true, false, false},
		// Two readers see two independent writes in different orders:
		// a long fork, allowed by CC.
		{"long fork", []txn{
			{"a", []history.Op{w(x, 1)}},
			{"b", []history.Op{w(y, 1)}},
			{"c", []history.Op{r(x, 1), r(y, null)}},
			{"d", []history.Op{r(x, null), r(y, 1)}},
		}, true, true, true},
		// Reading a key twice and seeing a newer value second is RC.
		{"non-repeatable read forward", []txn{{"a", []history.Op{w(x, 1)}}, {"b", []history.Op{r(x, null), r(x, 1)}}}, true, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := history.NewBuilder(history.Null)
			b.Key("x")
			b.Key("y")
			for _, tx := range c.txns {
				b.AddTxn(history.Txn{Session: b.Session(tx.session), Start: history.NoTime, End: history.NoTime}, tx.ops)
			}
			res, err := resolve.Resolve(context.Background(), b.History())
			if err != nil {
				t.Fatal(err)
			}
			for _, lc := range []struct {
				l    level.Level
				want bool
			}{{level.RC, c.rc}, {level.RA, c.ra}, {level.CC, c.cc}} {
				got, err := Check(context.Background(), res, lc.l)
				if err != nil {
					t.Fatal(err)
				}
				if (got.Verdict == verdict.Satisfied) != lc.want {
					t.Errorf("%v: satisfied = %v, want %v (cycle %v, anomalies %v)", lc.l, got.Verdict, lc.want, got.Cycle, got.Anomalies)
				}
				if got.Verdict != verdict.Satisfied && len(got.Cycle) == 0 && got.Conflict == nil && got.Core == nil && len(got.Anomalies) == 0 {
					t.Errorf("%v: violated without evidence", lc.l)
				}
			}
		})
	}
}

// TestStopped: on a context that has ended, Check returns its cause.
func TestStopped(t *testing.T) {
	h := histgen.Large(histgen.LargeConfig{Sessions: 4, TxnsPerSession: 2000, OpsPerTxn: 6, Keys: 50, ReadProportion: 0.5, Seed: 1, Store: histgen.SnapshotIsolation})
	r, err := resolve.Resolve(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	limit := errors.New("limit")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(limit)
	for _, l := range []level.Level{level.RC, level.RA, level.CC} {
		if _, err := Check(ctx, r, l); !errors.Is(err, limit) {
			t.Errorf("%v: %v, want %v", l, err, limit)
		}
	}
}

// TestClockLimit: a CC check whose clocks pass the limit is refused with
// a *LimitError that says so and wraps progress.ErrResourceLimit; a
// negative limit is no limit.
func TestClockLimit(t *testing.T) {
	b := history.NewBuilder(history.Null)
	b.Key("x")
	b.Key("y")
	for _, tx := range []txn{
		{"a", []history.Op{w(x, 1)}},
		{"b", []history.Op{r(x, 1), w(y, 1)}},
		{"c", []history.Op{r(y, 1), r(x, 1)}},
	} {
		b.AddTxn(history.Txn{Session: b.Session(tx.session), Start: history.NoTime, End: history.NoTime}, tx.ops)
	}
	res, err := resolve.Resolve(context.Background(), b.History())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		limit int64
		fails bool
	}{{1, true}, {2, true}, {-1, false}, {0, false}, {1000, false}} {
		sat, err := CheckWith(context.Background(), res, level.CC, Options{MaxClockEntries: c.limit})
		var le *LimitError
		switch {
		case !c.fails && (err != nil || sat.Verdict != verdict.Satisfied):
			t.Errorf("limit %d: %v, %v; want satisfied", c.limit, sat, err)
		case c.fails && (!errors.As(err, &le) || !errors.Is(err, progress.ErrResourceLimit) || le.What != ClockEntries || le.Sessions != 3):
			t.Errorf("limit %d: error %v, want a *LimitError on the clocks of 3 sessions", c.limit, err)
		case c.fails && !strings.Contains(err.Error(), "3 sessions"):
			t.Errorf("limit %d: %q does not name the sessions", c.limit, err)
		}
	}
}

// TestForcedEdgesLimit: a CC check whose axiom would force more edges
// than Options.MaxForcedEdges, and no order tried first satisfies, is
// refused with a *LimitError that says so
// (with the memory) and wraps progress.ErrResourceLimit; a negative
// limit is no limit.
func TestForcedEdgesLimit(t *testing.T) {
	h := histgen.Large(histgen.LargeConfig{Sessions: 8, TxnsPerSession: 200, OpsPerTxn: 6, Keys: 20, ReadProportion: 0.5, Seed: 5, Store: histgen.Causal})
	res, err := resolve.Resolve(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	sat, err := CheckWith(context.Background(), res, level.CC, Options{MaxForcedEdges: -1})
	if err != nil || sat.Verdict != verdict.Satisfied {
		t.Fatalf("no limit: %v, %v; want satisfied", sat, err)
	}
	// A commit order tried first settles it with a fraction of the edges
	// (guess.go), within a limit the full saturation passes.
	full, err := checkWith(context.Background(), res, level.CC, options{maxEdges: math.MaxInt, noGuess: true})
	if err != nil || full.Verdict != verdict.Satisfied {
		t.Fatalf("no limit, no order tried: %v, %v; want satisfied", full, err)
	}
	forced := full.Edges - sat.Edges
	if forced < 100 {
		t.Fatalf("an order tried first forces %d edges fewer than saturation: want the history to need many", forced)
	}
	sat, err = CheckWith(context.Background(), res, level.CC, Options{MaxForcedEdges: int64(forced)})
	if err != nil || sat.Verdict != verdict.Satisfied {
		t.Fatalf("%d edges, an order tried first: %v, %v; want satisfied", forced, sat, err)
	}
	_, err = checkWith(context.Background(), res, level.CC, options{maxEdges: 2, noGuess: true})
	var le *LimitError
	if !errors.As(err, &le) || !errors.Is(err, progress.ErrResourceLimit) || le.What != ForcedEdges || !strings.Contains(err.Error(), "more than 2 commit-order edges (16 bytes)") {
		t.Fatalf("2 edges: error %v, want a *LimitError on the forced edges", err)
	}
}
