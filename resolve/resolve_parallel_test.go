package resolve

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/workload"
)

// TestResolveReadsByWorkers checks that resolving reads on several
// workers finds the reads and anomalies, in the order, that one worker
// finds, on random histories with faults (so with anomalies of every
// kind).
func TestResolveReadsByWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	anomalies := 0
	for trial := 0; trial < 2000; trial++ {
		h := histgen.Small(rng, histgen.SmallConfig{Sessions: 4, MaxTxns: 12, Keys: 3, MaxOps: 5, FaultProb: 0.5, AbortProb: 0.1, UnknownProb: 0.1})
		resolve := func(workers int) (*Resolution, []ExternalRead) {
			m := progress.Start(context.Background(), "resolve reads", 0, "transactions")
			writes, err := indexWrites(m, h)
			if err != nil {
				return nil, nil
			}
			r := &Resolution{History: h, Included: make([]bool, len(h.Txns))}
			if err := r.include(m, writes); err != nil {
				t.Fatal(err)
			}
			if r.finalWrite, err = finalWrites(m, h); err != nil {
				t.Fatal(err)
			}
			reads, err := r.resolveReadsBy(m, writes, r.finalWrite, workers)
			if err != nil {
				t.Fatal(err)
			}
			return r, reads
		}
		one, oneReads := resolve(1)
		if one == nil {
			continue // an input error, found before reads are resolved
		}
		anomalies += len(one.Anomalies)
		for _, workers := range []int{2, 3, 7} {
			many, manyReads := resolve(workers)
			if !reflect.DeepEqual(oneReads, manyReads) || !reflect.DeepEqual(one.Anomalies, many.Anomalies) {
				t.Fatalf("trial %d: %d workers resolve\n%v\n%v\none resolves\n%v\n%v", trial, workers, manyReads, many.Anomalies, oneReads, one.Anomalies)
			}
		}
	}
	if anomalies == 0 {
		t.Fatal("no anomalies: the test shows nothing about them")
	}
}

// BenchmarkResolveReads resolves the reads of a 100k-transaction SI
// history (1.5M operations, uniform over 1M keys) on one worker and on
// two.
func BenchmarkResolveReads(b *testing.B) {
	h := histgen.Large(histgen.LargeConfig{Store: histgen.SnapshotIsolation, Sessions: 20, TxnsPerSession: 5000, OpsPerTxn: 15, Keys: 1_000_000, ReadProportion: 0.5, Dist: workload.Uniform, Seed: 1})
	m := progress.Start(context.Background(), "resolve reads", 0, "transactions")
	writes, err := indexWrites(m, h)
	if err != nil {
		b.Fatal(err)
	}
	r := &Resolution{History: h, Included: make([]bool, len(h.Txns))}
	if err := r.include(m, writes); err != nil {
		b.Fatal(err)
	}
	if r.finalWrite, err = finalWrites(m, h); err != nil {
		b.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			for b.Loop() {
				r.Anomalies = nil
				if _, err := r.resolveReadsBy(m, writes, r.finalWrite, workers); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestIndexWritesByWorkers checks that indexing writes in one table per
// worker finds every write one table finds, and that of the writes that
// break the input's rules (a value written twice to a key, the initial
// value written) the same one is reported: the first in the history.
func TestIndexWritesByWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	refused := 0
	for trial := 0; trial < 1500; trial++ {
		// List histories refuse repeated values; register histories
		// index every write of a repeated value.
		lists := trial%2 == 0
		h := histgen.Small(rng, histgen.SmallConfig{Sessions: 4, MaxTxns: 12, Keys: 3, MaxOps: 5, FaultProb: 0.3, Lists: lists})
		// Break the rules in some histories: write a value again, or
		// write the initial value.
		if len(h.Ops) > 0 && rng.IntN(3) == 0 {
			i := rng.IntN(len(h.Ops))
			if h.Ops[i].Kind == history.Write {
				if rng.IntN(2) == 0 {
					h.Ops[i].Value = h.Init
				} else if j := rng.IntN(len(h.Ops)); h.Ops[j].Kind == history.Write {
					h.Ops[i] = h.Ops[j]
				}
			}
		}
		m := progress.Start(context.Background(), "index writes", 0, "transactions")
		one, oneErr := indexWritesBy(m, h, 1)
		if oneErr != nil {
			refused++
		}
		for _, workers := range []int{2, 3, 8} {
			many, err := indexWritesBy(m, h, workers)
			if fmt.Sprint(err) != fmt.Sprint(oneErr) {
				t.Fatalf("trial %d: %d workers: %v, one: %v", trial, workers, err, oneErr)
			}
			if err != nil {
				continue
			}
			for i, op := range h.Ops {
				if op.Kind != history.Write {
					continue
				}
				w1, ok1 := one.get(op.Key, op.Value)
				w, ok := many.get(op.Key, op.Value)
				if w != w1 || ok != ok1 || !ok || w.op != int32(i) && h.Ops[w.op] != op {
					t.Fatalf("trial %d: %d workers find the write of %v at %v %v, one at %v %v", trial, workers, op, w, ok, w1, ok1)
				}
				all1, all := one.all(op.Key, op.Value, nil), many.all(op.Key, op.Value, nil)
				if !slices.Equal(all, all1) || !slices.ContainsFunc(all, func(w writeRef) bool { return w.op == int32(i) }) {
					t.Fatalf("trial %d: %d workers find the writes of %v at %v, one at %v", trial, workers, op, all, all1)
				}
				if !lists && one.repeated() != many.repeated() {
					t.Fatalf("trial %d: %d workers say values repeat: %v, one: %v", trial, workers, many.repeated(), one.repeated())
				}
			}
		}
	}
	if refused == 0 {
		t.Fatal("no history was refused: the test shows nothing about errors")
	}
}

// TestFinalWritesByWorkers checks the final writes that several workers
// mark against their definition, a transaction's last write of a key
// unless it rolled back, on random histories with short transactions and
// long ones (which are looked up through a map), where the workers'
// ranges share words of the set.
func TestFinalWritesByWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	overwritten := 0
	for trial := 0; trial < 1000; trial++ {
		h := histgen.Small(rng, histgen.SmallConfig{Sessions: 4, MaxTxns: 12, Keys: 4, MaxOps: 1 + rng.IntN(40), AbortProb: 0.2})
		want := make([]bool, len(h.Ops))
		for _, tx := range h.Txns {
			if tx.Status == history.RolledBack {
				continue
			}
			for i := tx.OpStart; i < tx.OpEnd; i++ {
				if h.Ops[i].Kind != history.Write {
					continue
				}
				want[i] = !slices.ContainsFunc(h.Ops[i+1:tx.OpEnd], func(o history.Op) bool { return o.Kind == history.Write && o.Key == h.Ops[i].Key })
				if !want[i] {
					overwritten++
				}
			}
		}
		m := progress.Start(context.Background(), "resolve reads", 0, "transactions")
		for _, workers := range []int{1, 2, 3, 7} {
			final, err := finalWritesBy(m, h, workers)
			if err != nil {
				t.Fatal(err)
			}
			for i := range h.Ops {
				if got := final.has(int32(i)); got != want[i] {
					t.Fatalf("trial %d: %d workers: operation %d (%v) final: %v, want %v", trial, workers, i, h.Ops[i], got, want[i])
				}
			}
		}
	}
	if overwritten == 0 {
		t.Fatal("no write was overwritten in its transaction: the test shows nothing")
	}
}
