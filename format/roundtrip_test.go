package format_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/formattest"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/corpus"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/resolve"
)

// verdicts checks h at every level: the verdicts, or "input error".
func verdicts(t *testing.T, h *history.History) []string {
	t.Helper()
	var out []string
	for _, l := range level.All() {
		res, err := check.Check(context.Background(), h, l)
		var ie *resolve.InputError
		switch {
		case errors.As(err, &ie):
			out = append(out, "input error")
		case err != nil:
			t.Fatalf("%v: %v", l, err)
		default:
			out = append(out, res.Verdict.String())
		}
	}
	return out
}

// convert writes h in format f and reads it back; it returns nil when f
// cannot represent h, after checking that Write says why.
func convert(t *testing.T, h *history.History, f format.Format) *history.History {
	t.Helper()
	var buf bytes.Buffer
	if err := format.Write(&buf, h, f); err != nil {
		if !representable(h, f) {
			return nil
		}
		t.Fatalf("Write(%s): %v", f, err)
	}
	if !representable(h, f) {
		t.Fatalf("Write(%s) accepted a history it cannot represent", f)
	}
	h2, err := format.Read(&buf, "converted", f)
	if err != nil {
		t.Fatalf("Read(Write(%s)): %v", f, err)
	}
	return h2
}

// representable reports whether format f can hold h: text and dbcop hold
// no transaction of unknown status, no lists and no stated orders, and
// JSONL no write of a non-null initial value.
func representable(h *history.History, f format.Format) bool {
	if (f == format.Text || f == format.DBCop) && (h.Lists || len(h.Orders) > 0) {
		return false
	}
	for t := range h.Txns {
		switch st := h.Txns[t].Status; {
		case f == format.Text && st == history.Unknown:
			return false
		case f == format.DBCop && st == history.Unknown:
			return false
		}
		if f == format.JSONL && h.Init != history.Null {
			for _, op := range h.OpsOf(t) {
				if op.Kind == history.Write && op.Value == h.Init {
					return false
				}
			}
		}
	}
	return true
}

// withoutTimes returns h without start and end times, which neither text
// nor dbcop holds.
func withoutTimes(h *history.History) *history.History {
	c := *h
	c.Txns = append([]history.Txn(nil), h.Txns...)
	for i := range c.Txns {
		c.Txns[i].Start, c.Txns[i].End = history.NoTime, history.NoTime
	}
	return &c
}

// checkRoundTrips converts h to every format, and on to every other, and
// requires the verdicts of h at every level.
func checkRoundTrips(t *testing.T, h *history.History) {
	t.Helper()
	h = withoutTimes(h)
	want := verdicts(t, h)
	formats := []format.Format{format.JSONL, format.Text, format.DBCop}
	for _, a := range formats {
		ha := convert(t, h, a)
		if ha == nil {
			continue
		}
		if got := verdicts(t, ha); !slices.Equal(got, want) {
			t.Fatalf("→ %s: verdicts %v, want %v", a, got, want)
		}
		for _, b := range formats {
			if b == a {
				continue
			}
			hb := convert(t, ha, b)
			if hb == nil {
				continue
			}
			if got := verdicts(t, hb); !slices.Equal(got, want) {
				t.Fatalf("→ %s → %s: verdicts %v, want %v", a, b, got, want)
			}
			// And back.
			if hc := convert(t, hb, a); hc != nil {
				if got := verdicts(t, hc); !slices.Equal(got, want) {
					t.Fatalf("→ %s → %s → %s: verdicts %v, want %v", a, b, a, got, want)
				}
			}
		}
	}
}

// TestRoundTripVerdictsCorpus converts the small histories of the corpus
// and the examples between the formats; Cobra's RUBiS and Twitter
// histories, seconds each, under make test-long.
func TestRoundTripVerdictsCorpus(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "examples", "*.jsonl"))
	paths = formattest.KeyValueExamples(paths)
	dir := corpus.Dir(t)
	paths = append(paths, filepath.Join(dir, "polysi", "galera.txt"), filepath.Join(dir, "polysi", "yugabyte.txt"))
	if !testing.Short() {
		paths = append(paths, filepath.Join(dir, "polysi", "20_10_15_10000_0.5_uniform__hist-00000.bincode"))
		if testsize.Long() {
			paths = append(paths, filepath.Join(dir, "polysi", "cobra-rubis"), filepath.Join(dir, "polysi", "cobra-twitter"))
		}
		// The smallest history of each dbcop folder.
		subs, _ := filepath.Glob(filepath.Join(dir, "dbcop-oopsla19", "*"))
		for _, sub := range subs {
			files, _ := filepath.Glob(filepath.Join(sub, "*.bincode"))
			sort.Slice(files, func(i, j int) bool {
				return size(files[i]) < size(files[j]) || size(files[i]) == size(files[j]) && files[i] < files[j]
			})
			if len(files) > 0 {
				paths = append(paths, files[0])
			}
		}
	}
	if len(paths) < 5 {
		t.Fatalf("only %d histories: %q", len(paths), paths)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			h, err := format.ReadFile(path, format.Auto)
			if err != nil {
				t.Fatal(err)
			}
			checkRoundTrips(t, h)
		})
	}
}

func size(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// TestRoundTripVerdictsGenerated converts generated histories, with and
// without aborted and unknown transactions and faults.
func TestRoundTripVerdictsGenerated(t *testing.T) {
	configs := []histgen.SmallConfig{
		{FaultProb: 0.3},
		{AbortProb: 0.1, UnknownProb: 0.1, FaultProb: 0.3, Times: true},
	}
	n := 150
	if testing.Short() {
		n = 20
	}
	rng := rand.New(rand.NewPCG(8, 5))
	for i := range n {
		h := histgen.Small(rng, configs[i%len(configs)])
		checkRoundTrips(t, h)
		if t.Failed() {
			t.Fatalf("history %d:\n%s", i, histgen.Describe(h))
		}
	}
}

// TestConvertExamples converts the native examples, whose keys and values
// are strings, to text and dbcop.
func TestConvertExamples(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "examples", "*.jsonl"))
	paths = formattest.KeyValueExamples(paths)
	if err != nil || len(paths) == 0 {
		t.Skip("no examples")
	}
	for _, path := range paths {
		h, err := format.ReadFile(path, format.JSONL)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []format.Format{format.Text, format.DBCop} {
			err := format.Write(&bytes.Buffer{}, h, f)
			switch {
			case representable(h, f) && err != nil:
				t.Errorf("%s to %s: %v", path, f, err)
			case !representable(h, f) && (err == nil || !strings.Contains(err.Error(), "transaction")):
				t.Errorf("%s to %s: %v, want an error about a transaction's status", path, f, err)
			}
		}
	}
}

// TestTextInitialStateVerdicts checks that a text history that starts with
// IsoVista's initial transaction (writes of 0 to every key) gets the
// verdicts of the history without it, at every level.
func TestTextInitialStateVerdicts(t *testing.T) {
	dir := corpus.Dir(t)
	for _, name := range []string{"galera.txt", "yugabyte.txt"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, "polysi", name))
			if err != nil {
				t.Fatal(err)
			}
			without, err := format.Read(bytes.NewReader(data), name, format.Text)
			if err != nil {
				t.Fatal(err)
			}
			var init strings.Builder
			for _, k := range without.KeyNames {
				init.WriteString("w(" + k + ",0,999999,999999)\n")
			}
			with, err := format.Read(strings.NewReader(init.String()+string(data)), name, format.Text)
			if err != nil {
				t.Fatal(err)
			}
			if len(with.Txns) != len(without.Txns) || len(with.Ops) != len(without.Ops) || len(with.Sessions) != len(without.Sessions) {
				t.Fatalf("%d transactions, %d operations, %d sessions; want %d, %d, %d", len(with.Txns), len(with.Ops), len(with.Sessions), len(without.Txns), len(without.Ops), len(without.Sessions))
			}
			if got, want := verdicts(t, with), verdicts(t, without); !slices.Equal(got, want) || want[0] == "input error" {
				t.Errorf("verdicts %v, want %v", got, want)
			}
		})
	}
}
