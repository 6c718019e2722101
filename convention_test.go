package isocheck_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/isocheck/isocheck"
	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/explore"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/sqljsonl"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/lwt"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/register"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/saturate"
	"github.com/isocheck/isocheck/sqlcheck"
	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/verdict"
)

// entryPoint is one vertical's entry point, run on a valid input (good)
// or one it refuses (!good). It returns the Outcome its Result embeds,
// nil when it returned no Result.
type entryPoint struct {
	name string
	run  func(t *testing.T, ctx context.Context, good bool) (*verdict.Outcome, error)
	// refuses says that the vertical validates its input: a bad one is
	// an error.
	refuses bool
}

// outcomeOf is the Outcome of a Result, nil for none.
func outcomeOf[R any](res *R, o func(*R) *verdict.Outcome) *verdict.Outcome {
	if res == nil {
		return nil
	}
	return o(res)
}

// kvHistory is a small write skew, or, for !good, a history of lists
// that appends one value twice to a key (an input error: the reads of a
// list could not name the append they read).
func kvHistory(t *testing.T, good bool) *history.History {
	t.Helper()
	src := `{"session": 0, "id": "setup", "ops": [["w", "x", 1], ["w", "y", 1]]}
{"session": 1, "id": "a", "ops": [["r", "x", 1], ["r", "y", 1], ["w", "x", 2]]}
{"session": 2, "id": "b", "ops": [["r", "x", 1], ["r", "y", 1], ["w", "y", 2]]}
`
	if !good {
		src = `{"session": 0, "id": "a", "ops": [["append", "x", 1]]}
{"session": 1, "id": "b", "ops": [["append", "x", 1], ["r", "x", [1, 1]]]}
`
	}
	h, err := format.Read(strings.NewReader(src), "h.jsonl", format.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// registerOps are operations on registers, or, for !good, with one of a
// kind the register model does not have.
func registerOps(good bool) []lwt.Op {
	ops, _ := lwt.Generate(lwt.GenConfig{Processes: 4, Ops: 200, Keys: 2, Seed: 1, ReadFrac: 0.4, CASHit: 0.5})
	if !good {
		ops[len(ops)/2].Kind = register.CAS + 1
	}
	return ops
}

// sqlHistory is a phantom at SER, or, for !good, the same history with a
// transaction at a level SQL histories do not have.
func sqlHistory(t *testing.T, good bool) *sqlhistory.History {
	t.Helper()
	h, err := sqljsonl.ReadFile("examples/sql-phantom-ser.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !good {
		h.Txns[0].Level = level.SSER
	}
	return h
}

// program is a write skew between two withdrawals, checked by an audit.
func program() *explore.Program {
	withdraw := func(from string) func(*explore.Tx) {
		return func(tx *explore.Tx) {
			if tx.Read("alice")+tx.Read("bob") >= 100 {
				tx.Write(from, tx.Read(from)-100)
			}
		}
	}
	return &explore.Program{
		Init: map[string]explore.Value{"alice": 60, "bob": 60},
		Sessions: []explore.Session{
			{Name: "alice", Txns: []explore.Txn{{Name: "withdraw(alice)", Body: withdraw("alice")}}},
			{Name: "bob", Txns: []explore.Txn{{Name: "withdraw(bob)", Body: withdraw("bob")}}},
		},
		Final: &explore.Txn{Name: "audit", Body: func(tx *explore.Tx) {
			total := tx.Read("alice") + tx.Read("bob")
			tx.Assert(total >= 0, "the total is %d", total)
		}},
	}
}

// entryPoints are every vertical's entry points (see "Entry points" in
// docs/development.md).
func entryPoints() []entryPoint {
	checkOutcome := func(r *check.Result) *verdict.Outcome { return &r.Outcome }
	resolved := func(t *testing.T, good bool) *resolve.Resolution {
		t.Helper()
		r, err := resolve.Resolve(context.Background(), kvHistory(t, good))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	return []entryPoint{
		{"isocheck.Check", func(t *testing.T, ctx context.Context, good bool) (*verdict.Outcome, error) {
			v, err := isocheck.Check(ctx, kvHistory(t, good), level.SER)
			return outcomeOf(v, func(v *isocheck.Verdict) *verdict.Outcome { return &v.Outcome }), err
		}, true},
		{"check.Check", func(t *testing.T, ctx context.Context, good bool) (*verdict.Outcome, error) {
			res, err := check.Check(ctx, kvHistory(t, good), level.SER)
			return outcomeOf(res, checkOutcome), err
		}, true},
		{"check.CheckWith", func(t *testing.T, ctx context.Context, good bool) (*verdict.Outcome, error) {
			res, err := check.CheckWith(ctx, kvHistory(t, good), level.CC, check.Options{Cases: true})
			return outcomeOf(res, checkOutcome), err
		}, true},
		{"check.CheckResolved", func(t *testing.T, ctx context.Context, good bool) (*verdict.Outcome, error) {
			// A resolution is valid input by construction: good only.
			res, err := check.CheckResolved(ctx, resolved(t, true), level.SI)
			return outcomeOf(res, checkOutcome), err
		}, false},
		{"check.CheckResolvedWith", func(t *testing.T, ctx context.Context, good bool) (*verdict.Outcome, error) {
			res, err := check.CheckResolvedWith(ctx, resolved(t, true), level.RA, check.Options{})
			return outcomeOf(res, checkOutcome), err
		}, false},
		{"lwt.Check", func(t *testing.T, ctx context.Context, good bool) (*verdict.Outcome, error) {
			res, err := lwt.Check(ctx, registerOps(good), lwt.Nil)
			return outcomeOf(res, func(r *lwt.Result) *verdict.Outcome { return &r.Outcome }), err
		}, true},
		{"lwt.CheckWith", func(t *testing.T, ctx context.Context, good bool) (*verdict.Outcome, error) {
			res, err := lwt.CheckWith(ctx, registerOps(good), lwt.Nil, lwt.Options{SearchMemory: -1})
			return outcomeOf(res, func(r *lwt.Result) *verdict.Outcome { return &r.Outcome }), err
		}, true},
		{"sqlcheck.Check", func(t *testing.T, ctx context.Context, good bool) (*verdict.Outcome, error) {
			res, err := sqlcheck.Check(ctx, sqlHistory(t, good))
			return outcomeOf(res, func(r *sqlcheck.Result) *verdict.Outcome { return &r.Outcome }), err
		}, true},
		{"sqlcheck.CheckWith", func(t *testing.T, ctx context.Context, good bool) (*verdict.Outcome, error) {
			res, err := sqlcheck.CheckWith(ctx, sqlHistory(t, good), sqlcheck.Options{Paper: true})
			return outcomeOf(res, func(r *sqlcheck.Result) *verdict.Outcome { return &r.Outcome }), err
		}, true},
		{"explore.Explore", func(t *testing.T, ctx context.Context, good bool) (*verdict.Outcome, error) {
			opts := explore.Options{Level: level.SER}
			if !good {
				opts.Level = level.SSER // not a level explore explores under
			}
			res, err := explore.Explore(ctx, program(), opts)
			return outcomeOf(res, func(r *explore.Result) *verdict.Outcome { return &r.Outcome }), err
		}, true},
	}
}

// TestEntryPointConvention: every vertical's entry point decides a valid
// input with no error; on a context already ended it returns a Result
// without a verdict, with the reason, the stage and Stopped, and no
// error (a stop is not a failure); and a bad input, where the vertical
// checks its input, is an error with no Result.
func TestEntryPointConvention(t *testing.T) {
	limit := fmt.Errorf("%w: 9 GiB used, 8 GiB allowed", progress.ErrResourceLimit)
	for _, e := range entryPoints() {
		t.Run(e.name, func(t *testing.T) {
			o, err := e.run(t, context.Background(), true)
			if err != nil || o == nil || o.Verdict == verdict.Unknown {
				t.Fatalf("a valid input: %v, %v; want a verdict", o, err)
			}
			for _, c := range []struct {
				name   string
				cause  error
				reason string
			}{
				{"cancelled", nil, "cancelled"},
				{"timed out", context.DeadlineExceeded, "timed out"},
				{"resource limit", limit, limit.Error()},
			} {
				ctx, cancel := context.WithCancelCause(context.Background())
				cancel(c.cause)
				tr := progress.NewTracker()
				o, err := e.run(t, progress.WithTracker(ctx, tr), true)
				switch {
				case err != nil || o == nil:
					t.Errorf("%s: error %v (Result %v); want a Result without a verdict, no error", c.name, err, o)
				case o.Verdict != verdict.Unknown || !strings.HasPrefix(o.Reason, c.reason) || !o.Stopped || o.Stage == "":
					t.Errorf("%s: %v (stopped %v, stage %q); want no verdict: %s..., stopped, with the stage", c.name, o, o.Stopped, o.Stage, c.reason)
				}
			}
			o, err = e.run(t, context.Background(), false)
			switch {
			case !e.refuses:
			case err == nil || o != nil:
				t.Errorf("a bad input: %v, %v; want an error, no Result", o, err)
			}
		})
	}
}

// TestStageConvention: saturate is a stage of check, not a vertical: it
// answers as the other stages do, a stop being an error that
// progress.Stopped recognizes, which check turns into a Result without a
// verdict (TestEntryPointConvention).
func TestStageConvention(t *testing.T) {
	r, err := resolve.Resolve(context.Background(), kvHistory(t, true))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, run := range []func(context.Context, level.Level) (*saturate.Result, error){
		func(ctx context.Context, l level.Level) (*saturate.Result, error) { return saturate.Check(ctx, r, l) },
		func(ctx context.Context, l level.Level) (*saturate.Result, error) {
			return saturate.CheckWith(ctx, r, l, saturate.Options{MaxClockEntries: -1})
		},
	} {
		if res, err := run(context.Background(), level.CC); err != nil || res == nil {
			t.Errorf("a valid input: %v, %v", res, err)
		}
		if res, err := run(ctx, level.CC); !progress.Stopped(err) || res != nil {
			t.Errorf("stopped: %v, %v; want a stop as the error", res, err)
		}
		if res, err := run(context.Background(), level.SER); err == nil || progress.Stopped(err) || res != nil {
			t.Errorf("a level saturate does not check: %v, %v; want an error", res, err)
		}
	}
}

// TestReportConvention checks that every vertical's report embeds the
// one report shape, verdict.Report, so that each starts its JSON the same
// way: a head with the level, the verdict and the evidence of the
// violation, encoded before the vertical's own fields.
func TestReportConvention(t *testing.T) {
	reports := map[string]any{
		"interpret.Report": interpret.Report{Report: verdict.NewReport[interpret.Anomaly]("SER", verdict.Outcome{Verdict: verdict.Violated})},
		"sqlcheck.Report":  sqlcheck.Report{Report: verdict.NewReport[sqlcheck.AnomalyReport]("SER", verdict.Outcome{Verdict: verdict.Violated})},
		"lwt.Report":       lwt.Report{Report: verdict.NewReport[lwt.Anomaly](lwt.Model, verdict.Outcome{Verdict: verdict.Violated})},
	}
	for name, r := range reports {
		typ := reflect.TypeOf(r)
		if f := typ.Field(0); !f.Anonymous || f.Type.PkgPath() != reflect.TypeFor[verdict.Summary]().PkgPath() || !strings.HasPrefix(f.Type.Name(), "Report[") {
			t.Errorf("%s: the first field is %s %v, not an embedded verdict.Report", name, f.Name, f.Type)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), `{"level":`) || !strings.Contains(string(b), `"satisfied":false,"verdict":"violated"`) {
			t.Errorf("%s: JSON does not start with the shared head: %s", name, b)
		}
	}
}
