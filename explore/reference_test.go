package explore_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/isocheck/isocheck/explore"
	"github.com/isocheck/isocheck/internal/testkit/exploretest"
	"github.com/isocheck/isocheck/internal/testkit/reference"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/level"
)

// referenceLevels are the levels explore handles.
var referenceLevels = []level.Level{level.RC, level.RA, level.CC, level.PC, level.SI, level.SER}

// found is what an exploration output: the times each history was found
// and whether it broke an assertion.
type found struct {
	count  map[string]int
	failed map[string]bool
	res    *explore.Result
}

func exploreAll(ctx context.Context, p *exploretest.Program, cfg explore.Options) (*found, error) {
	f := &found{count: map[string]int{}, failed: map[string]bool{}}
	cfg.OnHistory = func(h *explore.History) error {
		k := h.Key()
		f.count[k]++
		f.failed[k] = h.Failed()
		return nil
	}
	res, err := explore.Explore(ctx, p.Explore(), cfg)
	f.res = res
	return f, err
}

// stats counts what compare checked.
type stats struct {
	histories         int // in the reference, over all programs
	dfsRuns, dfsTotal int // DFS runs, and those that ended within dfsBudget
}

// compare checks one program at one level against the reference and
// returns what is wrong, or "". It adds to st, when not nil.
func compare(p *exploretest.Program, l level.Level, dfs bool, st *stats) string {
	want, err := reference.Histories(p, l)
	if err != nil {
		return err.Error()
	}
	if st != nil {
		st.histories += len(want)
	}
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	check := func(name string, f *found, optimal, complete bool) {
		var keys []string
		for k := range f.count {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			o, ok := want[k]
			switch {
			case !ok:
				add("%s found a history the reference does not (unsound):\n%s", name, k)
			case optimal && f.count[k] != 1:
				add("%s found a history %d times (not optimal):\n%s", name, f.count[k], k)
			case f.failed[k] != o.Failed:
				add("%s: assertion failed = %v, the reference says %v:\n%s", name, f.failed[k], o.Failed, k)
			}
		}
		if !complete {
			return
		}
		keys = keys[:0]
		for k := range want {
			if f.count[k] == 0 {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			add("%s missed a history of the reference (incomplete):\n%s", name, k)
		}
	}
	ce, err := exploreAll(context.Background(), p, explore.Options{Level: l})
	if err != nil {
		return "explore-ce: " + err.Error()
	}
	check("explore-ce", ce, true, true)
	if ce.res.Histories != len(want) {
		add("explore-ce: Result.Histories = %d, want %d", ce.res.Histories, len(want))
	}
	if (l == level.RC || l == level.RA || l == level.CC) && ce.res.Blocked != 0 {
		add("explore-ce: Result.Blocked = %d, want 0 (strong optimality)", ce.res.Blocked)
	}
	if dfs {
		// DFS repeats a history once per interleaving that reaches it:
		// it gets a time budget, and what it found by then must be
		// among the reference's histories.
		ctx, cancel := context.WithTimeout(context.Background(), dfsBudget)
		d, err := exploreAll(ctx, p, explore.Options{Level: l, Algorithm: explore.DFS})
		cancel()
		if err != nil {
			return "dfs: " + err.Error()
		}
		check("dfs", d, false, d.res.Complete)
		if st != nil {
			st.dfsRuns++
			if d.res.Complete {
				st.dfsTotal++
			}
		}
	}
	if len(problems) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d histories in the reference, explore-ce found %d (%d end states):\n", l, len(want), len(ce.count), ce.res.EndStates)
	for _, s := range problems {
		b.WriteString(s)
		b.WriteByte('\n')
	}
	return b.String()
}

// dfsBudget is the time DFS has for a program.
const dfsBudget = 20 * time.Millisecond

// Flags to run TestAgainstReference on other cases: one case alone, or
// more cases from another first one (a longer search for bugs).
var (
	refCase  = flag.Int("refcase", -1, "run `case` of TestAgainstReference alone")
	refFirst = flag.Int("reffirst", 0, "the `first` case of TestAgainstReference")
	refCases = flag.Int("refcases", 0, "the `number` of cases of TestAgainstReference (default 400, 150 with -short, 2000 under ISOCHECK_LONG=1)")
)

// referenceCases is the number of random programs TestAgainstReference
// checks at each level: 2000 under make test-long, 400 by default, 150
// with -short.
func referenceCases() int {
	switch {
	case testsize.Long():
		return 2000
	case testing.Short():
		return 150
	}
	return 400
}

// TestAgainstReference checks explore on random programs, at every level,
// against the brute-force reference (package internal/reference, the
// operational semantics of Bouajjani et al. (PLDI 2023) §2.3 with the
// axioms checked literally): explore-ce outputs exactly the reference's
// histories (sound and complete), each once (optimal), with the same
// assertion verdicts, Result.Histories counts them, explore-ce never blocks
// under RC, RA and CC (strong optimality), and DFS reaches the same
// histories. Case i's program is drawn from rand.NewPCG(i, 4); a failure
// prints i and the program.
func TestAgainstReference(t *testing.T) {
	first, n := *refFirst, *refFirst+referenceCases()
	if *refCases > 0 {
		n = first + *refCases
	}
	if *refCase >= 0 {
		first, n = *refCase, *refCase+1
	}
	for _, l := range referenceLevels {
		t.Run(l.String(), func(t *testing.T) {
			t.Parallel()
			fails := 0
			var st stats
			for i := first; i < n; i++ {
				// One program in eight may have up to 9
				// transactions, the others 6.
				size := exploretest.Small
				if i%8 == 7 {
					size.Total = 0
				}
				p := exploretest.Random(rand.New(rand.NewPCG(uint64(i), 4)), size)
				// DFS repeats histories once per interleaving: it
				// runs on the programs of at most 4 transactions
				// and on a tenth of the others. A failure is
				// shrunk to a smallest failing program.
				dfs := i%10 == 0 || p.Explore().NumTxns() <= 4
				if msg := compare(p, l, dfs, &st); msg != "" {
					small := exploretest.Shrink(p, func(q *exploretest.Program) bool { return compare(q, l, dfs, nil) != "" })
					t.Errorf("case %d (rand.NewPCG(%d, 4)):\n%s%s\nminimized:\n%s%s", i, i, p, msg, small, compare(small, l, dfs, nil))
					if fails++; fails == 3 {
						t.FailNow()
					}
				}
			}
			t.Logf("%d programs, %d histories; DFS ran on %d, ended within %v on %d", n-first, st.histories, st.dfsRuns, dfsBudget, st.dfsTotal)
		})
	}
}

func rd(key string, local int) exploretest.Instr {
	return exploretest.Instr{Op: exploretest.OpRead, Key: key, Local: local}
}

func wr(key string, v int64) exploretest.Instr {
	return exploretest.Instr{Op: exploretest.OpWrite, Key: key, Const: v}
}

func txns(blocks ...[]exploretest.Instr) []exploretest.Txn {
	var out []exploretest.Txn
	for _, b := range blocks {
		out = append(out, exploretest.Txn{Instrs: b})
	}
	return out
}

// referenceRegressions are the smallest programs TestAgainstReference
// found explore wrong on, minimized by exploretest.Shrink.
var referenceRegressions = []struct {
	name string
	p    *exploretest.Program
}{
	{
		// Case 1102 (and 675, 1236) at every level: explore-ce missed
		// s0.t0 reading z from s2.t1 and x from s1.t0. Once the swap
		// of r(z) with s2.t1 brought s2.t0 before s0.t0, Next let
		// r(x) read from s2.t0, and §5.3's swapped(r(x)) held by the
		// letter of its condition (3) (no earlier read of s0.t0 reads
		// from s2.t0 itself, only from its successor s2.t1), so the
		// swap of r(x) with s1.t0 was never optimal.
		name: "swapped via successor",
		p: &exploretest.Program{Sessions: [][]exploretest.Txn{
			txns([]exploretest.Instr{rd("z", 0), rd("x", 1)}),
			txns([]exploretest.Instr{wr("x", 1)}),
			txns([]exploretest.Instr{wr("x", 1)}, []exploretest.Instr{wr("z", 1)}),
		}},
	},
}

// TestReferenceRegressions checks the programs explore was once wrong on
// against the reference, at every level.
func TestReferenceRegressions(t *testing.T) {
	for _, c := range referenceRegressions {
		for _, l := range referenceLevels {
			if msg := compare(c.p, l, true, nil); msg != "" {
				t.Errorf("%s:\n%s%s", c.name, c.p, msg)
			}
		}
	}
}
