package text

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestParseTextLineFast checks the fast path of parseTextLine against the
// general one on random lines.
func TestParseTextLineFast(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const alphabet = "rw(),-0123456789 \r9x"
	fast := 0
	for i := 0; i < 300_000; i++ {
		var line []byte
		if rng.IntN(2) == 0 {
			line = fmt.Appendf(nil, "%c(%d,%d,%d,%d)", "rw"[rng.IntN(2)], rng.Int64N(1<<rng.IntN(63)), rng.Int64N(1<<rng.IntN(63)), rng.IntN(30), rng.IntN(100)-1)
			for range rng.IntN(3) {
				line[rng.IntN(len(line))] = alphabet[rng.IntN(len(alphabet))]
			}
		} else {
			line = make([]byte, rng.IntN(20))
			for j := range line {
				line[j] = alphabet[rng.IntN(len(alphabet))]
			}
		}
		kind, f, ok := parseTextLineFast(line)
		if !ok {
			continue
		}
		fast++
		gkind, gf, err := parseTextLineGeneral(line)
		if err != nil || gkind != kind || gf != f {
			t.Fatalf("%q: fast path gives %v %v, the general one %v %v %v", line, kind, f, gkind, gf, err)
		}
	}
	if fast < 10_000 {
		t.Fatalf("only %d lines took the fast path", fast)
	}
}
