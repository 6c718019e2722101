package histgen

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/isocheck/isocheck/history"
)

// RepeatConfig says which keys Repeat folds and how far.
type RepeatConfig struct {
	// Fraction is the share of the reads, within [0, 1], that fall on
	// folded keys: about this share of the reads become reads with
	// several candidate writers. 0 folds nothing, 1 every key.
	Fraction float64
	// Writers is how many writes of a folded key each value has at most
	// (2, 4, 16, ...): a key with W written values gets ceil(W/Writers)
	// values, each written ceil or floor of W/ceil(W/Writers) times.
	// Below 2 nothing is folded.
	Writers int
	// Seed chooses the keys.
	Seed uint64
}

// String names the configuration, as "fraction=0.5 writers=4 seed=1".
func (c RepeatConfig) String() string {
	return fmt.Sprintf("fraction=%g writers=%d seed=%d", c.Fraction, c.Writers, c.Seed)
}

// Repeat returns a copy of h in which the values written to some keys
// repeat: on each chosen key, the values written are folded like a
// counter that wraps around, so that each value is written by up to
// cfg.Writers writes, and every read of a written value reads its fold.
//
// On a chosen key with W distinct written values, ranked 1..W in the
// order they are first written (the order of h.Ops: histgen writes 1, 2,
// 3, ... to each key, so rank and value agree), the key keeps D =
// ceil(W/cfg.Writers) values: the value of rank r becomes the value of
// rank ((r-1) mod D) + 1, one of the key's own written values (so that
// h.FormatValue and h.ValueNames print it as before). Writes of h.Init
// are left as they are and take no part in the ranking, so folding never
// makes a write of the initial value; reads of h.Init, and reads of
// values nobody writes, are left as they are too.
//
// Keys are drawn in a random order (from cfg.Seed) and folded until the
// reads of the folded keys reach about cfg.Fraction of all reads (each
// key is taken when it brings the share closer to cfg.Fraction);
// cfg.Fraction ≥ 1 folds every key. A history without reads folds about
// cfg.Fraction of its keys.
//
// Every read still reads a value its original writer writes, so the
// original history's witness still holds: folding a history that
// satisfies a level gives one that satisfies it, when reads of a value
// with several writers may be read from any of them. The other writers
// of a value are new candidates; some may be in the reader's own
// transaction (a transaction that writes a key twice, or reads a value
// before writing its fold).
//
// The copy has its own Ops and shares every other slice with h, which is
// not changed. Repeat returns h itself when there is nothing to fold:
// cfg.Fraction ≤ 0 (or NaN), cfg.Writers < 2, and list histories
// (h.Lists) or histories that state version orders (h.Orders), whose
// values must stay unique per key.
func Repeat(h *history.History, cfg RepeatConfig) *history.History {
	if h.Lists || len(h.Orders) > 0 || !(cfg.Fraction > 0) || cfg.Writers < 2 {
		return h
	}
	chosen := repeatKeys(h, cfg)

	// The writes of the chosen keys, by key and value, each value's first
	// write first.
	type write struct {
		v  history.Value
		op int32
		k  history.Key
	}
	var ws []write
	for i, op := range h.Ops {
		if op.Kind == history.Write && chosen[op.Key] && op.Value != h.Init {
			ws = append(ws, write{op.Value, int32(i), op.Key})
		}
	}
	slices.SortFunc(ws, func(a, b write) int {
		return cmp.Or(cmp.Compare(a.k, b.k), cmp.Compare(a.v, b.v), cmp.Compare(a.op, b.op))
	})
	// Each key's distinct values, sorted (to look them up), with what
	// they fold to: key k's are values[from[k]:from[k+1]].
	type fold struct{ v, to history.Value }
	var values []fold
	from := make([]int32, len(chosen)+1)
	var byFirst []write
	next := 0 // the first key whose from is not set
	for i := 0; i < len(ws); {
		k := ws[i].k
		for ; next <= int(k); next++ {
			from[next] = int32(len(values))
		}
		byFirst = byFirst[:0]
		for ; i < len(ws) && ws[i].k == k; i++ {
			if len(byFirst) == 0 || byFirst[len(byFirst)-1].v != ws[i].v {
				byFirst = append(byFirst, ws[i])
			}
		}
		start := len(values)
		for _, w := range byFirst {
			values = append(values, fold{v: w.v})
		}
		// Rank the values by their first write: the value of rank r
		// folds to that of rank r mod D (counting from 0).
		slices.SortFunc(byFirst, func(a, b write) int { return cmp.Compare(a.op, b.op) })
		d := (len(byFirst) + cfg.Writers - 1) / cfg.Writers
		for r, w := range byFirst {
			j, _ := slices.BinarySearchFunc(values[start:], w.v, func(f fold, v history.Value) int { return cmp.Compare(f.v, v) })
			values[start+j].to = byFirst[r%d].v
		}
	}
	for ; next < len(from); next++ {
		from[next] = int32(len(values))
	}

	c := *h
	c.Ops = slices.Clone(h.Ops)
	for i, op := range c.Ops {
		if !chosen[op.Key] {
			continue
		}
		vals := values[from[op.Key]:from[op.Key+1]]
		if j, ok := slices.BinarySearchFunc(vals, op.Value, func(f fold, v history.Value) int { return cmp.Compare(f.v, v) }); ok {
			c.Ops[i].Value = vals[j].to
		} // else h.Init, or a value nobody writes
	}
	return &c
}

// repeatKeys chooses the keys Repeat folds: in a random order, each key
// that brings the share of reads on chosen keys closer to cfg.Fraction,
// until it reaches it.
func repeatKeys(h *history.History, cfg RepeatConfig) []bool {
	n := h.NumKeys()
	for _, op := range h.Ops {
		n = max(n, int(op.Key)+1) // robust to a history whose KeyNames fall short
	}
	chosen := make([]bool, n)
	if cfg.Fraction >= 1 {
		for k := range chosen {
			chosen[k] = true
		}
		return chosen
	}
	reads := make([]int, n)
	total := 0
	for _, op := range h.Ops {
		if op.Kind == history.Read {
			reads[op.Key]++
			total++
		}
	}
	if total == 0 {
		// No reads to share out: the keys count instead.
		total = n
		for k := range reads {
			reads[k] = 1
		}
	}
	target := cfg.Fraction * float64(total)
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x6a09e667f3bcc909))
	sum := 0.0
	for _, k := range rng.Perm(n) {
		if sum >= target {
			break
		}
		next := sum + float64(reads[k])
		if math.Abs(next-target) <= math.Abs(sum-target) {
			chosen[k] = true
			sum = next
		}
	}
	return chosen
}
