package format_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/formattest"
	"github.com/isocheck/isocheck/history"
)

func BenchmarkReadJSONL(b *testing.B) {
	var buf bytes.Buffer
	if err := format.Write(&buf, formattest.BenchHistory(100_000, 15), format.JSONL); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := format.Read(bytes.NewReader(data), "bench.jsonl", format.JSONL); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteJSONL(b *testing.B) {
	h := formattest.BenchHistory(100_000, 15)
	var buf bytes.Buffer
	if err := format.Write(&buf, h, format.JSONL); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		buf.Reset()
		if err := format.Write(&buf, h, format.JSONL); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadDBCop(b *testing.B) {
	data, err := os.ReadFile(formattest.Corpus(b, "polysi", "20_100_15_10000_0.5_zipf__hist-00000.bincode"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := format.Read(bytes.NewReader(data), "bench.bincode", format.DBCop); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadCobra(b *testing.B) {
	dir := formattest.Corpus(b, "polysi", "cobra-tpcc")
	logs, err := filepath.Glob(filepath.Join(dir, "T*.log"))
	if err != nil {
		b.Fatal(err)
	}
	var size int64
	for _, l := range logs {
		st, err := os.Stat(l)
		if err != nil {
			b.Fatal(err)
		}
		size += st.Size()
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := format.ReadFile(dir, format.Cobra); err != nil {
			b.Fatal(err)
		}
	}
}

// uniformHistory builds a history like `isocheck generate --sessions 20
// --ops 15 --keys 1000000 --dist uniform`: txns transactions of 15
// operations, half reads, over keys drawn uniformly from a million (a
// history of 100,000 transactions has about 777,000 keys: interning them
// is most of the cost of reading it).
func uniformHistory(txns int) *history.History {
	rng := rand.New(rand.NewPCG(1, 2))
	b := history.NewBuilder(history.Null, "bench")
	last := make(map[history.Key]history.Value)
	ops := make([]history.Op, 15)
	for t := 0; t < txns; t++ {
		for i := range ops {
			k := b.IntKey(int64(rng.IntN(1_000_000)))
			if rng.IntN(2) == 0 {
				v, ok := last[k]
				if !ok {
					v = history.Null
				}
				ops[i] = history.Op{Kind: history.Read, Key: k, Value: v}
			} else {
				ops[i] = history.Op{Kind: history.Write, Key: k, Value: history.Value(t + 1)}
				last[k] = history.Value(t + 1)
			}
		}
		b.AddTxn(history.Txn{Session: b.IntSession(int64(t % 20)), Start: int64(t), End: int64(t + 1)}, ops)
	}
	return b.History()
}

// BenchmarkReadUniform reads uniformHistory in each format (issue 11:
// AWDIT's readers take 153 ms for dbcop at 100k transactions, 1.6 s at 1M).
func BenchmarkReadUniform(b *testing.B) {
	sizes := []int{100_000}
	if os.Getenv("ISOCHECK_BENCH_1M") != "" {
		sizes = append(sizes, 1_000_000)
	}
	for _, n := range sizes {
		h := uniformHistory(n)
		for _, f := range []format.Format{format.JSONL, format.DBCop, format.Text} {
			var buf bytes.Buffer
			if err := format.Write(&buf, h, f); err != nil {
				b.Fatal(err)
			}
			data := buf.Bytes()
			b.Run(fmt.Sprintf("%s/%dk", f, n/1000), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				n, cpu := 0, -cpuTime()
				for b.Loop() {
					if _, err := format.Read(bytes.NewReader(data), "bench", f); err != nil {
						b.Fatal(err)
					}
					n++
				}
				// CPU time of all threads (the reader's, the garbage
				// collector's): the work, where ns/op is the latency.
				b.ReportMetric(float64(cpu+cpuTime())/float64(n)/1e6, "cpu-ms/op")
			})
		}
	}
}
