package explore_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/explore"
	"github.com/isocheck/isocheck/explore/apps"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

// TestAppsCheckAgreesWithExplore checks, for the example applications,
// that package check gives every history the verdict the explorer gives
// it, at every level, once written and read back as the native format:
// a history explored under RC is consistent at a level L by check exactly
// when exploring under L finds it too. The applications' transactions
// call Tx.Abort, whose reads the explorer checks; the final transaction,
// which the explorer reads the final state with (stronger than any level
// says of a transaction), is left out.
func TestAppsCheckAgreesWithExplore(t *testing.T) {
	// Seven programs an application under make test-long, two otherwise.
	seeds := []int64{1, 2, 3, 4, 5, 6, 7}[:testsize.N(2, 7)]
	stronger := []level.Level{level.RA, level.CC, level.PC, level.SI, level.SER}
	histories, rolledBack := 0, 0
	for _, a := range apps.All() {
		for _, seed := range seeds {
			t.Run(fmt.Sprintf("%s/%d", a.Name, seed), func(t *testing.T) {
				p := a.Program(3, 2, seed)
				p.Final = nil
				all := historiesUnder(t, p, level.RC)
				found := make(map[level.Level]map[string]bool)
				for _, l := range stronger {
					found[l] = make(map[string]bool)
					for _, h := range historiesUnder(t, p, l) {
						found[l][h.Key()] = true
					}
				}
				for _, h := range all {
					histories++
					kv := writeAndRead(t, h)
					for i := range kv.Txns {
						if kv.Txns[i].Status == history.RolledBack {
							rolledBack++
						}
					}
					if got := checkLevel(t, kv, level.RC); !got {
						t.Fatalf("RC: explored under RC, but check says it is violated:\n%s", h.Key())
					}
					for _, l := range stronger {
						want := found[l][h.Key()]
						if got := checkLevel(t, kv, l); got != want {
							t.Fatalf("%v: check says consistent %v, exploring under %v finds it %v:\n%s", l, got, l, want, h.Key())
						}
					}
				}
			})
		}
	}
	t.Logf("%d histories, %d rolled-back transactions", histories, rolledBack)
	if rolledBack == 0 {
		t.Error("no history has a rolled-back transaction: the test shows nothing about them")
	}
}

// historiesUnder returns every history of p under l.
func historiesUnder(t *testing.T, p *explore.Program, l level.Level) []*explore.History {
	t.Helper()
	var hs []*explore.History
	res, err := explore.Explore(context.Background(), p, explore.Options{Level: l, OnHistory: func(h *explore.History) error {
		hs = append(hs, h)
		return nil
	}})
	if err != nil {
		t.Fatalf("explore under %v: %v", l, err)
	}
	if !res.Complete {
		t.Fatalf("explore under %v: incomplete", l)
	}
	return hs
}

// writeAndRead returns h's key-value history as the native format holds
// it: written, as the explorer writes it, and read back.
func writeAndRead(t *testing.T, h *explore.History) *history.History {
	t.Helper()
	var b bytes.Buffer
	if err := format.Write(&b, h.KV(), format.JSONL); err != nil {
		t.Fatalf("write: %v\n%s", err, h.Key())
	}
	kv, err := format.Read(&b, "history", format.JSONL)
	if err != nil {
		t.Fatalf("read back: %v\n%s", err, b.String())
	}
	return kv
}

// checkLevel reports whether check finds h consistent at l.
func checkLevel(t *testing.T, h *history.History, l level.Level) bool {
	t.Helper()
	res, err := check.Check(context.Background(), h, l)
	if err != nil {
		t.Fatalf("check at %v: %v", l, err)
	}
	if res.Verdict == verdict.Unknown {
		t.Fatalf("check at %v: no verdict: %s", l, res.Reason)
	}
	return res.Verdict == verdict.Satisfied
}
