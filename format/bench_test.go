package format

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/isocheck/isocheck/history"
)

// benchHistory builds a native history of txns transactions of ops
// operations each over 16 sessions and 10,000 keys, half of them named by
// strings.
func benchHistory(txns, ops int) *history.History {
	b := history.NewBuilder(history.Null, "bench")
	buf := make([]history.Op, ops)
	next := history.Value(1)
	for t := 0; t < txns; t++ {
		for i := range buf {
			k := (t*7919 + i*104729) % 10000
			var key history.Key
			if k%2 == 0 {
				key = b.IntKey(int64(k))
			} else {
				key = b.Key("key" + strconv.Itoa(k))
			}
			if i%2 == 0 {
				buf[i] = history.Op{Kind: history.Read, Key: key, Value: next - history.Value(k) - 1}
				if k%5 == 0 {
					buf[i].Value = history.Null
				}
			} else {
				buf[i] = history.Op{Kind: history.Write, Key: key, Value: next}
				next++
			}
		}
		b.AddTxn(history.Txn{
			ID:      "t" + strconv.Itoa(t),
			Session: b.IntSession(int64(t % 16)),
			Start:   int64(t * 10),
			End:     int64(t*10 + 5),
		}, buf)
	}
	return b.History()
}

func BenchmarkReadJSONL(b *testing.B) {
	var buf bytes.Buffer
	if err := Write(&buf, benchHistory(100_000, 15), JSONL); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), "bench.jsonl", JSONL); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteJSONL(b *testing.B) {
	h := benchHistory(100_000, 15)
	var buf bytes.Buffer
	if err := Write(&buf, h, JSONL); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		buf.Reset()
		if err := Write(&buf, h, JSONL); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadDBCop(b *testing.B) {
	data, err := os.ReadFile(corpus(b, "polysi", "20_100_15_10000_0.5_zipf__hist-00000.bincode"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), "bench.bincode", DBCop); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadCobra(b *testing.B) {
	dir := corpus(b, "polysi", "cobra-tpcc")
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
		if _, err := ReadFile(dir, Cobra); err != nil {
			b.Fatal(err)
		}
	}
}
