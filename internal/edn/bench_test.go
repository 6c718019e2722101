package edn

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	olympos "olympos.io/encoding/edn"
)

// writeJepsenHistory writes a Jepsen list-append history of about size
// bytes to w, one op map a line: 20 processes, 2 to 4 micro-ops a
// transaction, lists that grow to about 100 elements before their key is
// retired, as Elle's generator does.
func writeJepsenHistory(w io.Writer, size int64) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	lists := map[int][]int{}
	nextKey := 0
	active := []int{}
	var written int64
	index, now := 0, int64(1000)
	for written < size {
		for len(active) < 10 {
			active = append(active, nextKey)
			nextKey++
		}
		process := rng.IntN(20)
		n := 2 + rng.IntN(3)
		type mop struct {
			f      string
			k, v   int
			result []int
		}
		mops := make([]mop, n)
		for i := range mops {
			j := rng.IntN(len(active))
			k := active[j]
			if rng.IntN(2) == 0 {
				v := len(lists[k]) + 1
				lists[k] = append(lists[k], v)
				mops[i] = mop{f: "append", k: k, v: v}
				if len(lists[k]) >= 100 {
					active = append(active[:j], active[j+1:]...)
				}
			} else {
				mops[i] = mop{f: "r", k: k, result: lists[k]}
			}
		}
		for _, typ := range []string{"invoke", "ok"} {
			line := fmt.Appendf(nil, "{:type :%s, :f :txn, :value [", typ)
			for i, m := range mops {
				if i > 0 {
					line = append(line, ' ')
				}
				switch {
				case m.f == "append":
					line = fmt.Appendf(line, "[:append %d %d]", m.k, m.v)
				case typ == "invoke" || len(m.result) == 0:
					line = fmt.Appendf(line, "[:r %d nil]", m.k)
				default:
					line = fmt.Appendf(line, "[:r %d %v]", m.k, m.result)
				}
			}
			now += int64(rng.IntN(100000))
			line = fmt.Appendf(line, "], :time %d, :process %d, :index %d}\n", now, process, index)
			index++
			n, err := bw.Write(line)
			if err != nil {
				return err
			}
			written += int64(n)
		}
	}
	return bw.Flush()
}

var (
	historyOnce sync.Once
	historyPath string
	historyErr  error
)

// jepsenHistory returns the path of a generated 100 MB history, made once
// per run in a temporary directory.
func jepsenHistory(b *testing.B) string {
	historyOnce.Do(func() {
		dir, err := os.MkdirTemp("", "edn-bench")
		if err != nil {
			historyErr = err
			return
		}
		historyPath = filepath.Join(dir, "history.edn")
		f, err := os.Create(historyPath)
		if err != nil {
			historyErr = err
			return
		}
		defer f.Close()
		historyErr = writeJepsenHistory(f, 100<<20)
	})
	if historyErr != nil {
		b.Fatal(historyErr)
	}
	b.Cleanup(func() {}) // the file is removed by TestMain
	return historyPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if historyPath != "" {
		os.RemoveAll(filepath.Dir(historyPath))
	}
	os.Exit(code)
}

// cpuTime returns the CPU time the process has used (user and system), so
// that a benchmark on a busy machine can report the work it did.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkDecode reads a 100 MB Jepsen history into Go values with this
// package and with olympos.io/encoding/edn (see the package comment).
func BenchmarkDecode(b *testing.B) {
	path := jepsenHistory(b)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("isocheck", func(b *testing.B) {
		b.SetBytes(st.Size())
		b.ReportAllocs()
		cpu := cpuTime()
		defer func() { b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op") }()
		for b.Loop() {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			d := NewDecoder(f)
			n := 0
			for {
				_, err := d.Decode()
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			f.Close()
			b.ReportMetric(float64(n), "forms")
		}
	})
	b.Run("olympos", func(b *testing.B) {
		b.SetBytes(st.Size())
		b.ReportAllocs()
		cpu := cpuTime()
		defer func() { b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op") }()
		for b.Loop() {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			d := olympos.NewDecoder(bufio.NewReaderSize(f, 1<<20))
			n := 0
			for {
				var v any
				err := d.Decode(&v)
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			f.Close()
			b.ReportMetric(float64(n), "forms")
		}
	})
}
