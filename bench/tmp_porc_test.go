package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/isocheck/isocheck/lwt"
)

func TestTmpPorc(t *testing.T) {
	for _, n := range []int{1000, 10000} {
		for _, c := range []int{16} {
			for _, inj := range lwtKinds {
				ops, at := lwt.Generate(lwt.GenConfig{Processes: c, Ops: n, Seed: uint64(c), ReadFrac: 0.4, CASHit: 0.5, Inject: inj})
				st := time.Now()
				res := porcupine.CheckOperationsTimeout(casRegister, toPorcupine(ops), 180*time.Second)
				fmt.Println(n, c, inj, at, res, time.Since(st))
			}
		}
	}
}
