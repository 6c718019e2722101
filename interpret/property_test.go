package interpret_test

import (
	"bytes"
	"context"
	"flag"
	"math/rand/v2"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/reference"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/shrink"
	"github.com/isocheck/isocheck/verdict"
)

// propertyRuns is 3000 under make test-long, 400 by default.
var propertyRuns = flag.Int("explain.runs", testsize.N(400, 3000), "random histories per level in TestCounterexampleMinimal")

// TestCounterexampleMinimal explains random violating histories and
// requires of every counterexample, written in the native format and read
// back, that it violates the level on its own and that removing any one
// of its transactions (with the reads of its writes) makes it pass; the
// brute-force reference checker confirms both verdicts.
func TestCounterexampleMinimal(t *testing.T) {
	levels := level.All()
	cfg := histgen.SmallConfig{Sessions: 3, MaxTxns: 8, Keys: 3, MaxOps: 4, AbortProb: 0.1, UnknownProb: 0.1, FaultProb: 0.15, Times: true}
	explained := map[level.Level]int{}
	names := map[string]int{}
	notMinimal := 0
	ctx := context.Background()
	for seed := 0; seed < *propertyRuns; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 0xe4b1))
		h := histgen.Small(rng, cfg)
		for _, l := range levels {
			res, err := check.Check(ctx, h, l)
			if err != nil {
				t.Fatalf("seed %d, %v: %v", seed, l, err)
			}
			if res.Verdict != verdict.Violated {
				continue
			}
			rep, err := interpret.Minimal(ctx, res)
			if err != nil {
				t.Fatalf("seed %d, %v: %v\n%s", seed, l, err, histgen.Describe(h))
			}
			explained[l]++
			names[rep.Anomaly.Name.String()]++
			if !rep.Anomaly.Minimal {
				// A weaker level's violation (ImpliedBy), minimal for
				// that level: it need not be for l, and says so.
				if rep.ImpliedBy == "" {
					t.Fatalf("seed %d, %v: a counterexample that is not minimal, though explain found one for the level itself", seed, l)
				}
				notMinimal++
				continue
			}
			cex := roundTrip(t, rep.Anomaly.Counterexample)
			fail := func(format string, args ...any) {
				t.Helper()
				var b bytes.Buffer
				rep.WriteExplanation(&b, false)
				t.Fatalf("seed %d, %v: "+format+"\nhistory:\n%s\ncounterexample:\n%s\n%s", append([]any{seed, l}, append(args, histgen.Describe(h), histgen.Describe(cex), b.String())...)...)
			}
			if !violates(t, cex, l) {
				fail("the counterexample passes")
			}
			if ok, err := reference.Check(cex, l); err != nil || ok {
				fail("the reference checker says the counterexample satisfies it (%v)", err)
			}
			if len(rep.Anomaly.Txns) != len(cex.Txns) {
				fail("the report lists %d transactions, the counterexample has %d", len(rep.Anomaly.Txns), len(cex.Txns))
			}
			subj := shrink.NewSubject(cex)
			for i := range cex.Txns {
				var rest []int32
				for j := range cex.Txns {
					if j != i {
						rest = append(rest, int32(j))
					}
				}
				sub := subj.Sub(shrink.Selection{Txns: rest})
				if violates(t, sub, l) {
					fail("without %s it still violates %v", cex.Name(i), l)
				}
				if ok, err := reference.Check(sub, l); err != nil || !ok {
					fail("without %s the reference checker says it violates %v (%v)", cex.Name(i), l, err)
				}
			}
		}
	}
	for _, l := range levels {
		if explained[l] < *propertyRuns/20 {
			t.Errorf("%v: only %d violations explained", l, explained[l])
		}
	}
	t.Logf("explained per level: %v; names: %v; minimal only for a weaker level: %d", explained, names, notMinimal)
}

// roundTrip writes h in the native format and reads it back.
func roundTrip(t *testing.T, h *history.History) *history.History {
	t.Helper()
	var b bytes.Buffer
	if err := format.Write(&b, h, format.JSONL); err != nil {
		t.Fatal(err)
	}
	out, err := format.Read(&b, "counterexample.jsonl", format.JSONL)
	if err != nil {
		t.Fatalf("reading the counterexample back: %v\n%s", err, b.String())
	}
	return out
}

func violates(t *testing.T, h *history.History, l level.Level) bool {
	t.Helper()
	res, err := check.Check(context.Background(), h, l)
	if err != nil {
		t.Fatal(err)
	}
	return res.Verdict == verdict.Violated
}
