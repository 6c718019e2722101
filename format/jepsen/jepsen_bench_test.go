package jepsen_test

import (
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/isocheck/isocheck/format"
)

// BenchmarkReadEDNListAppend parses a generated Jepsen list-append history
// of 1M transactions (2M events, about 370 MB; see writeListAppend) and
// reports its size, the live heap once it is read (the interned history)
// and the peak heap while reading.
func BenchmarkReadEDNListAppend(b *testing.B) {
	txns := 1_000_000
	if testing.Short() {
		txns = 50_000
	}
	path := filepath.Join(b.TempDir(), "list-append.edn")
	if err := writeListAppend(path, txns); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportMetric(float64(st.Size())/1e6, "MB-input")
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		var peak atomic.Uint64
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			var m runtime.MemStats
			for {
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peak.Load() {
					peak.Store(m.HeapInuse)
				}
			}
		}()
		var ru0, ru1 syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
		h, err := format.ReadFile(path, format.EDN)
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
		cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
		b.ReportMetric(cpu.Seconds(), "cpu-s/op")
		close(stop)
		<-done
		if err != nil {
			b.Fatal(err)
		}
		if len(h.Txns) < txns {
			b.Fatalf("%d transactions", len(h.Txns))
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/1e6, "MB-history")
		b.ReportMetric(float64(peak.Load()-before.HeapInuse)/1e6, "MB-peak")
		runtime.KeepAlive(h)
	}
}

// BenchmarkReadElleJSONListAppend parses the same kind of history as
// BenchmarkReadEDNListAppend, 100k transactions, in elle-cli's JSON
// (encoding/json reads it: slower than the EDN reader).
func BenchmarkReadElleJSONListAppend(b *testing.B) {
	dir := b.TempDir()
	src := filepath.Join(dir, "list-append.edn")
	if err := writeListAppend(src, 100_000); err != nil {
		b.Fatal(err)
	}
	h, err := format.ReadFile(src, format.EDN)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "list-append.json")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := format.Write(f, h, format.ElleJSON); err != nil {
		b.Fatal(err)
	}
	f.Close()
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	for b.Loop() {
		if _, err := format.ReadFile(path, format.ElleJSON); err != nil {
			b.Fatal(err)
		}
	}
}
