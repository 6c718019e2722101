package explore

import (
	"context"
	"testing"

	"github.com/isocheck/isocheck/level"
)

func collect(t *testing.T, p *Program, cfg Options) (map[string]int, *Result) {
	t.Helper()
	got := map[string]int{}
	cfg.OnHistory = func(h *History) error { got[h.Key()]++; return nil }
	res, err := Explore(context.Background(), p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return got, res
}

func TestSmoke(t *testing.T) {
	rd := func(k string) Txn { return Txn{Name: "r" + k, Body: func(tx *Tx) { tx.Read(k) }} }
	wr := func(k string, v Value) Txn { return Txn{Name: "w" + k, Body: func(tx *Tx) { tx.Write(k, v) }} }
	p := &Program{Sessions: []Session{
		{Txns: []Txn{rd("x")}}, {Txns: []Txn{rd("x")}}, {Txns: []Txn{wr("x", 2)}}, {Txns: []Txn{wr("x", 4)}},
	}}
	for _, l := range []level.Level{level.RC, level.RA, level.CC, level.SI, level.SER} {
		ce, res := collect(t, p, Options{Level: l})
		dfs, _ := collect(t, p, Options{Level: l, Algorithm: DFS})
		for k, n := range ce {
			if n != 1 {
				t.Errorf("%v: explore-ce found %d times:\n%s", l, n, k)
			}
			if dfs[k] == 0 {
				t.Errorf("%v: explore-ce found, dfs not:\n%s", l, k)
			}
		}
		for k := range dfs {
			if ce[k] == 0 {
				t.Errorf("%v: dfs found, explore-ce not:\n%s", l, k)
			}
		}
		t.Logf("%v: %d histories, %d end states, blocked %d", l, len(ce), res.EndStates, res.Blocked)
	}
}
