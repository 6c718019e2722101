package jsonl

import (
	"bufio"
	"io"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/history"
)

func TestLongLines(t *testing.T) {
	line := `{"session":0,"ops":[` + strings.Repeat(`["w","k",1],`, 100) + `["r","k",1]]}` + "\n"
	for _, max := range []int{len(line) - 1, len(line), len(line) + 1, 10 * len(line)} {
		for _, size := range []int{16, 100, 4096} {
			for _, final := range []string{"", "\n"} {
				in := "\n" + line + line[:len(line)-1] + final
				r := &jsonlReader{b: history.NewBuilder(history.Null, "x"), name: "x",
					keys: map[string]history.Key{}, vals: map[string]history.Value{}, sess: map[string]int32{}}
				lr := scan.NewLineReader(bufio.NewReaderSize(strings.NewReader(in), size), "x")
				lr.Max = max
				n := 0
				var err error
				for {
					var l []byte
					l, err = lr.Next()
					if err != nil {
						break
					}
					if !scan.IsBlank(l) {
						if err = r.parseLine(l, lr.Line); err != nil {
							break
						}
						n++
					}
				}
				if max < len(line)-1 {
					if e, ok := err.(*scan.Error); !ok || e.Line != 2 || !strings.Contains(e.Msg, "line longer than") {
						t.Errorf("max %d size %d: got %v, want a long line error on line 2", max, size, err)
					}
					continue
				}
				if err != io.EOF || n != 2 {
					t.Errorf("max %d size %d: got %d transactions and %v", max, size, n, err)
				}
			}
		}
	}
}
