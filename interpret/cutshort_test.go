package interpret_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/internal/testkit/historytest"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/shrink"
	"github.com/isocheck/isocheck/verdict"
)

// lostUpdateAmongOthers is a lost update among transactions it does not
// need.
const lostUpdateAmongOthers = `
{"session": 1, "id": "A", "ops": [["w", "x", 1], ["w", "q", 1]]}
{"session": 2, "id": "B", "ops": [["r", "q", 1], ["w", "z", 1]]}
{"session": 1, "id": "C", "ops": [["r", "x", 1], ["r", "z", null], ["w", "x", 2]]}
{"session": 3, "id": "D", "ops": [["r", "x", 1], ["w", "x", 3]]}
{"session": 3, "id": "E", "ops": [["r", "z", 1]]}`

// TestExplanationCutShort: explaining a violation under a context that
// has ended (cancelled, or past its deadline) returns at once the
// verdict with the checker's evidence, says the explanation was cut
// short, and claims no minimal counterexample; listing every anomaly
// stops with the context's error. Under a context that runs on, the same
// violation is shrunk to a minimal counterexample, not cut short.
func TestExplanationCutShort(t *testing.T) {
	h := historytest.JSONL(t, lostUpdateAmongOthers)
	res, err := check.Check(context.Background(), h, level.SI)
	if err != nil || res.Verdict != verdict.Violated {
		t.Fatalf("check: %v, %v", res, err)
	}
	full, err := interpret.Minimal(context.Background(), res)
	if err != nil {
		t.Fatal(err)
	}
	if full.CutShort || !full.Anomaly.Minimal {
		t.Fatalf("Minimal to the end: cut short %v, minimal %v", full.CutShort, full.Anomaly.Minimal)
	}
	evidence := interpret.Explain(res)

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	past, cancelPast := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancelPast()
	for name, ctx := range map[string]context.Context{"cancelled": cancelled, "past its deadline": past} {
		t.Run(name, func(t *testing.T) {
			for fname, explain := range map[string]func(context.Context, *check.Result) (*interpret.Report, error){
				"Minimal": interpret.Minimal, "Checked": interpret.Checked,
			} {
				rep, err := explain(ctx, res)
				if err != nil {
					t.Fatalf("%s: %v", fname, err)
				}
				if rep.Satisfied == nil || *rep.Satisfied || rep.Anomaly == nil {
					t.Fatalf("%s: the verdict is lost: %+v", fname, rep)
				}
				if !rep.CutShort || rep.Anomaly.Minimal {
					t.Errorf("%s: cut short %v, minimal %v; want cut short and not minimal", fname, rep.CutShort, rep.Anomaly.Minimal)
				}
				if rep.Anomaly.Name != evidence.Anomaly.Name || len(rep.Anomaly.Txns) != len(evidence.Anomaly.Txns) {
					t.Errorf("%s: %s of %d transactions, want the evidence's %s of %d", fname, rep.Anomaly.Name, len(rep.Anomaly.Txns), evidence.Anomaly.Name, len(evidence.Anomaly.Txns))
				}
				b, err := json.Marshal(rep)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(b), `"explanation_cut_short":true`) || !strings.Contains(string(b), `"minimal":false`) {
					t.Errorf("%s: JSON %s does not say the explanation was cut short", fname, b)
				}
			}
			if found, err := interpret.Every(ctx, h, res, evidence); err == nil || !progress.Stopped(err) || found != nil {
				t.Errorf("Every: %v, %v; want no list and the context's error", found, err)
			}
		})
	}
	b, _ := json.Marshal(full)
	if strings.Contains(string(b), "explanation_cut_short") {
		t.Errorf("a full explanation's JSON says it was cut short: %s", b)
	}
}

// countdown is a context that ends (cancelled, with cause cause) at the
// left-th call of its Done, Err or Value: each stage of each check asks
// for its Done channel, so a countdown ends an explanation at a chosen
// point of its work, whatever the time.
type countdown struct {
	context.Context
	cancel context.CancelCauseFunc
	cause  error
	left   *atomic.Int64
}

func newCountdown(left int64, cause error) (context.Context, *atomic.Int64) {
	ctx, cancel := context.WithCancelCause(context.Background())
	c := countdown{Context: ctx, cancel: cancel, cause: cause, left: new(atomic.Int64)}
	c.left.Store(left)
	return c, c.left
}

func (c countdown) tick() {
	if c.left.Add(-1) == 0 {
		c.cancel(c.cause)
	}
}

func (c countdown) Done() <-chan struct{} { c.tick(); return c.Context.Done() }

func (c countdown) Err() error { c.tick(); return c.Context.Err() }

func (c countdown) Value(key any) any { c.tick(); return c.Context.Value(key) }

// TestExplanationCutAnywhere ends the explanation of a violation at each
// point of its work in turn (see countdown): every report keeps the verdict, one cut
// short claims a minimal counterexample only when it is one (it violates
// the level, and without any one of its transactions the rest does not),
// and one not cut short is the full explanation.
func TestExplanationCutAnywhere(t *testing.T) {
	h := historytest.JSONL(t, lostUpdateAmongOthers)
	bg := context.Background()
	res, err := check.Check(bg, h, level.SI)
	if err != nil || res.Verdict != verdict.Violated {
		t.Fatalf("check: %v, %v", res, err)
	}
	full, err := interpret.Minimal(bg, res)
	if err != nil {
		t.Fatal(err)
	}
	cuts := 0
	for n := int64(1); ; n++ {
		ctx, left := newCountdown(n, context.DeadlineExceeded)
		rep, err := interpret.Minimal(ctx, res)
		if err != nil {
			t.Fatalf("ended at call %d: %v", n, err)
		}
		if rep.Satisfied == nil || *rep.Satisfied || rep.Anomaly == nil {
			t.Fatalf("ended at call %d: the verdict is lost: %+v", n, rep)
		}
		an := rep.Anomaly
		if an.Minimal {
			m := an.Counterexample
			if m == nil || !shrink.Violates(bg, level.SI)(m) {
				t.Fatalf("ended at call %d: a minimal counterexample that does not violate SI", n)
			}
			sub := shrink.NewSubject(m)
			for i := range m.Txns {
				var rest []int32
				for j := range m.Txns {
					if j != i {
						rest = append(rest, int32(j))
					}
				}
				if shrink.Violates(bg, level.SI)(sub.Sub(shrink.Selection{Txns: rest})) {
					t.Fatalf("ended at call %d: the counterexample said minimal violates SI without %s", n, an.Txns[i].Name)
				}
			}
		}
		if left.Load() > 0 {
			// The context never ended: the full explanation.
			if rep.CutShort || !an.Minimal || an.Name != full.Anomaly.Name || len(an.Txns) != len(full.Anomaly.Txns) {
				t.Errorf("not cut: cut short %v, minimal %v, %s of %d transactions; want %s of %d", rep.CutShort, an.Minimal, an.Name, len(an.Txns), full.Anomaly.Name, len(full.Anomaly.Txns))
			}
			break
		}
		if rep.CutShort {
			cuts++
		}
		if n > 1e5 {
			t.Fatal("the explanation never ends")
		}
	}
	if cuts == 0 {
		t.Error("no explanation was cut short")
	}
}
