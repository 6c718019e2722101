package shrink

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/isocheck/isocheck/history"
)

// TestWrites: the index finds, for each key and value, the writes a scan
// of the history finds, in history order, on random histories whose
// values repeat and some of whose keys are outside the range a reader
// numbers keys in (negative, or past the count of operations).
func TestWrites(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	keys := []history.Key{0, 1, 2, 3, 7, -4, 1 << 20}
	for n := range 200 {
		h := &history.History{}
		for tx := range 1 + rng.IntN(8) {
			start := int32(len(h.Ops))
			for range rng.IntN(6) {
				op := history.Op{Kind: history.Read, Key: keys[rng.IntN(len(keys))], Value: history.Value(rng.IntN(4))}
				if rng.IntN(2) == 0 {
					op.Kind = history.Write
				}
				h.Ops = append(h.Ops, op)
			}
			h.Txns = append(h.Txns, history.Txn{Session: int32(tx), OpStart: start, OpEnd: int32(len(h.Ops))})
		}
		w := NewWrites(h)
		for _, k := range append(keys, 5, -1) {
			for v := history.Value(-1); v <= 4; v++ {
				var want []Write
				for t := range h.Txns {
					for i := h.Txns[t].OpStart; i < h.Txns[t].OpEnd; i++ {
						if op := h.Ops[i]; op.Kind == history.Write && op.Key == k && op.Value == v {
							want = append(want, Write{Value: v, Op: i, Txn: int32(t)})
						}
					}
				}
				if got := w.Of(k, v); !slices.Equal(got, want) {
					t.Fatalf("history %d: writes of %d to key %d: %v, want %v", n, v, k, got, want)
				}
			}
		}
	}
}
