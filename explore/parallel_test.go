package explore

import (
	"context"
	"maps"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/level"
)

// Workers find the same histories, counts and first broken history as one
// goroutine, each history once.
func TestWorkersAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	programs := testsize.N(60, 150)
	if testing.Short() {
		programs = 30
	}
	levels := []level.Level{level.RC, level.CC, level.SER}
	for i := range programs {
		p := randomRMW(rng, 2+rng.IntN(2), 1+rng.IntN(2), 2+rng.IntN(2))
		p.Final = &Txn{Name: "audit", Body: func(tx *Tx) {
			tx.Assert(tx.Read("a")%3 != 2, "a is %d", tx.Read("a"))
		}}
		l := levels[i%len(levels)]
		want, wantKeys := runWorkers(t, p, l, 1)
		for _, w := range []int{2, 3} {
			got, gotKeys := runWorkers(t, p, l, w)
			if got.EndStates != want.EndStates || got.Histories != want.Histories || got.Failed != want.Failed || got.Blocked != want.Blocked || !got.Complete {
				t.Fatalf("program %d at %v, %d workers: %+v, one goroutine: %+v", i, l, w, got, want)
			}
			if (got.First == nil) != (want.First == nil) || got.First != nil && got.First.Key() != want.First.Key() {
				t.Fatalf("program %d at %v, %d workers: first broken history differs", i, l, w)
			}
			if !maps.Equal(gotKeys, wantKeys) {
				t.Fatalf("program %d at %v, %d workers: other histories", i, l, w)
			}
		}
	}
}

func runWorkers(t *testing.T, p *Program, l level.Level, workers int) (*Result, map[string]int) {
	t.Helper()
	var mu sync.Mutex
	keys := map[string]int{}
	res, err := Explore(context.Background(), p, Options{Level: l, Workers: workers, OnHistory: func(h *History) error {
		mu.Lock()
		defer mu.Unlock()
		keys[h.Key()]++
		if keys[h.Key()] > 1 {
			t.Errorf("%d workers: history twice:\n%s", workers, h.Key())
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	return res, keys
}
