package histgen

import (
	"math"
	"reflect"
	"testing"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/workload"
)

// repeatBase is a Large history of 3,000 transactions on 200 keys: about
// a hundred writes a key, enough for 16 writers a value.
func repeatBase(store Store, dist workload.Distribution) *history.History {
	return Large(LargeConfig{Sessions: 20, TxnsPerSession: 150, OpsPerTxn: 15, Keys: 200, ReadProportion: 0.5,
		Dist: dist, Seed: 7, Store: store})
}

type keyVal struct {
	k history.Key
	v history.Value
}

// writesOf counts the writes of each value of each key.
func writesOf(h *history.History) map[keyVal]int {
	n := make(map[keyVal]int)
	for _, op := range h.Ops {
		if op.Kind == history.Write {
			n[keyVal{op.Key, op.Value}]++
		}
	}
	return n
}

// foldedKeys are the keys on which some op's value differs between h and
// r.
func foldedKeys(h, r *history.History) map[history.Key]bool {
	keys := make(map[history.Key]bool)
	for i := range h.Ops {
		if h.Ops[i].Value != r.Ops[i].Value {
			keys[h.Ops[i].Key] = true
		}
	}
	return keys
}

func cloneHistory(h *history.History) *history.History {
	c := *h
	c.Ops = append([]history.Op(nil), h.Ops...)
	c.Txns = append([]history.Txn(nil), h.Txns...)
	return &c
}

func TestRepeat(t *testing.T) {
	bases := map[string]*history.History{
		"uniform": repeatBase(Serializable, workload.Uniform),
		"zipf":    repeatBase(SnapshotIsolation, workload.Zipf),
		// The shape of bench-scale's histories: as many keys as
		// transactions, a few writes a key.
		"soak": Large(LargeConfig{Sessions: 20, TxnsPerSession: 150, OpsPerTxn: 15, Keys: 3000, ReadProportion: 0.5,
			Dist: workload.Uniform, Seed: 13, Store: Serializable}),
	}
	tests := []struct {
		base     string
		fraction float64
		writers  int
	}{
		{"uniform", 0.1, 2},
		{"uniform", 0.5, 4},
		{"uniform", 1, 16},
		{"uniform", 0.5, 16},
		{"zipf", 0.1, 4},
		{"zipf", 0.5, 2},
		{"zipf", 1, 16},
		{"soak", 0.1, 2},
		{"soak", 0.5, 4},
		{"soak", 1, 16},
	}
	for _, tt := range tests {
		cfg := RepeatConfig{Fraction: tt.fraction, Writers: tt.writers, Seed: 3}
		t.Run(tt.base+" "+cfg.String(), func(t *testing.T) {
			h := bases[tt.base]
			orig := cloneHistory(h)
			r := Repeat(h, cfg)
			if !reflect.DeepEqual(h, orig) {
				t.Fatal("Repeat changed its argument")
			}
			if len(r.Ops) != len(h.Ops) || len(r.Txns) != len(h.Txns) {
				t.Fatalf("%d ops, %d txns; want %d, %d", len(r.Ops), len(r.Txns), len(h.Ops), len(h.Txns))
			}
			for i := range h.Ops {
				if h.Ops[i].Kind != r.Ops[i].Kind || h.Ops[i].Key != r.Ops[i].Key {
					t.Fatalf("op %d: %v, was %v: only values may change", i, r.Ops[i], h.Ops[i])
				}
			}

			// The share of reads on folded keys.
			folded := foldedKeys(h, r)
			var reads, onFolded int
			for _, op := range h.Ops {
				if op.Kind == history.Read {
					reads++
					if folded[op.Key] {
						onFolded++
					}
				}
			}
			share := float64(onFolded) / float64(reads)
			if math.Abs(share-tt.fraction) > 0.03 {
				t.Errorf("%.3f of the reads on folded keys, want %.2f", share, tt.fraction)
			}

			// Multiplicity: on a folded key of W written values, each
			// value is written ceil or floor of W/D times, D =
			// ceil(W/Writers), never more than Writers.
			before, after := writesOf(h), writesOf(r)
			distinct := make(map[history.Key]int)
			for kv := range before {
				distinct[kv.k]++
			}
			var sum, values int
			for kv, n := range after {
				if !folded[kv.k] {
					if n != 1 {
						t.Errorf("key %d, not folded: value %d written %d times", kv.k, kv.v, n)
					}
					continue
				}
				w := distinct[kv.k]
				d := (w + tt.writers - 1) / tt.writers
				if n > tt.writers || n < w/d || n > (w+d-1)/d {
					t.Errorf("key %d (%d values, %d folded): value %d written %d times", kv.k, w, d, kv.v, n)
				}
				if before[kv] != 1 {
					t.Errorf("key %d: folded value %d is not one of the key's written values", kv.k, kv.v)
				}
				sum += n
				values++
			}
			// The soak history has too few writes a key for 16 writers.
			if mean := float64(sum) / float64(values); tt.base != "soak" && mean < 0.75*float64(tt.writers) {
				t.Errorf("%.1f writes a folded value, want about %d", mean, tt.writers)
			}

			// Every read reads what its original writer now writes, or
			// Init: the original witness stands.
			writerOf := make(map[keyVal]int) // op index of the write, in h
			for i, op := range h.Ops {
				if op.Kind == history.Write {
					writerOf[keyVal{op.Key, op.Value}] = i
				}
			}
			for i, op := range h.Ops {
				if op.Kind != history.Read {
					continue
				}
				got := r.Ops[i].Value
				if op.Value == h.Init {
					if got != h.Init {
						t.Fatalf("op %d: a read of the initial value now reads %d", i, got)
					}
					continue
				}
				w, ok := writerOf[keyVal{op.Key, op.Value}]
				if !ok {
					t.Fatalf("op %d: the base history reads a value nobody writes", i)
				}
				if r.Ops[w].Value != got {
					t.Fatalf("op %d reads %d, but its writer (op %d) now writes %d", i, got, w, r.Ops[w].Value)
				}
				if got == h.Init {
					t.Fatalf("op %d: a read now reads the initial value", i)
				}
			}

			// Deterministic for a seed; another seed folds other keys.
			if again := Repeat(h, cfg); !reflect.DeepEqual(again, r) {
				t.Error("two calls with the same configuration differ")
			}
			if tt.fraction < 1 {
				other := cfg
				other.Seed++
				if reflect.DeepEqual(foldedKeys(h, Repeat(h, other)), folded) {
					t.Error("another seed folds the same keys")
				}
			}
		})
	}
}

// TestRepeatUnchanged: what Repeat leaves alone.
func TestRepeatUnchanged(t *testing.T) {
	base := repeatBase(Serializable, workload.Uniform)
	lists := Large(LargeConfig{Sessions: 4, TxnsPerSession: 50, OpsPerTxn: 5, Keys: 20, ReadProportion: 0.5, Seed: 1, Lists: true})
	ordered := cloneHistory(base)
	ordered.Orders = []history.VersionOrder{{Key: 0, Values: []history.Value{1, 2}}}
	tests := []struct {
		name string
		h    *history.History
		cfg  RepeatConfig
	}{
		{"fraction 0", base, RepeatConfig{Fraction: 0, Writers: 4}},
		{"negative fraction", base, RepeatConfig{Fraction: -1, Writers: 4}},
		{"NaN fraction", base, RepeatConfig{Fraction: math.NaN(), Writers: 4}},
		{"one writer", base, RepeatConfig{Fraction: 1, Writers: 1}},
		{"list history", lists, RepeatConfig{Fraction: 1, Writers: 4}},
		{"version orders", ordered, RepeatConfig{Fraction: 1, Writers: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !lists.Lists {
				t.Fatal("the list history is not one")
			}
			if got := Repeat(tt.h, tt.cfg); got != tt.h {
				t.Error("Repeat changed the history")
			}
		})
	}
}

// TestRepeatRanks: values are ranked by first write, whatever they are;
// writes of Init and reads of unwritten values stay; string values keep
// their names.
func TestRepeatRanks(t *testing.T) {
	b := history.NewBuilder(0)
	x := b.Key("x")
	s := b.Session("s")
	a, bb, c := b.StringValue("a"), b.StringValue("b"), b.StringValue("c")
	txn := func(ops ...history.Op) {
		b.AddTxn(history.Txn{Session: s, Start: history.NoTime, End: history.NoTime}, ops)
	}
	w := func(v history.Value) history.Op { return history.Op{Kind: history.Write, Key: x, Value: v} }
	r := func(v history.Value) history.Op { return history.Op{Kind: history.Read, Key: x, Value: v} }
	// Written in the order 9, c, 0 (Init), 5, a, 9 again, bb; read: Init,
	// 5, 42 (nobody writes it), bb.
	txn(r(0), w(9), w(c))
	txn(w(0), r(9))
	txn(w(5), w(a), r(5))
	txn(w(9), w(bb), r(42), r(bb))
	h := b.History()
	got := Repeat(h, RepeatConfig{Fraction: 1, Writers: 2})
	// Five distinct values (9, c, 5, a, bb): D = 3, so 9 c 5 | a bb
	// fold to 9 c 5 | 9 c.
	want := []history.Value{0, 9, c, 0, 9, 5, 9, 5, 9, c, 42, c}
	var vals []history.Value
	for _, op := range got.Ops {
		vals = append(vals, op.Value)
	}
	if !reflect.DeepEqual(vals, want) {
		t.Errorf("values %v, want %v", vals, want)
	}
	if got.FormatValue(c) != `"c"` {
		t.Errorf("c prints as %s", got.FormatValue(c))
	}
	if d := Describe(got); d == "" {
		t.Error("no description")
	}
}

// TestRepeatNoReads: without reads, the fraction is of the keys.
func TestRepeatNoReads(t *testing.T) {
	h := Large(LargeConfig{Sessions: 5, TxnsPerSession: 100, OpsPerTxn: 4, Keys: 100, ReadProportion: 0, Dist: workload.Uniform, Seed: 2, Store: Serializable})
	r := Repeat(h, RepeatConfig{Fraction: 0.3, Writers: 4, Seed: 1})
	if n := len(foldedKeys(h, r)); n < 25 || n > 35 {
		t.Errorf("%d of 100 keys folded, want about 30", n)
	}
}

// BenchmarkRepeat folds a 100k-transaction history's every key.
func BenchmarkRepeat(b *testing.B) {
	h := Large(LargeConfig{Sessions: 20, TxnsPerSession: 5000, OpsPerTxn: 15, Keys: 100_000, ReadProportion: 0.5, Dist: workload.Uniform, Seed: 13, Store: Serializable})
	for b.Loop() {
		Repeat(h, RepeatConfig{Fraction: 1, Writers: 4, Seed: 1})
	}
}
