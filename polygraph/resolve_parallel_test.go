package polygraph

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/isocheck/isocheck/histgen"
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
