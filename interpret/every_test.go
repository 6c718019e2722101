package interpret_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/historytest"
	"github.com/isocheck/isocheck/internal/testkit/reference"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/shrink"
	"github.com/isocheck/isocheck/verdict"
)

// every checks h at l and lists its anomalies as check's report does.
func every(t *testing.T, h *history.History, l level.Level) (*check.Result, *interpret.Report, []interpret.Found) {
	t.Helper()
	ctx := context.Background()
	res, err := check.Check(ctx, h, l)
	if err != nil {
		t.Fatal(err)
	}
	rep := interpret.Explain(res)
	found, err := interpret.Every(ctx, h, res, rep)
	if err != nil {
		t.Fatal(err)
	}
	return res, rep, found
}

// exampleViolates reports whether the sub-history of f's example
// violates l, by isocheck's checker and by the brute-force reference.
func exampleViolates(t *testing.T, h *history.History, l level.Level, f interpret.Found) (string, bool) {
	t.Helper()
	var txns []int32
	for _, x := range f.Example {
		txns = append(txns, int32(x.Index))
	}
	sub := shrink.NewSubject(h).Sub(shrink.Selection{Txns: txns})
	res, err := check.Check(context.Background(), sub, l)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != verdict.Violated {
		return "isocheck's checker says it holds", false
	}
	if ok, err := reference.Check(sub, l); err != nil || ok {
		return "the reference checker says it holds", false
	}
	return "", true
}

func TestEvery(t *testing.T) {
	three, err := format.ReadFile("testdata/every/three.jsonl", format.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	writeSkew := historytest.JSONL(t, `
{"session": 1, "id": "alice", "ops": [["r", "x", null], ["r", "y", null], ["w", "x", 1]]}
{"session": 2, "id": "bob", "ops": [["r", "x", null], ["r", "y", null], ["w", "y", 1]]}`)
	lostUpdate := historytest.JSONL(t, `
{"session": 1, "id": "inc-1", "ops": [["r", "n", null], ["w", "n", 1]]}
{"session": 2, "id": "inc-2", "ops": [["r", "n", null], ["w", "n", 2]]}
{"session": 3, "id": "inc-3", "ops": [["r", "n", null], ["w", "n", 3]]}`)
	// The lost updates of n and m, and two write skews: e and f over x
	// and y, f and g over y and z.
	many := historytest.JSONL(t, `
{"session": 1, "id": "a", "ops": [["r", "n", null], ["w", "n", 1]]}
{"session": 2, "id": "b", "ops": [["r", "n", null], ["w", "n", 2]]}
{"session": 3, "id": "c", "ops": [["r", "m", null], ["w", "m", 1]]}
{"session": 4, "id": "d", "ops": [["r", "m", null], ["w", "m", 2]]}
{"session": 5, "id": "e", "ops": [["r", "x", null], ["r", "y", null], ["w", "x", 1]]}
{"session": 6, "id": "f", "ops": [["r", "x", null], ["r", "y", null], ["r", "z", null], ["w", "y", 1]]}
{"session": 7, "id": "g", "ops": [["r", "z", null], ["r", "y", null], ["w", "z", 1]]}`)

	// want is, per level, the anomalies listed: name, count and the
	// names of the example's transactions.
	type want struct {
		name    verdict.Anomaly
		count   int
		example string
	}
	lu := want{verdict.LostUpdate, 1, "inc-1 inc-2"}
	for _, c := range []struct {
		name string
		h    *history.History
		want map[level.Level][]want
	}{
		{"aborted read, lost update, write skew", three, map[level.Level][]want{
			level.SSER: {{verdict.AbortedRead, 1, "abort dirty"}, lu, {verdict.WriteSkew, 1, "alice bob"}},
			level.SER:  {{verdict.AbortedRead, 1, "abort dirty"}, lu, {verdict.WriteSkew, 1, "alice bob"}},
			level.SI:   {{verdict.AbortedRead, 1, "abort dirty"}, lu},
			level.PC:   {{verdict.AbortedRead, 1, "abort dirty"}},
			level.RC:   {{verdict.AbortedRead, 1, "abort dirty"}},
		}},
		{"write skew", writeSkew, map[level.Level][]want{
			level.SSER: {{verdict.WriteSkew, 1, "alice bob"}},
			level.SER:  {{verdict.WriteSkew, 1, "alice bob"}},
			level.SI:   nil,
		}},
		{"lost update", lostUpdate, map[level.Level][]want{
			// Three transactions read n's initial value and wrote it:
			// inc-2 and inc-3 each lost inc-1's update.
			level.SER: {{verdict.LostUpdate, 2, "inc-1 inc-2"}},
			level.SI:  {{verdict.LostUpdate, 2, "inc-1 inc-2"}},
			level.PC:  nil,
		}},
		{"two of each", many, map[level.Level][]want{
			level.SER: {{verdict.LostUpdate, 2, "a b"}, {verdict.WriteSkew, 2, "e f"}},
			level.SI:  {{verdict.LostUpdate, 2, "a b"}},
		}},
	} {
		for l, ws := range c.want {
			t.Run(c.name+"/"+l.String(), func(t *testing.T) {
				_, rep, found := every(t, c.h, l)
				var got []want
				for _, f := range found {
					var names []string
					for _, x := range f.Example {
						names = append(names, x.Name)
					}
					got = append(got, want{f.Name, f.Count, strings.Join(names, " ")})
					if !verdict.Forbids(l, f.Name) {
						t.Errorf("%s is listed, which %v allows", f.Name, l)
					}
					if why, ok := exampleViolates(t, c.h, l, f); !ok {
						t.Errorf("the example of %s does not violate %v alone: %s", f.Name, l, why)
					}
				}
				if !slices.Equal(got, ws) {
					t.Errorf("anomalies %v, want %v", got, ws)
				}
				if len(found) > 0 && found[0].Name != rep.Anomaly.Name {
					t.Errorf("first anomaly %s, want the report's, %s", found[0].Name, rep.Anomaly.Name)
				}
			})
		}
	}
}

// TestWriteAnomalies checks the text check prints: a line per anomaly,
// with its count and the example's places, and nothing when the main
// anomaly is the only one.
func TestWriteAnomalies(t *testing.T) {
	h, err := format.ReadFile("testdata/every/three.jsonl", format.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	_, rep, found := every(t, h, level.SER)
	rep.Anomalies = found
	var b bytes.Buffer
	if err := rep.WriteAnomalies(&b); err != nil {
		t.Fatal(err)
	}
	want := `every anomaly SER forbids that the history shows (one example each):
  AbortedRead (G1a): 1 found, e.g. abort (testdata/every/three.jsonl:1), dirty (testdata/every/three.jsonl:2)
  LostUpdate (G-single): 1 found, e.g. inc-1 (testdata/every/three.jsonl:3), inc-2 (testdata/every/three.jsonl:4)
  WriteSkew (G2-item): 1 found, e.g. alice (testdata/every/three.jsonl:5), bob (testdata/every/three.jsonl:6)
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	_, rep, found = every(t, h, level.RC)
	rep.Anomalies = found
	b.Reset()
	if rep.WriteAnomalies(&b); b.Len() != 0 {
		t.Errorf("one anomaly at RC, yet:\n%s", b.String())
	}
}

// TestElleEvery checks that Elle's map lists every anomaly type the level
// forbids, the write skew only at SER.
func TestElleEvery(t *testing.T) {
	h, err := format.ReadFile("testdata/every/three.jsonl", format.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		l     level.Level
		types []string
	}{
		{level.SER, []string{"G1a", "G2-item", "lost-update"}},
		{level.SI, []string{"G1a", "lost-update"}},
		{level.RC, []string{"G1a"}},
	} {
		res, err := check.Check(context.Background(), h, c.l)
		if err != nil {
			t.Fatal(err)
		}
		m, err := interpret.ElleEvery(context.Background(), h, []*check.Result{res}, true)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(m.AnomalyTypes, c.types) {
			t.Errorf("%v: anomaly types %v, want %v", c.l, m.AnomalyTypes, c.types)
		}
		for _, typ := range c.types {
			if n := len(m.Anomalies[typ]); n != 1 {
				t.Errorf("%v: %d cases of %s, want 1", c.l, n, typ)
			}
		}
		// The aborted read rules out read-committed, the weakest model
		// any of them does.
		if !slices.Equal(m.Not, []string{"read-committed"}) {
			t.Errorf("%v: not %v, want [read-committed]", c.l, m.Not)
		}
	}
}

// TestEveryProperty lists the anomalies of random violating histories at
// each level and requires of each that the level forbid it and that its
// example, alone, violate the weakest level that forbids it (by
// isocheck's checker and by the brute-force reference), and that the
// main anomaly come first.
func TestEveryProperty(t *testing.T) {
	cfg := histgen.SmallConfig{Sessions: 3, MaxTxns: 8, Keys: 3, MaxOps: 4, AbortProb: 0.1, UnknownProb: 0.1, FaultProb: 0.15, Times: true}
	runs := *propertyRuns / 10
	listed, several := 0, 0
	names := map[string]int{}
	for seed := 0; seed < runs; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
		h := histgen.Small(rng, cfg)
		for _, l := range level.All() {
			res, rep, found := every(t, h, l)
			if res.Verdict != verdict.Violated {
				if found != nil {
					t.Fatalf("seed %d, %v: anomalies listed without a violation", seed, l)
				}
				continue
			}
			main := rep.Anomaly.Name
			if !verdict.Forbids(l, main) {
				main = verdict.Generic(l)
			}
			// A main anomaly named after a weaker level that its
			// transactions do not violate is listed by the name of a
			// stronger one.
			relabeled := len(found) > 0 && found[0].Name != main && !main.Weakest().Implies(found[0].Name.Weakest())
			if len(found) == 0 || found[0].Name != main && !relabeled {
				t.Fatalf("seed %d, %v: the list does not begin with the main anomaly %s: %v", seed, l, rep.Anomaly.Name, found)
			}
			listed += len(found)
			if len(found) > 1 {
				several++
			}
			for _, f := range found {
				names[f.Name.String()]++
				if !verdict.Forbids(l, f.Name) {
					t.Errorf("seed %d, %v: %s is listed, which the level allows", seed, l, f.Name)
				}
				if f.Count < 1 || f.Count > interpret.MaxCount {
					t.Errorf("seed %d, %v: %s counted %d times", seed, l, f.Name, f.Count)
				}
				if f.Example == nil {
					t.Fatalf("seed %d, %v: %s has no example, in a history of fewer than %d transactions", seed, l, f.Name, interpret.MaxShrink)
				}
				if why, ok := exampleViolates(t, h, f.Name.Weakest(), f); !ok {
					t.Fatalf("seed %d, %v: the example of %s does not violate %v, the weakest level that forbids it, alone (%s)\n%s", seed, l, f.Name, f.Name.Weakest(), why, histgen.Describe(h))
				}
			}
		}
	}
	if several == 0 {
		t.Errorf("no violation showed more than one anomaly in %d histories", runs)
	}
	t.Logf("%d anomalies listed, %d violations with several; names: %v", listed, several, names)
}
