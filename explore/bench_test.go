package explore

import (
	"context"
	"fmt"
	"testing"

	"github.com/isocheck/isocheck/level"
)

// counterProgram has sessions of transactions that each increment two of
// three counters: every read has many writers to choose from.
func counterProgram(sessions, txns int) *Program {
	keys := []string{"x", "y", "z"}
	p := &Program{}
	for s := 0; s < sessions; s++ {
		var ts []Txn
		for i := 0; i < txns; i++ {
			a, b := keys[(s+i)%3], keys[(s+i+1)%3]
			ts = append(ts, Txn{Name: fmt.Sprintf("inc(%s,%s)", a, b), Body: func(tx *Tx) {
				tx.Write(a, tx.Read(a)+1)
				tx.Write(b, tx.Read(b)+1)
			}})
		}
		p.Sessions = append(p.Sessions, Session{Txns: ts})
	}
	return p
}

func BenchmarkExplore(b *testing.B) {
	p := counterProgram(3, 2)
	for _, l := range []level.Level{level.RC, level.RA, level.CC, level.SI, level.SER} {
		b.Run(l.String(), func(b *testing.B) {
			var res *Result
			for b.Loop() {
				var err error
				res, err = Explore(context.Background(), p, Options{Level: l})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.EndStates), "endstates")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(res.EndStates), "ns/endstate")
		})
	}
}
