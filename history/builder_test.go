package history

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestBuilderKeys checks the interning of keys, dense table and all,
// against a map of names.
func TestBuilderKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	b := NewBuilder(0)
	want := map[string]Key{}
	check := func(name string, k Key) {
		t.Helper()
		w, ok := want[name]
		if !ok {
			w = Key(len(want))
			want[name] = w
		}
		if k != w {
			t.Fatalf("key %q is %d, want %d", name, k, w)
		}
	}
	for i := 0; i < 200_000; i++ {
		var n int64
		switch rng.IntN(6) {
		case 0:
			n = rng.Int64N(1 << 20)
		case 1:
			n = rng.Int64N(1000)
		case 2:
			n = -rng.Int64N(1000)
		case 3:
			n = rng.Int64()
		case 4:
			n = []int64{math.MaxInt64, math.MinInt64, 0, 1 << 16, 1<<16 - 1}[rng.IntN(5)]
		case 5:
			name := []string{"x", "-0", "007", "+5", "-", "", strconv.Itoa(rng.IntN(2000)), "-" + strconv.Itoa(rng.IntN(2000))}[rng.IntN(8)]
			check(name, b.Key(name))
			continue
		}
		name := strconv.FormatInt(n, 10)
		if rng.IntN(2) == 0 {
			check(name, b.IntKey(n))
		} else {
			check(name, b.Key(name))
		}
	}
	h := b.History()
	for name, k := range want {
		if h.KeyNames[k] != name {
			t.Fatalf("KeyNames[%d] = %q, want %q", k, h.KeyNames[k], name)
		}
	}
	if len(h.KeyNames) != len(want) {
		t.Fatalf("%d keys, want %d", len(h.KeyNames), len(want))
	}
}

// TestBuilderIntKeys checks IntKeys against IntKey.
func TestBuilderIntKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a, b := NewBuilder(0), NewBuilder(0)
	for i := 0; i < 20_000; i++ {
		ns := make([]int64, rng.IntN(20))
		for j := range ns {
			switch rng.IntN(4) {
			case 0:
				ns[j] = rng.Int64N(1 << 22)
			case 1:
				ns[j] = rng.Int64N(100)
			case 2:
				ns[j] = -rng.Int64N(100)
			case 3:
				ns[j] = rng.Int64()
			}
			if j > 0 && rng.IntN(5) == 0 {
				ns[j] = ns[rng.IntN(j)] // a key twice
			}
		}
		keys := make([]Key, len(ns))
		a.IntKeys(ns, keys)
		for j, n := range ns {
			if k := b.IntKey(n); k != keys[j] {
				t.Fatalf("IntKeys gave key %d to %d, IntKey %d", keys[j], n, k)
			}
		}
	}
}
