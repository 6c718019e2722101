package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/isocheck/isocheck/lwt"
	"github.com/isocheck/isocheck/register"
)

// Linearizability of lightweight-transaction (CAS register) histories:
// isocheck's lwt package (Wei, Xiao, Yang, Liu, Yin, Chen and Pan,
// "Boosting End-to-End Database Isolation Checking via Mini-Transactions"
// (MTC, ICDE 2025), Section IV-E) against Porcupine, on generated histories
// of 10k operations at increasing concurrency, valid and with one planted
// bug. isocheck must give the verdict the generator built in, and
// Porcupine, where it answers, the same. Porcupine gets porcupineTimeout
// per check, enough for every history up to 16 clients (the slowest takes
// about 25 s); at 32 clients it answers on none, and a timeout is reported
// (metric "timeouts"), not failed.

const (
	lwtOps           = 10_000
	porcupineTimeout = time.Minute
)

var lwtConcurrency = []int{2, 4, 8, 16, 32}

var lwtKinds = []lwt.Injection{lwt.NoInjection, lwt.StaleRead, lwt.LostCAS, lwt.WrongFailedCAS}

func lwtHistory(b testing.TB, c int, inj lwt.Injection) []lwt.Op {
	ops, at := lwt.Generate(lwt.GenConfig{Processes: c, Ops: lwtOps, Seed: uint64(c), ReadFrac: 0.4, CASHit: 0.5, Inject: inj})
	if inj != lwt.NoInjection && at < 0 {
		b.Fatalf("c%d: no place to inject %v", c, inj)
	}
	return ops
}

func BenchmarkLWT(b *testing.B) {
	for _, checker := range []string{"isocheck", "porcupine"} {
		for _, c := range lwtConcurrency {
			for _, inj := range lwtKinds {
				ops := lwtHistory(b, c, inj)
				want := inj == lwt.NoInjection
				ctx := context.Background()
				if res, err := lwt.Check(ctx, ops, lwt.Nil); err != nil || res.OK() != want || res.Searched != 0 {
					b.Fatalf("c%d %v: isocheck says %v, %v", c, inj, res, err)
				}
				name := fmt.Sprintf("%s/c%d/%v", checker, c, inj)
				b.Run(name, func(b *testing.B) {
					if checker == "isocheck" {
						for b.Loop() {
							if res, err := lwt.Check(ctx, ops, lwt.Nil); err != nil || res.OK() != want {
								b.Fatal("verdict changed")
							}
						}
						return
					}
					h := toPorcupine(ops)
					timeouts := 0
					for b.Loop() {
						switch porcupine.CheckOperationsTimeout(casRegister, h, porcupineTimeout) {
						case porcupine.Unknown:
							timeouts++
						case porcupine.Ok:
							if !want {
								b.Fatal("Porcupine: linearizable; isocheck: not")
							}
						case porcupine.Illegal:
							if want {
								b.Fatal("Porcupine: not linearizable; isocheck: linearizable")
							}
						}
					}
					if timeouts > 0 {
						b.Logf("Porcupine timed out (%v) on %s", porcupineTimeout, name)
					}
					b.ReportMetric(float64(timeouts), "timeouts")
				})
			}
		}
	}
}

// casRegister is Porcupine's model of one CAS register (Check's semantics:
// Info writes and CAS may take effect any time after their call).
var casRegister = porcupine.Model{
	Init: func() any { return lwt.Nil },
	Hash: func(state any) uint64 { return uint64(state.(int64)) },
	Step: func(state, input, output any) (bool, any) {
		st, in, out := state.(int64), input.(*lwt.Op), output.(*lwt.Op)
		switch in.Kind {
		case register.Read:
			return out.Value == st, st
		case register.Write:
			return true, in.Value
		}
		switch out.Outcome {
		case register.OK:
			return st == in.Old, in.New
		case register.Fail:
			return st != in.Old, st
		}
		if st == in.Old {
			return true, in.New
		}
		return true, st
	},
}

// toPorcupine drops what says nothing (failed reads and writes, Info reads)
// and gives Info operations a return at the end of time.
func toPorcupine(ops []lwt.Op) []porcupine.Operation {
	var h []porcupine.Operation
	for i := range ops {
		o := &ops[i]
		if (o.Kind == register.Read && o.Outcome != register.OK) || (o.Kind == register.Write && o.Outcome == register.Fail) {
			continue
		}
		r := o.Return
		if o.Outcome == register.Info {
			r = lwt.Never
		}
		h = append(h, porcupine.Operation{ClientId: o.Process, Input: o, Call: o.Call, Output: o, Return: r})
	}
	return h
}
