package interpret_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/reference"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/shrink"
	"github.com/isocheck/isocheck/verdict"
)

// truthRuns is 600 under make test-long, 200 by default.
var truthRuns = flag.Int("explain.truth.runs", testsize.N(200, 600), "random histories in TestReportsTrueAtLevel (-short: a sixth)")

// TestReportsTrueAtLevel explains random violating histories, from the
// simulated stores of every level and with faults, at every level they
// violate: as the checker's evidence is (Explain), as check prints it
// (Checked) and as explain does (Minimal). It requires of each report what
// a developer relies on: the level forbids the anomaly named, and no
// weaker level the history keeps does (the explanation is that of the
// weakest level broken: check.Options.WeakestBroken); the
// report's transactions, as a history, violate the level by the
// brute-force reference checker; so do the transactions of the evidence
// shown (its cycles and the writes their anti-dependencies read), taken
// alone; and check and explain name the same anomaly. (The cycle the
// checker finds at SER, SI, SSER and PC is one of the whole history,
// whose orders of writes other transactions may force; there, only a
// minimal counterexample stands alone.) The checker's evidence, which
// check prints as it is only on histories of more than MaxShrink
// transactions, names the same anomaly as explain for all but three in a
// hundred violations.
func TestReportsTrueAtLevel(t *testing.T) {
	runs := *truthRuns
	if testing.Short() {
		runs /= 6
	}
	cfg := histgen.SmallConfig{Sessions: 3, MaxTxns: 7, Keys: 3, MaxOps: 4, AbortProb: 0.1, UnknownProb: 0.1, FaultProb: 0.15, Times: true}
	ctx := context.Background()
	names := map[string]int{}
	violations, differ := 0, 0
	for seed := 0; seed < runs; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x7a11))
		h := histgen.Small(rng, cfg)
		kept := keptLevels(t, h)
		for _, l := range level.All() {
			res, err := check.CheckWith(ctx, h, l, check.Options{WeakestBroken: true})
			if err != nil {
				t.Fatalf("seed %d, %v: %v", seed, l, err)
			}
			if res.Verdict != verdict.Violated {
				continue
			}
			quick := interpret.Explain(res)
			full, err := interpret.Minimal(ctx, res)
			if err != nil {
				t.Fatalf("seed %d, %v: %v\n%s", seed, l, err, histgen.Describe(h))
			}
			checked, err := interpret.Checked(ctx, res)
			if err != nil {
				t.Fatalf("seed %d, %v: %v\n%s", seed, l, err, histgen.Describe(h))
			}
			if checked.Anomaly.Name != full.Anomaly.Name {
				t.Errorf("seed %d, %v: check names %s, explain %s\n%s", seed, l, checked.Anomaly.Name, full.Anomaly.Name, histgen.Describe(h))
			}
			fail := func(rep *interpret.Report, format string, args ...any) {
				t.Helper()
				t.Fatalf("seed %d, %v: %s\nhistory:\n%s\nreport:\n%s", seed, l, fmt.Sprintf(format, args...), histgen.Describe(h), text(rep))
			}
			for _, rep := range []*interpret.Report{quick, checked, full} {
				an := rep.Anomaly
				names[an.Name.String()]++
				if !verdict.Forbids(l, an.Name) {
					fail(rep, "%v allows %s, the anomaly named", l, an.Name)
				}
				if w := forbiddenKept(an.Name, l, kept); w != 0 {
					fail(rep, "%s, the anomaly named, is forbidden at %v, which the history keeps", an.Name, w)
				}
				if !an.Minimal && len(an.Cycles) > 0 && !saturated(l) {
					// The checker's cycle at SER, SI, SSER and PC may
					// rest on an order of writes that other
					// transactions of the history force: only the
					// minimal counterexample stands alone.
					continue
				}
				src, all := h, indices(an.Txns)
				if an.Counterexample != nil {
					src = an.Counterexample
					all = make([]int32, len(src.Txns))
					for i := range all {
						all[i] = int32(i)
					}
				}
				if ok, err := reference.Check(sub(src, all), l); err != nil || ok {
					fail(rep, "the reference checker says the report's transactions satisfy %v (%v)", l, err)
				}
				shown := evidenceTxns(an, all)
				if ok, err := reference.Check(sub(src, shown), l); err != nil || ok {
					fail(rep, "the reference checker says the transactions of the evidence shown, %v, satisfy %v (%v)", shown, l, err)
				}
			}
			violations++
			if quick.Anomaly.Name != full.Anomaly.Name {
				// The checker's evidence as it is, which check shows
				// only on histories of more than MaxShrink transactions.
				// explain looks for a minimal counterexample that
				// keeps check's name (see Minimal); there is none when
				// every sub-history that shows check's anomaly holds a
				// smaller violation of another (a real-time edge, a
				// circle of reads among the lost update's writers,
				// another read anomaly). Those are rare: bound them.
				differ++
				t.Logf("seed %d, %v: the checker's evidence names %s, explain %s", seed, l, quick.Anomaly.Name, full.Anomaly.Name)
			}
		}
	}
	if differ*100 > 3*violations {
		t.Errorf("the checker's evidence and explain name %d of %d violations differently", differ, violations)
	}
	t.Logf("names over %d histories: %v", runs, names)
}

// keptLevels returns the levels h satisfies, by the reference checker.
func keptLevels(t *testing.T, h *history.History) map[level.Level]bool {
	t.Helper()
	kept := map[level.Level]bool{}
	for _, l := range level.All() {
		ok, err := reference.Check(h, l)
		if err != nil {
			t.Fatalf("reference at %v: %v\n%s", l, err, histgen.Describe(h))
		}
		kept[l] = ok
	}
	return kept
}

// forbiddenKept returns a level weaker than l that the history keeps
// (kept) and that forbids the anomaly name, or 0: a report at l that
// names it would blame l for what a weaker level, kept, rules out.
func forbiddenKept(name verdict.Anomaly, l level.Level, kept map[level.Level]bool) level.Level {
	for _, w := range level.All() {
		if w != l && l.Implies(w) && kept[w] && verdict.Forbids(w, name) {
			return w
		}
	}
	return 0
}

// saturated reports whether l's checker is the saturation checker, whose
// evidence rests on reads alone.
func saturated(l level.Level) bool { return l == level.RC || l == level.RA || l == level.CC }

// indices returns the history indices of a report's transactions.
func indices(txns []interpret.TxnInfo) []int32 {
	out := make([]int32, len(txns))
	for i, x := range txns {
		out[i] = int32(x.Index)
	}
	return out
}

// evidenceTxns returns those of all (the report's transactions, in the
// order of an.Txns) that the evidence shown names: the transactions of
// its edges and of the cycles that justify the orders of writes they
// infer, or all of them for an anomaly without edges or with an order of
// writes that rests on all of them.
func evidenceTxns(an *interpret.Anomaly, all []int32) []int32 {
	if len(an.Edges) == 0 {
		return all
	}
	used := map[string]bool{}
	for _, e := range an.Edges {
		if e.Inferred && (e.BecauseCycle == nil || strings.Contains(e.Because, "each read the one before")) {
			// An order the checker derived from, or chose among, the
			// reads of all the transactions shown, or one that rests on
			// a chain of read-modify-writes the cycle does not list.
			return all
		}
		used[e.From], used[e.To] = true, true
		for _, b := range e.BecauseCycle {
			used[b.From], used[b.To] = true, true
		}
	}
	var out []int32
	for i, x := range an.Txns {
		if used[x.Name] {
			out = append(out, all[i])
		}
	}
	return out
}

// sub returns the sub-history of h of the transactions txns.
func sub(h *history.History, txns []int32) *history.History {
	return shrink.NewSubject(h).Sub(shrink.Selection{Txns: txns})
}

// text is a report as isocheck prints it: explained in full when minimal.
func text(rep *interpret.Report) string {
	var b bytes.Buffer
	if rep.Anomaly != nil && rep.Anomaly.Minimal {
		rep.WriteExplanation(&b, false)
	} else {
		rep.WriteText(&b)
	}
	return b.String()
}
