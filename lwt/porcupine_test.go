package lwt

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/register"
)

// The reference: Porcupine with a register model. Failed reads and writes
// and Info reads are dropped (as Check does); Info writes and CAS return at
// the end of time with an unknown output, so Porcupine may place them
// anywhere after their call, including after everything (no effect).

type pInput struct {
	key            string
	kind           register.Kind
	value, old, nw int64
}

type pOutput struct {
	outcome register.Outcome
	value   int64
}

var registerModel = porcupine.Model{
	Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
		idx := map[string]int{}
		var out [][]porcupine.Operation
		for _, o := range h {
			k := o.Input.(pInput).key
			j, ok := idx[k]
			if !ok {
				j = len(out)
				idx[k] = j
				out = append(out, nil)
			}
			out[j] = append(out[j], o)
		}
		return out
	},
	Init: func() any { return Nil },
	Hash: func(state any) uint64 { return uint64(state.(int64)) },
	Step: func(state, input, output any) (bool, any) {
		st := state.(int64)
		in, out := input.(pInput), output.(pOutput)
		switch in.kind {
		case register.Read:
			return out.value == st, st
		case register.Write:
			return true, in.value
		default:
			switch out.outcome {
			case register.OK:
				return st == in.old, in.nw
			case register.Fail:
				return st != in.old, st
			}
			if st == in.old {
				return true, in.nw
			}
			return true, st
		}
	},
	DescribeOperation: func(input, output any) string { return fmt.Sprint(input, output) },
}

// toPorcupine converts a history for Porcupine.
func toPorcupine(ops []Op) []porcupine.Operation {
	var h []porcupine.Operation
	for i := range ops {
		o := &ops[i]
		if !participates(o) {
			continue
		}
		h = append(h, porcupine.Operation{
			ClientId: o.Process,
			Input:    pInput{o.Key, o.Kind, o.Value, o.Old, o.New},
			Call:     o.Call,
			Output:   pOutput{o.Outcome, o.Value},
			Return:   ret(o),
		})
	}
	return h
}

// porcupineCheck returns Porcupine's verdict (Unknown on timeout).
func porcupineCheck(ops []Op, timeout time.Duration) porcupine.CheckResult {
	return porcupine.CheckOperationsTimeout(registerModel, toPorcupine(ops), timeout)
}

// randomHistory is a small history of arbitrary operations: values from a
// small range (so written values often repeat), random outcomes.
func randomHistory(r *rand.Rand) []Op {
	n := 1 + r.IntN(9)
	procs := 1 + r.IntN(4)
	vals := 2 + r.IntN(5)
	keys := 1 + r.IntN(2)
	val := func() int64 {
		if r.IntN(6) == 0 {
			return Nil
		}
		return int64(r.IntN(vals))
	}
	next := make([]int64, procs)
	ops := make([]Op, 0, n)
	for range n {
		p := r.IntN(procs)
		o := Op{Process: p, Call: next[p] + int64(r.IntN(4))}
		o.Return = o.Call + int64(r.IntN(6))
		next[p] = o.Return + 1
		if keys > 1 {
			o.Key = fmt.Sprint(r.IntN(keys))
		}
		o.Kind = register.Kind(r.IntN(3))
		o.Value, o.Old, o.New = val(), val(), val()
		if o.Kind == register.Write && o.Value == Nil {
			o.Value = 0
		}
		if o.Kind == register.CAS && o.New == Nil {
			o.New = 1
		}
		switch x := r.IntN(10); {
		case x < 6:
			o.Outcome = register.OK
		case x < 8:
			o.Outcome = register.Fail
		default:
			o.Outcome = register.Info
			next[p] = 1 << 40 // a crashed client invokes nothing more
		}
		if o.Outcome == register.Info {
			o.Return = Never
		}
		ops = append(ops, o)
	}
	return ops
}

// mutate changes one operation of a history at random.
func mutate(r *rand.Rand, ops []Op) {
	if len(ops) == 0 {
		return
	}
	o := &ops[r.IntN(len(ops))]
	switch r.IntN(5) {
	case 0:
		o.Value++
	case 1:
		if o.Kind == register.CAS {
			o.Old = o.New + 1000
		}
	case 2:
		if o.Outcome == register.OK {
			o.Outcome = register.Fail
		} else if o.Outcome == register.Fail {
			o.Outcome = register.OK
		}
	case 3:
		if o.Outcome != register.Info {
			o.Call, o.Return = o.Return+1, o.Return+1+(o.Return-o.Call)
		}
	case 4:
		if o.Kind == register.Read && o.Outcome == register.OK {
			o.Kind, o.Old, o.New = register.CAS, o.Value, 100000+o.Value
			o.Outcome = register.Fail
		}
	}
}

func TestAgreesWithPorcupine(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	counts := map[string]int{}
	for n := range 6000 {
		var ops []Op
		kind := "random"
		switch n % 3 {
		case 0:
			ops = randomHistory(r)
		default:
			kind = "generated"
			cfg := GenConfig{Processes: 1 + r.IntN(4), Ops: 2 + r.IntN(10), Keys: 1 + r.IntN(2), Seed: r.Uint64(),
				ReadFrac: 0.3, WriteFrac: 0.2 * float64(r.IntN(2)), CASHit: 0.6, InfoFrac: 0.2 * float64(r.IntN(2)),
				Latency: 1 + int64(r.IntN(10)), Inject: Injection(r.IntN(4))}
			ops, _ = Generate(cfg)
			if n%3 == 2 {
				mutate(r, ops)
				kind = "mutated"
			}
		}
		res := checkOps(t, ops)
		want := porcupineCheck(ops, 0)
		if (want == porcupine.Ok) != res.OK() {
			t.Fatalf("history %d (%s): Check says %v, Porcupine says %v\n%s\n%s", n, kind, res.Verdict, want, res, dump(ops))
		}
		v := "ok"
		if !res.OK() {
			v = "violation"
		}
		counts[kind+"/"+v]++
		if res.Searched > 0 {
			counts["searched-keys"] += res.Searched
		}
	}
	t.Logf("agreed on %v", counts)
}

func dump(ops []Op) string {
	s := ""
	for i, o := range ops {
		s += fmt.Sprintf("%d: %s\n", i, o)
	}
	return s
}

// uniqueHistory is randomHistory with unique written values, so the fast
// path applies.
func uniqueHistory(r *rand.Rand) []Op {
	ops := randomHistory(r)
	fresh := int64(100)
	for i := range ops {
		switch ops[i].Kind {
		case register.Write:
			fresh++
			ops[i].Value = fresh
		case register.CAS:
			fresh++
			ops[i].New = fresh
			if r.IntN(2) == 0 && i > 0 {
				// Expect a value written earlier, so chains form.
				j := r.IntN(i)
				if v, ok := writes(&ops[j]); ok {
					ops[i].Old = v
				}
			}
		case register.Read:
			if r.IntN(2) == 0 && i > 0 {
				if v, ok := writes(&ops[r.IntN(i)]); ok {
					ops[i].Value = v
				}
			}
		}
	}
	return ops
}

// TestFastPathAgreesWithSearch compares every answer the fast path calls
// exact with the exact search, key by key, and the whole verdict with
// Porcupine.
func TestFastPathAgreesWithSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	counts := map[string]int{}
	for n := range 20000 {
		var ops []Op
		if n%2 == 0 {
			ops = uniqueHistory(r)
		} else {
			cfg := GenConfig{Processes: 1 + r.IntN(5), Ops: 2 + r.IntN(25), Keys: 1, Seed: r.Uint64(),
				ReadFrac: 0.3, WriteFrac: 0.15 * float64(r.IntN(2)), CASHit: 0.6, InfoFrac: 0.15 * float64(r.IntN(2)),
				Latency: 1 + int64(r.IntN(10)), Inject: Injection(r.IntN(4))}
			ops, _ = Generate(cfg)
			if r.IntN(2) == 0 {
				mutate(r, ops)
			}
		}
		byKey := map[string][]int32{}
		for i := range ops {
			if participates(&ops[i]) {
				byKey[ops[i].Key] = append(byKey[ops[i].Key], int32(i))
			}
		}
		bad := false
		for i := range ops {
			if ops[i].Outcome != register.Info && ops[i].Return < ops[i].Call {
				bad = true
			}
		}
		if bad {
			continue
		}
		for _, idx := range byKey {
			m := progress.Start(t.Context(), "test", 0, "")
			fv, exact, _ := fastCheck(m, ops, idx, Nil)
			if !exact {
				counts["deferred"]++
				continue
			}
			sv, _ := search(m, ops, idx, Nil, -1)
			if (fv == nil) != (sv == nil) {
				t.Fatalf("history %d: fast path says %v, search says %v\n%s", n, fv, sv, dump(ops))
			}
			if fv == nil {
				counts["fast/ok"]++
			} else {
				counts["fast/violation"]++
				if fv.Reason == "" {
					t.Fatalf("violation without a reason: %+v", fv)
				}
			}
		}
		if res, want := checkOps(t, ops), porcupineCheck(ops, 0); res.OK() != (want == porcupine.Ok) {
			t.Fatalf("history %d: Check says %v, Porcupine says %v\n%s", n, res, want, dump(ops))
		}
	}
	t.Logf("%v", counts)
}

// TestGeneratedAgreesWithPorcupine compares verdicts on generated
// histories of 1000 operations on one register, valid and with each kind
// of planted bug, at every concurrency at which Porcupine answers (it
// gives no verdict at 32 clients, even on 500 operations in 20 s; there
// BenchmarkLWT compares with the generator's ground truth). Both
// checkers must answer and agree with how the history was built. At 16
// clients Porcupine takes seconds a planted bug: those histories run under
// make test-long, the valid ones always. Porcupine's time limit only
// turns a hang into a failure.
func TestGeneratedAgreesWithPorcupine(t *testing.T) {
	for _, c := range []int{2, 4, 8, 16} {
		for inj := range Injection(4) {
			if c == 16 && inj != NoInjection && !testsize.Long() {
				continue
			}
			for seed := range uint64(2) {
				ops, at := Generate(GenConfig{Processes: c, Ops: 1000, Seed: seed, ReadFrac: 0.4, CASHit: 0.5, Inject: inj})
				if inj != NoInjection && at < 0 {
					t.Fatalf("c%d %v seed %d: nowhere to plant the bug", c, inj, seed)
				}
				want := inj == NoInjection
				res := checkOps(t, ops)
				if res.OK() != want || res.Searched != 0 {
					t.Errorf("c%d %v seed %d: Check says %v (searched %d keys)", c, inj, seed, res.Verdict, res.Searched)
				}
				switch porcupineCheck(ops, 10*time.Minute) {
				case porcupine.Unknown:
					t.Errorf("c%d %v seed %d: Porcupine gave no verdict in 10 minutes", c, inj, seed)
				case porcupine.Ok:
					if !want {
						t.Errorf("c%d %v seed %d: Porcupine says linearizable, Check says %v", c, inj, seed, res.Verdict)
					}
				case porcupine.Illegal:
					if want {
						t.Errorf("c%d %v seed %d: Porcupine says not linearizable, Check says %v", c, inj, seed, res.Verdict)
					}
				}
			}
		}
	}
}
