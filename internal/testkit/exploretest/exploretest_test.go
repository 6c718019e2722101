package exploretest

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/explore"
)

func TestRandomIsReproducible(t *testing.T) {
	for i := range 50 {
		a := Random(rand.New(rand.NewPCG(uint64(i), 4)), Small)
		b := Random(rand.New(rand.NewPCG(uint64(i), 4)), Small)
		if a.String() != b.String() {
			t.Fatalf("seed %d gave two programs:\n%s\n%s", i, a, b)
		}
		if n := len(a.Sessions); n < 2 || n > Small.Sessions {
			t.Errorf("seed %d: %d sessions", i, n)
		}
		if got := a.Explore().NumTxns(); got < 2 {
			t.Errorf("seed %d: %d transactions", i, got)
		}
	}
}

func TestRun(t *testing.T) {
	// l0 = r(x); if l0 == 1 { w(y, l0+1); abort } else { assert l0 == 1 }
	txn := Txn{Instrs: []Instr{
		{Op: OpRead, Key: "x", Local: 0},
		{Op: OpIf, Local: 0, Const: 1,
			Then: []Instr{{Op: OpWrite, Key: "y", Local: 0, UseLocal: true, Const: 1}, {Op: OpAbort}},
			Else: []Instr{{Op: OpAssert, Local: 0, Cmp: Eq, Const: 1}}},
	}}
	if st := txn.Run(nil, 0); st.Key != "x" || st.Kind != explore.Read {
		t.Errorf("first step %+v, want a read of x", st)
	}
	if st := txn.Run([]int64{1}, 1); st.Key != "y" || st.Value != 2 {
		t.Errorf("after reading 1: %+v, want w(y, 2)", st)
	}
	if st := txn.Run([]int64{1}, 2); st.Kind != explore.Abort || len(st.Failures) != 0 {
		t.Errorf("after w(y, 2): %+v, want an abort", st)
	}
	if st := txn.Run([]int64{0}, 1); st.Kind != explore.Commit || len(st.Failures) != 1 {
		t.Errorf("after reading 0: %+v, want a commit with a failed assertion", st)
	}
}

func TestShrink(t *testing.T) {
	p := Random(rand.New(rand.NewPCG(7, 4)), Small)
	// The smallest program with a write of x has one session of one
	// transaction writing x.
	hasWrite := func(q *Program) bool { return strings.Contains(q.String(), "w(x") }
	if !hasWrite(p) {
		t.Skip("the program writes no x")
	}
	small := Shrink(p, hasWrite)
	if len(small.Sessions) != 1 || len(small.Sessions[0]) != 1 || strings.Count(small.String(), ";") != 0 {
		t.Errorf("Shrink left\n%s", small)
	}
}
