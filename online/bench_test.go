package online_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/online"
)

// stream is a history of 20 sessions as a store at level store would
// write it, in native JSONL, one line a transaction.
func stream(b *testing.B, store histgen.Store, txns int) [][]byte {
	b.Helper()
	h := histgen.Large(histgen.LargeConfig{Sessions: 20, TxnsPerSession: txns / 20, OpsPerTxn: 8, Keys: txns, ReadProportion: 0.5, Seed: 1, Store: store})
	var buf bytes.Buffer
	if err := format.Write(&buf, h, format.JSONL); err != nil {
		b.Fatal(err)
	}
	lines := bytes.SplitAfter(buf.Bytes(), []byte("\n"))
	return lines[:len(lines)-1]
}

// BenchmarkOnline measures how many transactions a second the windows
// keep up with: the stream comes in chunks of 5,000 transactions (what
// 50,000 transactions a second write between two checks, 100 ms apart)
// and each chunk is checked before the next comes. The checks of
// everything so far, which run beside the windows, are left out.
func BenchmarkOnline(b *testing.B) {
	for _, tc := range []struct {
		l     level.Level
		store histgen.Store
	}{
		{level.SER, histgen.Serializable},
		{level.SI, histgen.SnapshotIsolation},
		{level.CC, histgen.Causal},
		{level.RA, histgen.ReadAtomic},
		{level.RC, histgen.ReadCommitted},
	} {
		b.Run(tc.l.String(), func(b *testing.B) {
			lines := stream(b, tc.store, 100_000)
			const chunk = 5000
			b.ResetTimer()
			for range b.N {
				c, err := online.New(online.Options{Level: tc.l, Format: format.JSONL, Name: "stream", NoPrefix: true})
				if err != nil {
					b.Fatal(err)
				}
				for i := 0; i < len(lines); i += chunk {
					c.Write(bytes.Join(lines[i:min(i+chunk, len(lines))], nil))
					if v, err := c.Check(context.Background()); err != nil || v != nil {
						b.Fatalf("%v, %v", v, err)
					}
				}
			}
			b.ReportMetric(float64(len(lines)*b.N)/b.Elapsed().Seconds(), "txns/s")
		})
	}
}

// BenchmarkDetectionLatency measures the time from the completion of a
// lost update, in a serializable stream of 10,000 transactions a second,
// to its report: the stream comes in chunks of 1,000 transactions, one
// each 100 ms check, and the latency is the time the lines after the
// lost update took to come at that rate, plus the check that found it.
func BenchmarkDetectionLatency(b *testing.B) {
	lines := stream(b, histgen.Serializable, 50_000)
	const at, chunk, rate = 30_500, 1000, 10_000.0
	lost := [][]byte{
		[]byte(`{"session": "lu1", "ops": [["r", "lost", null], ["w", "lost", 1]]}` + "\n"),
		[]byte(`{"session": "lu2", "ops": [["r", "lost", null], ["w", "lost", 2]]}` + "\n"),
	}
	lines = append(lines[:at:at], append(lost, lines[at:]...)...)
	var total time.Duration
	for range b.N {
		c, err := online.New(online.Options{Level: level.SER, Format: format.JSONL, Name: "stream"})
		if err != nil {
			b.Fatal(err)
		}
		found := false
		for i := 0; i < len(lines) && !found; i += chunk {
			end := min(i+chunk, len(lines))
			c.Write(bytes.Join(lines[i:end], nil))
			start := time.Now()
			v, err := c.Check(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if v != nil {
				found = true
				total += time.Since(start) + time.Duration(float64(end-(at+2))/rate*float64(time.Second))
			}
		}
		c.Wait()
		if !found {
			b.Fatal("the lost update was not found before the end")
		}
	}
	b.ReportMetric(total.Seconds()*1000/float64(b.N), "latency-ms")
}
