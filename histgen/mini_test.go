package histgen

import (
	"testing"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/reference"
	"github.com/isocheck/isocheck/level"
)

// TestMiniIsStrictlySerializable checks small Mini histories with the
// reference checker, and that they are made of mini-transactions.
func TestMiniIsStrictlySerializable(t *testing.T) {
	for seed := int64(0); seed < 200; seed++ {
		h := Mini(MiniConfig{Sessions: 3, Txns: 7, Keys: 3, Seed: seed})
		ok, err := reference.Check(h, level.SSER)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Fatalf("seed %d: not SSER:\n%s", seed, Describe(h))
		}
		for i := range h.Txns {
			ops := h.OpsOf(i)
			if len(ops) > 4 {
				t.Fatalf("seed %d: transaction %d has %d operations", seed, i, len(ops))
			}
			for j, op := range ops {
				if op.Kind == history.Write && (j == 0 || ops[j-1].Kind != history.Read || ops[j-1].Key != op.Key) {
					t.Fatalf("seed %d: write not preceded by a read of its key: %v", seed, ops)
				}
			}
		}
	}
}
