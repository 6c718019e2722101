package reference

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/isocheck/isocheck/internal/testkit/exploretest"
	"github.com/isocheck/isocheck/level"
)

func rd(key string, local int) exploretest.Instr {
	return exploretest.Instr{Op: exploretest.OpRead, Key: key, Local: local}
}

func wr(key string, v int64) exploretest.Instr {
	return exploretest.Instr{Op: exploretest.OpWrite, Key: key, Const: v}
}

func txn(instrs ...exploretest.Instr) exploretest.Txn { return exploretest.Txn{Instrs: instrs} }

// TestHistoriesByHand checks the reference's histories on programs whose
// histories are counted by hand.
func TestHistoriesByHand(t *testing.T) {
	levels := []level.Level{level.RC, level.RA, level.CC, level.PC, level.SI, level.SER}
	cases := []struct {
		name string
		p    *exploretest.Program
		// want is the number of histories at RC, RA, CC, PC, SI, SER.
		want [6]int
		// failed is the number of those that break an assertion.
		failed [6]int
	}{
		{
			// Each read returns the initial value or the write: 2 × 2.
			name: "two readers, one writer",
			p: &exploretest.Program{Sessions: [][]exploretest.Txn{
				{txn(rd("x", 0))}, {txn(rd("x", 0))}, {txn(wr("x", 1))},
			}},
			want: [6]int{4, 4, 4, 4, 4, 4},
		},
		{
			// Lost update: both read the initial value, then both
			// write. Allowed up to PC; SI's Conflict and SER forbid it,
			// leaving the two serial histories.
			name: "lost update",
			p: &exploretest.Program{Sessions: [][]exploretest.Txn{
				{txn(rd("x", 0), wr("x", 1))}, {txn(rd("x", 0), wr("x", 1))},
			}},
			want: [6]int{3, 3, 3, 3, 2, 2},
		},
		{
			// Write skew: both read x and y initial, then write
			// different keys. SI allows it (the writes do not
			// conflict), SER does not.
			name: "write skew",
			p: &exploretest.Program{Sessions: [][]exploretest.Txn{
				{txn(rd("x", 0), rd("y", 1), wr("x", 1))}, {txn(rd("x", 0), rd("y", 1), wr("y", 1))},
			}},
			want: [6]int{3, 3, 3, 3, 3, 2},
		},
		{
			// Fractured reads: RC lets the reader see y's write after
			// missing x's, not the converse (x read first from the
			// writer, then y from the initial state goes back in
			// commit order). RA and above see both writes or none.
			name: "fractured read",
			p: &exploretest.Program{Sessions: [][]exploretest.Txn{
				{txn(wr("x", 1), wr("y", 1))}, {txn(rd("x", 0), rd("y", 1))},
			}},
			want: [6]int{3, 2, 2, 2, 2, 2},
		},
		{
			// An assertion that fails in one of the two histories,
			// and an aborted writer whose write nobody reads.
			name: "assert and abort",
			p: &exploretest.Program{Sessions: [][]exploretest.Txn{
				{txn(rd("x", 0), exploretest.Instr{Op: exploretest.OpAssert, Local: 0, Cmp: exploretest.Eq, Const: 0})},
				{txn(wr("x", 1)), txn(wr("x", 2), exploretest.Instr{Op: exploretest.OpAbort})},
			}},
			want:   [6]int{2, 2, 2, 2, 2, 2},
			failed: [6]int{1, 1, 1, 1, 1, 1},
		},
		{
			// Causality: s1 reads x from s0 and then writes y; s2
			// reads y from s1 and x. CC forbids s2 reading x initial
			// after seeing y from s1, which saw x = 1; RA allows it.
			name: "causality",
			p: &exploretest.Program{Sessions: [][]exploretest.Txn{
				{txn(wr("x", 1))},
				{txn(rd("x", 0), wr("y", 1))},
				{txn(rd("y", 0), rd("x", 1))},
			}},
			// s1 reads x: init or s0 (2). s2 reads y: init or s1,
			// x: init or s0 (4). RC and RA allow all 8; CC, PC and
			// SI forbid s1 ← s0, s2 ← s1 for y, s2 ← init for x: 7.
			// SER also forbids s1 ← init, s2 ← init for y, s2 ← s0
			// for x (s1 before s0 before s2 before s1): 6.
			want: [6]int{8, 8, 7, 7, 7, 6},
		},
		{
			// Final reads the final state, x from the writer last
			// in commit order, at every level: 2 histories. (RC's
			// own axiom would also let it read the initial value.)
			name: "final",
			p: &exploretest.Program{
				Sessions: [][]exploretest.Txn{{txn(wr("x", 1))}, {txn(wr("x", 2))}},
				Final: &exploretest.Txn{Instrs: []exploretest.Instr{
					rd("x", 0), {Op: exploretest.OpAssert, Local: 0, Cmp: exploretest.Eq, Const: 2},
				}},
			},
			want:   [6]int{2, 2, 2, 2, 2, 2},
			failed: [6]int{1, 1, 1, 1, 1, 1},
		},
	}
	for _, c := range cases {
		for i, l := range levels {
			got, err := Histories(c.p, l)
			if err != nil {
				t.Fatal(err)
			}
			failed := 0
			for _, o := range got {
				if o.Failed {
					failed++
				}
			}
			if len(got) != c.want[i] || failed != c.failed[i] {
				var keys []string
				for k := range got {
					keys = append(keys, k)
				}
				t.Errorf("%s at %v: %d histories (%d failed), want %d (%d failed):\n%s\n%v", c.name, l, len(got), failed, c.want[i], c.failed[i], c.p, keys)
			}
		}
	}
}

// TestRandomProgramsTellLevelsApart checks that the random programs of
// the property test in package explore exercise every level: for each
// level but RC, some program has fewer histories under it than under the
// next weaker one, and the histories of a level are among those of the
// weaker one.
func TestRandomProgramsTellLevelsApart(t *testing.T) {
	levels := []level.Level{level.RC, level.RA, level.CC, level.PC, level.SI, level.SER}
	apart := make([]bool, len(levels))
	for i := 0; i < 500; i++ {
		p := exploretest.Random(rand.New(rand.NewPCG(uint64(i), 4)), exploretest.Small)
		var prev map[string]Outcome
		for j, l := range levels {
			got, err := Histories(p, l)
			if err != nil {
				t.Fatal(err)
			}
			if prev != nil {
				for k := range got {
					if _, ok := prev[k]; !ok {
						t.Fatalf("case %d: a history of %v is not one of %v:\n%s\n%s", i, l, levels[j-1], p, k)
					}
				}
				if len(got) < len(prev) {
					apart[j] = true
				}
			}
			prev = got
		}
		if !slices.Contains(apart[1:], false) {
			t.Logf("every level told apart by the first %d programs", i+1)
			return
		}
	}
	t.Errorf("levels told apart from the next weaker one: %v (RC first)", apart)
}

// TestConsistentAgreesWithCheck checks Consistent against Check, this
// package's checker of key-value histories, on the histories of random
// programs under RC (every history of the stronger levels is one): both
// decide the axioms of Biswas and Enea, "On the Complexity of Checking
// Transactional Consistency" (OOPSLA 2019), by enumerating commit orders,
// over explicit reads-from here and over values (History.KV names every
// write) there. A transaction that called Tx.Abort is rolled back in
// History.KV, whose reads both check, as Bouajjani et al. (PLDI 2023) do.
// Programs with a Final transaction are left out (History.KV puts it in a
// session of its own, not after every other).
func TestConsistentAgreesWithCheck(t *testing.T) {
	levels := []level.Level{level.RA, level.CC, level.PC, level.SI, level.SER}
	checked := 0
	for i := 0; i < 150; i++ {
		p := exploretest.Random(rand.New(rand.NewPCG(uint64(i), 4)), exploretest.Small)
		if p.Final != nil {
			continue
		}
		all, err := Histories(p, level.RC)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range all {
			kv := o.History.KV()
			if len(kv.Txns) > MaxTxns {
				continue
			}
			for _, l := range levels {
				ax, _, _ := LevelAxioms(l)
				want, err := Check(kv, l)
				if err != nil {
					t.Fatal(err)
				}
				if got := Consistent(o.History, ax); got != want {
					t.Fatalf("case %d at %v: Consistent says %v, Check %v:\n%s\n%s", i, l, got, want, p, o.History.Key())
				}
				checked++
			}
		}
	}
	t.Logf("%d checks", checked)
}
