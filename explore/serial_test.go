package explore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

// stateOf rebuilds the state of a complete history of p.
func stateOf(t *testing.T, e *engine, h *History) *state {
	t.Helper()
	pids := map[TxnID]int{}
	for pid, pt := range e.txns {
		pids[pt.id] = pid
	}
	s := &state{recs: make([]*txnRec, len(e.txns))}
	for _, tl := range h.Txns {
		pid := pids[tl.ID]
		r := &txnRec{pid: pid, status: tl.Status, failures: tl.Failures}
		for _, ev := range tl.Events {
			from := fromNone
			if ev.Kind == Read && !ev.Internal {
				from = fromInit
				if ev.From != Init {
					from = pids[ev.From]
				}
			}
			r.events = append(r.events, ev)
			r.kids = append(r.kids, e.kid(ev.Key))
			r.from = append(r.from, from)
		}
		s.order = append(s.order, pid)
		s.recs[pid] = r
	}
	return s
}

// randomRMW is a program of read-modify-write transactions over a few
// keys, some of which only read and some of which abort on what they
// read.
func randomRMW(rng *rand.Rand, sessions, txns, keys int) *Program {
	p := &Program{}
	for s := 0; s < sessions; s++ {
		var ts []Txn
		for i := 0; i < txns; i++ {
			var ops [][2]int // key, kind: 0 read, 1 read-modify-write, 2 abort if odd
			for n := 1 + rng.IntN(3); n > 0; n-- {
				ops = append(ops, [2]int{rng.IntN(keys), rng.IntN(3)})
			}
			ts = append(ts, Txn{Name: fmt.Sprint(ops), Body: func(tx *Tx) {
				for _, op := range ops {
					k := string(rune('a' + op[0]))
					v := tx.Read(k)
					switch op[1] {
					case 1:
						tx.Write(k, v+1)
					case 2:
						if v%2 == 1 {
							tx.Abort()
						}
					}
				}
			}})
		}
		p.Sessions = append(p.Sessions, Session{Txns: ts})
	}
	return p
}

// The Valid filter of explore-ce* agrees with package check on every
// history that CC allows, at PC, SI and SER.
func TestSerialCheckerAgreesWithCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	programs, histories := testsize.N(200, 500), 0
	if testing.Short() {
		programs = 30
	}
	for i := 0; i < programs; i++ {
		p := randomRMW(rng, 2+rng.IntN(2), 1+rng.IntN(2), 2+rng.IntN(2))
		e, err := newEngine(context.Background(), p, Options{Level: level.CC})
		if err != nil {
			t.Fatal(err)
		}
		_, err = Explore(context.Background(), p, Options{Level: level.CC, OnHistory: func(h *History) error {
			histories++
			s := stateOf(t, e, h)
			kv := h.KV()
			for _, l := range []level.Level{level.PC, level.SI, level.SER} {
				res, err := check.Check(context.Background(), kv, l)
				if err != nil {
					return err
				}
				want := res.Verdict == verdict.Satisfied
				if got := newSerialChecker(l, e.base.soPred).consistent(s); got != want {
					t.Fatalf("%v: serial checker says %v, package check %v on\n%s", l, got, res.Verdict, h)
				}
			}
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d programs, %d histories", programs, histories)
}
